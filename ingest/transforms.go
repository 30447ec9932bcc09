package ingest

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// transform is one non-assign rule of a program, ready to apply to a row.
type transform struct {
	kind      string
	sources   []string // source field keys read
	dests     []string // destination field keys written
	value     string   // constant
	separator string
	caseTo    string            // upper, lower, title
	enum      map[string]string // source value → option value
}

type ruleConfig struct {
	SourceField       string            `json:"sourceField"`
	SourceFields      []string          `json:"sourceFields"`
	DestinationField  string            `json:"destinationField"`
	DestinationFields []string          `json:"destinationFields"`
	Field             string            `json:"field"`
	Value             any               `json:"value"`
	Separator         *string           `json:"separator"`
	Case              string            `json:"case"`
	Mapping           map[string]string `json:"mapping"`
}

// compileTransforms checks a program's non-assign rules against the two sheets. Rule configs:
// constant {destinationField, value}; concatenate {sourceFields, destinationField, separator
// (default " ")}; split {sourceField, destinationFields, separator (default ",")}; trim
// {field} and case {field, case: upper|lower|title} on a destination field; enum
// {destinationField, mapping: {source value: option value}}; ignore does nothing.
func compileTransforms(rules []*model.MappingRule, src, dst *model.Sheet) ([]transform, error) {
	var out []transform
	for _, r := range rules {
		if r.Type == "assign" || r.Type == "ignore" {
			continue
		}
		var c ruleConfig
		if err := json.Unmarshal(r.Config, &c); err != nil {
			return nil, errs.Invalidf("rules", "Rule %s has a config that is not an object", r.ID)
		}
		t := transform{kind: r.Type, caseTo: c.Case, enum: c.Mapping}
		switch r.Type {
		case "constant":
			t.dests = []string{c.DestinationField}
			if s, ok := c.Value.(string); ok {
				t.value = s
			} else if c.Value != nil {
				b, _ := json.Marshal(c.Value)
				t.value = string(b)
			}
		case "concatenate":
			t.sources, t.dests, t.separator = c.SourceFields, []string{c.DestinationField}, " "
		case "split":
			t.sources, t.dests, t.separator = []string{c.SourceField}, c.DestinationFields, ","
		case "trim", "case":
			t.dests = []string{cmp.Or(c.Field, c.DestinationField)}
		case "enum":
			t.dests = []string{c.DestinationField}
		default:
			continue
		}
		if c.Separator != nil {
			t.separator = *c.Separator
		}
		for _, k := range t.sources {
			if src.Config.FieldByKey(k) == nil {
				return nil, errs.Invalidf("rules", "Rule %s reads %q, which the source sheet does not have", r.ID, k)
			}
		}
		if len(t.dests) == 0 {
			return nil, errs.Invalidf("rules", "Rule %s names no destination field", r.ID)
		}
		for _, k := range t.dests {
			if dst.Config.FieldByKey(k) == nil {
				return nil, errs.Invalidf("rules", "Rule %s writes %q, which the destination sheet does not have", r.ID, k)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// apply runs the transform on one row: src holds the source record's text by key, dst the
// destination values built so far (JSON), changed in place.
func (t transform) apply(src map[string]string, dst map[string]json.RawMessage) {
	text := func(k string) string { return CellText(dst[k]) }
	set := func(k, v string) {
		if v == "" {
			dst[k] = nil
			return
		}
		dst[k] = jsonString(v)
	}
	switch t.kind {
	case "constant":
		set(t.dests[0], t.value)
	case "concatenate":
		var parts []string
		for _, k := range t.sources {
			if v := strings.TrimSpace(src[k]); v != "" {
				parts = append(parts, v)
			}
		}
		set(t.dests[0], strings.Join(parts, t.separator))
	case "split":
		parts := strings.Split(src[t.sources[0]], t.separator)
		for i, k := range t.dests {
			switch {
			case i >= len(parts):
				set(k, "")
			case i == len(t.dests)-1:
				set(k, strings.TrimSpace(strings.Join(parts[i:], t.separator)))
			default:
				set(k, strings.TrimSpace(parts[i]))
			}
		}
	case "trim":
		set(t.dests[0], strings.Join(strings.Fields(text(t.dests[0])), " "))
	case "case":
		v := text(t.dests[0])
		switch t.caseTo {
		case "upper":
			v = strings.ToUpper(v)
		case "lower":
			v = strings.ToLower(v)
		case "title":
			v = cases.Title(language.Und).String(strings.ToLower(v))
		}
		set(t.dests[0], v)
	case "enum":
		if to, ok := t.enum[text(t.dests[0])]; ok {
			set(t.dests[0], to)
		}
	}
}
