package jobs

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// RecordCounter reads a sheet's record counts (kept up to date on write, so no scan); the
// records store provides it. Actions' hasData and hasAllValid constraints use it.
type RecordCounter interface {
	GetRecordCounts(ctx context.Context, accountID, sheetID string) (*store.Counts, error)
}

// Service runs the job rules on the store.
type Service struct {
	DB *store.DB
	// Counts backs the hasData and hasAllValid action constraints; when nil the server does
	// not enforce them (the UI still shows them).
	Counts RecordCounter
}

// New returns the job service on db.
func New(db *store.DB, counts RecordCounter) *Service { return &Service{DB: db, Counts: counts} }

// Prepare validates a job a client asks for (a JobConfig) and fills what it derives from its
// source, destination and config: environment, space, workbook, sheet, file and document ids.
// j.AccountID must be set; j.EnvironmentID may be empty when the source names it. Errors:
// invalid, not_found (a source, destination, predecessor or parent that names nothing).
func (s *Service) Prepare(ctx context.Context, j *model.Job) error {
	if err := checkFields(j); err != nil {
		return err
	}
	res, err := s.DB.ResolveResource(ctx, j.AccountID, "source", j.Source)
	if err != nil {
		return err
	}
	if res.EnvironmentID != "" {
		if j.EnvironmentID != "" && j.EnvironmentID != res.EnvironmentID {
			return errs.Invalidf("environmentId", "The job's source %s is not in environment %s", j.Source, j.EnvironmentID)
		}
		j.EnvironmentID = res.EnvironmentID
	}
	if j.EnvironmentID == "" {
		return errs.Invalidf("environmentId", "environmentId is required for a job whose source Sluice does not know")
	}
	j.SpaceID, j.WorkbookID, j.SheetID, j.DocumentID = res.SpaceID, res.WorkbookID, res.SheetID, res.DocumentID
	if res.FileID != "" {
		j.FileID = res.FileID
	}
	if store.KindOf(j.Destination) == store.KindWorkbook {
		if _, err := s.DB.ResolveResource(ctx, j.AccountID, "destination", j.Destination); err != nil {
			return err
		}
	}
	if j.Operation == OpDeleteRecords {
		c, _ := ParseDeleteRecordsConfig(j.Config)
		r, err := s.DB.ResolveResource(ctx, j.AccountID, "config.sheet", c.Sheet)
		if err != nil {
			return err
		}
		if r.Kind != store.KindSheet || r.EnvironmentID != j.EnvironmentID {
			return errs.NotFoundf("config.sheet", "Sheet %s not found", c.Sheet)
		}
	}
	return nil
}

// checkFields validates what a JobConfig carries on its own.
func checkFields(j *model.Job) error {
	switch {
	case !slices.Contains(jobTypes, j.Type):
		return errs.Invalidf("type", "type must be one of %s, got %q", strings.Join(jobTypes, ", "), j.Type)
	case strings.TrimSpace(j.Operation) == "":
		return errs.Invalidf("operation", "operation is required")
	case strings.TrimSpace(j.Source) == "":
		return errs.Invalidf("source", "source is required: the id of the resource the job works on")
	case j.Trigger != "" && !slices.Contains(jobTriggers, j.Trigger):
		return errs.Invalidf("trigger", "trigger must be manual or immediate, got %q", j.Trigger)
	case j.Mode != "" && !slices.Contains(jobModes, j.Mode):
		return errs.Invalidf("mode", "mode must be one of %s, got %q", strings.Join(jobModes, ", "), j.Mode)
	case j.Status != "" && !slices.Contains(initialStatuses, j.Status):
		return errs.Invalidf("status", "A job can be created as %s, not %q", strings.Join(initialStatuses, ", "), j.Status)
	case j.PartExecution != "" && j.PartExecution != "sequential" && j.PartExecution != "parallel":
		return errs.Invalidf("partExecution", "partExecution must be sequential or parallel")
	}
	if err := checkProgress(&j.Progress); err != nil {
		return err
	}
	for key, raw := range map[string]json.RawMessage{"metadata": j.Metadata, "result": j.Result, "partData": j.PartData, "subject": j.Subject} {
		if err := objectOrAbsent(key, raw); err != nil {
			return err
		}
	}
	if err := checkConfig(j.Operation, j.Config); err != nil {
		return err
	}
	in, err := normalizeInput(j.Operation, j.Input)
	if err != nil {
		return err
	}
	j.Input = in
	return CheckOutcome(j.Outcome)
}

