package mapping

import (
	"sort"
	"strings"
)

// DefaultFamilyThreshold is the similarity from which a sheet counts as a member of an
// instruction's mapping family.
const DefaultFamilyThreshold = 0.6

// Worth of a pair of keys in FamilySimilarity.
const (
	familySameSpelling = 1.0
	familySameMeaning  = 0.9
)

// FamilySimilarity measures how alike two field structures are, from 0 (nothing in common)
// to 1 (the same keys), to decide which mapping instructions a sheet receives.
//
// Every key is reduced to two forms: its spelling, normalised and without spaces
// ("firstName", "first_name" and "First Name" are the same), and its meaning, the sorted
// terms the suggestion engine reads in it ("Vorname", "fname" and "given_name" all mean
// first name; "zip" and "postal_code" both mean postal code). Duplicate keys on one side
// count once. Keys of a and b are then paired one to one: first those with the same spelling
// (each pair worth 1), then those with the same meaning (worth 0.9). The similarity is the
// soft Jaccard index of the two sets:
//
//	sum of pair worths / (|a| + |b| − number of pairs)
//
// so two identical sets score 1, a set against itself in another language about 0.9, and
// one extra or missing key lowers the score by roughly one over the size of the union.
// Either set being empty gives 0. The result is symmetric and does not depend on order.
func FamilySimilarity(a, b []string) float64 {
	ka, kb := familyKeys(a), familyKeys(b)
	if len(ka) == 0 || len(kb) == 0 {
		return 0
	}
	usedA, usedB := make([]bool, len(ka)), make([]bool, len(kb))
	pairs, worth := 0, 0.0
	match := func(same func(x, y familyKey) bool, w float64) {
		for i := range ka {
			if usedA[i] {
				continue
			}
			for j := range kb {
				if !usedB[j] && same(ka[i], kb[j]) {
					usedA[i], usedB[j] = true, true
					pairs++
					worth += w
					break
				}
			}
		}
	}
	match(func(x, y familyKey) bool { return x.spelling == y.spelling }, familySameSpelling)
	match(func(x, y familyKey) bool { return x.meaning != "" && x.meaning == y.meaning }, familySameMeaning)
	return worth / float64(len(ka)+len(kb)-pairs)
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
