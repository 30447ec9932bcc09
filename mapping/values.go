package mapping

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice/sluice/model"
)

// conceptKinds says what the values of a concept look like.
var conceptKinds = map[string]kind{
	"email": kindEmail, "phone": kindPhone, "mobile": kindPhone, "fax": kindPhone,
	"website": kindURL, "domain": kindURL, "image_url": kindURL,
	"iban": kindIBAN, "currency": kindCurrency, "country": kindCountry,
	"date_of_birth": kindDate, "hire_date": kindDate, "termination_date": kindDate,
	"booking_date": kindDate, "value_date": kindDate, "invoice_date": kindDate, "due_date": kindDate,
	"order_date": kindDate, "close_date": kindDate, "created_at": kindDate, "updated_at": kindDate,
	"service_date": kindDate, "last_activity": kindDate,
}

// textualConcepts hold words: names, places, titles.
var textualConcepts = setOf(`first_name last_name full_name middle_name company job_title street city state
	product_name vendor category department manager owner counterparty account_name deal_name location color description`)

// expectation derives what a field's values look like from its type and the concepts of
// its key and label.
func expectation(fi *fieldInfo) (kind, bool) {
	switch fi.f.Type {
	case model.FieldNumber:
		return kindNumber, false
	case model.FieldDate:
		return kindDate, false
	case model.FieldBoolean:
		return kindBoolean, false
	}
	textual := false
	for _, nv := range fi.names {
		if len(nv.readings) == 0 {
			continue
		}
		for _, t := range nv.readings[0].terms {
			if k, ok := conceptKinds[t]; ok {
				return k, false
			}
			if textualConcepts[t] {
				textual = true
			}
		}
	}
	return kindText, textual
}

// fits reports whether a column's samples look like kind k.
func fits(p profile, k kind) bool {
	switch k {
	case kindNumber:
		return p.numeric()
	case kindBoolean:
		return p.share[kindBoolean] >= 0.6 || allMean(p.vals, "yes", "no")
	case kindPhone:
		return p.share[kindPhone]+p.share[kindNumber] >= 0.6 && p.share[kindPhone] > 0
	case kindCountry:
		return p.share[kindCountry]+p.share[kindCurrency] >= 0.6 || allCountries(p.vals)
	}
	return p.share[k] >= 0.6
}

func allMean(vals []string, meanings ...string) bool {
	for _, v := range vals {
		ok := false
		for _, m := range valueMeaning[Normalize(v)] {
			ok = ok || contains(meanings, m)
		}
		if !ok {
			return false
		}
	}
	return len(vals) > 0
}

func allCountries(vals []string) bool {
	for _, v := range vals {
		if countryOf(v) == "" {
			return false
		}
	}
	return len(vals) > 0
}

// kindBoost is how much matching samples confirm a field: e-mail addresses say more than
// numbers, which many fields hold.
var kindBoost = [nKinds]float64{kindEmail: 0.4, kindURL: 0.35, kindIBAN: 0.4, kindDate: 0.2, kindNumber: 0.15,
	kindBoolean: 0.2, kindPhone: 0.3, kindCurrency: 0.3, kindCountry: 0.25, kindHashNumber: 0.2}

// distinctive kinds are unlikely in a field that does not ask for them.
var distinctive = map[kind]bool{kindEmail: true, kindURL: true, kindIBAN: true, kindDate: true}

// valueEvidence adjusts a name-based score with what the samples look like, and proposes
// fields from the samples alone when they are unmistakable.
func valueEvidence(c *column, fi *fieldInfo, ev evidence, explain bool) evidence {
	p := c.prof
	if p.n == 0 {
		return ev
	}
	if len(fi.options) > 0 {
		return enumEvidence(p, fi, ev, explain)
	}
	dom, clear := p.dominant()
	switch k := fi.expect; {
	case k == kindNumber && p.onlyBinary():
		// 0 and 1 could be a count or a flag: no evidence either way
	case k != kindText && fits(p, k):
		ev.boost(kindBoost[k], because(ReasonValuesLookLike, "sample values look like "+kindNames[k], "kind", kindCodes[k]), explain)
		if ev.conf < 0.45 && (c.generic && distinctive[k] && k != kindDate || k == kindEmail) {
			ev = evidence{conf: 0.45, reasons: explained(explain, func() Reason {
				return because(ReasonValuesOnly, "the header says little, but the sample values look like "+kindNames[k], "kind", kindCodes[k])
			})}
		}
	case k != kindText:
		ev.conf *= 0.6
	case clear && distinctive[dom] && dom != kindDate:
		ev.conf *= 0.7
	case fi.textual && !p.hasLetters():
		ev.conf *= 0.6
	case dom == kindHashNumber && fieldSays(fi, "number"):
		ev.conf = max(ev.conf, 0.45)
		if explain {
			ev.reasons = append(ev.reasons, because(ReasonHashNumbers, "sample values look like #-numbers, the way shops number orders"))
		}
	}
	return ev
}

