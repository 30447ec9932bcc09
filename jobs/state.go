// Package jobs holds the job state machine and the rules around jobs: creating them (from
// the API or by running an action), moving them through their statuses with the events each
// move emits, validating configs, input forms and outcomes, and the timers (ack window,
// readiness wait) driven by the store's injectable clock.
package jobs

import (
	"slices"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// transitions lists, for each status, the statuses a job may move to.
//
//	created ─┬─> planning ─┬─> scheduled ─┬─> ready ──> executing ──> complete
//	         │             │              │     │    ╰──(ack)──╯  ╰─> failed ─╮
//	         ╰─────────────┴──> waiting ──╯     ╰──> complete|failed|canceled  │
//	                                                                           │
//	    failed|canceled ──(retry)──> ready (or waiting while predecessors run) ╯
//
// Any unfinished job may be canceled or failed. A ready job may be completed or failed without
// an ack (listeners that do their work at once). complete is terminal.
var transitions = map[string][]string{
	model.JobCreated:   {model.JobPlanning, model.JobScheduled, model.JobWaiting, model.JobReady, model.JobFailed, model.JobCanceled},
	model.JobPlanning:  {model.JobScheduled, model.JobWaiting, model.JobReady, model.JobFailed, model.JobCanceled},
	model.JobScheduled: {model.JobWaiting, model.JobReady, model.JobFailed, model.JobCanceled},
	model.JobWaiting:   {model.JobReady, model.JobFailed, model.JobCanceled},
	model.JobReady:     {model.JobExecuting, model.JobComplete, model.JobFailed, model.JobCanceled},
	model.JobExecuting: {model.JobExecuting, model.JobComplete, model.JobFailed, model.JobCanceled},
	model.JobFailed:    {model.JobReady, model.JobWaiting},
	model.JobCanceled:  {model.JobReady, model.JobWaiting},
	model.JobComplete:  {},
}

// CanMove reports whether a job in status from may move to status to.
func CanMove(from, to string) bool { return slices.Contains(transitions[from], to) }

// Move checks the transition from → to and returns a conflict error naming both when it is
// not allowed, or an invalid error when to is no status at all.
func Move(from, to string) error {
	if !slices.Contains(model.JobStatuses, to) {
		return errs.Invalidf("status", "Unknown job status %q; one of %v", to, model.JobStatuses)
	}
	if !CanMove(from, to) {
		return errs.E(errs.Conflict, "status", "A job cannot move from %s to %s", from, to)
	}
	return nil
}

// initialStatuses are the statuses a job may be created with.
var initialStatuses = []string{model.JobCreated, model.JobPlanning, model.JobScheduled, model.JobReady}

// topicFor names the event a move into status emits.
func topicFor(status string) string {
	switch status {
	case model.JobReady:
		return "job:ready"
	case model.JobScheduled:
		return "job:scheduled"
	case model.JobComplete:
		return "job:completed"
	case model.JobFailed:
		return "job:failed"
	}
	return "job:updated"
}
