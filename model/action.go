package model

import (
	"encoding/json"
	"time"
)

// Action is a button or menu item mounted on a space, workbook, sheet, file or document;
// running it creates a job named "<target type>:<operation>".
type Action struct {
	ID            string
	AccountID     string
	EnvironmentID string
	SpaceID       string
	TargetID      string
	TargetType    string // space | workbook | sheet | file | document
	WorkbookID    string // the workbook of a workbook or sheet target
	Config        ActionConfig
	CreatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// ActionConfig is an action's definition as Flatfile's Action type describes it (also used
// for actions inline in workbook and sheet configs).
type ActionConfig struct {
	Label                string             `json:"label"`
	Slug                 string             `json:"slug,omitempty"`
	Operation            string             `json:"operation,omitempty"`
	Mode                 string             `json:"mode,omitempty"` // foreground | background | toolbarBlocking
	Tooltip              string             `json:"tooltip,omitempty"`
	Messages             []ActionMessage    `json:"messages,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Description          string             `json:"description,omitempty"`
	Schedule             string             `json:"schedule,omitempty"` // weekly | daily | hourly
	Primary              *bool              `json:"primary,omitempty"`
	Confirm              *bool              `json:"confirm,omitempty"`
	Icon                 string             `json:"icon,omitempty"`
	RequireAllValid      *bool              `json:"requireAllValid,omitempty"`
	RequireAllValidTotal *bool              `json:"requireAllValidTotal,omitempty"`
	RequireSelection     *bool              `json:"requireSelection,omitempty"`
	InputForm            *InputForm         `json:"inputForm,omitempty"`
	Constraints          []ActionConstraint `json:"constraints,omitempty"`
	Mount                *ActionMount       `json:"mount,omitempty"`
	Guide                *ActionText        `json:"guide,omitempty"`
	Guardrail            *ActionText        `json:"guardrail,omitempty"`
	CreatedFrom          string             `json:"createdFrom,omitempty"`
}

// Action constraint types.
const (
	ConstraintHasData          = "hasData"
	ConstraintHasAllValid      = "hasAllValid"
	ConstraintHasSelection     = "hasSelection"
	ConstraintHasColumnEnabled = "hasColumnEnabled"
)

// Has reports whether the action carries a constraint of type typ.
func (c *ActionConfig) Has(typ string) bool {
	for _, k := range c.Constraints {
		if k.Type == typ {
			return true
		}
	}
	return false
}

// ActionMessage is a custom tooltip for the action's error or info state.
type ActionMessage struct {
	Type    string `json:"type"` // error | info
	Content string `json:"content"`
}

// ActionConstraint disables an action until its condition holds.
type ActionConstraint struct {
	Type            string `json:"type"`
	IgnoreSelection *bool  `json:"ignoreSelection,omitempty"` // hasAllValid
}

// ActionMount says where an action appears.
type ActionMount struct {
	Type  string   `json:"type"` // sheet | workbook | field | document | file
	Slugs []string `json:"slugs,omitempty"`
	Keys  []string `json:"keys,omitempty"`
}

// ActionText is Markdown shown with an action (guide: tooltip; guardrail: warning modal).
type ActionText struct {
	Content string `json:"content"`
}

// InputForm asks the user for values before the action's job is created.
type InputForm struct {
	Type   string       `json:"type"` // simple
	Fields []InputField `json:"fields"`
}

// Input field types.
const (
	InputString   = "string"
	InputTextarea = "textarea"
	InputNumber   = "number"
	InputBoolean  = "boolean"
	InputEnum     = "enum"
)

// InputField is one value of an input form.
type InputField struct {
	Key          string            `json:"key"`
	Label        string            `json:"label"`
	Description  string            `json:"description,omitempty"`
	Type         string            `json:"type"`
	DefaultValue json.RawMessage   `json:"defaultValue,omitempty"` // enum, string and textarea only
	Config       *InputConfig      `json:"config,omitempty"`
	Constraints  []InputConstraint `json:"constraints,omitempty"`
}

// Required reports whether the field carries the required constraint.
func (f *InputField) Required() bool {
	for _, c := range f.Constraints {
		if c.Type == "required" {
			return true
		}
	}
	return false
}

// InputConfig holds an enum input's options.
type InputConfig struct {
	Options []InputOption `json:"options"`
}

// InputOption is one choice of an enum input.
type InputOption struct {
	Value       json.RawMessage `json:"value,omitempty"`
	Label       string          `json:"label,omitempty"`
	Description string          `json:"description,omitempty"`
	Color       string          `json:"color,omitempty"`
	Icon        string          `json:"icon,omitempty"`
	Meta        json.RawMessage `json:"meta,omitempty"`
}

// InputConstraint constrains an input field; the only type is "required".
type InputConstraint struct {
	Type string `json:"type"`
}
