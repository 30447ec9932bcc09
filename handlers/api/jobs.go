package api

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// JobService is what the job handlers need from the job rules (package jobs).
type JobService interface {
	Prepare(ctx context.Context, j *model.Job) error
	Create(ctx context.Context, j *model.Job, actor string) error
	Execute(ctx context.Context, accountID, id, actor string) (*model.Job, error)
	Ack(ctx context.Context, accountID, id, actor string, info *string, progress *float64, eta *time.Time) (*model.Job, error)
	Finish(ctx context.Context, accountID, id, actor, status string, outcome json.RawMessage, info *string) (*model.Job, error)
	Retry(ctx context.Context, accountID, id, actor string) (*model.Job, error)
	AckOutcome(ctx context.Context, accountID, id, actor string) (*model.Job, error)
	Update(ctx context.Context, accountID, id, actor string, up jobs.Update) (*model.Job, error)
	Delete(ctx context.Context, accountID, id, actor string) error
}

// JobStore is what the job handlers read directly.
type JobStore interface {
	GetJob(ctx context.Context, accountID, id string) (*model.Job, error)
	ListJobs(ctx context.Context, f store.JobFilter) ([]*model.Job, int, error)
}

// Jobs serves /v1/jobs.
type Jobs struct {
	svc   JobService
	store JobStore
}

// NewJobs returns the job handlers.
func NewJobs(svc JobService, s JobStore) *Jobs { return &Jobs{svc: svc, store: s} }

type jobJSON struct {
	ID                    string          `json:"id"`
	Type                  string          `json:"type"`
	Operation             string          `json:"operation"`
	Source                string          `json:"source"`
	Destination           string          `json:"destination,omitempty"`
	Config                json.RawMessage `json:"config,omitempty"`
	Trigger               string          `json:"trigger"`
	Status                string          `json:"status"`
	Progress              float64         `json:"progress"`
	FileID                string          `json:"fileId,omitempty"`
	Mode                  string          `json:"mode,omitempty"`
	Input                 json.RawMessage `json:"input,omitempty"`
	Subject               json.RawMessage `json:"subject,omitempty"`
	Outcome               json.RawMessage `json:"outcome,omitempty"`
	Result                json.RawMessage `json:"result,omitempty"`
	Info                  string          `json:"info,omitempty"`
	Managed               bool            `json:"managed"`
	EnvironmentID         string          `json:"environmentId"`
	SpaceID               string          `json:"spaceId,omitempty"`
	Part                  *int            `json:"part,omitempty"`
	PartData              json.RawMessage `json:"partData,omitempty"`
	PartExecution         string          `json:"partExecution,omitempty"`
	ParentID              string          `json:"parentId,omitempty"`
	PredecessorIDs        []string        `json:"predecessorIds"`
	Metadata              json.RawMessage `json:"metadata"`
	ActionID              string          `json:"actionId,omitempty"`
	CreatedBy             string          `json:"createdBy"`
	CreatedAt             Time            `json:"createdAt"`
	UpdatedAt             Time            `json:"updatedAt"`
	StartedAt             *Time           `json:"startedAt,omitempty"`
	FinishedAt            *Time           `json:"finishedAt,omitempty"`
	OutcomeAcknowledgedAt *Time           `json:"outcomeAcknowledgedAt,omitempty"`
	EstimatedCompletionAt *Time           `json:"estimatedCompletionAt,omitempty"`
}

func toJobJSON(j *model.Job) jobJSON {
	return jobJSON{ID: j.ID, Type: j.Type, Operation: j.Operation, Source: j.Source, Destination: j.Destination, Config: j.Config,
		Trigger: j.Trigger, Status: j.Status, Progress: j.Progress, FileID: j.FileID, Mode: j.Mode, Input: j.Input, Subject: j.Subject,
		Outcome: j.Outcome, Result: j.Result, Info: j.Info, Managed: j.Managed, EnvironmentID: j.EnvironmentID, SpaceID: j.SpaceID,
		Part: j.Part, PartData: j.PartData, PartExecution: j.PartExecution, ParentID: j.ParentID, PredecessorIDs: nonEmptyList(j.PredecessorIDs),
		Metadata: j.Metadata, ActionID: j.ActionID, CreatedBy: j.CreatedBy, CreatedAt: Time(j.CreatedAt), UpdatedAt: Time(j.UpdatedAt),
		StartedAt: wireTime(j.StartedAt), FinishedAt: wireTime(j.FinishedAt), OutcomeAcknowledgedAt: wireTime(j.OutcomeAcknowledgedAt),
		EstimatedCompletionAt: wireTime(j.EstimatedCompletionAt)}
}

