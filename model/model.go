// Package model holds Sluice's entity types, shared by the store, the domain packages and the
// handlers. It has no behaviour beyond small helpers and imports nothing of Sluice.
package model

import (
	"encoding/json"
	"time"
)

// Account is the tenant that owns environments and users.
type Account struct {
	ID       string
	Name     string
	Metadata json.RawMessage
	// EmbeddedDomains are the origins (scheme://host[:port]) whose pages may call the API from
	// a browser and frame Sluice's pages: Flatfile's embeddedDomainWhitelist.
	EmbeddedDomains []string
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// Environment groups spaces, keys and agents (e.g. development and production).
type Environment struct {
	ID                  string
	AccountID           string
	Name                string
	IsProd              bool
	GuestAuthentication []string
	Features            json.RawMessage
	Metadata            json.RawMessage
	TranslationsPath    string
	Namespaces          []string
	LanguageOverride    string
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// HasNamespace reports whether ns is one of the environment's namespaces.
func (e *Environment) HasNamespace(ns string) bool {
	for _, n := range e.Namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// User is a dashboard user of an account.
type User struct {
	ID           string
	AccountID    string
	Email        string
	Name         string
	PasswordHash string
	// EnvironmentID is set for users invited with an environment's key: they reach that
	// environment only. Empty for account users.
	EnvironmentID string
	TokenVersion  int  // bumped by a password change: older tokens stop working
	Deleted       bool // deleted users keep their row for the history
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Key kinds of environment API keys.
const (
	KeySecret      = "SECRET"
	KeyPublishable = "PUBLISHABLE"
)

// APIKey is an environment's secret or publishable key. Raw is only known when the key was
// just created or when the store keeps it for display.
type APIKey struct {
	ID            string
	AccountID     string
	EnvironmentID string
	Type          string
	Raw           string // the key itself: known only when it is created or revealed
	Hint          string // "sk_abc…wxyz": how lists name a secret key once it was revealed
	CreatedAt     time.Time
}

// Space is a workspace holding workbooks, documents and files.
type Space struct {
	ID                  string
	AccountID           string
	EnvironmentID       string
	Name                string
	AppID               string
	Namespace           string
	IsAppTemplate       bool
	Metadata            json.RawMessage
	Settings            json.RawMessage
	Actions             json.RawMessage
	Access              []string
	Labels              []string
	GuestAuthentication []string
	AutoConfigure       bool
	PrimaryWorkbookID   string
	TranslationsPath    string
	LanguageOverride    string
	DisplayOrder        *int
	CreatedByUserID     string
	CreatedByUserName   string
	ArchivedAt          *time.Time
	LastActivityAt      *time.Time
	WorkbooksCount      int
	FilesCount          int
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// EventContext names the resources an event concerns.
type EventContext struct {
	AccountID     string   `json:"accountId"`
	EnvironmentID string   `json:"environmentId"`
	SpaceID       string   `json:"spaceId,omitempty"`
	WorkbookID    string   `json:"workbookId,omitempty"`
	SheetID       string   `json:"sheetId,omitempty"`
	SheetSlug     string   `json:"sheetSlug,omitempty"`
	SnapshotID    string   `json:"snapshotId,omitempty"`
	VersionID     string   `json:"versionId,omitempty"`
	CommitID      string   `json:"commitId,omitempty"`
	JobID         string   `json:"jobId,omitempty"`
	FileID        string   `json:"fileId,omitempty"`
	DocumentID    string   `json:"documentId,omitempty"`
	ActorID       string   `json:"actorId,omitempty"`
	AppID         string   `json:"appId,omitempty"`
	ActionID      string   `json:"actionId,omitempty"`
	ActionName    string   `json:"actionName,omitempty"`
	Namespaces    []string `json:"namespaces,omitempty"`
}

// Event records one change; it is written in the same transaction as the change.
type Event struct {
	ID             string
	Topic          string
	Domain         string
	Context        EventContext
	Payload        json.RawMessage
	DataURL        string
	CallbackURL    string
	Namespaces     []string
	CreatedAt      time.Time
	AcknowledgedAt *time.Time
	AcknowledgedBy string
}

// Page asks for one page of a listing; Number is 1-based.
type Page struct {
	Size   int
	Number int
}

// Offset is the number of rows before the page.
func (p Page) Offset() int { return (p.Number - 1) * p.Size }

// Pagination describes where a page sits in a listing.
type Pagination struct {
	CurrentPage int `json:"currentPage"`
	PageCount   int `json:"pageCount"`
	TotalCount  int `json:"totalCount"`
}

// NewPagination computes the pagination of page p in a listing of total rows.
func NewPagination(p Page, total int) Pagination {
	pages := 0
	if p.Size > 0 {
		pages = (total + p.Size - 1) / p.Size
	}
	return Pagination{CurrentPage: p.Number, PageCount: pages, TotalCount: total}
}
