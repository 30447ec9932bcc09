package mapping

import (
	"regexp"
	"strings"
	"unicode"
)

// kind is what a sample value looks like.
type kind int

const (
	kindText kind = iota
	kindEmail
	kindURL
	kindDate
	kindNumber
	kindBoolean
	kindPhone
	kindIBAN
	kindCurrency
	kindCountry
	kindHashNumber // "#1001", the way shops print order numbers
	nKinds
)

// kindCodes name the kinds in a reason's args (the wizard's "map.kind.<code>").
var kindCodes = [nKinds]string{"text", "email", "url", "date", "number", "boolean", "phone", "iban", "currency", "country", "hash_number"}

var kindNames = [nKinds]string{"text", "e-mail addresses", "web addresses", "dates", "numbers", "yes/no values", "phone numbers", "IBANs", "currency codes", "countries", "#-numbers"}

var (
	reEmail = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[a-zA-Z]{2,}$`)
	reURL   = regexp.MustCompile(`^(?i)(https?://|www\.)\S+$|^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|net|de|fr|es|it|nl|pt|uk|io|co|eu|ch|at|be|br|us|info|biz|shop)(/\S*)?$`)
	reDate  = regexp.MustCompile(`^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2})?(\.\d+)?(Z|[ ]?[+-]\d{2}:?\d{2})?)?|\d{1,2}[-/.]\d{1,2}[-/.](\d{4}|\d{2})( \d{1,2}:\d{2}(:\d{2})?)?|\d{1,2}[ .-]?[A-Za-z]{3,9}\.?[ .-]?\d{2,4}|[A-Za-z]{3,9}\.? \d{1,2},? \d{4}|(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01]))$`)
	reNum   = regexp.MustCompile(`^[-+(]?\s?([$€£¥]|[A-Z]{3})?\s?[-+]?(\d{1,3}([.,' \x{a0}]\d{3})+|\d+)([.,]\d+)?\s?%?\)?\s?([$€£¥]|[A-Z]{3})?$`)
	rePhone = regexp.MustCompile(`^(\+|00)?[\d\s().\-/]{6,22}$`)
	reIBAN  = regexp.MustCompile(`^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$`)
	reHash  = regexp.MustCompile(`^#\d+$`)
)

var booleanWords = map[string]bool{
	"true": true, "false": true, "yes": true, "no": true, "y": true, "n": true, "ja": true, "nein": true,
	"oui": true, "non": true, "si": true, "sim": true, "nao": true, "nee": true, "vero": true, "falso": true,
	"wahr": true, "falsch": true, "vrai": true, "faux": true, "x": true,
}

// classify tells what one non-empty sample looks like.
func classify(v string) kind {
	v = strings.TrimSpace(v)
	switch {
	case reEmail.MatchString(v):
		return kindEmail
	case reURL.MatchString(v):
		return kindURL
	case reHash.MatchString(v):
		return kindHashNumber
	case reIBAN.MatchString(strings.ReplaceAll(v, " ", "")) && len(v) >= 15:
		return kindIBAN
	case booleanWords[strings.ToLower(v)] || v == "0" || v == "1":
		return kindBoolean
	case reDate.MatchString(v):
		return kindDate
	case reNum.MatchString(v):
		if looksLikePhone(v) {
			return kindPhone
		}
		return kindNumber
	case rePhone.MatchString(v) && looksLikePhone(v):
		return kindPhone
	case len(v) == 3 && currencyCodes[v]:
		return kindCurrency
	case countryOf(v) != "":
		return kindCountry
	}
	return kindText
}

// looksLikePhone wants enough digits and the punctuation people put in phone numbers.
func looksLikePhone(v string) bool {
	digits := 0
	for _, r := range v {
		if unicode.IsDigit(r) {
			digits++
		}
	}
	if digits < 7 || digits > 15 {
		return false
	}
	return strings.HasPrefix(v, "+") || strings.HasPrefix(v, "(") || strings.HasPrefix(v, "0") && strings.ContainsAny(v, " -/") ||
		strings.Count(v, "-") >= 2 || strings.Count(v, " ") >= 2 || strings.Count(v, "-") == 1 && !strings.ContainsAny(v, ".,")
}

// profile is the share of a column's non-empty samples of each kind.
type profile struct {
	n      int // non-empty samples
	binary int // samples that are 0 or 1
	share  [nKinds]float64
	vals   []string // distinct non-empty samples
	norms  []string // vals normalised
}

func profileOf(samples []string) profile {
	var p profile
	seen := map[string]bool{}
	var count [nKinds]int
	for _, s := range samples {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		p.n++
		k := classify(s)
		count[k]++
		if k == kindBoolean && (s == "0" || s == "1") {
			p.binary++
		}
		if !seen[s] {
			seen[s] = true
			p.vals = append(p.vals, s)
			p.norms = append(p.norms, Normalize(s))
		}
	}
	for k := range count {
		if p.n > 0 {
			p.share[k] = float64(count[k]) / float64(p.n)
		}
	}
	return p
}

// dominant is the kind most samples have, if at least 60% do.
func (p profile) dominant() (kind, bool) {
	best, share := kindText, 0.0
	for k, s := range p.share {
		if s > share {
			best, share = kind(k), s
		}
	}
	return best, p.n > 0 && share >= 0.6
}

// numeric reports whether the samples read as numbers; 0 and 1 count as numbers too.
func (p profile) numeric() bool {
	return p.n > 0 && p.share[kindNumber]+p.share[kindHashNumber]+float64(p.binary)/float64(p.n) >= 0.6
}

// onlyBinary reports whether every sample is 0 or 1, which could as well be a yes/no flag.
func (p profile) onlyBinary() bool {
	return p.n > 0 && p.binary == p.n
}

// hasLetters reports whether most samples contain letters (names, streets, cities).
func (p profile) hasLetters() bool {
	n := 0
	for _, v := range p.vals {
		for _, r := range v {
			if unicode.IsLetter(r) {
				n++
				break
			}
		}
	}
	return len(p.vals) > 0 && float64(n)/float64(len(p.vals)) >= 0.6
}
