package mapping

import (
	"sort"
	"strings"
)

// DefaultFamilyThreshold is the similarity from which a sheet counts as a member of an
// instruction's mapping family.
const DefaultFamilyThreshold = 0.5

// FamilySimilarity measures how alike two field structures are, from 0 (nothing in common)
// to 1 (the same fields), to decide which mapping instructions a sheet receives.
//
// Every key is reduced to two forms: its spelling, normalised and without spaces
// ("firstName", "first_name" and "First Name" are the same), and its meaning, the sorted
// terms the suggestion engine reads in it ("Vorname", "fname" and "given_name" all mean
// first name; "zip" and "postal_code" both mean postal code). Duplicate spellings on one side
// count once. Keys of a and b are then paired one to one, first those with the same spelling,
// then those with the same meaning (so a synonym never takes the partner of an exact key).
// The similarity is the Jaccard index of the two sets under that pairing:
//
//	pairs / (|a| + |b| − pairs)
//
// Identical sets, or the same fields keyed in another language, score 1; each extra or
// missing field lowers the score by about one over the size of the union; keys whose meaning
// the dictionary does not know match by spelling only. Either set being empty gives 0. The
// result is symmetric and does not depend on order.
func FamilySimilarity(a, b []string) float64 {
	ka, kb := familyKeys(a), familyKeys(b)
	if len(ka) == 0 || len(kb) == 0 {
		return 0
	}
	usedA, usedB := make([]bool, len(ka)), make([]bool, len(kb))
	pairs := 0
	match := func(same func(x, y familyKey) bool) {
		for i := range ka {
			if usedA[i] {
				continue
			}
			for j := range kb {
				if !usedB[j] && same(ka[i], kb[j]) {
					usedA[i], usedB[j] = true, true
					pairs++
					break
				}
			}
		}
	}
	match(func(x, y familyKey) bool { return x.spelling == y.spelling })
	match(func(x, y familyKey) bool { return x.meaning != "" && x.meaning == y.meaning })
	return float64(pairs) / float64(len(ka)+len(kb)-pairs)
}

type familyKey struct{ spelling, meaning string }

// familyKeys reduces keys to their spelling and meaning, dropping duplicate spellings, in a
// fixed order so the pairing does not depend on the order keys were given in.
func familyKeys(keys []string) []familyKey {
	seen := map[string]bool{}
	var out []familyKey
	for _, k := range keys {
		n := Normalize(k)
		sp := strings.ReplaceAll(n, " ", "")
		if sp == "" || seen[sp] {
			continue
		}
		seen[sp] = true
		fk := familyKey{spelling: sp}
		if rs := analyze(k); len(rs) > 0 && len(rs[0].terms) > 0 {
			terms := append([]string(nil), rs[0].terms...)
			sort.Strings(terms)
			fk.meaning = strings.Join(terms, " ")
		}
		out = append(out, fk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].spelling < out[j].spelling })
	return out
}
