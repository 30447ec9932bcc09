package model

import (
	"encoding/json"
	"time"
)

// Field types Sluice validates. Unknown types are rejected when a sheet is created.
const (
	FieldString        = "string"
	FieldNumber        = "number"
	FieldBoolean       = "boolean"
	FieldDate          = "date"
	FieldEnum          = "enum"
	FieldReference     = "reference"
	FieldReferenceList = "reference-list"
	FieldStringList    = "string-list"
	FieldEnumList      = "enum-list"
)

// EnumOption is one choice of an enum field. An option without a label shows its value.
type EnumOption struct {
	Value            json.RawMessage `json:"value"` // string, number or boolean as sent
	Label            string          `json:"label,omitempty"`
	Description      string          `json:"description,omitempty"`
	Color            string          `json:"color,omitempty"`
	Icon             string          `json:"icon,omitempty"`
	Meta             json.RawMessage `json:"meta,omitempty"`
	AlternativeNames []string        `json:"alternativeNames,omitempty"`
	Ordinal          *int            `json:"ordinal,omitempty"`
}

// FieldConfig is the type-specific part of a field (`config` on the wire).
type FieldConfig struct {
	Options       []EnumOption    `json:"options,omitempty"`       // enum, enum-list; nil means []
	SortBy        string          `json:"sortBy,omitempty"`        // label (default) | value | ordinal
	AllowCustom   bool            `json:"allowCustom,omitempty"`   // enum
	Ref           string          `json:"ref,omitempty"`           // reference: slug of the referenced sheet
	Key           string          `json:"key,omitempty"`           // reference: key of the referenced field
	Relationship  string          `json:"relationship,omitempty"`  // has-one | has-many
	Size          string          `json:"size,omitempty"`          // string: tiny|normal|medium|long
	DecimalPlaces *int            `json:"decimalPlaces,omitempty"` // number
	Format        *FieldFormat    `json:"format,omitempty"`        // date, number: how text values are read
	Extra         json.RawMessage `json:"-"`
}

// FieldFormat says how a date or number field reads text: without it only
// values whose reading needs no choice are accepted.
type FieldFormat struct {
	DateFormat       string `json:"dateFormat,omitempty"`       // DD/MM/YYYY, MM/DD/YYYY or YYYY-MM-DD
	DecimalSeparator string `json:"decimalSeparator,omitempty"` // "." or ","
}

// FieldConstraint is a constraint on one field: required, unique, computed, external, stored.
type FieldConstraint struct {
	Type   string          `json:"type"`
	Config json.RawMessage `json:"config,omitempty"` // e.g. {"caseSensitive":false,"ignoreEmpty":true,"message":"…","level":"error"}
	// Validator names the agent-side validator of an external or stored constraint
	// (@flatfile/plugin-constraints runs it); Sluice keeps it, with its label,
	// description and version, as written.
	Validator   string          `json:"validator,omitempty"`
	Label       string          `json:"label,omitempty"`
	Description string          `json:"description,omitempty"`
	Version     json.RawMessage `json:"version,omitempty"`
}

// Field is one column of a sheet's schema (a Flatfile "Property").
type Field struct {
	Key              string            `json:"key"`
	Type             string            `json:"type"`
	Label            string            `json:"label,omitempty"`
	Description      string            `json:"description,omitempty"` // Markdown
	Readonly         bool              `json:"readonly,omitempty"`
	IsArray          bool              `json:"isArray,omitempty"`
	Multi            bool              `json:"multi,omitempty"`
	Constraints      []FieldConstraint `json:"constraints,omitempty"`
	Config           *FieldConfig      `json:"config,omitempty"`
	Appearance       json.RawMessage   `json:"appearance,omitempty"`
	Metadata         json.RawMessage   `json:"metadata,omitempty"`
	Treatments       []string          `json:"treatments,omitempty"` // "additional" on fields beyond the original schema
	AlternativeNames []string          `json:"alternativeNames,omitempty"`
	Actions          json.RawMessage   `json:"actions,omitempty"`
}

