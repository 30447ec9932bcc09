package formats

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Decimal separators.
const (
	Point = "."
	Comma = ","
)

// numberReading is what one value can be as a number, with either decimal separator.
type numberReading struct {
	point, comma string // the JSON number with "." or "," as the decimal separator; "" when it cannot be read so
}

// currency marks stripped around a number: symbols and ISO codes.
var currencyWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`usd eur gbp chf jpy cny rmb inr brl mxn cad aud nzd sek nok dkk pln czk huf try idr myr
		vnd thb krw twd hkd sgd zar rub aed sar ils php kr zł zl zl. kč ft rp rm r$ us$ c$ a$ s$ hk$ nt$ dm fr sfr lei`) {
		currencyWords[w] = true
	}
}

func isCurrencySymbol(r rune) bool {
	return unicode.Is(unicode.Sc, r) // $ € £ ¥ ₹ ₩ ₫ ฿ ₺ ₽ ₪ …
}

// readNumber reads s with each decimal separator.
func readNumber(s string) numberReading {
	body, neg, ok := numberBody(s)
	if !ok {
		return numberReading{}
	}
	var r numberReading
	r.point = normalize(body, '.', neg)
	r.comma = normalize(body, ',', neg)
	return r
}

// numberBody strips sign, currency, percent and spaces around the digits: "(1,234.50 €)" →
// "1,234.50", negative.
func numberBody(s string) (string, bool, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", false, false
	}
	neg := false
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		neg, s = true, strings.TrimSpace(s[1:len(s)-1])
	}
	// currency words and symbols, percent, at either end
	for changed := true; changed; {
		changed = false
		t := strings.TrimSpace(s)
		if t != s {
			s, changed = t, true
		}
		for _, sep := range []string{" ", "\u00a0", "\u202f"} {
			if i := strings.Index(s, sep); i > 0 && currencyWords[s[:i]] {
				s, changed = s[i+len(sep):], true
			}
			if i := strings.LastIndex(s, sep); i > 0 && currencyWords[s[i+len(sep):]] {
				s, changed = s[:i], true
			}
		}
		if s != "" && s[0] >= 'a' && s[0] <= 'z' { // a code glued to the digits: usd12, r$5
			k := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' || r == '-' })
			if k > 1 && currencyWords[s[:k]] {
				s, changed = s[k:], true
			}
		}
		if r, n := utf8.DecodeRuneInString(s); n > 0 && (isCurrencySymbol(r) || r == '%') {
			s, changed = s[n:], true
		}
		if r, n := utf8.DecodeLastRuneInString(s); n > 0 && (isCurrencySymbol(r) || r == '%') {
			s, changed = s[:len(s)-n], true
		}
		if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && !neg {
			neg, s, changed = true, s[1:len(s)-1], true
		}
	}
	switch {
	case strings.HasPrefix(s, "-"), strings.HasPrefix(s, "\u2212"):
		neg = !neg
		s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "\u2212")
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasSuffix(s, "-"): // 1.234,56- (a debit in some bank exports)
		neg, s = !neg, s[:len(s)-1]
	}
	// currency between the sign and the digits: -$1,234
	if r, n := utf8.DecodeRuneInString(s); n > 0 && isCurrencySymbol(r) {
		s = s[n:]
	}
	s = strings.TrimSpace(s)
	if s == "" || s[0] < '0' && s[0] != '.' && s[0] != ',' || s[0] > '9' {
		return "", false, false
	}
	return s, neg, true
}

// normalize reads body with dec as the decimal separator and the other marks (, . space
// NBSP ' ’) as thousands separators in groups of three, and writes it as a JSON number; ""
// when body is not such a number.
func normalize(body string, dec byte, neg bool) string {
	var intPart, frac string
	if i := strings.LastIndexByte(body, dec); i >= 0 {
		intPart, frac = body[:i], body[i+1:]
		if frac == "" || !allDigits(frac) {
			// 1.5e3 with a point
			if dec == '.' && strings.ContainsAny(frac, "e") {
				if _, err := strconv.ParseFloat(body, 64); err == nil && isPlainExp(body) {
					return sign(neg) + body
				}
			}
			return ""
		}
	} else {
		intPart = body
	}
	if intPart == "" {
		intPart = "0"
	}
	digits, ok := ungroup(intPart, dec)
	if !ok {
		return ""
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		digits = "0"
	}
	out := digits
	if frac != "" {
		out += "." + frac
	}
	if _, err := strconv.ParseFloat(out, 64); err != nil {
		return "" // beyond float64: the caller reports it
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return out
}

func sign(neg bool) string {
	if neg {
		return "-"
	}
	return ""
}

func isPlainExp(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == '-' || c == '+') {
			return false
		}
	}
	return true
}

// ungroup removes thousands separators from the integer part: one kind of separator, first
// group of 1–3 digits, then groups of 3 (or the Indian 2s before the last 3: 12,34,567).
func ungroup(s string, dec byte) (string, bool) {
	if allDigits(s) {
		return s, true
	}
	var sep string
	for _, c := range []string{",", ".", " ", "\u00a0", "\u202f", "'", "’"} {
		if c[0] == dec && len(c) == 1 {
			continue
		}
		if strings.Contains(s, c) {
			if sep != "" {
				return "", false
			}
			sep = c
		}
	}
	if sep == "" {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, rest := 0, s; ; i++ {
		g, after, more := strings.Cut(rest, sep)
		if !allDigits(g) {
			return "", false
		}
		switch {
		case i == 0:
			if len(g) > 3 {
				return "", false
			}
		case !more:
			if len(g) != 3 {
				return "", false
			}
		default:
			if len(g) != 3 && !(len(g) == 2 && sep == ",") {
				return "", false
			}
		}
		b.WriteString(g)
		if !more {
			return b.String(), true
		}
		rest = after
	}
}

// ParseNumber reads s with decimal as its decimal separator ("" reads only values whose
// reading does not depend on it) and returns a JSON number.
func ParseNumber(s, decimal string) (string, bool) {
	r := readNumber(s)
	switch decimal {
	case Point:
		return r.point, r.point != ""
	case Comma:
		return r.comma, r.comma != ""
	}
	switch {
	case r.point != "" && r.comma != "" && r.point != r.comma:
		return "", false // 1,234 or 1.234: a thousand, or one and a bit
	case r.point != "":
		return r.point, true
	case r.comma != "":
		return r.comma, true
	}
	return "", false
}

// AmbiguousNumber reports a value read differently with either separator (1,234).
func AmbiguousNumber(s string) bool {
	r := readNumber(s)
	return r.point != "" && r.comma != "" && r.point != r.comma
}
