package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// Timers are the settings of the job timers; the zero value of a field means its default.
type Timers struct {
	CheckEvery    time.Duration // the routine check of executing jobs (spec: every 5 minutes)
	AckWindow     time.Duration // an executing job not acknowledged for this long fails (spec: 5 minutes)
	ReadinessWait time.Duration // a space:configure job not finished by then is stopped (spec: 120 s)
	Tick          time.Duration // how often the scheduler wakes to look at the clock (5 s)
}

// withDefaults fills zero fields with the spec's values.
func (t Timers) withDefaults() Timers {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.CheckEvery, 5*time.Minute)
	def(&t.AckWindow, 5*time.Minute)
	def(&t.ReadinessWait, 120*time.Second)
	def(&t.Tick, 5*time.Second)
	return t
}

// BuildStopped is the outcome message of a space:configure job stopped by the readiness wait.
const BuildStopped = "build stopped"

// FailUnacknowledged fails every executing job whose last acknowledgement (or start) is at
// least window before now, with an outcome saying so. It returns how many it failed.
func (s *Service) FailUnacknowledged(ctx context.Context, now time.Time, window time.Duration) (int, error) {
	refs, err := s.DB.UnacknowledgedJobs(ctx, now.Add(-window))
	if err != nil {
		return 0, err
	}
	msg := "Job failed: not acknowledged within " + window.String() + " while executing"
	return s.failAll(ctx, refs, msg, func(j *model.Job) bool {
		last := j.LastAckAt
		if last == nil {
			last = j.StartedAt
		}
		return j.Status == model.JobExecuting && last != nil && !last.After(now.Add(-window))
	})
}

// StopOverdueBuilds fails every space:configure job still unfinished wait after its creation:
// the workbook readiness wait is over and the build is stopped.
func (s *Service) StopOverdueBuilds(ctx context.Context, now time.Time, wait time.Duration) (int, error) {
	refs, err := s.DB.OverdueJobs(ctx, "space", "configure", now.Add(-wait))
	if err != nil {
		return 0, err
	}
	msg := BuildStopped + ": the space was not configured within " + wait.String()
	return s.failAll(ctx, refs, msg, func(j *model.Job) bool { return !j.Finished() })
}

// failAll fails each job that still meets cond inside its own transaction (an agent may have
// acknowledged or finished it since it was selected).
func (s *Service) failAll(ctx context.Context, refs []store.JobRef, msg string, cond func(*model.Job) bool) (int, error) {
	outcome, _ := json.Marshal(map[string]any{"acknowledge": true, "message": msg})
	n := 0
	for _, r := range refs {
		failed := false
		_, err := s.change(ctx, r.AccountID, r.ID, "", func(tx *store.Tx, j *model.Job) ([]string, error) {
			if !cond(j) {
				return nil, nil
			}
			topics, err := moveTo(tx, j, model.JobFailed)
			if err != nil {
				return nil, err
			}
			j.Outcome, j.Info, failed = outcome, msg, true
			return topics, nil
		})
		if err != nil {
			return n, err
		}
		if failed {
			n++
		}
	}
	return n, nil
}

// Scheduler runs the job timers in the background on the store's clock (db.Now): the
// readiness wait at every tick and the routine ack check every CheckEvery.
type Scheduler struct {
	svc         *Service
	t           Timers
	log         *slog.Logger
	lastRoutine time.Time
	stop        chan struct{}
	done        chan struct{}
	once        sync.Once
}

// NewScheduler returns a scheduler; Start runs it.
func NewScheduler(svc *Service, t Timers, log *slog.Logger) *Scheduler {
	return &Scheduler{svc: svc, t: t.withDefaults(), log: log, lastRoutine: svc.DB.Now(), stop: make(chan struct{})}
}

// Start runs the timers in a goroutine until Stop.
func (s *Scheduler) Start() {
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		tick := time.NewTicker(s.t.Tick)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
				if err := s.RunDue(context.Background(), s.svc.DB.Now()); err != nil {
					s.log.Error("job timers", "err", err)
				}
			}
		}
	}()
}

// Stop ends the goroutine and waits for a check in progress to finish.
func (s *Scheduler) Stop() {
	s.once.Do(func() { close(s.stop) })
	if s.done != nil {
		<-s.done
	}
}

// RunDue runs what is due at now: the readiness wait always, the routine check when
// CheckEvery has passed since the last one. Tests call it with a fake clock.
func (s *Scheduler) RunDue(ctx context.Context, now time.Time) error {
	if n, err := s.svc.StopOverdueBuilds(ctx, now, s.t.ReadinessWait); err != nil {
		return err
	} else if n > 0 {
		s.log.Info("stopped space builds past the readiness wait", "jobs", n)
	}
	if now.Sub(s.lastRoutine) < s.t.CheckEvery {
		return nil
	}
	s.lastRoutine = now
	n, err := s.svc.FailUnacknowledged(ctx, now, s.t.AckWindow)
	if n > 0 {
		s.log.Info("failed executing jobs past the ack window", "jobs", n)
	}
	return err
}