// Create stores a prepared job and emits job:created, then job:ready when it is ready at
// once (trigger immediate) or job:scheduled. A job whose predecessors are unfinished starts
// waiting. When the job runs an action (its source and operation match an action, or
// RunAction made it), the action's rules apply: input-form validation, the hasData and
// hasAllValid constraints, and toolbarBlocking. Errors: invalid, not_found, conflict.
func (s *Service) Create(ctx context.Context, j *model.Job, actor string) error {
	a, err := s.actionOf(ctx, j)
	if err != nil {
		return err
	}
	if a != nil {
		if err := s.applyAction(ctx, j, a); err != nil {
			return err
		}
	}
	j.CreatedBy = actor
	return s.DB.Update(ctx, func(tx *store.Tx) error {
		if err := checkLinks(tx, j); err != nil {
			return err
		}
		if a != nil {
			if err := checkBlocking(tx, j, a); err != nil {
				return err
			}
		}
		waiting, err := unfinishedPredecessors(tx, j)
		if err != nil {
			return err
		}
		now := tx.Now()
		switch {
		case waiting:
			j.Status = model.JobWaiting
		case j.Trigger == "immediate":
			j.Status, j.DispatchedAt = model.JobReady, &now
		case j.Status == "":
			j.Status = model.JobCreated
		}
		if err := tx.InsertJob(j); err != nil {
			return err
		}
		if err := tx.EmitJob(j, "job:created", actor); err != nil {
			return err
		}
		switch {
		case j.DispatchedAt != nil:
			return tx.EmitJob(j, "job:ready", actor)
		case j.Status == model.JobScheduled:
			return tx.EmitJob(j, "job:scheduled", actor)
		}
		return nil
	})
}

// checkLinks checks that predecessors and the parent exist in the job's environment.
func checkLinks(tx *store.Tx, j *model.Job) error {
	for _, p := range j.PredecessorIDs {
		pj, err := tx.LoadJob(j.AccountID, p)
		if err != nil || pj.EnvironmentID != j.EnvironmentID {
			return errs.NotFoundf("predecessorIds", "Predecessor job %s not found", p)
		}
	}
	if j.ParentID != "" {
		pj, err := tx.LoadJob(j.AccountID, j.ParentID)
		if err != nil || pj.EnvironmentID != j.EnvironmentID {
			return errs.NotFoundf("parentId", "Parent job %s not found", j.ParentID)
		}
	}
	return nil
}

// unfinishedPredecessors reports whether any predecessor of j is not complete yet.
func unfinishedPredecessors(tx *store.Tx, j *model.Job) (bool, error) {
	st, err := tx.PredecessorStatuses(j)
	if err != nil {
		return false, err
	}
	for _, s := range st {
		if s != model.JobComplete {
			return true, nil
		}
	}
	return false, nil
}

// change loads a job inside a write transaction and lets fn move it; fn returns the topics
// to emit (none: nothing is written). When the job becomes finished its waiting dependents
// and its parent are settled in the same transaction.
func (s *Service) change(ctx context.Context, accountID, id, actor string, fn func(tx *store.Tx, j *model.Job) ([]string, error)) (*model.Job, error) {
	var out *model.Job
	err := s.DB.Update(ctx, func(tx *store.Tx) error {
		j, err := tx.LoadJob(accountID, id)
		if err != nil {
			return err
		}
		out = j
		wasFinished := j.Finished()
		topics, err := fn(tx, j)
		if err != nil || len(topics) == 0 {
			return err
		}
		if err := tx.SaveJob(j); err != nil {
			return err
		}
		for _, t := range topics {
			if err := tx.EmitJob(j, t, actor); err != nil {
				return err
			}
		}
		if !wasFinished && j.Finished() {
			return settle(tx, j, actor)
		}
		return nil
	})
	return out, err
}

