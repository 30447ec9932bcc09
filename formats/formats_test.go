package formats

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseDate(t *testing.T) {
	for _, c := range []struct{ in, order, want string }{
		{"23/08/1984", "", "1984-08-23"},
		{"23/08/1984", DMY, "1984-08-23"},
		{"23/08/1984", MDY, ""},
		{"05/08/1963", "", ""},
		{"05/08/1963", DMY, "1963-08-05"},
		{"05/08/1963", MDY, "1963-05-08"},
		{"12/12/2020", "", "2020-12-12"},
		{"31.12.2024", "", "2024-12-31"},
		{"1984-08-23", MDY, "1984-08-23"},
		{"23-08-84", "", "1984-08-23"},
		{"01/02/05", DMY, "2005-02-01"},
		{"23 Aug 1984", "", "1984-08-23"},
		{"Aug 23, 1984", "", "1984-08-23"},
		{"23. August 1984", "", "1984-08-23"},
		{"23 août 1984", "", "1984-08-23"},
		{"23 de agosto de 1984", "", "1984-08-23"},
		{"23 sierpnia 1984 r.", "", "1984-08-23"},
		{"23 ağustos 1984", "", "1984-08-23"},
		{"23 augusti 1984", "", "1984-08-23"},
		{"ngày 23 tháng 8 năm 1984", "", "1984-08-23"},
		{"23 ส.ค. 2527", "", "1984-08-23"},
		{"1984年8月23日", "", "1984-08-23"},
		{"1984년 8월 23일", "", "1984-08-23"},
		{"1984-08-23T14:05:00Z", "", "1984-08-23T14:05:00Z"},
		{"1984-08-23 14:05:00+0200", "", "1984-08-23T14:05:00+02:00"},
		{"08/23/1984 2:05 PM", "", "1984-08-23T14:05:00"},
		{"30/02/2024", DMY, ""},
		{"29/02/2024", DMY, "2024-02-29"},
		{"hello", DMY, ""},
		{"2024", DMY, ""},
	} {
		got, ok := ParseDate(c.in, c.order)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("ParseDate(%q, %q) = %q, %v; want %q", c.in, c.order, got, ok, c.want)
		}
	}
	if got, _ := Normalize("30917", "date", "serial"); got != "1984-08-23" {
		t.Errorf("serial 30917: %q", got)
	}
	if got, _ := Normalize("45000.5", "date", "serial"); got != "2023-03-15T12:00:00" {
		t.Errorf("serial 45000.5: %q", got)
	}
	if _, ok := Normalize("30917", "date", DMY); ok {
		t.Errorf("a bare number read as a date outside a serial column")
	}
}

func TestParseNumber(t *testing.T) {
	for _, c := range []struct{ in, dec, want string }{
		{"621,113.00", "", "621113.00"},
		{"1,5", "", "1.5"},
		{"1.234,56 €", "", "1234.56"},
		{"1 234,56", "", "1234.56"},
		{"1'234.50", "", "1234.50"},
		{"$1,234.56", "", "1234.56"},
		{"(45.00)", "", "-45.00"},
		{"-$1,234", Point, "-1234"},
		{"1.234,56-", "", "-1234.56"},
		{"12.5%", "", "12.5"},
		{"EUR 99,90", "", "99.90"},
		{"USD 1,000.00", "", "1000.00"},
		{"R$ 1.234,56", "", "1234.56"},
		{"12,34,567", Point, "1234567"},
		{"1,234", "", ""},
		{"1,234", Point, "1234"},
		{"1,234", Comma, "1.234"},
		{"1234", "", "1234"},
		{"007", "", "7"},
		{"0.5", "", "0.5"},
		{"1.5e3", "", "1.5e3"},
		{"1,23", Point, ""},
		{"abc", "", ""},
		{"1.2.3", Comma, ""},
	} {
		got, ok := ParseNumber(c.in, c.dec)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("ParseNumber(%q, %q) = %q, %v; want %q", c.in, c.dec, got, ok, c.want)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{"Yes": true, "nein": false, "oui": true, "Sí": true, "não": false, "1": true, "0": false, "はい": true, "아니오": false, "tak": true, "nej": false, "evet": true} {
		if got, ok := ParseBool(in); !ok || got != want {
			t.Errorf("ParseBool(%q) = %v, %v", in, got, ok)
		}
	}
	if _, ok := ParseBool("maybe"); ok {
		t.Error("maybe read as a boolean")
	}
}

func column(values ...string) *Column {
	c := &Column{}
	for _, v := range values {
		c.Add(v)
	}
	return c
}

func TestInferColumn(t *testing.T) {
	r := column("23/08/1984", "12/10/1980", "05/08/1963", "").Date()
	if r.Format != DMY || r.Proof != 1 || r.Ambiguous || r.Readable != 3 || r.Values != 3 {
		t.Errorf("a D/M/Y column: %+v", r)
	}
	r = column("12/10/1980", "05/08/1963").Date()
	if r.Format != DMY || !r.Ambiguous || r.Proof != 0 {
		t.Errorf("an ambiguous column: %+v", r)
	}
	r = column("12/31/2024", "01/15/2024", "02/03/2024").Date()
	if r.Format != MDY || r.Proof != 2 || r.Ambiguous {
		t.Errorf("a M/D/Y column: %+v", r)
	}
	r = column("12/31/2024", "31/12/2024", "30/12/2024").Date()
	if r.Format != DMY || r.Against != 1 || !r.Ambiguous {
		t.Errorf("a column that disagrees: %+v", r)
	}
	r = column("30917", "45000").Date()
	if r.Format != "serial" || r.Readable != 2 {
		t.Errorf("serials: %+v", r)
	}
	n := column("621,113.00", "1,000", "12").Number()
	if n.Format != Point || n.Proof != 1 || n.Ambiguous || n.Readable != 3 {
		t.Errorf("a point column: %+v", n)
	}
	n = column("1.234,56", "1,5", "7").Number()
	if n.Format != Comma || n.Proof != 2 || n.Readable != 3 {
		t.Errorf("a comma column: %+v", n)
	}
	n = column("1,234", "5,678").Number()
	if !n.Ambiguous {
		t.Errorf("an ambiguous number column: %+v", n)
	}
}

// BenchmarkColumnAdd is the cost of inference per value over a mix like an 8-column CRM
// export: names, e-mails, dates, amounts, codes.
func BenchmarkColumnAdd(b *testing.B) {
	vals := []string{"Ada Lovelace", "ada@example.com", "23/08/1984", "621,113.00", "DE-4711", "yes", "Berlin", "+49 30 1234567"}
	var c Column
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c.Add(vals[i%len(vals)])
	}
}

