// Package schema checks and normalises sheet configurations: field keys unique
// case-insensitively, known field types, enum options and ordering, references, constraints,
// mappingConfidenceThreshold, appearance, and slugs.
package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/model"
)

var fieldTypes = []string{model.FieldString, model.FieldNumber, model.FieldBoolean, model.FieldDate, model.FieldEnum,
	model.FieldReference, model.FieldReferenceList, model.FieldStringList, model.FieldEnumList}

var constraintTypes = map[string]bool{"required": true, "unique": true, "computed": true, "external": true, "stored": true}

var sizes = map[string]bool{"xs": true, "s": true, "m": true, "l": true, "xl": true}

// Sheet validates cfg in place: it fills defaults (enum options [], sortBy label, slug from
// the name) and returns an invalid error naming the first problem. key is the prefix of
// error keys, e.g. "sheets[0]"; caps bound its width and names.
func Sheet(cfg *model.SheetConfig, key string, caps limits.Caps) error {
	if strings.TrimSpace(cfg.Name) == "" {
		return errs.Invalidf(key+".name", "Sheet name is required")
	}
	if cfg.Slug == "" {
		cfg.Slug = Slugify(cfg.Name)
	} else if !slugRe.MatchString(cfg.Slug) {
		return errs.Invalidf(key+".slug", "Slug %q may contain only letters, digits, '-' and '_'", cfg.Slug)
	}
	if t := cfg.MappingConfidenceThreshold; t != nil && (*t <= 0 || *t > 1) {
		return errs.Invalidf(key+".mappingConfidenceThreshold", "mappingConfidenceThreshold must be greater than 0 and at most 1, got %v", *t)
	}
	if err := fieldFormat(cfg.Format, key+".format"); err != nil {
		return err
	}
	if cfg.Fields == nil {
		cfg.Fields = []model.Field{}
	}
	if len(cfg.Fields) > caps.Columns {
		return errs.Invalidf(key+".fields", "%s", caps.Width("The sheet has", len(cfg.Fields)))
	}
	seen := map[string]string{}
	for i := range cfg.Fields {
		f := &cfg.Fields[i]
		fk := fmt.Sprintf("%s.fields[%d]", key, i)
		if err := Field(f, fk, caps); err != nil {
			return err
		}
		low := strings.ToLower(f.Key)
		if prev, ok := seen[low]; ok {
			return errs.Invalidf(fk+".key", "Field keys must be unique ignoring case: %q and %q collide", prev, f.Key)
		}
		seen[low] = f.Key
	}
	for i, c := range cfg.Constraints {
		if err := sheetConstraint(cfg, c, fmt.Sprintf("%s.constraints[%d]", key, i)); err != nil {
			return err
		}
	}
	return nil
}

// fieldFormat checks a config.format hint of a field or (for every field) of a sheet.
func fieldFormat(ff *model.FieldFormat, key string) error {
	if ff == nil {
		return nil
	}
	switch ff.DateFormat {
	case "", "DD/MM/YYYY", "MM/DD/YYYY", "YYYY-MM-DD":
	default:
		return errs.Invalidf(key+".dateFormat", "dateFormat must be DD/MM/YYYY, MM/DD/YYYY or YYYY-MM-DD, got %q", ff.DateFormat)
	}
	switch ff.DecimalSeparator {
	case "", ".", ",":
	default:
		return errs.Invalidf(key+".decimalSeparator", "decimalSeparator must be \".\" or \",\", got %q", ff.DecimalSeparator)
	}
	return nil
}

// Field validates one field in place and fills its defaults.
func Field(f *model.Field, key string, caps limits.Caps) error {
	if strings.TrimSpace(f.Key) == "" {
		return errs.Invalidf(key+".key", "Field key is required")
	}
	if limits.Over(f.Key, caps.NameLength) {
		return errs.Invalidf(key+".key", "%s", caps.Name("The field key", f.Key))
	}
	if limits.Over(f.Label, caps.NameLength) {
		return errs.Invalidf(key+".label", "%s", caps.Name("The field label", f.Label))
	}
	if f.Type == "" {
		return errs.Invalidf(key+".type", "Field %q needs a type (%s)", f.Key, strings.Join(fieldTypes, ", "))
	}
	known := false
	for _, t := range fieldTypes {
		known = known || t == f.Type
	}
	if !known {
		return errs.Invalidf(key+".type", "Field %q has unknown type %q; use one of %s", f.Key, f.Type, strings.Join(fieldTypes, ", "))
	}
	for _, c := range f.Constraints {
		if !constraintTypes[c.Type] {
			return errs.Invalidf(key+".constraints", "Field %q has unknown constraint type %q; use required, unique, computed, external or stored", f.Key, c.Type)
		}
		if (c.Type == "external" || c.Type == "stored") && strings.TrimSpace(c.Validator) == "" {
			return errs.Invalidf(key+".constraints", "Field %q: its %s constraint needs a validator, the name of the check an agent runs", f.Key, c.Type)
		}
	}
	if err := appearance(f, key); err != nil {
		return err
	}
	if f.Config != nil {
		if err := fieldFormat(f.Config.Format, key+".config.format"); err != nil {
			return err
		}
	}
	switch f.Type {
	case model.FieldEnum, model.FieldEnumList:
		return enumConfig(f, key)
	case model.FieldReference, model.FieldReferenceList:
		if f.Config == nil || f.Config.Ref == "" || f.Config.Key == "" {
			return errs.Invalidf(key+".config", "Reference field %q needs config.ref (the referenced sheet's slug) and config.key (its field key)", f.Key)
		}
		if r := f.Config.Relationship; r != "" && r != "has-one" && r != "has-many" {
			return errs.Invalidf(key+".config.relationship", "relationship must be has-one or has-many, got %q", r)
		}
	}
	return nil
}