// moveTo moves j to status to, stamping the times that status carries, and returns the topic
// to emit. Errors: conflict for a move the state machine forbids.
func moveTo(tx *store.Tx, j *model.Job, to string) ([]string, error) {
	if err := Move(j.Status, to); err != nil {
		return nil, err
	}
	now := tx.Now()
	if model.JobFinished(j.Status) && !model.JobFinished(to) {
		// A retry starts over.
		j.Progress, j.Outcome, j.Info = 0, nil, ""
		j.StartedAt, j.LastAckAt, j.FinishedAt, j.OutcomeAcknowledgedAt = nil, nil, nil, nil
	}
	switch to {
	case model.JobReady:
		j.DispatchedAt = &now
	case model.JobExecuting:
		if j.StartedAt == nil {
			j.StartedAt = &now
		}
		j.LastAckAt = &now
	case model.JobComplete:
		j.Progress, j.FinishedAt = 100, &now
	case model.JobFailed, model.JobCanceled:
		j.FinishedAt = &now
	}
	j.Status = to
	return []string{topicFor(to)}, nil
}

// settle runs after j finished: waiting dependents become ready when all their predecessors
// are complete, or fail when j did not complete; a parent whose parts are all finished gets
// job:parts-completed.
func settle(tx *store.Tx, j *model.Job, actor string) error {
	deps, err := tx.WaitingDependents(j.ID)
	if err != nil {
		return err
	}
	for _, d := range deps {
		if err := settleDependent(tx, j, d, actor); err != nil {
			return err
		}
	}
	if j.ParentID == "" {
		return nil
	}
	n, err := tx.UnfinishedChildren(j.ParentID)
	if err != nil || n > 0 {
		return err
	}
	parent, err := tx.LoadJob(j.AccountID, j.ParentID)
	if err != nil {
		return nil // the parent was deleted
	}
	return tx.EmitJob(parent, "job:parts-completed", actor)
}

func settleDependent(tx *store.Tx, pred, d *model.Job, actor string) error {
	to := model.JobReady
	if pred.Status != model.JobComplete {
		to = model.JobFailed
		verb := map[string]string{model.JobFailed: "failed", model.JobCanceled: "was canceled"}[pred.Status]
		d.Outcome, _ = json.Marshal(map[string]any{"message": "Predecessor job " + pred.ID + " " + verb})
	} else if waiting, err := unfinishedPredecessors(tx, d); err != nil || waiting {
		return err
	}
	topics, err := moveTo(tx, d, to)
	if err != nil {
		return err
	}
	if err := tx.SaveJob(d); err != nil {
		return err
	}
	if err := tx.EmitJob(d, topics[0], actor); err != nil {
		return err
	}
	if d.Finished() {
		return settle(tx, d, actor)
	}
	return nil
}

// Execute asks for a job to run: it becomes ready (waiting while predecessors are unfinished)
// and job:ready is emitted once. A job created with status ready but no immediate trigger is
// dispatched by its first execute. Errors: not_found, conflict.
func (s *Service) Execute(ctx context.Context, accountID, id, actor string) (*model.Job, error) {
	return s.change(ctx, accountID, id, actor, func(tx *store.Tx, j *model.Job) ([]string, error) {
		if j.Status == model.JobReady {
			if j.DispatchedAt != nil {
				return nil, errs.E(errs.Conflict, "jobId", "A job cannot move from ready to ready: job %s was already executed", j.ID)
			}
			now := tx.Now()
			j.DispatchedAt = &now
			return []string{"job:ready"}, nil
		}
		return s.readyOrWaiting(tx, j)
	})
}

// readyOrWaiting moves j to ready, or to waiting while its predecessors are unfinished.
func (s *Service) readyOrWaiting(tx *store.Tx, j *model.Job) ([]string, error) {
	waiting, err := unfinishedPredecessors(tx, j)
	if err != nil {
		return nil, err
	}
	if waiting {
		return moveTo(tx, j, model.JobWaiting)
	}
	return moveTo(tx, j, model.JobReady)
}

// Ack is an agent acknowledging a job: a ready job starts executing, an executing one
// restarts its ack clock; info, progress and estimatedCompletionAt are recorded and
// job:updated is emitted. Errors: not_found, invalid, conflict.
func (s *Service) Ack(ctx context.Context, accountID, id, actor string, info *string, progress *float64, eta *time.Time) (*model.Job, error) {
	if err := checkProgress(progress); err != nil {
		return nil, err
	}
	return s.change(ctx, accountID, id, actor, func(tx *store.Tx, j *model.Job) ([]string, error) {
		topics, err := moveTo(tx, j, model.JobExecuting)
		if err != nil {
			return nil, err
		}
		if info != nil {
			j.Info = *info
		}
		if progress != nil {
			j.Progress = *progress
		}
		if eta != nil {
			t := eta.UTC()
			j.EstimatedCompletionAt = &t
		}
		return topics, nil
	})
}

