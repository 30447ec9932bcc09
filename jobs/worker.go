package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
)

// WorkerActor is the actor id on events of jobs the built-in worker carries out.
const WorkerActor = "us_usr_sluice"

// Handler carries out one built-in job and returns the outcome message.
type Handler func(ctx context.Context, j *model.Job) (string, error)

// Worker runs built-in jobs inside the server, like an agent would: it acknowledges ready
// jobs whose operation it handles, runs them and completes or fails them. It is a pool of
// Size jobs at a time, fair across spaces (a space with jobs running waits behind spaces
// with none), and each job has a time budget. A job that does not complete (it failed, ran
// out of time, was canceled, or the server stopped) takes back the records it added.
type Worker struct {
	svc      *Service
	log      *slog.Logger
	every    time.Duration
	handlers map[string]Handler
	nextMu   sync.Mutex
	next     map[string]map[string]any // outcome.next of jobs just run, by job id
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once

	// Size is how many jobs run at once (default: the number of cores).
	Size int
	// Budget is how long one job may run before it is stopped and failed (default 2 h).
	Budget time.Duration
	// Runner names this node's worker on the jobs it claims (default "local"; the node's id
	// when nodes share a PostgreSQL database).
	Runner string
	// Watch is how often a running job's status is checked, so a cancel stops it (default 1 s).
	Watch time.Duration

	mu      sync.Mutex
	running map[string]int // jobs running per space
	active  sync.WaitGroup
}

// NewWorker returns a worker that looks for work every interval (default 1 s).
func NewWorker(svc *Service, every time.Duration, log *slog.Logger) *Worker {
	if every <= 0 {
		every = time.Second
	}
	return &Worker{svc: svc, log: log, every: every, handlers: map[string]Handler{}, next: map[string]map[string]any{}, stop: make(chan struct{}),
		running: map[string]int{}}
}

func (w *Worker) size() int {
	if w.Size > 0 {
		return w.Size
	}
	return max(1, runtime.NumCPU())
}

func (w *Worker) runner() string { return cmp.Or(w.Runner, "local") }

// Handle registers the handler of an operation ("delete-records"), or of an operation on one
// type of job ("file:extract"), so a client's own jobs with the same operation on other types
// are left to their agents.
func (w *Worker) Handle(operation string, h Handler) { w.handlers[operation] = h }

// handler finds the handler of a job: by type and operation first, then by operation.
func (w *Worker) handler(j *model.Job) Handler {
	if h, ok := w.handlers[j.Type+":"+j.Operation]; ok {
		return h
	}
	return w.handlers[j.Operation]
}

// Outcome is what a job leaves for the person who ran it: a message and, optionally, where to
// go next (Flatfile's outcome.next, e.g. {"type":"download","url":…,"fileName":…}).
type Outcome struct {
	Message string
	Next    map[string]any
}

// HandleOutcome registers a handler whose outcome carries a next step.
func (w *Worker) HandleOutcome(operation string, h func(ctx context.Context, j *model.Job) (Outcome, error)) {
	w.handlers[operation] = func(ctx context.Context, j *model.Job) (string, error) {
		o, err := h(ctx, j)
		if err == nil && o.Next != nil {
			w.nextMu.Lock()
			w.next[j.ID] = o.Next
			w.nextMu.Unlock()
		}
		return o.Message, err
	}
}

func (w *Worker) operations() []string {
	ops := make([]string, 0, len(w.handlers))
	for op := range w.handlers {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return ops
}

// RunOnce carries out the ready jobs it handles, one after the other, and returns how many
// it ran.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	refs, err := w.svc.DB.ReadyJobs(ctx, w.operations(), 16)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range refs {
		ran, err := w.run(ctx, r)
		if err != nil {
			return n, err
		}
		if ran {
			n++
		}
	}
	return n, nil
}

