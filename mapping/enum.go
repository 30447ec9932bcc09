package mapping

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sluice/sluice/model"
)

// SimpleEnumLimit is the number of distinct source values or options above which enum
// mapping switches to the simple assignment: exact and normalised spellings and history
// only, so wide enums stay fast (the spec's Limits table).
const SimpleEnumLimit = 100

// enumFloor is the lowest confidence at which an option is suggested for a value.
const enumFloor = 0.5

// EnumSuggestion is the proposed option for one distinct source value.
type EnumSuggestion struct {
	Source     string          // the source value as found
	Option     string          // the option's value as text; "" when no option fits
	Value      json.RawMessage // the option's value as configured (string, number or boolean)
	Label      string          // the option's label, or its value when it has none
	Confidence float64         // in (0, 0.99] when Option is set, 0 otherwise
	Reasons    []string
}

// option is an enum option prepared for matching.
type option struct {
	value    string
	raw      json.RawMessage
	label    string
	names    []string // normalised value, label and alternative names
	meanings []string // what the option means according to the value dictionary
	initials string   // "ft" for "Full-time"
	country  string
}

// optionsOf prepares a field's options; spellingsOnly skips what only the full matching
// needs (meanings, countries, initials), which keeps wide enums cheap.
func optionsOf(f *model.Field, spellingsOnly bool) []option {
	if f.Config == nil {
		return nil
	}
	out := make([]option, 0, len(f.Config.Options))
	for _, o := range f.Config.Options {
		op := option{value: optionText(o.Value), raw: o.Value, label: o.Label}
		if op.label == "" {
			op.label = op.value
		}
		for _, s := range append([]string{op.value, o.Label}, o.AlternativeNames...) {
			if n := Normalize(s); n != "" && !contains(op.names, n) {
				op.names = append(op.names, n)
			}
		}
		if spellingsOnly {
			out = append(out, op)
			continue
		}
		var parts []string
		for _, s := range append([]string{op.value, o.Label}, o.AlternativeNames...) {
			parts = append(parts, labelParts(s)...)
		}
		for _, n := range append(op.names, parts...) {
			for _, m := range valueMeaning[n] {
				if !contains(op.meanings, m) {
					op.meanings = append(op.meanings, m)
				}
			}
			if op.country == "" {
				op.country = countryCode[n]
			}
		}
		if ws := strings.Fields(Normalize(o.Label)); len(ws) >= 2 {
			for _, w := range ws {
				op.initials += w[:1]
			}
		}
		out = append(out, op)
	}
	return out
}

// labelParts cuts a label written as "Event / Trade show" or "Software & IT" into its
// normalised parts.
func labelParts(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune("/&,;()|+", r) }) {
		if n := Normalize(p); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// optionText is an option value as text: strings unquoted, numbers and booleans as written.
func optionText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(v))
}

// matchOption scores how well source value v (normalised nv) names option o.
func matchOption(v, nv string, o *option) (float64, string) {
	switch {
	case v == o.value:
		return 0.97, fmt.Sprintf("%q equals the option's value", v)
	case v == o.label:
		return 0.97, fmt.Sprintf("%q equals the option's label", v)
	case contains(o.names, nv):
		return 0.95, fmt.Sprintf("%q matches the option %q apart from case and separators", v, o.label)
	}
	for _, m := range valueMeaning[nv] {
		if contains(o.meanings, m) {
			return 0.9, fmt.Sprintf("synonym: %q → %s", v, o.label)
		}
	}
	if c := countryCode[nv]; c != "" && c == o.country {
		return 0.9, fmt.Sprintf("%q is the country %s", v, c)
	}
	compact := strings.ReplaceAll(nv, " ", "")
	if len(compact) >= 2 && compact == o.initials {
		return 0.8, fmt.Sprintf("%q abbreviates %q", v, o.label)
	}
	best, reason := 0.0, ""
	for _, n := range o.names {
		if len(nv) >= 3 && len(n) > len(nv) && strings.HasPrefix(n, nv) {
			best, reason = 0.75, fmt.Sprintf("%q starts the option %q", v, o.label)
		}
		if s := similarity(nv, n, 0.75); 0.5+0.4*s > best && s > 0 {
			best, reason = 0.5+0.4*s, fmt.Sprintf("%q is spelled like the option %q (%.0f%% alike)", v, o.label, s*100)
		}
		if j := wordOverlap(nv, n); j >= 0.5 && 0.5+0.3*j > best {
			best, reason = 0.5+0.3*j, fmt.Sprintf("%q shares words with the option %q", v, o.label)
		}
	}
	return best, reason
}

func wordOverlap(a, b string) float64 {
	wa, wb := stemAll(strings.Fields(a)), stemAll(strings.Fields(b))
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	common := 0
	for _, w := range wa {
		if contains(wb, w) {
			common++
		}
	}
	return float64(common) / float64(len(wa)+len(wb)-common)
}

