// Package mapping suggests how the columns of a source file map onto a sheet's fields and how
// source enum values map onto options, without an AI service. It is deterministic (the same
// input gives the same plan), explains every suggestion, and learns from mappings people
// accepted before.
//
// A header is read into terms: it is normalised (case, accents, camelCase, separators),
// abbreviations are expanded (fname, qty, dob…), words and phrases in German, French,
// Spanish, Portuguese, Italian and Dutch are translated and compound words split, and runs of
// words that name a known meaning (first name, postal code, date of birth…) become one
// concept. The same happens to each field's key, label and alternative names. A column and a
// field then score on equal names, equal meanings, the share of terms they have in common
// (with near-synonyms, spelling and the field description), what the sample values look like
// (e-mail addresses, dates, numbers, phones, URLs, IBANs, enum options), and history. Each
// column gets at most one field, the most confident pairs first.
package mapping

import (
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/sluice/sluice/model"
)

// MaxConfidence caps every confidence: a suggestion is never certain (the spec's Limits
// table caps the mapping score at 0.99).
const MaxConfidence = 0.99

// DefaultThreshold is the auto-apply threshold of a sheet without mappingConfidenceThreshold.
const DefaultThreshold = 0.5

// DefaultMinConfidence is the lowest confidence at which a field is suggested at all.
const DefaultMinConfidence = 0.4

// Column is a source column: its header and some of its values.
type Column struct {
	Header  string
	Samples []string
}

// Options tune Suggest; the zero value means the defaults.
type Options struct {
	MinConfidence float64 // lowest confidence offered; default DefaultMinConfidence
	Alternatives  int     // other fields listed per column; default 3
}

// Plan is the suggested mapping of a source onto a sheet.
type Plan struct {
	Columns   []Suggestion // one per source column, in source order
	Threshold float64      // the sheet's mappingConfidenceThreshold, or DefaultThreshold
	Unmapped  []string     // keys of destination fields no column was given, in sheet order
}

// Suggestion is the proposal for one source column.
type Suggestion struct {
	Source       string   // the column's header
	Destination  string   // the chosen field's key; "" when no field fits
	Confidence   float64  // in (0, MaxConfidence] when Destination is set, else 0
	Reasons      []string // Why in English
	Why          []Reason
	AutoApply    bool        // Confidence reaches the sheet's threshold
	Alternatives []Candidate // the next best fields, most confident first
	// AddAsCustom is set when no field fits and the sheet allows additional fields: the
	// field to add, named after the header, with treatment "additional".
	AddAsCustom *model.Field
}

// Candidate is one scored destination field.
type Candidate struct {
	Field      string
	Confidence float64
	Reasons    []string // Why in English
	Why        []Reason
}

// pair is a scored (column, field) combination.
type pair struct {
	col, field int
	ev         evidence
}

// Suggest proposes a destination field for every source column.
func Suggest(src []Column, dst model.SheetConfig, hist History, opts Options) Plan {
	if opts.MinConfidence <= 0 {
		opts.MinConfidence = DefaultMinConfidence
	}
	if opts.Alternatives <= 0 {
		opts.Alternatives = 3
	}
	plan := Plan{Threshold: DefaultThreshold, Columns: make([]Suggestion, len(src))}
	if t := dst.MappingConfidenceThreshold; t != nil && *t > 0 && *t <= 1 {
		plan.Threshold = *t
	}
	fields := prepareFields(dst.Fields)
	cols := prepareColumns(src)
	sc := newScorer(cols, fields, headerWeigher(cols), fieldWeigher(fields), hist)
	explain := func(p pair) []Reason { return sc.score(&cols[p.col], &fields[p.field], true).reasons }
	perCol := make([][]pair, len(cols))
	for i := range cols {
		for _, j := range sc.candidates(&cols[i], fields) {
			if ev := sc.score(&cols[i], &fields[j], false); ev.conf >= 0.2 {
				perCol[i] = append(perCol[i], pair{i, j, ev})
			}
		}
	}
	chosen, used := assign(perCol, len(fields), opts.MinConfidence)
	custom := newCustomKeys(dst.Fields)
	for i, c := range cols {
		s := &plan.Columns[i]
		s.Source = c.header
		if p := chosen[i]; p != nil {
			s.Destination, s.Confidence, s.Why = fields[p.field].f.Key, p.ev.conf, explain(*p)
			s.Reasons = Texts(s.Why)
			s.AutoApply = s.Confidence >= plan.Threshold
		}
		s.Alternatives = alternatives(perCol[i], chosen[i], opts.Alternatives, func(p pair) Candidate {
			why := explain(p)
			return Candidate{Field: fields[p.field].f.Key, Confidence: p.ev.conf, Reasons: Texts(why), Why: why}
		})
		if chosen[i] == nil && dst.AllowAdditionalFields && !c.generic {
			f := custom.field(c.header)
			s.AddAsCustom = &f
			s.Why = []Reason{because(ReasonCustomField, "no field fits; the sheet allows additional fields, so the column can be added as a custom field named after its header")}
			s.Reasons = Texts(s.Why)
		}
	}
	for j, u := range used {
		if !u {
			plan.Unmapped = append(plan.Unmapped, fields[j].f.Key)
		}
	}
	return plan
}

