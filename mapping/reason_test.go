package mapping_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sluice/sluice/mapping"
)

// Every reason the engine gives over the whole corpus carries a known code and the args
// its locale strings use, and the English the API returns is the reasons' text, one for one.
func TestReasonsAreCoded(t *testing.T) {
	seen := map[string]int{}
	needs := map[string][]string{
		mapping.ReasonHeaderEquals: {"what", "name"}, mapping.ReasonSameMeaning: {"what", "name", "terms"},
		mapping.ReasonSpelled: {"word", "like", "percent", "what", "name"}, mapping.ReasonLanguage: {"lang", "from", "to"},
		mapping.ReasonCompound: {"word", "parts", "to"}, mapping.ReasonValuesLookLike: {"kind"}, mapping.ReasonShare: {"what", "name", "words"},
	}
	for _, c := range append(loadCorpus(t), loadHeldOut(t)...) {
		cols := make([]mapping.Column, len(c.Columns))
		for i, col := range c.Columns {
			cols[i] = mapping.Column{Header: col.Header, Samples: col.Samples}
		}
		plan := mapping.Suggest(cols, c.Destination, mapping.History{}, mapping.Options{})
		for _, s := range plan.Columns {
			check := func(reasons []string, why []mapping.Reason) {
				if !slices.Equal(reasons, mapping.Texts(why)) {
					t.Fatalf("%s %q: reasons %q are not the texts of %+v", c.Name, s.Source, reasons, why)
				}
				for _, r := range why {
					if !slices.Contains(mapping.ReasonCodes, r.Code) {
						t.Fatalf("%s %q: reason %q has the unknown code %q", c.Name, s.Source, r.Text, r.Code)
					}
					for _, a := range needs[r.Code] {
						if r.Args[a] == "" {
							t.Fatalf("%s %q: reason %q (%s) lacks the arg %s: %v", c.Name, s.Source, r.Text, r.Code, a, r.Args)
						}
					}
					if strings.Contains(r.Text, "%!") {
						t.Fatalf("%s %q: reason text %q is badly formatted", c.Name, s.Source, r.Text)
					}
					seen[r.Code]++
				}
			}
			check(s.Reasons, s.Why)
			for _, a := range s.Alternatives {
				check(a.Reasons, a.Why)
			}
		}
	}
	for _, code := range []string{mapping.ReasonHeaderEquals, mapping.ReasonSameMeaning, mapping.ReasonLanguage, mapping.ReasonSynonym, mapping.ReasonCompound} {
		if seen[code] == 0 {
			t.Errorf("no reason %s over the corpus: %v", code, seen)
		}
	}
}
