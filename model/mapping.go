package model

import (
	"encoding/json"
	"time"
)

// MappingProgram maps a source sheet configuration onto a destination one through rules.
type MappingProgram struct {
	ID            string
	AccountID     string
	EnvironmentID string
	Namespace     string
	FamilyID      string
	Source        SheetConfig
	Destination   SheetConfig
	Rules         []*MappingRule
	CreatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// MappingRule is one step of a program: assign (source field → destination field), ignore,
// constant, enum value mapping, or a transform (concatenate, split, trim, case).
type MappingRule struct {
	ID         string
	ProgramID  string
	Name       string
	Type       string
	Config     json.RawMessage
	Metadata   json.RawMessage
	Confidence *float64
	AcceptedAt *time.Time
	AcceptedBy string
	CreatedBy  string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}
