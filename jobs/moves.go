package jobs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

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
	// A complete job keeps the records it added; the others' are taken back by the worker
	// (or at start, after a stop in between).
	if j.Status == model.JobComplete {
		if err := tx.ForgetJobWrites(j.ID); err != nil {
			return err
		}
	}
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
		return nil //nolint:nilerr // the parent was deleted
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

// Claim is a worker's Ack: it takes a ready job for runner (a node's worker) in one
// transaction, so a job is carried out once however many workers saw it ready. Errors:
// not_found, conflict when the job is no longer ready.
func (s *Service) Claim(ctx context.Context, accountID, id, actor, runner, info string) (*model.Job, error) {
	return s.change(ctx, accountID, id, actor, func(tx *store.Tx, j *model.Job) ([]string, error) {
		if j.Status != model.JobReady {
			return nil, errs.E(errs.Conflict, "jobId", "The job is %s, no longer ready", j.Status)
		}
		topics, err := moveTo(tx, j, model.JobExecuting)
		if err != nil {
			return nil, err
		}
		j.Info = info
		return topics, tx.SetJobRunner(j.ID, runner)
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
			if err := CheckScope(ctx, s.DB, j); err != nil {
				return nil, err
			}
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
