package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// WorkerActor is the actor id on events of jobs the built-in worker carries out.
const WorkerActor = "us_usr_sluice"

// Handler carries out one built-in job and returns the outcome message.
type Handler func(ctx context.Context, j *model.Job) (string, error)

// Worker runs built-in jobs inside the server, like an agent would: it acknowledges ready
// jobs whose operation it handles, runs them and completes or fails them.
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
}

// NewWorker returns a worker that looks for work every interval (default 1 s).
func NewWorker(svc *Service, every time.Duration, log *slog.Logger) *Worker {
	if every <= 0 {
		every = time.Second
	}
	return &Worker{svc: svc, log: log, every: every, handlers: map[string]Handler{}, next: map[string]map[string]any{}, stop: make(chan struct{})}
}

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

// RunOnce carries out the ready jobs it handles and returns how many it ran.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	refs, err := w.svc.DB.ReadyJobs(ctx, w.operations(), 16)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range refs {
		info := "Accepted by Sluice"
		j, err := w.svc.Ack(ctx, r.AccountID, r.ID, WorkerActor, &info, nil, nil)
		if errs.Is(err, errs.Conflict) || errs.Is(err, errs.NotFound) {
			continue // someone else took it
		}
		if err != nil {
			return n, err
		}
		n++
		msg, runErr := w.handler(j)(ctx, j)
		status := model.JobComplete
		if runErr != nil {
			status, msg = model.JobFailed, runErr.Error()
			if e, ok := runErr.(*errs.Error); ok && e.Code != errs.Internal {
				msg = e.Message
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
		if _, err := w.svc.Finish(ctx, j.AccountID, j.ID, WorkerActor, status, outcome, &msg); err != nil && !errs.Is(err, errs.Conflict) {
			return n, err
		}
	}
	return n, nil
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
				return
			case <-tick.C:
				if len(w.handlers) == 0 {
					continue
				}
				if _, err := w.RunOnce(context.Background()); err != nil {
					w.log.Error("built-in jobs", "err", err)
				}
			}
		}
	}()
}

// Stop ends the goroutine after the job in progress.
func (w *Worker) Stop() {
	w.once.Do(func() { close(w.stop) })
	if w.done != nil {
		<-w.done
	}
}

// RecordDeleter deletes the records a query selects; the records store provides it.
type RecordDeleter interface {
	DeleteWhere(ctx context.Context, sheetID string, q store.RecordQuery, opt store.WriteOptions) (*store.BulkResult, error)
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
		q := store.RecordQuery{Filter: c.Filter, FilterField: c.FilterField, SearchValue: c.SearchValue, SearchField: c.SearchField,
			Q: c.Q, IDs: c.Exceptions}
		if q.Filter == "none" {
			q.Filter = ""
		}
		if q.Filter == "" && q.SearchValue == "" && q.Q == "" {
			// Without a selection, ids would pick the records to delete, not spare them.
			return "Deleted 0 records: the config selects none", nil
		}
		res, err := d.DeleteWhere(ctx, c.Sheet, q, store.WriteOptions{Actor: WorkerActor, AccountID: j.AccountID})
		if err != nil {
			return "", err
		}
		return "Deleted " + itoa(res.Count) + " records", nil
	}
}
