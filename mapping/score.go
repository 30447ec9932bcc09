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
	reasons []string
}

// weigher gives each term its weight on one side of a comparison.
type weigher func(string) float64

// scorer holds what the pairs of one Suggest call share: the terms of every header and
// field interned as numbers, their weights on each side, and a lazily filled matrix of how
// well one term matches another. Scoring 300 × 300 pairs then costs array lookups; reasons
// are written only for the pairs worth showing (explain).
type scorer struct {
	ids    map[string]int32
	terms  []string
	hw, fw []float64 // weights by term id, header side and field side
	base   []float64 // dictionary weights by term id
	conc   []bool
	credit []float32 // n × n, negative until computed
	hist   History

	fieldTerms []int32          // every term id on the field side
	byTerm     map[int32][]int  // term id → fields whose names or description use it
	byName     map[string][]int // lower-case or normalised name → fields
	byKey      map[string]int
}

func newScorer(cols []column, fields []fieldInfo, hw, fw weigher, hist History) *scorer {
	s := &scorer{ids: map[string]int32{}, hist: hist}
	intern := func(rs []reading) {
		for i := range rs {
			rs[i].ids = make([]int32, len(rs[i].terms))
			for j, t := range rs[i].terms {
				id, ok := s.ids[t]
				if !ok {
					id = int32(len(s.terms))
					s.ids[t] = id
					s.terms = append(s.terms, t)
				}
				rs[i].ids[j] = id
			}
		}
	}
	for i := range cols {
		intern(cols[i].readings)
	}
	for j := range fields {
		for k := range fields[j].names {
			intern(fields[j].names[k].readings)
		}
		d := []reading{{terms: fields[j].desc}}
		intern(d)
		fields[j].descIDs = d[0].ids
	}
	n := len(s.terms)
	s.hw, s.fw, s.base, s.conc = make([]float64, n), make([]float64, n), make([]float64, n), make([]bool, n)
	for i, t := range s.terms {
		s.hw[i], s.fw[i], s.base[i], s.conc[i] = hw(t), fw(t), dict.weight(t), dict.isConcept(t)
	}
	s.credit = make([]float32, n*n)
	for i := range s.credit {
		s.credit[i] = -1
	}
	s.indexFields(fields)
	return s
}

func (s *scorer) indexFields(fields []fieldInfo) {
	s.byTerm, s.byName, s.byKey = map[int32][]int{}, map[string][]int{}, map[string]int{}
	add := func(id int32, j int) {
		list := s.byTerm[id]
		if len(list) == 0 {
			s.fieldTerms = append(s.fieldTerms, id)
		}
		if len(list) == 0 || list[len(list)-1] != j {
			s.byTerm[id] = append(list, j)
		}
	}
	for j, fi := range fields {
		s.byKey[fi.f.Key] = j
		for _, nv := range fi.names {
			for _, name := range []string{nv.fold, nv.norm, nv.compact} {
				s.byName[name] = append(s.byName[name], j)
			}
			for _, r := range nv.readings {
				for _, id := range r.ids {
					add(id, j)
				}
			}
		}
		for _, id := range fi.descIDs {
			add(id, j)
		}
	}
}

// scoreAllPairs turns candidate filtering off; tests use it to show filtering changes nothing.
var scoreAllPairs = false

// candidates lists the fields a column can score above zero with: those sharing a related
// term or a name, and those the samples or history alone can reach. Every other pair would
// score 0, so wide sheets skip them.
func (s *scorer) candidates(c *column, fields []fieldInfo) []int {
	mark := make([]bool, len(fields))
	if scoreAllPairs {
		for j := range mark {
			mark[j] = true
		}
	}
	for _, r := range c.readings {
		for _, t := range r.ids {
			for _, u := range s.fieldTerms {
				if s.creditOf(t, u) > 0 {
					for _, j := range s.byTerm[u] {
						mark[j] = true
					}
				}
			}
		}
	}
	for _, name := range []string{c.fold, c.norm, c.compact} {
		for _, j := range s.byName[name] {
			mark[j] = true
		}
	}
	for _, counts := range []Counts{s.hist.Mine, s.hist.Others} {
		for key := range counts[c.norm] {
			if j, ok := s.byKey[key]; ok {
				mark[j] = true
			}
		}
	}
	if c.prof.n > 0 {
		dom, _ := c.prof.dominant()
		for j := range fields {
			fi := &fields[j]
			if len(fi.options) > 0 || fi.expect == kindEmail || c.generic && distinctive[fi.expect] || dom == kindHashNumber {
				mark[j] = true
			}
		}
	}
	var out []int
	for j, m := range mark {
		if m {
			out = append(out, j)
		}
	}
	return out
}

