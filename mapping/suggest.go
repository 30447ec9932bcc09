package mapping

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/sluice/sluice/model"
)

// MaxConfidence caps every confidence: a suggestion is never certain.
const MaxConfidence = 0.99

// OtherUsersWeight is how much another user's accepted mapping counts against the current
// user's own history.
const OtherUsersWeight = 0.8

// DefaultThreshold applies when a sheet sets no mappingConfidenceThreshold.
const DefaultThreshold = 0.5

// Column is a source column: its header and some of its values.
type Column struct {
	Header  string
	Samples []string
}

// History counts accepted mappings, keyed by normalised source header then destination key,
// for the current user (Mine) and everyone else in the environment (Others).
type History struct {
	Mine   map[string]map[string]int
	Others map[string]map[string]int
}

// Suggestion is the engine's proposal for one source column.
type Suggestion struct {
	Source       string
	Destination  string // field key, "" when nothing fits
	Confidence   float64
	Reasons      []string
	AutoApply    bool // confidence reaches the sheet's threshold
	AddAsCustom  bool // nothing fits and the sheet allows additional fields
	Alternatives []Candidate
}

// Candidate is one scored destination for a column.
type Candidate struct {
	Field      string
	Confidence float64
	Reasons    []string
}

// Suggest proposes a destination field for every source column. Each field receives at most
// one column (the most confident pairs win); the output is deterministic.
func Suggest(src []Column, dst model.SheetConfig, hist History) []Suggestion {
	threshold := DefaultThreshold
	if dst.MappingConfidenceThreshold != nil {
		threshold = *dst.MappingConfidenceThreshold
	}
	type pair struct {
		col int
		c   Candidate
	}
	var pairs []pair
	all := make([][]Candidate, len(src))
	for i, col := range src {
		for _, f := range dst.Fields {
			c := score(col, f, hist)
			if c.Confidence > 0.05 {
				all[i] = append(all[i], c)
				pairs = append(pairs, pair{i, c})
			}
		}
		sort.SliceStable(all[i], func(a, b int) bool { return all[i][a].Confidence > all[i][b].Confidence })
		if len(all[i]) > 3 {
			all[i] = all[i][:3]
		}
	}
	sort.SliceStable(pairs, func(a, b int) bool {
		if pairs[a].c.Confidence != pairs[b].c.Confidence {
			return pairs[a].c.Confidence > pairs[b].c.Confidence
		}
		if pairs[a].col != pairs[b].col {
			return pairs[a].col < pairs[b].col
		}
		return pairs[a].c.Field < pairs[b].c.Field
	})
	out := make([]Suggestion, len(src))
	for i, col := range src {
		out[i] = Suggestion{Source: col.Header, Alternatives: all[i]}
	}
	taken := map[string]bool{}
	for _, p := range pairs {
		s := &out[p.col]
		if s.Destination != "" || taken[p.c.Field] || p.c.Confidence < 0.3 {
			continue
		}
		taken[p.c.Field] = true
		s.Destination, s.Confidence, s.Reasons = p.c.Field, p.c.Confidence, p.c.Reasons
		s.AutoApply = s.Confidence >= threshold
	}
	for i := range out {
		if out[i].Destination == "" && dst.AllowAdditionalFields {
			out[i].AddAsCustom = true
			out[i].Reasons = []string{"no field fits; the sheet allows additional fields, so it can be added as a custom field"}
		}
	}
	return out
}

// score rates how well column col fits field f, with the reasons.
func score(col Column, f model.Field, hist History) Candidate {
	c := Candidate{Field: f.Key}
	src := Normalize(col.Header)
	best := 0.0
	add := func(v float64, reason string) {
		if v > best {
			best = v
			c.Reasons = append([]string{reason}, c.Reasons...)
		}
	}
	for _, name := range []string{f.Key, f.Label} {
		n := Normalize(name)
		if n == "" {
			continue
		}
		switch {
		case n == src:
			add(0.97, fmt.Sprintf("header %q equals the field's %s", col.Header, nameKind(name, f)))
		case strings.ReplaceAll(n, " ", "") == strings.ReplaceAll(src, " ", ""):
			add(0.95, fmt.Sprintf("header %q matches %q apart from spacing", col.Header, name))
		case strings.Join(tokens(n), " ") == strings.Join(tokens(src), " "):
			add(0.93, fmt.Sprintf("header %q matches %q once abbreviations are expanded", col.Header, name))
		}
		if cs, cf := concept(col.Header), concept(name); cs != "" && cs == cf {
			add(0.92, fmt.Sprintf("%q and %q both mean %s", col.Header, name, cs))
		}
		if sim := similarity(strings.Join(tokens(src), " "), strings.Join(tokens(n), " ")); sim >= 0.75 {
			add(0.55+0.35*(sim-0.75)/0.25, fmt.Sprintf("header %q is spelled like %q (%.0f%% alike)", col.Header, name, sim*100))
		}
		if j := jaccard(tokens(src), tokens(n)); j > 0 {
			add(0.35+0.4*j, fmt.Sprintf("header %q shares words with %q", col.Header, name))
		}
	}
	if f.Description != "" && best < 0.6 {
		if j := jaccard(tokens(src), tokens(Normalize(f.Description))); j > 0 {
			add(0.3+0.3*math.Min(1, j*3), fmt.Sprintf("header %q appears in the field's description", col.Header))
		}
	}
	best, c.Reasons = samples(col, f, best, c.Reasons)
	best, c.Reasons = history(src, f.Key, hist, best, c.Reasons)
	c.Confidence = math.Round(math.Min(best, MaxConfidence)*1000) / 1000
	return c
}