// dispatch starts ready jobs in the pool's free slots, spaces with the fewest jobs running
// first (then the oldest job), and returns how many it started.
func (w *Worker) dispatch(ctx context.Context) (int, error) {
	w.mu.Lock()
	free := w.size()
	for _, n := range w.running {
		free -= n
	}
	w.mu.Unlock()
	if free <= 0 {
		return 0, nil
	}
	refs, err := w.svc.DB.ReadyJobs(ctx, w.operations(), 64)
	if err != nil {
		return 0, err
	}
	started := 0
	for started < free && len(refs) > 0 {
		w.mu.Lock()
		best := 0
		for i, r := range refs { // ReadyJobs is oldest first: the first of the least busy space
			if w.running[r.SpaceID] < w.running[refs[best].SpaceID] {
				best = i
			}
		}
		r := refs[best]
		refs = append(refs[:best], refs[best+1:]...)
		w.running[r.SpaceID]++
		w.mu.Unlock()
		w.active.Add(1)
		started++
		go func() {
			defer w.active.Done()
			defer func() {
				w.mu.Lock()
				if w.running[r.SpaceID]--; w.running[r.SpaceID] <= 0 {
					delete(w.running, r.SpaceID)
				}
				w.mu.Unlock()
			}()
			if _, err := w.run(context.Background(), r); err != nil {
				w.log.Error("built-in job", "job", r.ID, "err", err)
			}
		}()
	}
	return started, nil
}

// run claims one ready job and carries it out within its budget; it reports whether it ran
// it (another worker may have taken it).
func (w *Worker) run(ctx context.Context, r store.JobRef) (bool, error) {
	j, err := w.svc.Claim(ctx, r.AccountID, r.ID, WorkerActor, w.runner(), "Accepted by Sluice")
	if errs.Is(err, errs.Conflict) || errs.Is(err, errs.NotFound) {
		return false, nil // someone else took it
	}
	if err != nil {
		return false, err
	}
	budget := cmp.Or(w.Budget, 2*time.Hour)
	cctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	jctx, cancel := context.WithTimeoutCause(cctx, budget, errOverBudget)
	defer cancel()
	go w.watch(jctx, stop, j)
	msg, runErr := w.handler(j)(jctx, j)
	if runErr == nil && jctx.Err() != nil {
		runErr = context.Cause(jctx)
	}
	status := model.JobComplete
	if runErr != nil {
		status, msg = model.JobFailed, runErr.Error()
		//nolint:errorlint // an errs.Error itself speaks to the user as is; a wrapped one keeps its context
		if e, ok := runErr.(*errs.Error); ok && e.Code != errs.Internal {
			msg = e.Message
		}
		switch cause := context.Cause(jctx); {
		case errors.Is(cause, errOverBudget):
			msg = fmt.Sprintf("Stopped after %s, the time a job may run", budget)
		case errors.Is(cause, errCanceled):
			msg = "Canceled"
		}
		// Nothing of a job that did not complete stays: a fresh context, the job's is done.
		dctx, dcancel := context.WithTimeout(context.Background(), time.Hour)
		n, err := w.svc.DB.DiscardJobWrites(dctx, j.ID, recordset.WriteOptions{Actor: WorkerActor, AccountID: j.AccountID})
		dcancel()
		if err != nil {
			return true, err
		}
		if n > 0 {
			msg += fmt.Sprintf("; the %d records it had added were removed", n)
		}
	}
	o := map[string]any{"acknowledge": runErr != nil, "message": msg}
	w.nextMu.Lock()
	if next, ok := w.next[j.ID]; ok {
		o["next"] = next
		delete(w.next, j.ID)
	}
	w.nextMu.Unlock()
	outcome, _ := json.Marshal(o)
	if _, err := w.svc.Finish(context.Background(), j.AccountID, j.ID, WorkerActor, status, outcome, &msg); err != nil && !errs.Is(err, errs.Conflict) {
		return true, err
	}
	return true, nil
}

var (
	errOverBudget = errors.New("over its time budget")
	errCanceled   = errors.New("canceled")
)

// watch stops a running job's context once the job is no longer executing (canceled through
// the API, or failed by the ack sweep).
func (w *Worker) watch(ctx context.Context, cancel context.CancelCauseFunc, j *model.Job) {
	t := time.NewTicker(cmp.Or(w.Watch, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			cur, err := w.svc.DB.GetJob(ctx, j.AccountID, j.ID)
			if errs.Is(err, errs.NotFound) || (err == nil && cur.Status != model.JobExecuting) {
				cancel(errCanceled)
				return
			}
		}
	}
}