// match is how one term was matched on the other side.
type match struct {
	credit  float64
	spelled string  // set when the match is by spelling: the term it resembles
	alike   float64 // how alike, for spelling matches
}

// creditOf is how well term a is matched by term b.
func (s *scorer) creditOf(a, b int32) float64 {
	k := int(a)*len(s.terms) + int(b)
	if c := s.credit[k]; c >= 0 {
		return float64(c)
	}
	c := bestMatch(s.terms[a], s.terms[b:b+1]).credit
	s.credit[k] = float32(c)
	return c
}

func (s *scorer) best(t int32, other []int32) float64 {
	best := 0.0
	for _, o := range other {
		if c := s.creditOf(t, o); c > best {
			best = c
			if c == 1 {
				break
			}
		}
	}
	return best
}

// overlap measures how much of h is covered by f and of f by h, each weighted. With
// explain it also says which terms matched and how.
func (s *scorer) overlap(h, f []int32, explain bool) (covH, covF float64, why []string) {
	var shared, spelled []string
	var num, den float64
	for _, t := range h {
		c := s.best(t, f)
		w := s.hw[t]
		num += w * c
		if c == 0 && s.conc[t] && w >= s.base[t] {
			w *= 1.6 // the header names something else this field is not about
		}
		den += w
		if explain {
			m := bestMatch(s.terms[t], s.names(f))
			switch {
			case m.spelled != "":
				spelled = append(spelled, fmt.Sprintf("header word %q is spelled like %q (%.0f%% alike)", s.terms[t], m.spelled, 100*m.alike))
			case c >= 0.5:
				shared = append(shared, strings.ReplaceAll(s.terms[t], "_", " "))
			}
		}
	}
	if den > 0 {
		covH = num / den
	}
	num, den = 0, 0
	for _, t := range f {
		c := s.best(t, h)
		w := s.fw[t]
		num += w * c
		if c == 0 && s.conc[t] {
			w *= 1.3
		}
		den += w
	}
	if den > 0 {
		covF = num / den
	}
	if len(shared) > 0 {
		why = append(why, "share "+quoteList(shared))
	}
	return covH, covF, append(why, spelled...)
}

func (s *scorer) names(ids []int32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = s.terms[id]
	}
	return out
}

// bestCredit is how well term t is matched by any term of other.
func bestCredit(t string, other []string) float64 {
	return bestMatch(t, other).credit
}

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
			return evidence{conf: confExact, full: true, reasons: explained(explain, "header equals the field's %s %q", nv.what, nv.raw)}
		}
		if c.norm == nv.norm || c.compact == nv.compact {
			if confNormalized > best.conf {
				best = evidence{conf: confNormalized, full: true, reasons: explained(explain, "header matches the field's %s %q apart from case and separators", nv.what, nv.raw)}
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

func explained(explain bool, format string, args ...any) []string {
	if !explain {
		return nil
	}
	return []string{fmt.Sprintf(format, args...)}
}

func (s *scorer) compareReadings(hr, fr reading, nv nameVariant, explain bool) evidence {
	if len(hr.ids) == 0 || len(fr.ids) == 0 {
		return evidence{}
	}
	factor := hr.factor * fr.factor
	if sameIDs(hr.ids, fr.ids) {
		e := evidence{conf: confSameTerms * factor, full: factor == 1}
		if explain {
			e.reasons = append(append([]string(nil), hr.notes...), fmt.Sprintf("header and the field's %s %q both mean %q", nv.what, nv.raw, strings.Join(display(hr.terms), " ")))
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
	e.reasons = append([]string(nil), hr.notes...)
	if len(why) == 0 {
		why = []string{"are related"}
	}
	for _, w := range why {
		if strings.HasPrefix(w, "header word") {
			e.reasons = append(e.reasons, fmt.Sprintf("%s in the field's %s %q", w, nv.what, nv.raw))
		} else {
			e.reasons = append(e.reasons, fmt.Sprintf("header and the field's %s %q %s", nv.what, nv.raw, w))
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
				best.reasons = append(append([]string(nil), hr.notes...), fmt.Sprintf("the field's description mentions %s", quoteList(found)))
			}
		}
	}
	return best
}