// jobIn is the JobConfig body of POST /v1/jobs.
type jobIn struct {
	Type           string          `json:"type"`
	Operation      string          `json:"operation"`
	Source         string          `json:"source"`
	Destination    string          `json:"destination"`
	Config         json.RawMessage `json:"config"`
	Trigger        string          `json:"trigger"`
	Status         string          `json:"status"`
	Progress       *float64        `json:"progress"`
	FileID         string          `json:"fileId"`
	Mode           string          `json:"mode"`
	Input          json.RawMessage `json:"input"`
	Subject        json.RawMessage `json:"subject"`
	Outcome        json.RawMessage `json:"outcome"`
	Result         json.RawMessage `json:"result"`
	Info           string          `json:"info"`
	Managed        bool            `json:"managed"`
	EnvironmentID  string          `json:"environmentId"`
	Part           *int            `json:"part"`
	PartData       json.RawMessage `json:"partData"`
	PartExecution  string          `json:"partExecution"`
	ParentID       string          `json:"parentId"`
	PredecessorIDs []string        `json:"predecessorIds"`
	Metadata       json.RawMessage `json:"metadata"`
}

// Create handles POST /v1/jobs.
func (h *Jobs) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in jobIn
	if err := bind(c, &in); err != nil {
		return err
	}
	envID, err := environmentScope(p, in.EnvironmentID)
	if err != nil {
		return err
	}
	j := &model.Job{AccountID: p.AccountID, EnvironmentID: envID, Type: in.Type, Operation: in.Operation, Source: in.Source,
		Destination: in.Destination, Config: in.Config, Trigger: in.Trigger, Status: in.Status, FileID: in.FileID, Mode: in.Mode,
		Input: in.Input, Subject: in.Subject, Outcome: in.Outcome, Result: in.Result, Info: in.Info, Managed: in.Managed, Part: in.Part,
		PartData: in.PartData, PartExecution: in.PartExecution, ParentID: in.ParentID, PredecessorIDs: in.PredecessorIDs, Metadata: in.Metadata}
	if in.Progress != nil {
		j.Progress = *in.Progress
	}
	if err := h.svc.Prepare(ctxOf(c), j); err != nil { // every id it names is in its space
		return err
	}
	if err := may(c, auth.Write, place.Of(j)); err != nil {
		if errs.Is(err, errs.NotFound) {
			return errs.NotFoundf("source", "%s not found", j.Source)
		}
		return err
	}
	if err := h.svc.Create(ctxOf(c), j, p.ActorID); err != nil {
		return err
	}
	if j.Type == "workbook" && j.Operation == "map" && j.Status == model.JobCreated {
		// Sluice plans map jobs at once (GET /jobs/:id/plan computes the plan): the job moves to
		// planning with job:updated, which is what Flatfile's automap plugin waits for.
		planning := model.JobPlanning
		planned, err := h.svc.Update(ctxOf(c), j.AccountID, j.ID, p.ActorID, jobs.Update{Status: &planning})
		if err != nil {
			return err
		}
		j = planned
	}
	return data(c, toJobJSON(j))
}

// List handles GET /v1/jobs.
func (h *Jobs) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	f := store.JobFilter{AccountID: p.AccountID, WorkbookID: c.Query("workbookId"), FileID: c.Query("fileId"),
		ParentID: c.Query("parentId"), Source: c.Query("source")}
	var err error
	if f.EnvironmentID, f.SpaceID, err = listScope(c, auth.ResContent, c.Query("environmentId"), c.Query("spaceId")); err != nil {
		return err
	}
	if f.Page, err = page(c, 20, 1000); err != nil {
		return err
	}
	if f.SortDesc, err = sortDesc(c); err != nil {
		return err
	}
	ex, err := queryBool(c, "excludeChildJobs")
	if err != nil {
		return err
	}
	f.ExcludeChildJobs = ex != nil && *ex
	list, total, err := h.store.ListJobs(ctxOf(c), f)
	if err != nil {
		return err
	}
	out := make([]jobJSON, 0, len(list))
	for _, j := range list {
		out = append(out, toJobJSON(j))
	}
	return c.JSON(fiber.Map{"data": out, "pagination": model.NewPagination(f.Page, total)})
}

// job loads the path's job; jobs out of the principal's reach are not found.
func (h *Jobs) job(c *fiber.Ctx) (*auth.Principal, *model.Job, error) {
	j, err := inReach(c, verbOf(c), h.store.GetJob, c.Params("jobId"))
	return PrincipalOf(c), j, err
}

