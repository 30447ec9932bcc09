package formats

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Month names and their usual abbreviations in the 21 languages of the UI (English, French,
// German, Spanish, Italian, Portuguese, Dutch, Polish (nominative and genitive), Swedish,
// Turkish, Indonesian, Malay, Vietnamese, Thai); Chinese, Japanese and Korean write dates with
// 年/月/日 and 년/월/일, read by cjkDate. Written from the CLDR calendar data (cldr.unicode.org,
// gregorian months, format and stand-alone widths), lower-cased.
var monthLists = [][]string{
	{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"},
	{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"},
	{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
	{"janv", "févr", "mars", "avr", "mai", "juin", "juil", "août", "sept", "oct", "nov", "déc"},
	{"januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember"},
	{"jän", "feb", "mär", "apr", "mai", "jun", "jul", "aug", "sep", "okt", "nov", "dez"},
	{"jänner", "feber", "mrz", "", "", "", "", "", "sept", "", "", ""},
	{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
	{"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"},
	{"", "", "", "", "", "", "", "", "setiembre", "", "", ""},
	{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"},
	{"gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"},
	{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
	{"jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"},
	{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
	{"jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec"},
	{"styczeń", "luty", "marzec", "kwiecień", "maj", "czerwiec", "lipiec", "sierpień", "wrzesień", "październik", "listopad", "grudzień"},
	{"stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września", "października", "listopada", "grudnia"},
	{"sty", "lut", "mar", "kwi", "maj", "cze", "lip", "sie", "wrz", "paź", "lis", "gru"},
	{"januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december"},
	{"ocak", "şubat", "mart", "nisan", "mayıs", "haziran", "temmuz", "ağustos", "eylül", "ekim", "kasım", "aralık"},
	{"oca", "şub", "mar", "nis", "may", "haz", "tem", "ağu", "eyl", "eki", "kas", "ara"},
	{"januari", "februari", "maret", "april", "mei", "juni", "juli", "agustus", "september", "oktober", "november", "desember"},
	{"jan", "feb", "mar", "apr", "mei", "jun", "jul", "agt", "sep", "okt", "nov", "des"},
	{"januari", "februari", "mac", "april", "mei", "jun", "julai", "ogos", "september", "oktober", "november", "disember"},
	{"jan", "feb", "mac", "apr", "mei", "jun", "jul", "ogo", "sep", "okt", "nov", "dis"},
	{"มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน", "กรกฎาคม", "สิงหาคม", "กันยายน", "ตุลาคม", "พฤศจิกายน", "ธันวาคม"},
}

// Thai abbreviations carry dots (ม.ค.), which tokens() treats as separators: they are matched
// on the text before tokenizing, by thaiShort.
var thaiShort = []string{"ม.ค.", "ก.พ.", "มี.ค.", "เม.ย.", "พ.ค.", "มิ.ย.", "ก.ค.", "ส.ค.", "ก.ย.", "ต.ค.", "พ.ย.", "ธ.ค."}

var months = func() map[string]int {
	m := map[string]int{}
	for _, list := range monthLists {
		for i, name := range list {
			if name != "" {
				m[name] = i + 1
			}
		}
	}
	return m
}()

// monthNumber is the month a word names (1–12), or 0. "tháng" (Vietnamese) is handled by
// the caller.
func monthNumber(w string) int {
	return months[strings.TrimSuffix(w, ".")]
}

var weekdays = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`mon tue wed thu fri sat sun monday tuesday wednesday thursday friday saturday sunday
		lun mar mer jeu ven sam dim lundi mardi mercredi jeudi vendredi samedi dimanche
		mo di mi do fr sa so montag dienstag mittwoch donnerstag freitag samstag sonntag
		lunes martes miércoles jueves viernes sábado domingo
		ngày năm r`) {
		weekdays[w] = true
	}
}

// weekday reports words a date may carry that say nothing about it (day names, and the
// Vietnamese "ngày … tháng … năm" markers, whose numbers are read in D M Y order).
func weekday(w string) bool { return weekdays[w] }

// Booleans in the UI's languages: yes/no, true/false, 1/0, y/n, ja/nein, oui/non, sí/no …
var trueWords, falseWords = map[string]bool{}, map[string]bool{}

// boolWords is trueWords and falseWords in one map, each word to its value: a short word
// of a file is looked up once (inference asks of every one).
var boolWords = map[string]bool{}

// boolStarts are the first letters of trueWords and falseWords.
var boolStarts = map[rune]bool{}

func init() {
	for _, w := range strings.Fields(`true yes y t 1 on x ✓ ✔ ja wahr oui vrai sí si sim verdadeiro verdadero vero
		waar tak prawda evet doğru e ya iya benar có đúng ใช่ จริง はい 是 是的 對 对 예 네 참`) {
		trueWords[w] = true
	}
	for _, w := range strings.Fields(`false no n f 0 off nein falsch non faux não nao falso onwaar nee nie fałsz nej falskt
		hayır hayir yanlış tidak salah bukan không sai ไม่ เท็จ いいえ 否 不是 錯 错 아니오 아니요 거짓`) {
		falseWords[w] = true
	}
	for _, words := range []map[string]bool{trueWords, falseWords} {
		for w := range words {
			boolWords[w] = trueWords[w]
			r, _ := utf8.DecodeRuneInString(w)
			boolStarts[r] = true
		}
	}
}

// ParseBool reads a yes/no answer in any of the UI's languages.
func ParseBool(s string) (value, ok bool) {
	w := trimSpace(s)
	var buf [24]byte
	if len(w) <= len(buf) {
		// ASCII lower-cased on the stack: inference asks this of every short word
		ascii := true
		for i := 0; i < len(w) && ascii; i++ {
			b := w[i]
			if b >= 'A' && b <= 'Z' {
				b += 'a' - 'A'
			}
			buf[i], ascii = b, b < 0x80
		}
		if ascii {
			value, ok = boolWords[string(buf[:len(w)])]
			return value, ok
		}
	}
	// Not ASCII: lower-cased only when it is one word whose first letter may start an
	// answer (a city or a name seldom is).
	if r, _ := utf8.DecodeRuneInString(w); !boolStarts[unicode.ToLower(r)] || strings.IndexByte(w, ' ') >= 0 {
		return false, false
	}
	value, ok = boolWords[strings.ToLower(w)]
	return value, ok
}
