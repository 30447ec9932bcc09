package model

import (
	"encoding/json"
	"time"
)

// Document is a page of Markdown or HTML in a space. The treatment "ephemeral" shows it as a
// full-screen overlay and hides it from the sidebar.
type Document struct {
	ID            string
	AccountID     string
	EnvironmentID string
	SpaceID       string
	Title         string
	Body          string
	Treatments    []string
	Actions       json.RawMessage
	CreatedAt     time.Time
	UpdatedAt     time.Time
}