// HasConstraint reports whether the field carries a constraint of type typ.
func (f *Field) HasConstraint(typ string) bool {
	for _, c := range f.Constraints {
		if c.Type == typ {
			return true
		}
	}
	return false
}

// SheetConstraint is a sheet-level constraint, e.g. composite uniqueness:
// {"type":"unique","name":"…","fields":["a","b"],"strategy":"hash"|"concat"}.
type SheetConstraint struct {
	Type           string          `json:"type"`
	Name           string          `json:"name,omitempty"`
	Fields         []string        `json:"fields,omitempty"`
	RequiredFields []string        `json:"requiredFields,omitempty"`
	Strategy       string          `json:"strategy,omitempty"`
	Validator      string          `json:"validator,omitempty"`
	Config         json.RawMessage `json:"config,omitempty"`
}

// SheetConfig is a sheet's schema and behaviour.
type SheetConfig struct {
	Name                       string            `json:"name"`
	Slug                       string            `json:"slug,omitempty"`
	Description                string            `json:"description,omitempty"`
	Fields                     []Field           `json:"fields"`
	Readonly                   bool              `json:"readonly,omitempty"`
	AllowAdditionalFields      bool              `json:"allowAdditionalFields,omitempty"`
	MappingConfidenceThreshold *float64          `json:"mappingConfidenceThreshold,omitempty"` // (0, 1]
	Access                     []string          `json:"access,omitempty"`
	Actions                    json.RawMessage   `json:"actions,omitempty"`
	Metadata                   json.RawMessage   `json:"metadata,omitempty"`
	Constraints                []SheetConstraint `json:"constraints,omitempty"`
	Treatments                 []string          `json:"treatments,omitempty"`
	// Format reads the text of every date and number field that has no config.format of its
	// own.
	Format *FieldFormat `json:"format,omitempty"`
}

// FieldByKey returns the field with key k, or nil.
func (c *SheetConfig) FieldByKey(k string) *Field {
	for i := range c.Fields {
		if c.Fields[i].Key == k {
			return &c.Fields[i]
		}
	}
	return nil
}

// Workbook holds sheets inside a space.
type Workbook struct {
	ID            string
	AccountID     string
	EnvironmentID string
	SpaceID       string
	Name          string
	Namespace     string
	Labels        []string
	Treatments    []string
	Metadata      json.RawMessage
	Settings      json.RawMessage // {trackChanges, noMappingRedirect, sheetSidebarOrder[]}
	Actions       json.RawMessage
	Sheets        []*Sheet
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Sheet is a typed table of records.
type Sheet struct {
	ID         string
	WorkbookID string
	Name       string
	Slug       string
	Config     SheetConfig
	Metadata   json.RawMessage
	Namespace  string
	LockedBy   string
	LockedAt   *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Commit is a unit of change on a sheet of a workbook; its id doubles as the version id of
// the records it wrote.
type Commit struct {
	ID          string
	SheetID     string
	WorkbookID  string
	CreatedBy   string
	CompletedBy string
	CreatedAt   time.Time
	CompletedAt *time.Time
}

// RecordCounts are a sheet's record totals, kept up to date on write.
type RecordCounts struct {
	Total         int
	Valid         int
	Error         int
	ErrorsByField map[string]int
}

// MarshalJSON writes the config, keeping an empty options list as [] (an enum's undefined
// options read back as an empty array) while other types omit it.
func (c FieldConfig) MarshalJSON() ([]byte, error) {
	type plain FieldConfig
	b, err := json.Marshal(plain(c))
	if err != nil || c.Options == nil || len(c.Options) > 0 {
		return b, err
	}
	if string(b) == "{}" {
		return []byte(`{"options":[]}`), nil
	}
	return append([]byte(`{"options":[],`), b[1:]...), nil
}
