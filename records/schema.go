// Package records holds the validation rules of sheet records: per-type checks and
// coercions, required, enum options, and the keys that unique and composite-unique
// constraints compare. It is pure: the store runs it inside its write transactions and does
// the lookups (duplicates, references) that need data.
package records

import (
	"encoding/json"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// Message is a validation message on a cell or a record (the wire's ValidationMessage).
type Message struct {
	Field   string `json:"field,omitempty"`
	Type    string `json:"type,omitempty"` // error | warn | info
	Source  string `json:"source,omitempty"`
	Message string `json:"message,omitempty"`
	Path    string `json:"path,omitempty"`
}

// Message sources Sluice itself produces. Messages an agent sends with these sources are
// dropped on write, since Sluice recomputes them.
const (
	SourceRequired = "required-constraint"
	SourceUnique   = "unique-constraint"
	SourceOption   = "invalid-option"
	SourceUnlinked = "unlinked"
)

// Validation levels.
const (
	LevelError = "error"
	LevelWarn  = "warn"
	LevelInfo  = "info"
)

// Rule is one field with what validating it needs, prepared once per write.
type Rule struct {
	*model.Field
	Index    int
	List     bool           // the cell holds an array
	Required *ConstraintMsg // nil when not required
	Unique   *Unique        // the field's own unique constraint, if any
	byText   map[string]json.RawMessage
	byLabel  map[string]json.RawMessage
	// Format reads text values of a date (DMY, MDY, serial) or number ("." or ",") field;
	// "" accepts only values whose reading needs no choice.
	Format string
}

// ConstraintMsg is the message and level a constraint reports.
type ConstraintMsg struct {
	Message string
	Level   string
}

// Unique is a unique constraint over one field or, for composite constraints, several.
type Unique struct {
	Name          string // "field:<key>" or "sheet:<constraint name or keys>"; stable per sheet
	Fields        []int  // rule indexes
	Required      []int  // composite: the constraint applies only when these are not empty
	Composite     bool
	CaseSensitive bool
	ConstraintMsg
}

// Schema is a sheet configuration prepared for validating many records.
type Schema struct {
	Config  *model.SheetConfig
	Rules   []*Rule
	Uniques []*Unique
	Refs    []*Rule // reference and reference-list fields
	byKey   map[string]int
}

// Compile prepares cfg. Errors: invalid when a constraint names an unknown field.
func Compile(cfg *model.SheetConfig) (*Schema, error) {
	s := &Schema{Config: cfg, byKey: make(map[string]int, len(cfg.Fields))}
	for i := range cfg.Fields {
		f := &cfg.Fields[i]
		r := &Rule{Field: f, Index: i, List: isList(f), Format: fieldFormat(f, cfg.Format)}
		for _, c := range f.Constraints {
			cm := constraintMsg(c.Config)
			switch c.Type {
			case "required":
				if cm.Message == "" {
					cm.Message = "Field is required"
				}
				r.Required = &cm
			case "unique":
				if cm.Message == "" {
					cm.Message = "Value must be unique"
				}
				r.Unique = &Unique{Name: "field:" + f.Key, Fields: []int{i}, CaseSensitive: caseSensitive(c.Config), ConstraintMsg: cm}
				s.Uniques = append(s.Uniques, r.Unique)
			}
		}
		if f.Type == model.FieldEnum || f.Type == model.FieldEnumList {
			r.prepareOptions()
		}
		if f.Type == model.FieldReference || f.Type == model.FieldReferenceList {
			s.Refs = append(s.Refs, r)
		}
		s.Rules = append(s.Rules, r)
		s.byKey[f.Key] = i
	}
	for _, c := range cfg.Constraints {
		if c.Type != "unique" {
			continue
		}
		u, err := s.composite(c)
		if err != nil {
			return nil, err
		}
		s.Uniques = append(s.Uniques, u)
	}
	return s, nil
}

// fieldFormat is the Format a field's config.format sets or, failing that, the sheet's.
func fieldFormat(f *model.Field, sheet *model.FieldFormat) string {
	ff := sheet
	if f.Config != nil && f.Config.Format != nil {
		ff = f.Config.Format
	}
	if ff == nil {
		return ""
	}
	switch f.Type {
	case model.FieldDate:
		return map[string]string{"DD/MM/YYYY": "DMY", "MM/DD/YYYY": "MDY", "YYYY-MM-DD": "YMD"}[ff.DateFormat]
	case model.FieldNumber:
		return ff.DecimalSeparator
	}
	return ""
}

// WithFormats is the schema with some fields' Format set (fieldKey → format), for a write
// that reads its values in formats chosen elsewhere (the import wizard's).
func (s *Schema) WithFormats(formats map[string]string) *Schema {
	if len(formats) == 0 {
		return s
	}
	c := *s
	c.Rules = make([]*Rule, len(s.Rules))
	for i, r := range s.Rules {
		if f, ok := formats[r.Key]; ok {
			nr := *r
			nr.Format = f
			r = &nr
		}
		c.Rules[i] = r
	}
	return &c
}

func (s *Schema) composite(c model.SheetConstraint) (*Unique, error) {
	if len(c.Fields) == 0 {
		return nil, errs.Invalidf("constraints", "Unique constraint %q names no fields", c.Name)
	}
	cm := constraintMsg(c.Config)
	name := c.Name
	if name == "" {
		name = strings.Join(c.Fields, "+")
	}
	if cm.Message == "" {
		cm.Message = "Combination of " + strings.Join(c.Fields, ", ") + " must be unique"
	}
	u := &Unique{Name: "sheet:" + name, Composite: true, CaseSensitive: caseSensitive(c.Config), ConstraintMsg: cm}
	for _, k := range c.Fields {
		i, ok := s.byKey[k]
		if !ok {
			return nil, errs.Invalidf("constraints", "Unique constraint %q names unknown field %q", name, k)
		}
		u.Fields = append(u.Fields, i)
	}
	for _, k := range c.RequiredFields {
		i, ok := s.byKey[k]
		if !ok {
			return nil, errs.Invalidf("constraints", "Unique constraint %q names unknown required field %q", name, k)
		}
		u.Required = append(u.Required, i)
	}
	return u, nil
}

func constraintMsg(raw json.RawMessage) ConstraintMsg {
	var c struct {
		Message string `json:"message"`
		Level   string `json:"level"`
	}
	_ = json.Unmarshal(raw, &c)
	if c.Level != LevelWarn && c.Level != LevelInfo {
		c.Level = LevelError
	}
	return ConstraintMsg{Message: c.Message, Level: c.Level}
}

func caseSensitive(raw json.RawMessage) bool {
	var c struct {
		CaseSensitive *bool `json:"caseSensitive"`
	}
	_ = json.Unmarshal(raw, &c)
	return c.CaseSensitive == nil || *c.CaseSensitive
}

func isList(f *model.Field) bool {
	switch f.Type {
	case model.FieldStringList, model.FieldEnumList, model.FieldReferenceList:
		return true
	}
	return f.IsArray || f.Multi
}

func (r *Rule) prepareOptions() {
	r.byText, r.byLabel = map[string]json.RawMessage{}, map[string]json.RawMessage{}
	if r.Config == nil {
		return
	}
	for _, o := range r.Config.Options {
		raw := Canonical(o.Value)
		r.byText[textOf(raw)] = raw
		if o.Label != "" {
			r.byLabel[strings.ToLower(o.Label)] = raw
		}
	}
}

// Index returns the rule index of key and whether the sheet has that field.
func (s *Schema) Index(key string) (int, bool) {
	i, ok := s.byKey[key]
	return i, ok
}

// Rule returns the rule of key, or nil.
func (s *Schema) Rule(key string) *Rule {
	if i, ok := s.byKey[key]; ok {
		return s.Rules[i]
	}
	return nil
}

// Row holds a record's values aligned with Schema.Rules; nil means the cell is empty. How a
// row is stored is the store's business.
type Row []json.RawMessage

// IsEmpty reports whether a stored or canonical value counts as an empty cell.
func IsEmpty(v json.RawMessage) bool {
	return v == nil || string(v) == "null" || string(v) == `""` || string(v) == "[]"
}

// UnknownField is the error for a value sent for a key the sheet does not define.
func UnknownField(key string) error {
	return errs.Invalidf(key, "Unknown field %q: the sheet has no field with this key", key)
}
