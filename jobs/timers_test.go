package jobs_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
)

// clock is a fake clock shared by every store opened on the same file.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time      { return c.now }
func (c *clock) add(d time.Duration) { c.now = c.now.Add(d) }

type fixture struct {
	path  string
	clock *clock
	db    *store.DB
	svc   *jobs.Service
	acc   string
	env   string
}

func mustOpenDB(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{path: sqldb.TestDatabase(t), clock: &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}}
	f.open(t)
	res, err := f.db.EnsureBootstrap(t.Context(), store.Bootstrap{AccountName: "T", AdminEmail: "a@b.c", SecretKey: "sk_t", PublishableKey: "pk_t"})
	if err != nil {
		t.Fatal(err)
	}
	f.acc, f.env = res.Account.ID, res.Environment.ID
	return f
}

func (f *fixture) open(t *testing.T) {
	t.Helper()
	db, err := store.OpenDSN(f.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = f.clock.Now
	f.db, f.svc = db, jobs.New(db, nil)
}

// restart closes the store and opens the same file again, as a server restart would.
func (f *fixture) restart(t *testing.T) {
	t.Helper()
	f.db.Close()
	f.open(t)
}

func (f *fixture) mustCreateSpace(t *testing.T) *model.Space {
	t.Helper()
	s := &model.Space{AccountID: f.acc, EnvironmentID: f.env, Name: "s", AutoConfigure: true}
	if err := f.db.CreateSpace(t.Context(), s, "us_usr_t"); err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) mustCreateJob(t *testing.T, j *model.Job) *model.Job {
	t.Helper()
	j.AccountID = f.acc
	if err := f.svc.Prepare(t.Context(), j); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Create(t.Context(), j, "us_usr_t"); err != nil {
		t.Fatal(err)
	}
	return j
}

func (f *fixture) status(t *testing.T, id string) *model.Job {
	t.Helper()
	j, err := f.db.GetJob(t.Context(), f.acc, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestAckWindow(t *testing.T) {
	f := mustOpenDB(t)
	ctx := t.Context()
	s := f.mustCreateSpace(t)
	sched := jobs.NewScheduler(f.svc, jobs.Timers{ReadinessWait: time.Hour}, quiet())
	silent := f.mustCreateJob(t, &model.Job{Type: "space", Operation: "a", Source: s.ID, Trigger: "immediate"})
	chatty := f.mustCreateJob(t, &model.Job{Type: "space", Operation: "b", Source: s.ID, Trigger: "immediate"})
	idle := f.mustCreateJob(t, &model.Job{Type: "space", Operation: "c", Source: s.ID, Trigger: "immediate"})
	for _, id := range []string{silent.ID, chatty.ID} {
		if _, err := f.svc.Ack(ctx, f.acc, id, "agent", nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The chatty job reports progress after 3 minutes; the silent one never does.
	f.clock.add(3 * time.Minute)
	p := 40.0
	if _, err := f.svc.Ack(ctx, f.acc, chatty.ID, "agent", nil, &p, nil); err != nil {
		t.Fatal(err)
	}
	// At 4 minutes the routine check is not due yet.
	f.clock.add(time.Minute)
	if err := sched.RunDue(ctx, f.clock.now); err != nil {
		t.Fatal(err)
	}
	if got := f.status(t, silent.ID).Status; got != model.JobExecuting {
		t.Fatalf("before the routine check: got %s, want executing", got)
	}
	// At 5 minutes the routine check runs: the silent job's 5-minute window is over.
	f.clock.add(time.Minute)
	if err := sched.RunDue(ctx, f.clock.now); err != nil {
		t.Fatal(err)
	}
	got := f.status(t, silent.ID)
	if got.Status != model.JobFailed || !strings.Contains(string(got.Outcome), "not acknowledged within 5m0s") {
		t.Fatalf("silent job: got %s %s, want failed with an outcome message", got.Status, got.Outcome)
	}
	if got := f.status(t, chatty.ID).Status; got != model.JobExecuting {
		t.Fatalf("chatty job: got %s, want executing (acknowledged 2 minutes ago)", got)
	}
	if got := f.status(t, idle.ID).Status; got != model.JobReady {
		t.Fatalf("ready job: got %s, want ready (the ack window is for executing jobs)", got)
	}
	// The next check is 5 minutes later; by then the chatty job has been silent for 7.
	f.clock.add(5 * time.Minute)
	if err := sched.RunDue(ctx, f.clock.now); err != nil {
		t.Fatal(err)
	}
	if got := f.status(t, chatty.ID).Status; got != model.JobFailed {
		t.Fatalf("chatty job after going silent: got %s, want failed", got)
	}
}

func TestAckClockSurvivesRestart(t *testing.T) {
	f := mustOpenDB(t)
	s := f.mustCreateSpace(t)
	j := f.mustCreateJob(t, &model.Job{Type: "space", Operation: "a", Source: s.ID, Trigger: "immediate"})
	if _, err := f.svc.Ack(t.Context(), f.acc, j.ID, "agent", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	f.clock.add(4 * time.Minute)
	f.restart(t)
	// The restarted scheduler's first routine check comes 5 minutes after it starts, but the
	// job's clock started before the restart: it is 9 minutes silent by then, and fails.
	sched := jobs.NewScheduler(f.svc, jobs.Timers{ReadinessWait: time.Hour}, quiet())
	f.clock.add(5 * time.Minute)
	if err := sched.RunDue(t.Context(), f.clock.now); err != nil {
		t.Fatal(err)
	}
	got := f.status(t, j.ID)
	if got.Status != model.JobFailed || got.LastAckAt == nil || !got.LastAckAt.Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("got %s (last ack %v), want failed with the ack clock from before the restart", got.Status, got.LastAckAt)
	}
}

func TestReadinessWait(t *testing.T) {
	f := mustOpenDB(t)
	ctx := t.Context()
	sched := jobs.NewScheduler(f.svc, jobs.Timers{}, quiet())
	slow := f.mustCreateSpace(t)
	f.clock.add(60 * time.Second)
	fast := f.mustCreateSpace(t)
	configure := func(s *model.Space) *model.Job {
		list, _, err := f.db.ListJobs(ctx, store.JobFilter{AccountID: f.acc, SpaceID: s.ID, Page: model.Page{Size: 10, Number: 1}})
		if err != nil || len(list) != 1 {
			t.Fatalf("space:configure job of %s: got %v %v", s.ID, list, err)
		}
		return list[0]
	}
	// The slow space's agent acknowledges but never completes; the fast one completes.
	if _, err := f.svc.Ack(ctx, f.acc, configure(slow).ID, "agent", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Finish(ctx, f.acc, configure(fast).ID, "agent", model.JobComplete, nil, nil); err != nil {
		t.Fatal(err)
	}
	f.clock.add(59 * time.Second) // 119 s after the slow space was created
	if err := sched.RunDue(ctx, f.clock.now); err != nil {
		t.Fatal(err)
	}
	if got := configure(slow).Status; got != model.JobExecuting {
		t.Fatalf("at 119 s: got %s, want executing", got)
	}
	f.clock.add(time.Second)
	if err := sched.RunDue(ctx, f.clock.now); err != nil {
		t.Fatal(err)
	}
	got := configure(slow)
	var out struct{ Message string }
	_ = json.Unmarshal(got.Outcome, &out)
	if got.Status != model.JobFailed || !strings.HasPrefix(out.Message, jobs.BuildStopped) {
		t.Fatalf("at 120 s: got %s %q, want failed with %q", got.Status, out.Message, jobs.BuildStopped)
	}
	if got := configure(fast).Status; got != model.JobComplete {
		t.Fatalf("completed build: got %s, want complete", got)
	}
	evs, err := f.db.ListEvents(ctx, store.EventFilter{AccountID: f.acc, Topic: "job:failed", IncludeAcknowledged: true, Page: model.Page{Size: 10, Number: 1}})
	if err != nil || len(evs) != 1 || evs[0].Context.SpaceID != slow.ID {
		t.Fatalf("job:failed events: got %v %v, want one for the slow space", evs, err)
	}
}

func TestSchedulerStartStop(t *testing.T) {
	f := mustOpenDB(t)
	sched := jobs.NewScheduler(f.svc, jobs.Timers{Tick: time.Millisecond}, quiet())
	sched.Start()
	time.Sleep(5 * time.Millisecond)
	done := make(chan struct{})
	go func() { sched.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Stop did not return")
	}
	sched.Stop() // twice is fine
}
