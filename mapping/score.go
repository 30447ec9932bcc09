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
	fold, compact   string // lower case; normalised without spaces
	readings        []reading
}

// fieldInfo is a destination field prepared for scoring.
type fieldInfo struct {
	index    int
	f        *model.Field
	names    []nameVariant
	desc     []string // terms of the description
	descIDs  []int32
	expect   kind // what its values should look like; kindText when nothing special
	textual  bool // names, streets, cities: values with letters
	options  []option
	optIndex *optionIndex
}

// column is a source column prepared for scoring.
type column struct {
	index    int
	header   string
	norm     string
	fold     string // lower case, trimmed
	compact  string // normalised without spaces
	readings []reading
	prof     profile
	generic  bool // "Column1", "Unnamed: 3": the header says nothing
}

// evidence is a scored pair.
type evidence struct {
	conf    float64
	full    bool // the names mean the same thing
	reasons []Reason
}

// weigher gives each term its weight on one side of a comparison.
type weigher func(string) float64

// match is how one term was matched on the other side.
type match struct {
	credit  float64
	spelled string  // set when the match is by spelling: the term it resembles
	alike   float64 // how alike, for spelling matches
}

// bestMatch is how well term t is matched by any term of other: an equal or related term,
// a word of a multi-word concept ("postal" in postal code), or, for single words of five
// letters or more, a spelling at least 80% alike.
func bestMatch(t string, other []string) match {
	var best match
	for _, o := range other {
		m := match{credit: dict.relation(t, o)}
		if m.credit < 0.35 && (partOf(t, o) || partOf(o, t)) {
			m.credit = 0.35
		}
		if m.credit < 0.5 && len(t) >= 5 && len(o) >= 5 && !strings.Contains(t, "_") && !strings.Contains(o, "_") {
			if s := similarity(t, o, 0.8); s > 0 && 0.85*s > m.credit {
				m = match{credit: 0.85 * s, spelled: o, alike: s}
			}
		}
		if m.credit > best.credit {
			best = m
		}
		if best.credit == 1 {
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
func (s *scorer) nameEvidence(c *column, fi *fieldInfo, explain bool) evidence {
	var best evidence
	for _, nv := range fi.names {
		if nv.norm == "" {
			continue
		}
		if c.fold == nv.fold {
			return evidence{conf: confExact, full: true, reasons: explained(explain, func() Reason {
				return nv.because(ReasonHeaderEquals, fmt.Sprintf("header equals the field's %s %q", nv.what, nv.raw))
			})}
		}
		if c.norm == nv.norm || c.compact == nv.compact {
			if confNormalized > best.conf {
				best = evidence{conf: confNormalized, full: true, reasons: explained(explain, func() Reason {
					return nv.because(ReasonHeaderNormalized, fmt.Sprintf("header matches the field's %s %q apart from case and separators", nv.what, nv.raw))
				})}
			}
			continue
		}
		for _, hr := range c.readings {
			for _, fr := range nv.readings {
				if e := s.compareReadings(hr, fr, nv, false); e.conf > best.conf {
					best = e
					if explain {
						best = s.compareReadings(hr, fr, nv, true)
					}
				}
			}
		}
	}
	return best
}

// explained is the reason r makes, when reasons are asked for.
func explained(explain bool, r func() Reason) []Reason {
	if !explain {
		return nil
	}
	return []Reason{r()}
}

// because is a reason about this name of the field: its args name it (what: key, label
// or alternative_name; name: as written).
func (nv nameVariant) because(code, text string, kv ...string) Reason {
	return because(code, text, append([]string{"what", strings.ReplaceAll(nv.what, " ", "_"), "name", nv.raw}, kv...)...)
}

func (s *scorer) compareReadings(hr, fr reading, nv nameVariant, explain bool) evidence {
	if len(hr.ids) == 0 || len(fr.ids) == 0 {
		return evidence{}
	}
	factor := hr.factor * fr.factor
	if sameIDs(hr.ids, fr.ids) {
		e := evidence{conf: confSameTerms * factor, full: factor == 1}
		if explain {
			terms := strings.Join(display(hr.terms), " ")
			e.reasons = append(append([]Reason(nil), hr.notes...), nv.because(ReasonSameMeaning, fmt.Sprintf("header and the field's %s %q both mean %q", nv.what, nv.raw, terms), "terms", terms))
		}
		return e
	}
	covH, covF, why := s.overlap(hr.ids, fr.ids, explain)
	if covH == 0 || covF == 0 {
		return evidence{}
	}
	sc := math.Pow(covF, 0.8) * math.Pow(covH, 0.7)
	e := evidence{conf: min(partialCap, confSameTerms*math.Pow(sc, 1.2)*factor)}
	if !explain {
		return e
	}
	e.reasons = append([]Reason(nil), hr.notes...)
	if len(why) == 0 {
		why = []Reason{because(ReasonRelated, "are related")}
	}
	for _, w := range why {
		if w.Code == ReasonSpelled {
			e.reasons = append(e.reasons, nv.because(w.Code, fmt.Sprintf("%s in the field's %s %q", w.Text, nv.what, nv.raw), "word", w.Args["word"], "like", w.Args["like"], "percent", w.Args["percent"]))
		} else {
			e.reasons = append(e.reasons, nv.because(w.Code, fmt.Sprintf("header and the field's %s %q %s", nv.what, nv.raw, w.Text), "words", w.Args["words"]))
		}
	}
	return e
}

func sameIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range a {
		found := false
		for _, u := range b {
			if t == u {
				found = true
				break
			}
		}
		if !found {
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

// descriptionEvidence looks for the header's meaning in the field's description: only a
// concept found there counts, not a shared everyday word.
func (s *scorer) descriptionEvidence(c *column, fi *fieldInfo, explain bool) evidence {
	if len(fi.descIDs) == 0 || len(c.readings) == 0 {
		return evidence{}
	}
	var best evidence
	for _, hr := range c.readings {
		var num, den, strong float64
		var found []string
		for _, t := range hr.ids {
			w := s.hw[t]
			cr := s.best(t, fi.descIDs)
			num += w * cr
			den += w
			if cr >= 0.8 && s.conc[t] {
				strong = max(strong, w)
				found = append(found, strings.ReplaceAll(s.terms[t], "_", " "))
			}
		}
		if den == 0 || strong < 0.7 || num/den < 0.6 {
			continue
		}
		if conf := descCap * num / den * hr.factor; conf > best.conf {
			best = evidence{conf: conf}
			if explain {
				best.reasons = append(append([]Reason(nil), hr.notes...), because(ReasonDescription, fmt.Sprintf("the field's description mentions %s", quoteList(found)), "words", quoteList(found)))
			}
		}
	}
	return best
}