func nameKind(name string, f model.Field) string {
	if name == f.Key {
		return "key"
	}
	return "label"
}

// generic words say little on their own: "Name" shares "name" with "first name" but is not
// evidence for it.
var generic = map[string]bool{"name": true, "number": true, "date": true, "id": true, "code": true, "type": true, "the": true, "of": true, "de": true, "at": true, "no": true}

func meaningful(ws []string) []string {
	out := ws[:0:0]
	for _, w := range ws {
		if !generic[w] {
			out = append(out, w)
		}
	}
	return out
}

func jaccard(a, b []string) float64 {
	a, b = meaningful(a), meaningful(b)
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	set := map[string]bool{}
	for _, x := range a {
		set[x] = true
	}
	inter, union := 0, len(set)
	seen := map[string]bool{}
	for _, y := range b {
		if seen[y] {
			continue
		}
		seen[y] = true
		if set[y] {
			inter++
		} else {
			union++
		}
	}
	return float64(inter) / float64(union)
}

var (
	emailRe = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
	dateRe  = regexp.MustCompile(`^(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4})`)
	numRe   = regexp.MustCompile(`^[-+]?[\d.,\s]+$`)
	phoneRe = regexp.MustCompile(`^\+?[\d\s().-]{7,}$`)
)

// samples adjusts a score by what the column's values look like.
func samples(col Column, f model.Field, best float64, reasons []string) (float64, []string) {
	var vals []string
	for _, v := range col.Samples {
		if v = strings.TrimSpace(v); v != "" {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return best, reasons
	}
	share := func(re *regexp.Regexp) float64 {
		n := 0
		for _, v := range vals {
			if re.MatchString(v) {
				n++
			}
		}
		return float64(n) / float64(len(vals))
	}
	fc := concept(f.Key) + concept(f.Label)
	switch {
	case share(emailRe) > 0.8:
		if strings.Contains(fc, "email") || strings.Contains(Normalize(f.Key+" "+f.Label), "email") {
			return math.Max(best, 0.9) + 0.04, append(reasons, "the values look like e-mail addresses")
		}
		return best * 0.6, reasons
	case f.Type == model.FieldNumber && share(numRe) < 0.5:
		return best * 0.7, append(reasons, "the values are mostly not numbers")
	case f.Type == model.FieldDate && share(dateRe) > 0.8:
		return math.Min(best+0.05, MaxConfidence), append(reasons, "the values look like dates")
	case strings.Contains(fc, "phone") && share(phoneRe) > 0.8:
		return math.Min(best+0.05, MaxConfidence), append(reasons, "the values look like phone numbers")
	case f.Type == model.FieldEnum && f.Config != nil && len(f.Config.Options) > 0:
		hit := 0
		for _, v := range vals {
			if _, ok := matchOption(v, f.Config.Options); ok {
				hit++
			}
		}
		if r := float64(hit) / float64(len(vals)); r > 0.6 {
			return math.Min(math.Max(best, 0.5)+0.2*r, MaxConfidence), append(reasons, fmt.Sprintf("%.0f%% of the values are options of the field", r*100))
		}
	}
	return best, reasons
}

// history raises a score for mappings people accepted before: the current user's fully,
// other users' at OtherUsersWeight.
func history(src, key string, h History, best float64, reasons []string) (float64, []string) {
	mine, others := h.Mine[src][key], h.Others[src][key]
	if mine == 0 && others == 0 {
		return best, reasons
	}
	boost := 0.0
	if mine > 0 {
		boost = 0.97
		reasons = append(reasons, fmt.Sprintf("you mapped this header to %s before (%d times)", key, mine))
	}
	if others > 0 {
		if v := 0.97 * OtherUsersWeight; v > boost {
			boost = v
		}
		reasons = append(reasons, fmt.Sprintf("others mapped this header to %s before (%d times)", key, others))
	}
	return math.Max(best, boost), reasons
}
