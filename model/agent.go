package model

import (
	"encoding/json"
	"time"
)

// Agent is a listener registered with an environment: its source is stored and versioned
// (Sluice never runs it), and an agent with a URL receives matching events as signed webhooks.
type Agent struct {
	ID            string
	AccountID     string
	EnvironmentID string
	Config        AgentConfig
	Version       int
	CreatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// AgentConfig is Flatfile's AgentConfig plus Sluice's webhook URL.
type AgentConfig struct {
	Topics          []string        `json:"topics,omitempty"`
	Compiler        string          `json:"compiler,omitempty"`
	Source          string          `json:"source,omitempty"`
	SourceMap       string          `json:"sourceMap,omitempty"`
	Slug            string          `json:"slug,omitempty"`
	Options         json.RawMessage `json:"options,omitempty"`
	Template        string          `json:"template,omitempty"`
	TemplateOptions json.RawMessage `json:"templateOptions,omitempty"`
	IsSystem        bool            `json:"isSystem,omitempty"`
	Namespace       string          `json:"namespace,omitempty"`
	PackageVersions json.RawMessage `json:"packageVersions,omitempty"`
	CommitInfo      json.RawMessage `json:"commitInfo,omitempty"`
	URL             string          `json:"url,omitempty"` // webhook target (Sluice)
}

// AgentVersion is one saved configuration of an agent.
type AgentVersion struct {
	ID        string
	AgentID   string
	Version   int
	Origin    int // the version it was made from; differs from Version after a revert
	Config    AgentConfig
	CreatedAt time.Time
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one event sent (or to be sent) to one webhook agent; it doubles as the
// agent's log entry.
type Delivery struct {
	ID            string
	AgentID       string
	AccountID     string
	EnvironmentID string
	SpaceID       string
	EventID       string
	EventSeq      int64
	Topic         string
	URL           string
	Status        string
	Attempts      int
	LastStatus    int // HTTP status of the last attempt, 0 when none answered
	LastError     string
	Duration      time.Duration // of the last attempt
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	CompletedAt   *time.Time
}