// Recover settles what the last run of this node left behind, before the worker starts: its
// jobs still executing fail at once as interrupted by a restart, and every job that did not
// complete takes back the records it added. It returns how many jobs it failed.
func (w *Worker) Recover(ctx context.Context) (int, error) {
	return w.TakeOver(ctx, w.runner(), "Interrupted by a restart of Sluice; run it again")
}

// TakeOver settles what runner (this node's worker after a restart, or another node that
// stopped) left behind: its executing jobs fail with msg, and jobs that did not complete
// take back the records they added. It returns how many jobs it failed.
func (w *Worker) TakeOver(ctx context.Context, runner, msg string) (int, error) {
	refs, err := w.svc.DB.RunnerJobs(ctx, runner)
	if err != nil {
		return 0, err
	}
	outcome, _ := json.Marshal(map[string]any{"acknowledge": true, "message": msg})
	for _, r := range refs {
		if _, err := w.svc.Finish(ctx, r.AccountID, r.ID, WorkerActor, model.JobFailed, outcome, &msg); err != nil && !errs.Is(err, errs.Conflict) {
			return 0, err
		}
	}
	ids, err := w.svc.DB.UnsettledJobWrites(ctx)
	if err != nil {
		return len(refs), err
	}
	for _, id := range ids {
		if _, err := w.svc.DB.DiscardJobWrites(ctx, id, recordset.WriteOptions{Actor: WorkerActor}); err != nil {
			return len(refs), err
		}
	}
	return len(refs), nil
}

// Start looks for work in a goroutine until Stop.
func (w *Worker) Start() {
	w.done = make(chan struct{})
	go func() {
		defer close(w.done)
		tick := time.NewTicker(w.every)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				w.active.Wait()
				return
			case <-tick.C:
				if len(w.handlers) == 0 {
					continue
				}
				if _, err := w.dispatch(context.Background()); err != nil {
					w.log.Error("built-in jobs", "err", err)
				}
			}
		}
	}()
}

// Stop ends the goroutine after the jobs in progress.
func (w *Worker) Stop() {
	w.once.Do(func() { close(w.stop) })
	if w.done != nil {
		<-w.done
	}
}

// RecordDeleter deletes the records a query selects; the records store provides it.
type RecordDeleter interface {
	Resolver
	DeleteWhere(ctx context.Context, sheetID string, q recordset.RecordQuery, opt recordset.WriteOptions) (*recordset.BulkResult, error)
}

// DeleteRecords is the built-in delete-records job: it deletes the records of config.sheet
// that filter (valid, error or all; filterField narrows valid and error to one field),
// searchValue/searchField and q select, keeping the exceptions. With filter none (the
// default) and no search or q it selects, and deletes, nothing.
func DeleteRecords(d RecordDeleter) Handler {
	return func(ctx context.Context, j *model.Job) (string, error) {
		c, err := ParseDeleteRecordsConfig(j.Config)
		if err != nil {
			return "", err
		}
		if err := CheckScope(ctx, d, j); err != nil { // the stored config, checked again before acting
			return "", err
		}
		q := recordset.RecordQuery{Filter: c.Filter, FilterField: c.FilterField, SearchValue: c.SearchValue, SearchField: c.SearchField,
			Q: c.Q, IDs: c.Exceptions}
		if q.Filter == "none" {
			q.Filter = ""
		}
		if q.Filter == "" && q.SearchValue == "" && q.Q == "" {
			// Without a selection, ids would pick the records to delete, not spare them.
			return "Deleted 0 records: the config selects none", nil
		}
		res, err := d.DeleteWhere(ctx, c.Sheet, q, recordset.WriteOptions{Actor: WorkerActor, AccountID: j.AccountID})
		if err != nil {
			return "", err
		}
		return "Deleted " + itoa(res.Count) + " records", nil
	}
}
