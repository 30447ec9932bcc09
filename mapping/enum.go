package mapping

import (
	"encoding/json"
	"sort"

	"github.com/sluice/sluice/model"
)

// simpleEnumLimit is the size above which (in source values or options) enum mapping only
// matches exact and normalised spellings, so wide enums stay fast.
const simpleEnumLimit = 100

// EnumSuggestion maps one distinct source value onto an option's value.
type EnumSuggestion struct {
	Source     string
	Option     string // the option's value, "" when none fits
	Confidence float64
	Reason     string
}

func optionValue(o model.EnumOption) string {
	var s string
	if json.Unmarshal(o.Value, &s) == nil {
		return s
	}
	return string(o.Value)
}

// matchOption finds the option a value names by its value or label, ignoring case, accents
// and separators; yes/no spellings in several languages match boolean-like options.
func matchOption(v string, opts []model.EnumOption) (model.EnumOption, bool) {
	n := Normalize(v)
	for _, o := range opts {
		if Normalize(optionValue(o)) == n || (o.Label != "" && Normalize(o.Label) == n) {
			return o, true
		}
	}
	for _, o := range opts {
		ov, ol := Normalize(optionValue(o)), Normalize(o.Label)
		if (truthy[n] && (truthy[ov] || truthy[ol])) || (falsy[n] && (falsy[ov] || falsy[ol])) {
			return o, true
		}
	}
	return model.EnumOption{}, false
}

// SuggestEnum maps each distinct source value onto an option of field f. Past choices in
// hist (source value → option value) count first. Above 100 values or options only exact and
// normalised spellings match.
func SuggestEnum(values []string, f model.Field, hist History) []EnumSuggestion {
	var opts []model.EnumOption
	if f.Config != nil {
		opts = f.Config.Options
	}
	distinct := map[string]bool{}
	var list []string
	for _, v := range values {
		if !distinct[v] {
			distinct[v] = true
			list = append(list, v)
		}
	}
	sort.Strings(list)
	simple := len(list) > simpleEnumLimit || len(opts) > simpleEnumLimit
	byNorm := map[string]string{}
	if simple {
		for _, o := range opts {
			byNorm[Normalize(optionValue(o))] = optionValue(o)
			if o.Label != "" {
				byNorm[Normalize(o.Label)] = optionValue(o)
			}
		}
	}
	out := make([]EnumSuggestion, 0, len(list))
	for _, v := range list {
		s := EnumSuggestion{Source: v}
		n := Normalize(v)
		switch {
		case hist.Mine[n] != nil && len(hist.Mine[n]) > 0:
			s.Option, s.Confidence, s.Reason = topKey(hist.Mine[n]), 0.97, "you chose this option for this value before"
		case hist.Others[n] != nil && len(hist.Others[n]) > 0:
			s.Option, s.Confidence, s.Reason = topKey(hist.Others[n]), 0.97*OtherUsersWeight, "others chose this option for this value before"
		case simple:
			if o, ok := byNorm[n]; ok {
				s.Option, s.Confidence, s.Reason = o, 0.95, "same spelling (simple matching: over 100 values)"
			}
		default:
			if o, ok := matchOption(v, opts); ok {
				s.Option, s.Confidence, s.Reason = optionValue(o), 0.95, "matches the option's value or label"
				break
			}
			bestSim, bestOpt := 0.0, ""
			for _, o := range opts {
				for _, name := range []string{optionValue(o), o.Label} {
					if sim := similarity(n, Normalize(name)); name != "" && sim > bestSim {
						bestSim, bestOpt = sim, optionValue(o)
					}
				}
			}
			if bestSim >= 0.7 {
				s.Option, s.Confidence, s.Reason = bestOpt, 0.5+0.4*(bestSim-0.7)/0.3, "spelled like the option"
			}
		}
		if s.Confidence > MaxConfidence {
			s.Confidence = MaxConfidence
		}
		out = append(out, s)
	}
	return out
}

func topKey(m map[string]int) string {
	best, n := "", -1
	for k, c := range m {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	return best
}