// Get handles GET /v1/jobs/:jobId.
func (h *Jobs) Get(c *fiber.Ctx) error {
	_, j, err := h.job(c)
	if err != nil {
		return err
	}
	return data(c, toJobJSON(j))
}

// Update handles PATCH /v1/jobs/:jobId.
func (h *Jobs) Update(c *fiber.Ctx) error {
	p, j, err := h.job(c)
	if err != nil {
		return err
	}
	var in struct {
		Config                json.RawMessage `json:"config"`
		Status                *string         `json:"status"`
		Progress              *float64        `json:"progress"`
		OutcomeAcknowledgedAt OptTime         `json:"outcomeAcknowledgedAt"`
		Info                  *string         `json:"info"`
		Metadata              json.RawMessage `json:"metadata"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	up := jobs.Update{Config: in.Config, Status: in.Status, Progress: in.Progress, Info: in.Info, Metadata: in.Metadata}
	if in.OutcomeAcknowledgedAt.Set {
		up.OutcomeAcknowledgedAt = &in.OutcomeAcknowledgedAt.Value
	}
	j, err = h.svc.Update(ctxOf(c), p.AccountID, j.ID, p.ActorID, up)
	if err != nil {
		return err
	}
	return data(c, toJobJSON(j))
}

// Delete handles DELETE /v1/jobs/:jobId.
func (h *Jobs) Delete(c *fiber.Ctx) error {
	p, j, err := h.job(c)
	if err != nil {
		return err
	}
	if err := h.svc.Delete(ctxOf(c), p.AccountID, j.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Execute handles POST /v1/jobs/:jobId/execute.
func (h *Jobs) Execute(c *fiber.Ctx) error {
	p, j, err := h.job(c)
	if err != nil {
		return err
	}
	if _, err := h.svc.Execute(ctxOf(c), p.AccountID, j.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Ack handles POST /v1/jobs/:jobId/ack {info?, progress?, estimatedCompletionAt?}.
func (h *Jobs) Ack(c *fiber.Ctx) error {
	p, j, err := h.job(c)
	if err != nil {
		return err
	}
	var in struct {
		Info                  *string  `json:"info"`
		Progress              *float64 `json:"progress"`
		EstimatedCompletionAt OptTime  `json:"estimatedCompletionAt"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	j, err = h.svc.Ack(ctxOf(c), p.AccountID, j.ID, p.ActorID, in.Info, in.Progress, in.EstimatedCompletionAt.Value)
	if err != nil {
		return err
	}
	return data(c, toJobJSON(j))
}

// AckOutcome handles POST /v1/jobs/:jobId/outcome/ack.
func (h *Jobs) AckOutcome(c *fiber.Ctx) error {
	p, j, err := h.job(c)
	if err != nil {
		return err
	}
	if j, err = h.svc.AckOutcome(ctxOf(c), p.AccountID, j.ID, p.ActorID); err != nil {
		return err
	}
	return data(c, toJobJSON(j))
}

// Complete handles POST /v1/jobs/:jobId/complete {outcome?, info?}.
func (h *Jobs) Complete(c *fiber.Ctx) error { return h.finish(c, model.JobComplete) }

// Fail handles POST /v1/jobs/:jobId/fail {outcome?, info?}.
func (h *Jobs) Fail(c *fiber.Ctx) error { return h.finish(c, model.JobFailed) }

// Cancel handles POST /v1/jobs/:jobId/cancel {info?}.
func (h *Jobs) Cancel(c *fiber.Ctx) error { return h.finish(c, model.JobCanceled) }

func (h *Jobs) finish(c *fiber.Ctx, status string) error {
	p, j, err := h.job(c)
	if err != nil {
		return err
	}
	var in struct {
		Outcome json.RawMessage `json:"outcome"`
		Info    *string         `json:"info"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if status == model.JobCanceled {
		in.Outcome = nil
	}
	if j, err = h.svc.Finish(ctxOf(c), p.AccountID, j.ID, p.ActorID, status, in.Outcome, in.Info); err != nil {
		return err
	}
	return data(c, toJobJSON(j))
}

// Retry handles POST /v1/jobs/:jobId/retry.
func (h *Jobs) Retry(c *fiber.Ctx) error {
	p, j, err := h.job(c)
	if err != nil {
		return err
	}
	if j, err = h.svc.Retry(ctxOf(c), p.AccountID, j.ID, p.ActorID); err != nil {
		return err
	}
	return data(c, toJobJSON(j))
}