// assign gives each column at most one field and each field at most one column, the most
// confident pairs first (ties: source order, then sheet order). It returns the pair chosen
// for each column (nil for none) and which fields were used.
func assign(perCol [][]pair, nFields int, floor float64) ([]*pair, []bool) {
	var pairs []pair
	for _, ps := range perCol {
		for _, p := range ps {
			if p.ev.conf >= floor {
				pairs = append(pairs, p)
			}
		}
	}
	sort.SliceStable(pairs, func(a, b int) bool { return better(pairs[a], pairs[b]) })
	chosen, used := make([]*pair, len(perCol)), make([]bool, nFields)
	for k := range pairs {
		p := &pairs[k]
		if chosen[p.col] == nil && !used[p.field] {
			chosen[p.col], used[p.field] = p, true
		}
	}
	return chosen, used
}

// better orders pairs: higher confidence first, then source order, then sheet order.
func better(a, b pair) bool {
	if a.ev.conf != b.ev.conf {
		return a.ev.conf > b.ev.conf
	}
	if a.col != b.col {
		return a.col < b.col
	}
	return a.field < b.field
}

func alternatives(ps []pair, chosen *pair, n int, candidate func(pair) Candidate) []Candidate {
	sort.SliceStable(ps, func(a, b int) bool { return better(ps[a], ps[b]) })
	var out []Candidate
	for _, p := range ps {
		if chosen != nil && p.field == chosen.field {
			continue
		}
		if len(out) == n {
			break
		}
		out = append(out, candidate(p))
	}
	return out
}

// score combines every signal for one column and one field; explain writes the reasons.
func (s *scorer) score(c *column, fi *fieldInfo, explain bool) evidence {
	ev := s.nameEvidence(c, fi, explain)
	if d := s.descriptionEvidence(c, fi, explain); d.conf > ev.conf {
		ev = d
	}
	ev = valueEvidence(c, fi, ev, explain)
	if h, reason := s.hist.signal(c.norm, fi.f.Key); h > 0 {
		ev.conf = 1 - (1-ev.conf)*(1-h)
		ev.reasons = append(ev.reasons, reason)
	}
	ev.conf = math.Round(min(ev.conf, MaxConfidence)*1000) / 1000
	return ev
}

var genericHeader = regexp.MustCompile(`^((column|col|field|unnamed|untitled|spalte|feld|colonne|champ|columna|campo|colonna|kolom|veld)( \d+)?|\d+)?$`)

func prepareColumns(src []Column) []column {
	out := make([]column, len(src))
	for i, c := range src {
		n := Normalize(c.Header)
		out[i] = column{index: i, header: c.Header, norm: n, fold: strings.ToLower(strings.TrimSpace(c.Header)),
			compact: strings.ReplaceAll(n, " ", ""), prof: profileOf(c.Samples), generic: genericHeader.MatchString(n)}
		if !out[i].generic {
			out[i].readings = analyze(c.Header)
		}
	}
	return out
}

func prepareFields(fs []model.Field) []fieldInfo {
	out := make([]fieldInfo, len(fs))
	for j := range fs {
		f := &fs[j]
		fi := fieldInfo{index: j, f: f}
		add := func(raw, what string) {
			if n := Normalize(raw); n != "" {
				fi.names = append(fi.names, nameVariant{raw: raw, what: what, norm: n, fold: strings.ToLower(strings.TrimSpace(raw)),
					compact: strings.ReplaceAll(n, " ", ""), readings: analyze(raw)})
			}
		}
		add(f.Key, "key")
		if f.Label != "" {
			add(f.Label, "label")
		}
		for _, a := range f.AlternativeNames {
			add(a, "alternative name")
		}
		disambiguate(fi.names)
		if f.Description != "" {
			if rs := analyze(f.Description); len(rs) > 0 {
				fi.desc = rs[0].terms
			}
		}
		fi.expect, fi.textual = expectation(&fi)
		if f.Type == model.FieldEnum || f.Type == model.FieldEnumList {
			fi.options = optionsOf(f, false)
			fi.optIndex = newOptionIndex(fi.options)
		}
		out[j] = fi
	}
	return out
}

// disambiguate drops the readings of an ambiguous name that its unambiguous siblings
// contradict: with the label "Job title", the key "title" is not a product title.
func disambiguate(names []nameVariant) {
	sure := map[string]bool{}
	for _, nv := range names {
		if len(nv.readings) == 1 {
			for _, t := range nv.readings[0].terms {
				sure[t] = true
			}
		}
	}
	for i, nv := range names {
		if len(nv.readings) < 2 {
			continue
		}
		var keep []reading
		for _, r := range nv.readings {
			for _, t := range r.terms {
				if sure[t] {
					keep = append(keep, r)
					break
				}
			}
		}
		if len(keep) > 0 {
			names[i].readings = keep
		}
	}
}

// headerWeigher discounts terms that most headers of the file share ("Deal - …",
// "Variant …"): they say which export it is, not which field.
func headerWeigher(cols []column) weigher {
	count := map[string]int{}
	for _, c := range cols {
		if len(c.readings) == 0 {
			continue
		}
		for _, t := range c.readings[0].terms {
			count[t]++
		}
	}
	n := len(cols)
	return func(t string) float64 {
		w := dict.weight(t)
		if k := count[t]; k >= 3 && float64(k) >= 0.3*float64(n) {
			w *= 0.1
		}
		return w
	}
}

// fieldWeigher lowers terms that many fields share (inverse document frequency).
func fieldWeigher(fields []fieldInfo) weigher {
	df := map[string]int{}
	for _, fi := range fields {
		seen := map[string]bool{}
		for _, nv := range fi.names {
			for _, r := range nv.readings[:min(1, len(nv.readings))] {
				for _, t := range r.terms {
					if !seen[t] {
						seen[t] = true
						df[t]++
					}
				}
			}
		}
	}
	return func(t string) float64 {
		w := dict.weight(t)
		if k := df[t]; k > 1 {
			w /= 1 + 0.5*math.Log(float64(k))
		}
		return w
	}
}
