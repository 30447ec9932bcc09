// Package formats reads the dates, numbers and booleans of imported files the way people
// write them (23/08/1984, 1.234,56 €, (45.00), ja/nein), infers a column's format from every
// one of its values, and refuses to guess where the values do not decide.
package formats

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Date orders: how the three numbers of 05/08/1963 are read.
const (
	DMY = "DMY" // day/month/year
	MDY = "MDY" // month/day/year
	YMD = "YMD" // year-month-day (ISO and CJK dates: never ambiguous)
)

// pivot is the two-digit-year pivot, as Excel's: 00–29 are 2000–2029, 30–99 are 1930–1999.
const pivot = 30

// dateReading is what one value can be as a date.
type dateReading struct {
	ok      bool
	orders  uint8 // bit set of the orders that read it (dmyBit, mdyBit); 0 when the order is fixed
	y, m, d int   // for the fixed reading, or the DMY reading when orders has both
	alt     [3]int
	time    string // "T15:04:05" and a zone ("Z", "+02:00"), or ""
	serial  bool   // an Excel serial number
}

const (
	dmyBit uint8 = 1 << iota
	mdyBit
)

// mayBeDate is false for an ASCII text readDate would not read, found without its copies
// (inference asks it of every value with a digit: issue 17): before its time of day, a
// date has one to three runs of digits, and its runs of letters are all month names, day
// names or the words the reader skips.
func mayBeDate(s string) bool {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		// a time of day starts after the last space or T before the first colon; what
		// comes before is the date (splitTime)
		start := strings.LastIndexAny(s[:i], " tT")
		if start < 0 {
			return false
		}
		s = s[:start]
	}
	runs := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if runs++; runs > 3 {
				return false
			}
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				j++
			}
			var buf [16]byte
			if j-i > len(buf) {
				return false // longer than any word of a date
			}
			w := buf[:j-i]
			for k := range w {
				w[k] = s[i+k] | 0x20
			}
			if months[string(w)] == 0 && !weekdays[string(w)] && !dateWords[string(w)] {
				return false
			}
			i = j
		default:
			i++
		}
	}
	return true
}

// dateWords are the words a date may hold besides month and day names (readDate).
var dateWords = map[string]bool{"de": true, "del": true, "of": true, "the": true, "thg": true}

// readDate reads s as a date in any order it allows.
func readDate(s string) dateReading {
	if t := strings.TrimSpace(s); isASCII(t) && !mayBeDate(t) {
		return dateReading{}
	}
	return readAnyDate(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// readAnyDate is readDate without its shortcut.
func readAnyDate(s string) dateReading {
	s = strings.TrimSpace(s)
	if s == "" {
		return dateReading{}
	}
	low := s
	ascii := true
	for i := 0; i < len(s); i++ {
		if b := s[i]; b >= 0x80 {
			ascii = false
		} else if b >= 'A' && b <= 'Z' && low == s {
			low = strings.ToLower(s)
		}
	}
	if !ascii {
		low = strings.ToLower(s)
		if r, ok := cjkDate(low); ok {
			return r
		}
	}
	for i, a := range thaiShort {
		if !ascii && strings.Contains(low, a) {
			low = strings.Replace(low, a, " "+monthLists[0][i]+" ", 1)
		}
	}
	// A lone number is an Excel serial date (days since 1899-12-30).
	if isNumber(low) && !(len(low) == 8 && allDigits(low)) {
		if v, err := strconv.ParseFloat(low, 64); err == nil && v >= 1 && v < 2958466 {
			y, m, d := serialDate(v)
			return dateReading{ok: true, y: y, m: m, d: d, serial: true, time: serialTime(v)}
		}
		return dateReading{}
	}
	datePart, tm, ok := splitTime(low)
	if !ok {
		return dateReading{}
	}
	toks := tokens(datePart)
	if len(toks) == 0 {
		return dateReading{}
	}
	if len(toks) == 1 && tm == "" {
		if len(toks[0]) == 8 && allDigits(toks[0]) { // 19840823
			y, _ := strconv.Atoi(toks[0][:4])
			m, _ := strconv.Atoi(toks[0][4:6])
			d, _ := strconv.Atoi(toks[0][6:])
			if valid(y, m, d) {
				return dateReading{ok: true, y: y, m: m, d: d, time: tm}
			}
		}
		return dateReading{}
	}
	var nums []string
	month := 0
	monthAt := -1
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case (t == "tháng" || t == "thg") && i+1 < len(toks) && allDigits(toks[i+1]) && month == 0: // Vietnamese: tháng 8
			month, monthAt = atoi(toks[i+1]), i
			i++
			if month > 12 {
				return dateReading{}
			}
		case allDigits(t):
			nums = append(nums, t)
		case monthNumber(t) > 0 && month == 0:
			month, monthAt = monthNumber(t), i
		case weekday(t) || t == "de" || t == "del" || t == "of" || t == "the":
		default:
			return dateReading{}
		}
	}
	if month > 0 {
		if len(nums) != 2 {
			return dateReading{}
		}
		a, b := nums[0], nums[1]
		var ys, ds string
		switch {
		case len(a) == 4:
			ys, ds = a, b
		case len(b) == 4 || monthAt > 0:
			ys, ds = b, a
		default:
			ys, ds = b, a
		}
		y, d := year(ys), atoi(ds)
		if !valid(y, month, d) {
			return dateReading{}
		}
		return dateReading{ok: true, y: y, m: month, d: d, time: tm}
	}
	if len(nums) != 3 {
		return dateReading{}
	}
	if len(nums[0]) == 4 { // 1984-08-23, 1984/08/23
		y, m, d := atoi(nums[0]), atoi(nums[1]), atoi(nums[2])
		if !valid(y, m, d) {
			return dateReading{}
		}
		return dateReading{ok: true, y: y, m: m, d: d, time: tm}
	}
	if len(nums[2]) != 4 && len(nums[2]) != 2 {
		return dateReading{}
	}
	a, b, y := atoi(nums[0]), atoi(nums[1]), year(nums[2])
	r := dateReading{time: tm}
	if valid(y, b, a) {
		r.orders |= dmyBit
		r.y, r.m, r.d = y, b, a
	}
	if valid(y, a, b) {
		r.orders |= mdyBit
		r.alt = [3]int{y, a, b}
		if r.orders == mdyBit {
			r.y, r.m, r.d = y, a, b
		}
	}
	r.ok = r.orders != 0
	return r
}

