package jobs

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
)

// RecordCounter reads a sheet's record counts (kept up to date on write, so no scan); the
// records store provides it. Actions' hasData and hasAllValid constraints use it.
type RecordCounter interface {
	GetRecordCounts(ctx context.Context, accountID, sheetID string) (*recordset.Counts, error)
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
	return CheckScope(ctx, s.DB, j)
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
