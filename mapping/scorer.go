package mapping

import (
	"fmt"
	"strings"
)

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
func (s *scorer) overlap(h, f []int32, explain bool) (covH, covF float64, why []Reason) {
	var shared []string
	var spelled []Reason
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
				pct := fmt.Sprintf("%.0f", 100*m.alike)
				spelled = append(spelled, because(ReasonSpelled, fmt.Sprintf("header word %q is spelled like %q (%s%% alike)", s.terms[t], m.spelled, pct),
					"word", s.terms[t], "like", m.spelled, "percent", pct))
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
		why = append(why, because(ReasonShare, "share "+quoteList(shared), "words", quoteList(shared)))
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