func TestDisplayFollowsTheLanguage(t *testing.T) {
	cases := []struct{ lang, stored, want string }{
		{"en", "1984-08-23", "Aug 23, 1984"},
		{"de", "1984-08-23", "23.08.1984"},
		{"jp", "1984-08-23", "1984/08/23"},
		{"fr", "1984-08-23", "23 août 1984"},
		{"xx", "1984-08-23", "Aug 23, 1984"},
		{"en", "2024-03-01T09:30:00Z", "Mar 1, 2024 9:30 am UTC"},
		{"de", "2024-03-01T09:30:00+02:00", "01.03.2024 09:30 +02:00"},
	}
	for _, c := range cases {
		got, ok := Display(c.lang, c.stored)
		if !ok || got != c.want {
			t.Errorf("Display(%q, %q) = %q, %v; want %q", c.lang, c.stored, got, ok, c.want)
		}
	}
	for _, s := range []string{"23/08/1984", "1984-13-40", "", "tomorrow", "1984-08-23T99"} {
		if got, ok := Display("en", s); ok {
			t.Errorf("Display(en, %q) = %q; want it shown as stored", s, got)
		}
	}
}

// addCommon's shortcuts count exactly what the general readers count, over the shapes it
// takes and their near misses.
func TestAddCommonIsExact(t *testing.T) {
	corpus := []string{"0", "1", "2", "7", "12", "007", "0.5", "00.50", "123456", "2958465", "2958466", "99999999999", "19840823", "12345678",
		"1.5", "1.23", "1.234", "12.345", "412.345", "1234.567", "100.000", "-123", "-12.50", "-12.345", "-19840823", "-0", "-0.50", "-00.5", "-", "-.5", "-5.", "-1-2", "0.37", "0.123", "0.1234", "0.0", "0.00", "00.5", "1234.567", "123.4567", ".5", "5.", "1.2.3", "12.05", "31.12", "45292.75", "1e5", "10am", "23rd",
		"2024-03-05", "2024-02-30", "2024-13-01", "1984-8-23", "2024-03-05T10:00", "20-03-2024", "2024-03", "-12", "-1.5", "1-2",
		"First123", "Last9", "Aug2024", "June12", "Sept2024", "usd12", "eur1.5", "Item-42", "abc", "ABCD", "AB12", "abcd12.5", "abcd-12"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "0123456789.-/aZmr"
	for range 20000 {
		n := 1 + r.IntN(11)
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		corpus = append(corpus, string(b))
	}
	for i := range 3000 {
		corpus = append(corpus, fmt.Sprintf("%04d-%02d-%02d", 1900+i%200, i%14, i%33), fmt.Sprintf("%d.%0*d", i, 1+i%4, i%1000), fmt.Sprint(i*977))
		sep := string("/.-"[i%3])
		corpus = append(corpus, fmt.Sprintf("%d%s%0*d%s%d", i%35, sep, 1+i%2, (i/7)%35, sep, []int{1984, 2024, 84, 999, 10000}[i%5]))
	}
	for _, s := range corpus {
		var fast, slow Column
		fast.Add(s)
		slow.addGeneral(s)
		if fast != slow {
			t.Fatalf("%q: shortcut counts %+v, the readers %+v", s, fast, slow)
		}
	}
}

// ParseBool's shortcuts (ASCII lower-cased on the stack; other words lower-cased only when
// they may be an answer) answer as lower-casing every word would.
func TestParseBoolShortcutsAreExact(t *testing.T) {
	var corpus []string
	for _, words := range []map[string]bool{trueWords, falseWords} {
		for w := range words {
			r := []rune(w)
			capital := strings.ToUpper(string(r[:1])) + string(r[1:])
			corpus = append(corpus, w, strings.ToUpper(w), capital, " "+w+" ", w+" x")
		}
	}
	corpus = append(corpus, "São Paulo", "Zürich", "Kraków", "ÍA", "SÍ", "Sí", "NÃO", "Não", "ĐÚNG", "Evet", "DOĞRU", "İya", "", " ", "x y", "yes no")
	for _, s := range corpus {
		w := strings.ToLower(strings.TrimSpace(s))
		wantV, wantOK := trueWords[w], trueWords[w] || falseWords[w]
		if v, ok := ParseBool(s); v != wantV || ok != wantOK {
			t.Errorf("ParseBool(%q) = %v, %v; lower-casing reads %v, %v", s, v, ok, wantV, wantOK)
		}
	}
}

// The inference's shortcuts before the date and number readers (mayBeDate, mayBeNumber)
// turn away only what the readers would not read: texts of date and number words, digits,
// separators, times, zones, currencies and parentheses, and the month and day names.
func TestReaderShortcutsAreExact(t *testing.T) {
	var words []string
	for w := range months {
		words = append(words, w, strings.ToUpper(w))
	}
	for w := range weekdays {
		words = append(words, w)
	}
	for w := range currencyWords {
		if strings.ContainsAny(w, "0123456789()") {
			t.Fatalf("currency word %q has a digit or parenthesis: mayBeNumber assumes none", w)
		}
		words = append(words, w)
	}
	words = append(words, "de", "del", "of", "the", "thg", "tháng", "am", "PM", "T", "t", "Z", "utc", "GMT", "Main", "note", "x")
	pieces := []string{"1", "12", "2024", "84", "05", "999", "0", "1,234", "3.5", "19840823", "/", "-", ".", ":", " ", ", ", "(", ")", "+", "$", "€", "%", "'", "\u00a0"}
	r := rand.New(rand.NewPCG(3, 4))
	corpus := []string{"+1 (555) 123-4567", `12 "Main" St, Apt 3`, "note 5: call back, maybe", "Company 1234", "(1,234.50)", "(12) usd", "$(12)",
		"Aug 23, 1984 10:30 pm", "23/08/1984 14:05", "1984-08-23T14:05:00+02:00", "2024-01-02 10:11:12.123 utc", "Mon, 23 Aug 1984", "23 thg 8 2024", "the 5th of May 2024"}
	for range 60000 {
		var b strings.Builder
		for range 1 + r.IntN(7) {
			if r.IntN(3) == 0 {
				b.WriteString(words[r.IntN(len(words))])
			} else {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
		}
		corpus = append(corpus, b.String())
	}
	for i := range 3000 { // plain numbers, which addDate counts as serial dates without reading them
		corpus = append(corpus, fmt.Sprint(i*7919%3000000), fmt.Sprintf("%d.%d", i*31, i%1000), fmt.Sprintf("0.%03d", i), fmt.Sprintf("%08d", i*9973))
	}
	dates, numbers := 0, 0
	for _, s := range corpus {
		var short, full Column
		short.addDate(strings.TrimSpace(s))
		full.countDate(readAnyDate(s), strings.TrimSpace(s))
		if short != full {
			t.Errorf("addDate(%q) counts %+v; reading the date %+v", s, short, full)
		}
		if d := readAnyDate(s); d.ok {
			dates++
			if readDate(s) != d {
				t.Errorf("readDate(%q) = %+v; without its shortcut %+v", s, readDate(s), d)
			}
		}
		if n := readNumber(s); n.point != "" || n.comma != "" {
			numbers++
			if !mayBeNumber(s) {
				t.Errorf("mayBeNumber(%q) is false; readNumber reads it", s)
			}
		}
	}
	if dates < 500 || numbers < 500 {
		t.Fatalf("the corpus holds %d dates and %d numbers: too few to tell", dates, numbers)
	}
}