// SuggestEnum proposes an option of field f for each distinct non-empty source value, in the
// order the values first appear. It matches option values, labels and alternative names
// ignoring case, accents and separators, synonyms in several languages (yes/ja/oui/sí,
// genders, statuses, payment methods…), countries by name or ISO code, US states, initials
// and spelling; hist holds past enum choices for this field (normalised source value → option
// value), the current user's at full weight and other users' at 80%. With more than
// SimpleEnumLimit distinct values or options only exact and normalised spellings and history
// are used. Several values may map to the same option.
func SuggestEnum(values []string, f model.Field, hist History) []EnumSuggestion {
	var distinct []string
	seen := map[string]bool{}
	for _, v := range values {
		if strings.TrimSpace(v) != "" && !seen[v] {
			seen[v] = true
			distinct = append(distinct, v)
		}
	}
	wide := len(distinct) > SimpleEnumLimit || f.Config != nil && len(f.Config.Options) > SimpleEnumLimit
	opts := optionsOf(&f, wide)
	index := valueIndex(opts)
	if wide {
		return simpleEnum(distinct, opts, index, hist)
	}
	out := make([]EnumSuggestion, len(distinct))
	for i, v := range distinct {
		nv := Normalize(v)
		best, bestConf, reason := -1, 0.0, ""
		for j := range opts {
			if c, r := matchOption(v, nv, &opts[j]); c > bestConf {
				best, bestConf, reason = j, c, r
			}
		}
		var reasons []string
		if best >= 0 {
			reasons = []string{reason}
		}
		best, bestConf, reasons = applyEnumHistory(nv, opts, index, hist, best, bestConf, reasons)
		out[i] = enumResult(v, opts, best, bestConf, reasons)
	}
	return out
}

// simpleEnum is the assignment for wide enums: a map lookup per value.
func simpleEnum(values []string, opts []option, index map[string]int, hist History) []EnumSuggestion {
	exact := make(map[string]int, 2*len(opts))
	normal := make(map[string]int, 2*len(opts))
	for j := len(opts) - 1; j >= 0; j-- { // the first option wins on duplicates
		exact[opts[j].value], exact[opts[j].label] = j, j
		for _, n := range opts[j].names {
			normal[n] = j
		}
	}
	out := make([]EnumSuggestion, len(values))
	for i, v := range values {
		nv := Normalize(v)
		best, conf := -1, 0.0
		var reasons []string
		if j, ok := exact[v]; ok {
			best, conf, reasons = j, 0.97, []string{fmt.Sprintf("%q equals the option's value or label", v)}
		} else if j, ok := normal[nv]; ok {
			best, conf, reasons = j, 0.95, []string{fmt.Sprintf("%q matches the option %q apart from case and separators", v, opts[j].label)}
		}
		best, conf, reasons = applyEnumHistory(nv, opts, index, hist, best, conf, reasons)
		s := enumResult(v, opts, best, conf, reasons)
		s.Reasons = append(s.Reasons, fmt.Sprintf("simple assignment: more than %d values or options", SimpleEnumLimit))
		out[i] = s
	}
	return out
}

// applyEnumHistory lets accepted enum mappings confirm or override the spelling match. It
// looks only at the options history names for this value, so it costs nothing on wide enums.
func applyEnumHistory(nv string, opts []option, index map[string]int, hist History, best int, conf float64, reasons []string) (int, float64, []string) {
	var dsts []string
	for _, c := range []Counts{hist.Mine, hist.Others} {
		for dst := range c[nv] {
			if !contains(dsts, dst) {
				dsts = append(dsts, dst)
			}
		}
	}
	sort.Strings(dsts) // a fixed order keeps ties deterministic
	for _, dst := range dsts {
		j, ok := index[dst]
		if !ok {
			continue
		}
		h, r := hist.signal(nv, opts[j].value)
		c := h
		if j == best {
			c = 1 - (1-conf)*(1-h)
		}
		if c > conf {
			if j != best {
				reasons = nil
			}
			best, conf, reasons = j, c, append(reasons, r.Text)
		}
	}
	return best, conf, reasons
}

// valueIndex finds options by value; the first of duplicates wins.
func valueIndex(opts []option) map[string]int {
	index := make(map[string]int, len(opts))
	for j := len(opts) - 1; j >= 0; j-- {
		index[opts[j].value] = j
	}
	return index
}

func enumResult(v string, opts []option, best int, conf float64, reasons []string) EnumSuggestion {
	if best < 0 || conf < enumFloor {
		return EnumSuggestion{Source: v, Reasons: []string{"no option matches"}}
	}
	o := opts[best]
	return EnumSuggestion{Source: v, Option: o.value, Value: o.raw, Label: o.label, Confidence: min(conf, MaxConfidence), Reasons: reasons}
}
