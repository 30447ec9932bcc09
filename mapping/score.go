package mapping

import (
	"fmt"
	"math"
	"strings"

	"github.com/sluice/sluice/model"
)

// Confidence levels of the name signals. Only names that mean the same thing reach 0.9;
// partial matches stay below partialCap however the samples look.
const (
	confExact      = 0.97 // header equals key, label or alternative name
	confNormalized = 0.96 // equal apart from case, accents and separators
	confSameTerms  = 0.93 // same meaning through synonyms, translations, abbreviations
	partialCap     = 0.89
	descCap        = 0.62
)

// nameVariant is one name of a field: its key, label or an alternative name.
type nameVariant struct {
	raw, what, norm string
	readings        []reading
}

// fieldInfo is a destination field prepared for scoring.
type fieldInfo struct {
	index   int
	f       *model.Field
	names   []nameVariant
	desc    []string // terms of the description
	expect  kind     // what its values should look like; kindText when nothing special
	textual bool     // names, streets, cities: values with letters
	options []option
}

// column is a source column prepared for scoring.
type column struct {
	index    int
	header   string
	norm     string
	readings []reading
	prof     profile
	generic  bool // "Column1", "Unnamed: 3": the header says nothing
}

// evidence is a scored pair.
type evidence struct {
	conf    float64
	full    bool // the names mean the same thing
	reasons []string
}

// weigher gives each term its weight on one side of a comparison.
type weigher func(string) float64

// overlap measures how much of h is covered by f and of f by h, each weighted.
func overlap(h, f []string, hw, fw weigher) (covH, covF float64, shared []string) {
	var num, den float64
	for _, t := range h {
		c := bestCredit(t, f)
		w := hw(t)
		num += w * c
		if c == 0 && dict.isConcept(t) && w >= dict.weight(t) {
			w *= 1.6 // the header names something else this field is not about
		}
		den += w
		if c >= 0.5 {
			shared = append(shared, strings.ReplaceAll(t, "_", " "))
		}
	}
	if den > 0 {
		covH = num / den
	}
	num, den = 0, 0
	for _, t := range f {
		c := bestCredit(t, h)
		w := fw(t)
		num += w * c
		if c == 0 && dict.isConcept(t) {
			w *= 1.3
		}
		den += w
	}
	if den > 0 {
		covF = num / den
	}
	return covH, covF, shared
}

// bestCredit is how well term t is matched by any term of other.
func bestCredit(t string, other []string) float64 {
	best := 0.0
	for _, o := range other {
		c := dict.relation(t, o)
		if c < 0.35 && (partOf(t, o) || partOf(o, t)) {
			c = 0.35
		}
		if c < 0.5 && len(t) >= 5 && len(o) >= 5 && !dict.isConcept(t) && !dict.isConcept(o) {
			if s := similarity(t, o, 0.8); s > 0 {
				c = max(c, 0.85*s)
			}
		}
		best = max(best, c)
		if best == 1 {
			break
		}
	}
	return best
}

// partOf reports whether word w is one of the words of concept c ("postal" in postal_code).
func partOf(w, c string) bool {
	parts, ok := dict.conceptParts[c]
	if !ok || len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == w && dict.weight(p) >= 0.5 {
			return true
		}
	}
	return false
}

// nameEvidence compares a column's header with every name of a field.
func nameEvidence(c *column, fi *fieldInfo, hw, fw weigher) evidence {
	var best evidence
	for _, nv := range fi.names {
		if nv.norm == "" {
			continue
		}
		if strings.EqualFold(strings.TrimSpace(c.header), strings.TrimSpace(nv.raw)) {
			return evidence{conf: confExact, full: true, reasons: []string{fmt.Sprintf("header equals the field's %s %q", nv.what, nv.raw)}}
		}
		if c.norm == nv.norm || strings.ReplaceAll(c.norm, " ", "") == strings.ReplaceAll(nv.norm, " ", "") {
			e := evidence{conf: confNormalized, full: true, reasons: []string{fmt.Sprintf("header matches the field's %s %q apart from case and separators", nv.what, nv.raw)}}
			if e.conf > best.conf {
				best = e
			}
			continue
		}
		for _, hr := range c.readings {
			for _, fr := range nv.readings {
				if e := compareReadings(hr, fr, nv, hw, fw); e.conf > best.conf {
					best = e
				}
			}
		}
	}
	return best
}

func compareReadings(hr, fr reading, nv nameVariant, hw, fw weigher) evidence {
	if len(hr.terms) == 0 || len(fr.terms) == 0 {
		return evidence{}
	}
	factor := hr.factor * fr.factor
	if sameTerms(hr.terms, fr.terms) {
		reasons := append([]string(nil), hr.notes...)
		reasons = append(reasons, fmt.Sprintf("header and the field's %s %q both mean %q", nv.what, nv.raw, strings.Join(display(hr.terms), " ")))
		return evidence{conf: confSameTerms * factor, full: factor == 1, reasons: reasons}
	}
	covH, covF, shared := overlap(hr.terms, fr.terms, hw, fw)
	if covH == 0 || covF == 0 {
		return evidence{}
	}
	s := math.Pow(covF, 0.8) * math.Pow(covH, 0.7)
	conf := min(partialCap, confSameTerms*math.Pow(s, 1.2)*factor)
	reasons := append([]string(nil), hr.notes...)
	if len(shared) > 0 {
		reasons = append(reasons, fmt.Sprintf("header shares %s with the field's %s %q", quoteList(shared), nv.what, nv.raw))
	} else {
		reasons = append(reasons, fmt.Sprintf("header is close to the field's %s %q", nv.what, nv.raw))
	}
	return evidence{conf: conf, reasons: reasons}
}

func sameTerms(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range a {
		if !contains(b, t) {
			return false
		}
	}
	return true
}

func display(terms []string) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = strings.ReplaceAll(t, "_", " ")
	}
	return out
}

func quoteList(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(q, ", ")
}

// descriptionEvidence looks for the header's meaning in the field's description.
func descriptionEvidence(c *column, fi *fieldInfo, hw weigher) evidence {
	if len(fi.desc) == 0 || len(c.readings) == 0 {
		return evidence{}
	}
	var best evidence
	for _, hr := range c.readings {
		var num, den, strong float64
		var found []string
		for _, t := range hr.terms {
			w := hw(t)
			cr := bestCredit(t, fi.desc)
			num += w * cr
			den += w
			if cr >= 0.8 && dict.isConcept(t) {
				strong = max(strong, w)
				found = append(found, strings.ReplaceAll(t, "_", " "))
			}
		}
		if den == 0 || strong < 0.7 {
			continue
		}
		cov := num / den
		if cov < 0.6 {
			continue
		}
		conf := descCap * cov * hr.factor
		if conf > best.conf {
			reasons := append([]string(nil), hr.notes...)
			best = evidence{conf: conf, reasons: append(reasons, fmt.Sprintf("the field's description mentions %s", quoteList(found)))}
		}
	}
	return best
}
