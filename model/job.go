package model

import (
	"encoding/json"
	"time"
)

// Job statuses, as Flatfile names them.
const (
	JobCreated   = "created"
	JobPlanning  = "planning"
	JobScheduled = "scheduled"
	JobWaiting   = "waiting" // predecessors are unfinished
	JobReady     = "ready"
	JobExecuting = "executing"
	JobComplete  = "complete"
	JobFailed    = "failed"
	JobCanceled  = "canceled"
)

// JobStatuses lists every status in lifecycle order.
var JobStatuses = []string{JobCreated, JobPlanning, JobScheduled, JobWaiting, JobReady, JobExecuting, JobComplete, JobFailed, JobCanceled}

// JobFinished reports whether status is terminal (complete, failed or canceled).
func JobFinished(status string) bool {
	return status == JobComplete || status == JobFailed || status == JobCanceled
}

// Job is a unit of asynchronous work on a resource, carried out by an agent.
type Job struct {
	ID            string
	AccountID     string
	EnvironmentID string
	SpaceID       string
	// WorkbookID, SheetID, FileID and DocumentID are derived from Source (and Destination).
	WorkbookID  string
	SheetID     string
	FileID      string
	DocumentID  string
	Type        string // file | workbook | sheet | space | document | app | agent | autobuild | onboarding
	Operation   string
	Source      string
	Destination string
	Config      json.RawMessage // nil when absent
	Trigger     string          // manual | immediate
	Status      string
	Progress    float64
	Mode        string // foreground | background | toolbarBlocking | hidden
	Input       json.RawMessage
	Subject     json.RawMessage
	Outcome     json.RawMessage
	Result      json.RawMessage
	Info        string
	Managed     bool
	Part        *int
	PartData    json.RawMessage
	// PartExecution is sequential or parallel.
	PartExecution  string
	ParentID       string
	PredecessorIDs []string
	Metadata       json.RawMessage
	ActionID       string // set when the job runs an action
	CreatedBy      string

	EstimatedCompletionAt *time.Time
	DispatchedAt          *time.Time // when job:ready was last emitted
	StartedAt             *time.Time
	LastAckAt             *time.Time // the ack clock of an executing job
	FinishedAt            *time.Time
	OutcomeAcknowledgedAt *time.Time
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

// Name is the job's "<type>:<operation>", the `job` key of its events' payload.
func (j *Job) Name() string { return j.Type + ":" + j.Operation }

// Finished reports whether the job reached a terminal status.
func (j *Job) Finished() bool { return JobFinished(j.Status) }
