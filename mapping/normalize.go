// Package mapping suggests how source columns map onto a sheet's fields, and how source enum
// values map onto options, without an AI service: normalised names, abbreviations, a
// multilingual synonym dictionary, edit distance, field descriptions, sample values and the
// mappings people accepted before. Every suggestion says why it was made, and confidence is
// capped at 0.99.
package mapping

import (
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

var stripMarks = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)

// Normalize folds a header or key for comparison: accents removed, lower case, camelCase and
// separators split into single-space-separated words ("firstName", "First_Name" → "first name").
func Normalize(s string) string {
	s, _, _ = transform.String(stripMarks, s)
	s = strings.ReplaceAll(s, "ß", "ss")
	var b strings.Builder
	prevLower, prevSpace := false, true
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			if prevLower && !prevSpace {
				b.WriteByte(' ')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower, prevSpace = false, false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
			prevLower, prevSpace = unicode.IsLower(r), false
		case r == '#':
			if !prevSpace {
				b.WriteByte(' ')
			}
			b.WriteString("number ")
			prevLower, prevSpace = false, true
		default:
			if !prevSpace {
				b.WriteByte(' ')
			}
			prevLower, prevSpace = false, true
		}
	}
	return strings.TrimSpace(b.String())
}

// tokens splits a normalised string into words, expanding abbreviations.
func tokens(norm string) []string {
	var out []string
	for _, w := range strings.Fields(norm) {
		if exp, ok := abbreviations[w]; ok {
			out = append(out, strings.Fields(exp)...)
			continue
		}
		out = append(out, w)
	}
	return out
}

// levenshtein is the edit distance between a and b (runes).
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// similarity is 1 - edit distance / longer length, in [0, 1].
func similarity(a, b string) float64 {
	n := max(len([]rune(a)), len([]rune(b)))
	if n == 0 {
		return 0
	}
	return 1 - float64(levenshtein(a, b))/float64(n)
}

// canonicalKey is a field key's concept, or its normalised form when the dictionary has none.
func canonicalKey(k string) string {
	if c := concept(k); c != "" {
		return c
	}
	return strings.Join(tokens(Normalize(k)), " ")
}

// FamilySimilarity measures how alike two field structures are, in [0, 1]: the Jaccard index
// of their keys after each key is replaced by its concept ("Vorname" and "first_name" are the
// same member) or, failing that, its normalised spelling. Instructions written for one field
// set apply to sheets whose similarity reaches the threshold.
func FamilySimilarity(a, b []string) float64 {
	sa, sb := map[string]bool{}, map[string]bool{}
	for _, k := range a {
		sa[canonicalKey(k)] = true
	}
	for _, k := range b {
		sb[canonicalKey(k)] = true
	}
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	inter := 0
	for k := range sa {
		if sb[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(sa)+len(sb)-inter)
}