// Finish completes (status complete), fails (failed) or cancels (canceled) a job, storing
// its outcome and info, and emits job:completed, job:failed or job:updated. Errors:
// not_found, invalid, conflict.
func (s *Service) Finish(ctx context.Context, accountID, id, actor, status string, outcome json.RawMessage, info *string) (*model.Job, error) {
	if err := CheckOutcome(outcome); err != nil {
		return nil, err
	}
	return s.change(ctx, accountID, id, actor, func(tx *store.Tx, j *model.Job) ([]string, error) {
		topics, err := moveTo(tx, j, status)
		if err != nil {
			return nil, err
		}
		if !absent(outcome) {
			j.Outcome = outcome
		}
		if info != nil {
			j.Info = *info
		}
		return topics, nil
	})
}

// Retry runs a failed or canceled job again: it becomes ready (or waiting) with its
// progress, outcome and times reset, and job:ready is emitted. Errors: not_found, conflict.
func (s *Service) Retry(ctx context.Context, accountID, id, actor string) (*model.Job, error) {
	return s.change(ctx, accountID, id, actor, func(tx *store.Tx, j *model.Job) ([]string, error) {
		if !model.JobFinished(j.Status) || j.Status == model.JobComplete {
			return nil, errs.E(errs.Conflict, "jobId", "A job cannot move from %s to ready: only failed or canceled jobs can be retried", j.Status)
		}
		return s.readyOrWaiting(tx, j)
	})
}

// AckOutcome records that the user saw a finished job's outcome and emits
// job:outcome-acknowledged; acknowledging again changes nothing. Errors: not_found, conflict.
func (s *Service) AckOutcome(ctx context.Context, accountID, id, actor string) (*model.Job, error) {
	return s.change(ctx, accountID, id, actor, func(tx *store.Tx, j *model.Job) ([]string, error) {
		if !j.Finished() {
			return nil, errs.E(errs.Conflict, "jobId", "The outcome of a %s job cannot be acknowledged; the job must be complete, failed or canceled", j.Status)
		}
		if j.OutcomeAcknowledgedAt != nil {
			return nil, nil
		}
		now := tx.Now()
		j.OutcomeAcknowledgedAt = &now
		return []string{"job:outcome-acknowledged"}, nil
	})
}

// Update is PATCH /v1/jobs/:id. Nil fields stay as they are.
type Update struct {
	Config                json.RawMessage
	Status                *string
	Progress              *float64
	OutcomeAcknowledgedAt **time.Time
	Info                  *string
	Metadata              json.RawMessage
}

// Update changes a job and emits job:updated, plus the status's own topic when the status
// moves. Errors: not_found, invalid, conflict.
func (s *Service) Update(ctx context.Context, accountID, id, actor string, up Update) (*model.Job, error) {
	if err := checkProgress(up.Progress); err != nil {
		return nil, err
	}
	if err := objectOrAbsent("metadata", up.Metadata); err != nil {
		return nil, err
	}
	return s.change(ctx, accountID, id, actor, func(tx *store.Tx, j *model.Job) ([]string, error) {
		topics := []string{"job:updated"}
		if up.Status != nil && *up.Status != j.Status {
			t, err := moveTo(tx, j, *up.Status)
			if err != nil {
				return nil, err
			}
			if t[0] != "job:updated" {
				topics = append(topics, t[0])
			}
		}
		if !absent(up.Config) {
			if err := checkConfig(j.Operation, up.Config); err != nil {
				return nil, err
			}
			j.Config = up.Config
		}
		if up.Progress != nil {
			j.Progress = *up.Progress
		}
		if up.Info != nil {
			j.Info = *up.Info
		}
		if !absent(up.Metadata) {
			j.Metadata = up.Metadata
		}
		if up.OutcomeAcknowledgedAt != nil {
			j.OutcomeAcknowledgedAt = *up.OutcomeAcknowledgedAt
		}
		return topics, nil
	})
}

// Delete soft-deletes a job and emits job:deleted. Errors: not_found.
func (s *Service) Delete(ctx context.Context, accountID, id, actor string) error {
	return s.DB.Update(ctx, func(tx *store.Tx) error {
		j, err := tx.LoadJob(accountID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteJob(j); err != nil {
			return err
		}
		return tx.EmitJob(j, "job:deleted", actor)
	})
}
