package jobs_test

import (
	"strings"
	"testing"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
)

// legal is the whole state machine written out independently of the implementation:
// every pair not listed here must be refused.
var legal = map[[2]string]bool{
	{"created", "planning"}: true, {"created", "scheduled"}: true, {"created", "waiting"}: true, {"created", "ready"}: true,
	{"created", "failed"}: true, {"created", "canceled"}: true,
	{"planning", "scheduled"}: true, {"planning", "waiting"}: true, {"planning", "ready"}: true,
	{"planning", "failed"}: true, {"planning", "canceled"}: true,
	{"scheduled", "waiting"}: true, {"scheduled", "ready"}: true, {"scheduled", "failed"}: true, {"scheduled", "canceled"}: true,
	{"waiting", "ready"}: true, {"waiting", "failed"}: true, {"waiting", "canceled"}: true,
	{"ready", "executing"}: true, {"ready", "complete"}: true, {"ready", "failed"}: true, {"ready", "canceled"}: true,
	{"executing", "executing"}: true, {"executing", "complete"}: true, {"executing", "failed"}: true, {"executing", "canceled"}: true,
	{"failed", "ready"}: true, {"failed", "waiting"}: true,
	{"canceled", "ready"}: true, {"canceled", "waiting"}: true,
}

func TestTransitions(t *testing.T) {
	for _, from := range model.JobStatuses {
		for _, to := range model.JobStatuses {
			want := legal[[2]string{from, to}]
			t.Run(from+"->"+to, func(t *testing.T) {
				if got := jobs.CanMove(from, to); got != want {
					t.Fatalf("CanMove(%s, %s): got %v, want %v", from, to, got, want)
				}
				err := jobs.Move(from, to)
				if want {
					if err != nil {
						t.Fatalf("Move(%s, %s): got %v, want nil", from, to, err)
					}
					return
				}
				if !errs.Is(err, errs.Conflict) {
					t.Fatalf("Move(%s, %s): got %v, want a conflict", from, to, err)
				}
				if msg := err.Error(); !strings.Contains(msg, from) || !strings.Contains(msg, to) {
					t.Fatalf("Move(%s, %s): message %q does not name both statuses", from, to, msg)
				}
			})
		}
	}
}

func TestMoveToUnknownStatus(t *testing.T) {
	if err := jobs.Move(model.JobReady, "done"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("got %v, want an invalid error", err)
	}
}

func TestCompleteIsTerminal(t *testing.T) {
	for _, to := range model.JobStatuses {
		if jobs.CanMove(model.JobComplete, to) {
			t.Errorf("complete -> %s: got allowed, want refused", to)
		}
	}
}
