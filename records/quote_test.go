package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// A row's cells share one buffer: each must still decode to its own text, and appending to
// one must not overwrite the next.
func TestQuoteRowSharesOneBuffer(t *testing.T) {
	row := []string{"a", "", `q"uote`, "Müller", "", "z"}
	out := QuoteRow(row)
	if len(out) != len(row) {
		t.Fatalf("got %d values for %d cells", len(out), len(row))
	}
	_ = append(out[0], 'X')
	for i, s := range row {
		if s == "" {
			if string(out[i]) != "null" {
				t.Errorf("cell %d: got %s, want null", i, out[i])
			}
			continue
		}
		var got string
		if err := json.Unmarshal(out[i], &got); err != nil || got != s {
			t.Errorf("cell %d: %s decodes to %q (%v), want %q", i, out[i], got, err, s)
		}
	}
}

// QuoteRow allocates for its row alone (a call once took a Quoter's 128 kB chunks: the
// records benchmark made 12 GB of garbage a 100,000 rows).
func TestQuoteRowAllocatesForItsRow(t *testing.T) {
	row := []string{"person42@example.com", "Ann", "", "42", `q"uote`, "Bern", "2026-01-02", "x"}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 1000
	for range n {
		_ = QuoteRow(row)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 1024 {
		t.Fatalf("%d bytes allocated a row of %d cells", per, len(row))
	}
}

// encodingJSONQuote is what AppendQuote must write: encoding/json's Encoder, HTML escaping
// off, without its newline.
func encodingJSONQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// quoteSamples are strings over every class of character AppendQuote and canonicalString
// treat apart: controls with and without short escapes, quote, backslash, HTML characters,
// DEL, accents, U+2028/9, U+FFFD written out, invalid and cut-off UTF-8.
func quoteSamples() []string {
	out := []string{"", "plain", `q"uote`, `back\slash`, "tab\tnew\nret\rbs\bff\f", "\x00\x01\x1f\x7f",
		"<a href='x'>&amp;</a>", "Müller", "日本語", "\u2028\u2029", "\ufffd", "\xff", "ab\xe2\x80", "\xed\xa0\x80",
		"emoji 🎉", "\\u00e9", `"\"\\"`}
	alphabet := []string{"a", "Z", "0", " ", `"`, `\`, "\x00", "\x08", "\x0c", "\n", "\x1b", "\x7f", "é", "€", "\u2028", "\u2029",
		"\ufffd", "\xff", "\xc3", "🎉", "<", "&", "/"}
	r := rand.New(rand.NewPCG(17, 1))
	for range 4000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		out = append(out, b.String())
	}
	return out
}

func TestAppendQuoteAsEncodingJSON(t *testing.T) {
	for _, s := range quoteSamples() {
		if got, want := string(AppendQuote([]byte("x"), s)), "x"+encodingJSONQuote(s); got != want {
			t.Errorf("AppendQuote(%q) = %s, want %s", s, got, want)
		}
	}
}

// A stored string is kept as given exactly when it is already what Quote writes of its
// text; any other spelling of it (escapes encoding/json would not write, raw characters it
// escapes, bad UTF-8, bad escapes) is decoded and quoted again.
func TestCanonicalKeepsOnlyQuotesForm(t *testing.T) {
	var spellings []string
	for _, s := range quoteSamples() {
		q := encodingJSONQuote(s)
		m, _ := json.Marshal(s) // HTML escaped: \u003c \u0026 \u003e
		spellings = append(spellings, q, string(m), `"`+s+`"`, strings.ReplaceAll(q, `\n`, `\u000a`),
			strings.ReplaceAll(q, `\u001b`, `\u001B`), strings.ReplaceAll(q, "/", `\/`), strings.ReplaceAll(q, "é", `\u00e9`))
	}
	spellings = append(spellings, `"\u0008"`, `"\u000c"`, `"\u000d"`, `"\u0009"`, `"\u0020"`, `"\u2028"`, `"\u202a"`, `"\ud83c\udf89"`,
		`"\x"`, `"\u12"`, `"abc\"`, `"\"`, `"`, `"a"b"`)
	for _, v := range spellings {
		var text string
		decoded := json.Unmarshal([]byte(v), &text) == nil
		want := decoded && string(Quote(text)) == v
		if got := canonicalString([]byte(v)); got != want {
			t.Errorf("canonicalString(%s) = %v, want %v", v, got, want)
		}
		got := Canonical(json.RawMessage(v))
		switch {
		case want && string(got) != v:
			t.Errorf("Canonical(%s) = %s, want it kept", v, got)
		case decoded && string(got) != string(Quote(text)):
			t.Errorf("Canonical(%s) = %s, want %s", v, got, Quote(text))
		case !decoded && string(got) != string(Quote(v)):
			t.Errorf("Canonical(%s) = %s, want its text quoted", v, got)
		}
	}
}

func FuzzCanonicalString(f *testing.F) {
	for _, s := range quoteSamples()[:40] {
		f.Add(encodingJSONQuote(s))
	}
	f.Fuzz(func(t *testing.T, v string) {
		var text string
		want := json.Unmarshal([]byte(v), &text) == nil && string(Quote(text)) == v
		if got := canonicalString([]byte(v)); got != want {
			t.Errorf("canonicalString(%q) = %v, want %v", v, got, want)
		}
		if got, want := string(AppendQuote(nil, v)), encodingJSONQuote(v); got != want {
			t.Errorf("AppendQuote(%q) = %s, want %s", v, got, want)
		}
	})
}

// Rows quoted one after another share the Quoter's buffers: each keeps its own values,
// whatever the rows after it hold (escapes that outgrow a buffer, rows longer than one) and
// whatever is appended to a value.
func TestQuoterRowsKeepTheirValues(t *testing.T) {
	var q Quoter
	r := rand.New(rand.NewPCG(5, 6))
	var rows [][]string
	var got [][]json.RawMessage
	for i := range 3000 {
		row := make([]string, 1+r.IntN(12))
		for j := range row {
			switch r.IntN(6) {
			case 0: // empty
			case 1:
				row[j] = strings.Repeat(`"\`, r.IntN(2000)) // doubles when quoted
			case 2:
				row[j] = strings.Repeat("x", r.IntN(quoterChunk+10))
			default:
				row[j] = fmt.Sprintf("cell %d.%d Müller\n", i, j)
			}
		}
		rows = append(rows, row)
		got = append(got, q.Row(row))
	}
	for _, vals := range got {
		_ = append(vals, json.RawMessage("x"))
		for _, v := range vals {
			_ = append(v, 'X')
		}
	}
	for i, row := range rows {
		if len(got[i]) != len(row) {
			t.Fatalf("row %d: %d values for %d cells", i, len(got[i]), len(row))
		}
		for j, c := range row {
			want := "null"
			if c != "" {
				want = string(Quote(c))
			}
			if string(got[i][j]) != want {
				t.Fatalf("row %d cell %d: %.40s…, want %.40s…", i, j, got[i][j], want)
			}
		}
	}
}