// in returns the reading in order, and whether the value can be read that way.
func (r dateReading) in(order string) (y, m, d int, ok bool) {
	if !r.ok {
		return 0, 0, 0, false
	}
	switch {
	case r.orders == 0:
		return r.y, r.m, r.d, true
	case order == DMY && r.orders&dmyBit != 0:
		return r.y, r.m, r.d, true
	case order == MDY && r.orders&mdyBit != 0:
		return r.alt[0], r.alt[1], r.alt[2], true
	}
	return 0, 0, 0, false
}

// ParseDate reads s in order (DMY or MDY; YMD reads only unambiguous values) and returns it
// as ISO 8601: YYYY-MM-DD, or with a time, YYYY-MM-DDTHH:MM:SS and the zone when it has one.
func ParseDate(s, order string) (string, bool) {
	r := readDate(s)
	if r.serial {
		return "", false // a bare number is a date only in a column of serials (Normalize)
	}
	return r.iso(order)
}

func (r dateReading) iso(order string) (string, bool) {
	if order == "" || order == YMD {
		switch {
		case r.orders == dmyBit|mdyBit && r.d != r.alt[2]:
			return "", false // 05/08/1963 needs an order
		case r.orders&dmyBit != 0:
			order = DMY
		case r.orders == mdyBit:
			order = MDY
		}
	}
	y, m, d, ok := r.in(order)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d) + r.time, true
}

// Ambiguous reports a date that reads both as day/month and month/day (05/08/1963).
func Ambiguous(s string) bool {
	r := readDate(s)
	return r.orders == dmyBit|mdyBit && r.d != r.alt[2]
}

func cjkDate(s string) (dateReading, bool) {
	for _, marks := range [][3]string{{"年", "月", "日"}, {"년", "월", "일"}} {
		yi := strings.Index(s, marks[0])
		mi := strings.Index(s, marks[1])
		if yi <= 0 || mi <= yi {
			continue
		}
		ys := strings.TrimSpace(s[:yi])
		ms := strings.TrimSpace(s[yi+len(marks[0]) : mi])
		rest := s[mi+len(marks[1]):]
		di := strings.Index(rest, marks[2])
		if di < 0 {
			return dateReading{}, true
		}
		ds := strings.TrimSpace(rest[:di])
		y, m, d := atoi(ys), atoi(ms), atoi(ds)
		if !allDigits(ys) || !allDigits(ms) || !allDigits(ds) || !valid(y, m, d) {
			return dateReading{}, true
		}
		_, tm, ok := splitTime(strings.TrimSpace(rest[di+len(marks[2]):]))
		if !ok {
			return dateReading{}, true
		}
		return dateReading{ok: true, y: y, m: m, d: d, time: tm}, true
	}
	return dateReading{}, false
}