// boost raises a name-based confidence the samples confirm. Partial name matches stay below
// partialCap, so samples alone never push a guess above 0.9.
func (ev *evidence) boost(amount float64, reason Reason, explain bool) {
	if ev.conf == 0 {
		return
	}
	ceiling := partialCap
	if ev.full {
		ceiling = MaxConfidence
	}
	ev.conf = min(ceiling, max(ev.conf, ev.conf+amount*(1-ev.conf)))
	if explain {
		ev.reasons = append(ev.reasons, reason)
	}
}

// enumEvidence weighs how many samples name one of an enum field's options: most of them
// confirm the field (or propose it on their own), none of them counts against it.
func enumEvidence(p profile, fi *fieldInfo, ev evidence, explain bool) evidence {
	matched := optionMatches(p, fi.optIndex)
	r := float64(matched) / float64(len(p.vals))
	switch {
	case r >= 0.5:
		var reason Reason
		if explain {
			reason = because(ReasonOptionsMatch, fmt.Sprintf("sample values match the field's options (%d of %d)", matched, len(p.vals)),
				"matched", itoa(matched), "total", itoa(len(p.vals)))
		}
		ev.boost(0.4*r, reason, explain)
		if r >= 0.8 && len(p.vals) >= 2 && ev.conf < 0.5+0.2*r {
			ev = evidence{conf: 0.5 + 0.2*r, reasons: explained(explain, func() Reason { return reason })}
		}
	case matched == 0 && len(p.vals) >= 2:
		ev.conf *= 0.7
	}
	return ev
}

// optionIndex answers "does this sample name an option?" in constant time: exact and
// normalised spellings, synonyms, countries and initials, without the fuzzy matching
// SuggestEnum adds. Column scoring asks it for every sample and every enum field.
type optionIndex struct {
	spell, meaning, country, initials map[string]bool
}

func newOptionIndex(opts []option) *optionIndex {
	x := &optionIndex{spell: map[string]bool{}, meaning: map[string]bool{}, country: map[string]bool{}, initials: map[string]bool{}}
	for _, o := range opts {
		x.spell[o.value], x.spell[o.label] = true, true
		for _, n := range o.names {
			x.spell[n] = true
		}
		for _, m := range o.meanings {
			x.meaning[m] = true
		}
		if o.country != "" {
			x.country[o.country] = true
		}
		if len(o.initials) >= 2 {
			x.initials[o.initials] = true
		}
	}
	return x
}

func (x *optionIndex) names(v, nv string) bool {
	if x.spell[v] || x.spell[nv] || x.country[countryCode[nv]] || x.initials[strings.ReplaceAll(nv, " ", "")] {
		return true
	}
	for _, m := range valueMeaning[nv] {
		if x.meaning[m] {
			return true
		}
	}
	return false
}

// optionMatches counts the distinct samples that name an option.
func optionMatches(p profile, x *optionIndex) int {
	n := 0
	for i, v := range p.vals {
		if x.names(v, p.norms[i]) {
			n++
		}
	}
	return n
}

func fieldSays(fi *fieldInfo, term string) bool {
	for _, nv := range fi.names {
		for _, r := range nv.readings[:min(1, len(nv.readings))] {
			for _, t := range r.terms {
				if t == term || dict.relation(t, term) >= 0.5 {
					return true
				}
			}
		}
	}
	return false
}

// customKeys hands out keys for additional fields that clash with no existing key,
// compared case-insensitively.
type customKeys map[string]bool

func newCustomKeys(fs []model.Field) customKeys {
	k := customKeys{}
	for _, f := range fs {
		k[strings.ToLower(f.Key)] = true
	}
	return k
}

// field is the custom field for a header: key from the normalised header, label the header
// itself (never shortened), treatment "additional".
func (k customKeys) field(header string) model.Field {
	base := strings.ReplaceAll(Normalize(header), " ", "_")
	if base == "" {
		base = "column"
	}
	key := base
	for i := 2; k[strings.ToLower(key)]; i++ {
		key = base + "_" + strconv.Itoa(i)
	}
	k[strings.ToLower(key)] = true
	return model.Field{Key: key, Label: header, Type: model.FieldString, Treatments: []string{"additional"}}
}
