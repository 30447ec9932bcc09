package model

import (
	"encoding/json"
	"time"
)

// File statuses, as Flatfile's client knows them.
const (
	FileStatusPartial   = "partial"
	FileStatusAnalyzing = "analyzing"
	FileStatusAnalyzed  = "analyzed"
	FileStatusComplete  = "complete"
	FileStatusFailed    = "failed"
)

// File is an upload in a space and what was extracted from it.
type File struct {
	ID            string
	AccountID     string
	EnvironmentID string
	SpaceID       string
	Name          string
	Ext           string
	Mimetype      string
	Encoding      string // detected text encoding, e.g. utf-8 or windows-1252
	Status        string
	Mode          string // import or export
	Origin        string // filesystem, googledrive, box, onedrive
	Size          int64
	BytesReceived int64
	Actions       json.RawMessage
	WorkbookID    string
	SheetID       string
	Description   string // what extraction reported (warnings, or why it failed)
	CreatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}