// splitTime cuts a trailing time of day (and zone) off s: "1984-08-23t14:05:00+02:00",
// "23/08/1984 2:05 pm". The time comes back as "T14:05:00" plus the zone.
func splitTime(s string) (string, string, bool) {
	i := strings.IndexByte(s, ':')
	if i < 0 {
		return s, "", true
	}
	// the time starts at the last space or 't' before the first colon
	start := strings.LastIndexAny(s[:i], " t")
	if start < 0 {
		return "", "", false
	}
	date, rest := strings.TrimRight(s[:start], " ,"), strings.TrimSpace(s[start+1:])
	zone := ""
	switch {
	case strings.HasSuffix(rest, "z"):
		zone, rest = "Z", strings.TrimSpace(strings.TrimSuffix(rest, "z"))
	case strings.HasSuffix(rest, "utc"), strings.HasSuffix(rest, "gmt"):
		zone, rest = "Z", strings.TrimSpace(rest[:len(rest)-3])
	default:
		if j := strings.LastIndexAny(rest, "+-"); j > 0 {
			z := strings.ReplaceAll(rest[j+1:], ":", "")
			if len(z) == 4 && allDigits(z) {
				zone = rest[j:j+1] + z[:2] + ":" + z[2:]
				rest = strings.TrimSpace(rest[:j])
			}
		}
	}
	pm, am := strings.HasSuffix(rest, "pm"), strings.HasSuffix(rest, "am")
	if pm || am {
		rest = strings.TrimSpace(rest[:len(rest)-2])
	}
	if k := strings.IndexByte(rest, '.'); k >= 0 { // fractions of a second are dropped
		rest = rest[:k]
	}
	parts := strings.Split(rest, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return "", "", false
	}
	hms := [3]int{}
	for k, p := range parts {
		if !allDigits(p) || len(p) > 2 {
			return "", "", false
		}
		hms[k] = atoi(p)
	}
	if pm && hms[0] < 12 {
		hms[0] += 12
	} else if am && hms[0] == 12 {
		hms[0] = 0
	}
	if hms[0] > 23 || hms[1] > 59 || hms[2] > 59 {
		return "", "", false
	}
	return date, fmt.Sprintf("T%02d:%02d:%02d", hms[0], hms[1], hms[2]) + zone, true
}

// tokens splits a date into runs of digits and of letters; everything else separates. The
// tokens are slices of s.
func tokens(s string) []string {
	out := make([]string, 0, 4)
	start, kind := 0, 0 // kind: 0 separator, 1 digits, 2 letters
	for i, r := range s {
		k := 0
		switch {
		case r >= '0' && r <= '9':
			k = 1
		case r >= 'a' && r <= 'z' || r >= 0x80 && (unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)):
			k = 2
		}
		if k != kind {
			if kind != 0 {
				out = append(out, s[start:i])
			}
			start, kind = i, k
		}
	}
	if kind != 0 {
		out = append(out, s[start:])
	}
	return out
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	dot := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' && !dot:
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func year(s string) int {
	y := atoi(s)
	if len(s) == 2 {
		if y < pivot {
			return 2000 + y
		}
		return 1900 + y
	}
	if y > 2400 { // the Thai solar calendar (พ.ศ.) counts 543 years ahead
		y -= 543
	}
	return y
}

var daysIn = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func valid(y, m, d int) bool {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > daysIn[m] {
		return false
	}
	return m != 2 || d < 29 || y%4 == 0 && (y%100 != 0 || y%400 == 0)
}

// serialDate turns an Excel serial (1900 date system, day 1 is 1900-01-01 counting Excel's
// phantom 1900-02-29) into a calendar date.
func serialDate(v float64) (int, int, int) {
	t := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(v))
	return t.Year(), int(t.Month()), t.Day()
}

func serialTime(v float64) string {
	frac := v - float64(int(v))
	if frac == 0 {
		return ""
	}
	secs := int(frac*86400 + 0.5)
	return fmt.Sprintf("T%02d:%02d:%02d", secs/3600%24, secs/60%60, secs%60)
}
