package events

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/netguard"
	"github.com/sluice/sluice/store"
)

// Webhooks delivers events to agents with a URL. Dispatch turns new events into pending
// deliveries (moving a durable cursor in the same transaction); SendDue POSTs the deliveries
// that are due, signed, and reschedules failures with exponential backoff. Everything it
// needs to resume lives in the database, so a restart loses no delivery: at worst one that
// was in flight is sent again (receivers dedupe by the X-Sluice-Event-Id header).
type Webhooks struct {
	DB *store.DB
	// Encode renders an event as its wire JSON (the body of GET /v1/events/:id's data).
	Encode func(*model.Event) ([]byte, error)
	Client *http.Client
	Log    *slog.Logger
	// AllowPrivate lets deliveries reach loopback and private addresses
	// (SLUICE_ALLOW_PRIVATE_WEBHOOKS); by default they are refused (netguard).
	AllowPrivate bool
	// RetryBase is the wait after the first failed attempt; each further failure doubles it
	// (1 s, 2 s, 4s …). MaxAttempts attempts in all, then the delivery fails for good.
	RetryBase   time.Duration
	MaxAttempts int
	// Interval is how often the background loop looks for new events and due deliveries.
	Interval time.Duration
	// Concurrency bounds the POSTs in flight.
	Concurrency int
	// Node names this node in the deliveries it claims (SLUICE_NODE_ID), so that what it
	// claimed is released when it starts again or another node takes over from it.
	Node string

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func (w *Webhooks) defaults() {
	if w.Client == nil {
		w.Client = netguard.Client(10 * time.Second)
		if w.AllowPrivate {
			w.Client = &http.Client{Timeout: 10 * time.Second}
		}
	}
	if w.RetryBase <= 0 {
		w.RetryBase = time.Second
	}
	if w.MaxAttempts <= 0 {
		w.MaxAttempts = 6
	}
	if w.Interval <= 0 {
		w.Interval = 250 * time.Millisecond
	}
	if w.Concurrency <= 0 {
		w.Concurrency = 8
	}
	if w.Log == nil {
		w.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
}

// Dispatch turns the events after the cursor into deliveries for the webhook agents that
// want them and returns how many deliveries it queued.
func (w *Webhooks) Dispatch(ctx context.Context) (int, error) {
	const batch = 500
	queued := 0
	for {
		cursor, err := w.DB.DispatchCursor(ctx)
		if err != nil {
			return queued, err
		}
		evs, err := w.DB.EventsAfter(ctx, cursor, batch)
		if err != nil || len(evs) == 0 {
			return queued, err
		}
		agents, err := w.DB.WebhookAgents(ctx)
		if err != nil {
			return queued, err
		}
		var list []*model.Delivery
		for _, e := range evs {
			for _, a := range agents {
				if AgentWants(a, e.Event) {
					list = append(list, &model.Delivery{AgentID: a.ID, AccountID: a.AccountID, EnvironmentID: a.EnvironmentID,
						SpaceID: e.Context.SpaceID, EventID: e.ID, EventSeq: e.Seq, Topic: e.Topic, URL: a.Config.URL})
				}
			}
		}
		if err := w.DB.EnqueueDeliveries(ctx, list, cursor, evs[len(evs)-1].Seq); err != nil {
			return queued, err
		}
		queued += len(list)
		if len(evs) < batch {
			return queued, nil
		}
	}
}

// SendDue attempts every delivery due at the store's clock and returns how many succeeded.
func (w *Webhooks) SendDue(ctx context.Context) (int, error) {
	w.defaults()
	// Claimed for longer than an attempt can take (the client's timeout), so each delivery
	// is made by one node at a time.
	due, err := w.DB.ClaimDueDeliveries(ctx, w.DB.Now(), 2*w.Client.Timeout+time.Minute, 100, w.Node)
	if err != nil {
		return 0, err
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	ok := 0
	sem := make(chan struct{}, w.Concurrency)
	for _, d := range due {
		wg.Add(1)
		sem <- struct{}{}
		go func(d *model.Delivery) {
			defer func() { <-sem; wg.Done() }()
			sent, err := w.attempt(ctx, d)
			mu.Lock()
			defer mu.Unlock()
			if sent {
				ok++
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}(d)
	}
	wg.Wait()
	return ok, firstErr
}

// attempt POSTs one delivery and records the outcome.
func (w *Webhooks) attempt(ctx context.Context, d *model.Delivery) (bool, error) {
	ev, err := w.DB.GetEvent(ctx, d.AccountID, d.EventID)
	var secret string
	if err == nil {
		secret, err = w.DB.SecretKey(ctx, d.EnvironmentID)
	}
	if errs.Is(err, errs.NotFound) {
		// The environment (or its keys) is gone: nothing can be signed, so give up.
		now := w.DB.Now()
		d.Status, d.LastError, d.NextAttemptAt, d.CompletedAt = model.DeliveryFailed, err.Error(), nil, &now
		return false, w.DB.SaveDeliveryAttempt(ctx, d)
	}
	if err != nil {
		return false, err
	}
	body, err := w.Encode(ev)
	if err != nil {
		return false, err
	}
	d.Attempts++
	start := time.Now()
	status, sendErr := w.post(ctx, d, body, secret)
	d.Duration, d.LastStatus = time.Since(start), status
	now := w.DB.Now()
	switch {
	case sendErr == nil:
		d.Status, d.LastError, d.NextAttemptAt, d.CompletedAt = model.DeliveryDelivered, "", nil, &now
	case d.Attempts >= w.MaxAttempts:
		d.Status, d.LastError, d.NextAttemptAt, d.CompletedAt = model.DeliveryFailed, sendErr.Error(), nil, &now
		w.Log.Warn("webhook delivery failed for good", "agent", d.AgentID, "event", d.EventID, "attempts", d.Attempts, "err", sendErr)
	default:
		next := now.Add(w.backoff(d.Attempts))
		d.LastError, d.NextAttemptAt = sendErr.Error(), &next
	}
	return sendErr == nil, w.DB.SaveDeliveryAttempt(ctx, d)
}

// backoff is the wait after the n-th failed attempt: RetryBase × 2^(n-1), at most an hour.
func (w *Webhooks) backoff(n int) time.Duration {
	d := w.RetryBase << (n - 1)
	if d <= 0 || d > time.Hour {
		return time.Hour
	}
	return d
}

func (w *Webhooks) post(ctx context.Context, d *model.Delivery, body []byte, secret string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Sluice-Webhooks/1")
	req.Header.Set(SignatureHeader, Signature(secret, w.DB.Now(), body))
	req.Header.Set("X-Sluice-Event-Id", d.EventID)
	req.Header.Set("X-Sluice-Topic", d.Topic)
	req.Header.Set("X-Sluice-Delivery-Id", d.ID)
	req.Header.Set("X-Sluice-Attempt", strconv.Itoa(d.Attempts))
	resp, err := w.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// RunOnce dispatches new events and sends what is due.
func (w *Webhooks) RunOnce(ctx context.Context) error {
	w.defaults()
	if _, err := w.Dispatch(ctx); err != nil {
		return err
	}
	_, err := w.SendDue(ctx)
	return err
}

// Start runs RunOnce every Interval in a goroutine until Stop. Pending deliveries left by a
// previous run are picked up at once.
func (w *Webhooks) Start() {
	w.defaults()
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(w.done)
		tick := time.NewTicker(w.Interval)
		defer tick.Stop()
		for {
			if err := w.RunOnce(context.Background()); err != nil {
				w.Log.Error("webhooks", "err", err)
			}
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
}

// Stop ends the loop after the batch in flight.
func (w *Webhooks) Stop() {
	if w.stop == nil {
		return
	}
	w.once.Do(func() { close(w.stop) })
	<-w.done
}
