package mapping_test

import (
	"github.com/sluice/sluice/model"
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

// The headers issue 18 found without a suggestion map where a person would map them, and
// say which language they were read in.
func TestIssue18Headers(t *testing.T) {
	for _, c := range []struct{ header, field, lang string }{
		{"メールアドレス", "email", "jp"}, {"Nazwisko", "last_name", "pl"}, {"Förnamn", "first_name", "sv"},
		{"订单编号", "order_number", "zh"}, {"發票號碼", "invoice_number", "zh-hant"},
		{"Anställningsdatum", "hire_date", ""}, {"ContactName", "contact_name", ""}, {"InvoiceDate", "invoice_date", ""},
		{"Beds", "bedrooms", ""}, {"Baths", "bathrooms", ""}, {"Summary", "subject", ""}, {"Issue key", "ticket_id", ""},
		{"Total", "amount", ""}, {"Transaction ID", "order_id", ""},
	} {
		dst := model.SheetConfig{Fields: []model.Field{{Key: c.field, Label: strings.ReplaceAll(c.field, "_", " ")}, {Key: "other_thing", Label: "Other thing"}}}
		plan := mapping.Suggest([]mapping.Column{{Header: c.header}}, dst, mapping.History{}, mapping.Options{})
		s := plan.Columns[0]
		if s.Destination != c.field {
			t.Errorf("%q → %q (%.2f), want %q", c.header, s.Destination, s.Confidence, c.field)
			continue
		}
		if c.lang != "" {
			found := false
			for _, r := range s.Why {
				found = found || r.Args["lang"] == c.lang
			}
			if !found {
				t.Errorf("%q: no reason names the language %s: %v", c.header, c.lang, s.Reasons)
			}
		}
	}
}