func appearance(f *model.Field, key string) error {
	if len(f.Appearance) == 0 || string(f.Appearance) == "null" {
		return nil
	}
	var a struct {
		Size *string `json:"size"`
	}
	if err := json.Unmarshal(f.Appearance, &a); err != nil {
		return errs.Invalidf(key+".appearance", "Field %q: appearance must be an object", f.Key)
	}
	if a.Size != nil && !sizes[*a.Size] {
		return errs.Invalidf(key+".appearance.size", "Field %q: appearance.size must be xs, s, m, l or xl, got %q", f.Key, *a.Size)
	}
	return nil
}

func enumConfig(f *model.Field, key string) error {
	if f.Config == nil {
		f.Config = &model.FieldConfig{}
	}
	if f.Config.Options == nil {
		f.Config.Options = []model.EnumOption{} // undefined options are an empty list, not an error
	}
	switch f.Config.SortBy {
	case "":
		f.Config.SortBy = "label"
	case "label", "value", "ordinal":
	default:
		return errs.Invalidf(key+".config.sortBy", "Field %q: sortBy must be label, value or ordinal, got %q", f.Key, f.Config.SortBy)
	}
	seen := map[string]bool{}
	for i, o := range f.Config.Options {
		v := OptionValue(o)
		if v == "" {
			return errs.Invalidf(fmt.Sprintf("%s.config.options[%d].value", key, i), "Field %q: every enum option needs a value", f.Key)
		}
		if seen[v] {
			return errs.Invalidf(fmt.Sprintf("%s.config.options[%d].value", key, i), "Field %q: enum option %q is listed twice", f.Key, v)
		}
		seen[v] = true
	}
	return nil
}

func sheetConstraint(cfg *model.SheetConfig, c model.SheetConstraint, key string) error {
	switch c.Type {
	case "unique":
		if len(c.Fields) < 2 {
			return errs.Invalidf(key+".fields", "A composite unique constraint needs two or more fields")
		}
		if c.Strategy != "" && c.Strategy != "hash" && c.Strategy != "concat" {
			return errs.Invalidf(key+".strategy", "strategy must be hash or concat, got %q", c.Strategy)
		}
		for _, k := range append(append([]string{}, c.Fields...), c.RequiredFields...) {
			if cfg.FieldByKey(k) == nil {
				return errs.Invalidf(key+".fields", "Constraint %q names unknown field %q", c.Name, k)
			}
		}
	case "external":
		if c.Validator == "" {
			return errs.Invalidf(key+".validator", "An external constraint needs a validator")
		}
	default:
		return errs.Invalidf(key+".type", "Unknown sheet constraint type %q; use unique or external", c.Type)
	}
	return nil
}

// OptionValue is an enum option's value as text (strings unquoted, numbers and booleans as written).
func OptionValue(o model.EnumOption) string {
	var s string
	if json.Unmarshal(o.Value, &s) == nil {
		return s
	}
	if string(o.Value) == "null" {
		return ""
	}
	return string(o.Value)
}

// OptionLabel is what an enum option shows: its label, or its value when it has none.
func OptionLabel(o model.EnumOption) string {
	if o.Label != "" {
		return o.Label
	}
	return OptionValue(o)
}

// SortedOptions returns f's enum options in the order of config.sortBy (label by default).
func SortedOptions(f *model.Field) []model.EnumOption {
	if f.Config == nil {
		return []model.EnumOption{}
	}
	out := append([]model.EnumOption{}, f.Config.Options...)
	less := func(a, b model.EnumOption) bool {
		return strings.ToLower(OptionLabel(a)) < strings.ToLower(OptionLabel(b))
	}
	switch f.Config.SortBy {
	case "value":
		less = func(a, b model.EnumOption) bool { return OptionValue(a) < OptionValue(b) }
	case "ordinal":
		less = func(a, b model.EnumOption) bool {
			ao, bo := 1<<31-1, 1<<31-1
			if a.Ordinal != nil {
				ao = *a.Ordinal
			}
			if b.Ordinal != nil {
				bo = *b.Ordinal
			}
			return ao < bo
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

var slugRe = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slugify derives a slug from a name: lower case, runs of other characters become "-".
func Slugify(name string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if s == "" {
		return "sheet"
	}
	return s
}

// References checks that reference fields point at sheets of the workbook (by slug) and at
// fields those sheets have.
func References(sheets []*model.SheetConfig) error {
	bySlug := map[string]*model.SheetConfig{}
	for _, s := range sheets {
		bySlug[s.Slug] = s
	}
	for _, s := range sheets {
		for _, f := range s.Fields {
			if f.Type != model.FieldReference && f.Type != model.FieldReferenceList {
				continue
			}
			target, ok := bySlug[f.Config.Ref]
			if !ok {
				return errs.Invalidf("fields."+f.Key+".config.ref", "Field %q of sheet %q references sheet %q, which is not in the workbook", f.Key, s.Slug, f.Config.Ref)
			}
			if target.FieldByKey(f.Config.Key) == nil {
				return errs.Invalidf("fields."+f.Key+".config.key", "Field %q of sheet %q references field %q, which sheet %q does not have", f.Key, s.Slug, f.Config.Key, target.Slug)
			}
		}
	}
	return nil
}
