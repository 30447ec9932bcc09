package mapping

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// stripMarks removes combining accents after canonical decomposition (é → e, ü → u, ş → s,
// ệ → e). Only the marks of the combining-diacritics blocks go: the voicing marks of
// Japanese kana (ド is not ト) and Thai vowel and tone marks carry meaning and stay, and
// Hangul syllables recompose as they were.
var stripMarks = transform.Chain(norm.NFD, runes.Remove(runes.Predicate(foldableMark)), norm.NFC)

func foldableMark(r rune) bool {
	switch {
	case r >= 0x0300 && r <= 0x036F, r >= 0x1AB0 && r <= 0x1AFF, r >= 0x1DC0 && r <= 0x1DFF,
		r >= 0x20D0 && r <= 0x20FF, r >= 0xFE20 && r <= 0xFE2F:
		return true
	}
	return false
}

// letters that decomposition leaves alone, and the number sign written as N° or Nº.
var foldSpecial = strings.NewReplacer(
	"ß", "ss", "ẞ", "SS", "æ", "ae", "Æ", "AE", "œ", "oe", "Œ", "OE", "ø", "o", "Ø", "O",
	"ł", "l", "Ł", "L", "đ", "d", "Đ", "D", "ı", "i",
	"N°", " No ", "n°", " no ", "Nº", " No ", "nº", " no ", "N.º", " No ", "n.º", " no ",
	"º", "o", "ª", "a",
)

// Normalize folds a header, key or value for comparison: accents removed, lower case,
// camelCase and letter/digit boundaries split, every other character a single space
// ("MailingPostalCode" → "mailing postal code", "E-Mail_1" → "e mail 1", "Employee #" →
// "employee number"). Stored history keys are normalised with it.
func Normalize(s string) string {
	if isASCIILowerWord(s) {
		return s
	}
	s = foldSpecial.Replace(s)
	if !isASCII(s) {
		s, _, _ = transform.String(stripMarks, s)
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	spaced := true // nothing written yet, or the last byte is a space
	space := func() {
		if !spaced {
			b.WriteByte(' ')
			spaced = true
		}
	}
	for i, r := range rs {
		var prev, next rune
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case unicode.IsLetter(r):
			if unicode.IsDigit(prev) || (unicode.IsUpper(r) && unicode.IsLower(prev)) ||
				(unicode.IsUpper(r) && unicode.IsLower(next) && upperRun(rs, i) >= 2) {
				space()
			}
			b.WriteRune(unicode.ToLower(r))
			spaced = false
		case unicode.In(r, unicode.Mn, unicode.Mc) && !spaced:
			b.WriteRune(r) // a mark kept inside a word (Thai vowels, kana voicing)
		case unicode.IsDigit(r):
			if unicode.IsLetter(prev) {
				space()
			}
			b.WriteRune(r)
			spaced = false
		case r == '#' && !unicode.IsLetter(next):
			space()
			b.WriteString("number ")
			spaced = true
		case r == '%':
			space()
			b.WriteString("percent ")
			spaced = true
		default:
			space()
		}
	}
	return strings.TrimSpace(b.String())
}

// upperRun counts the upper-case letters directly before rs[i].
func upperRun(rs []rune, i int) int {
	n := 0
	for j := i - 1; j >= 0 && unicode.IsUpper(rs[j]); j-- {
		n++
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isASCIILowerWord is the fast path for values that are already normalised words.
func isASCIILowerWord(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// stem removes English plural endings so "categories" and "category" compare equal.
func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

// levenshtein is the edit distance between a and b in runes, counting a swap of two
// neighbouring letters as one edit ("Compnay") — the optimal string alignment distance. It
// gives up and returns limit+1 as soon as the distance must exceed limit, which keeps fuzzy
// matching of wide sheets cheap.
func levenshtein(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// similarity is 1 − edit distance / length of the longer string, in [0, 1]; pairs below
// floor report 0 without computing the full distance.
func similarity(a, b string, floor float64) float64 {
	n := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
	if n == 0 {
		return 0
	}
	limit := int(float64(n) * (1 - floor))
	d := levenshtein(a, b, limit)
	if d > limit {
		return 0
	}
	return 1 - float64(d)/float64(n)
}

// noSpaceScript reports whether w holds letters of a script written without spaces between
// words: Han, kana, Hangul (whose compounds are glued) and Thai.
func noSpaceScript(w string) bool {
	for _, r := range w {
		if r >= 0x0E00 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai) {
			return true
		}
	}
	return false
}
