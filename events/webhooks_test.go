package events_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
)

const secret = "sk_webhook_test"

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type fixture struct {
	path  string
	clock *clock
	db    *store.DB
	acc   string
	env   string
}

func mustOpenDB(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{path: sqldb.TestDatabase(t), clock: &clock{now: time.Now().UTC().Truncate(time.Second)}}
	f.open(t)
	res, err := f.db.EnsureBootstrap(t.Context(), store.Bootstrap{AccountName: "T", AdminEmail: "a@b.c", SecretKey: secret, PublishableKey: "pk_w"})
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
	db.Sealer, _ = auth.NewSealer([]byte("0123456789abcdef0123456789abcdef")) // webhooks sign with the sealed secret key
	f.db = db
}

func (f *fixture) webhooks() *events.Webhooks {
	return &events.Webhooks{DB: f.db, Encode: api.EventBody, RetryBase: time.Second, MaxAttempts: 4, AllowPrivate: true}
}

func (f *fixture) mustDeployAgent(t *testing.T, cfg model.AgentConfig) *model.Agent {
	t.Helper()
	a := &model.Agent{AccountID: f.acc, EnvironmentID: f.env, Config: cfg}
	if _, err := f.db.DeployAgent(t.Context(), a, "us_usr_t"); err != nil {
		t.Fatal(err)
	}
	return a
}

func (f *fixture) mustCreateSpace(t *testing.T, name string) *model.Space {
	t.Helper()
	s := &model.Space{AccountID: f.acc, EnvironmentID: f.env, Name: name}
	if err := f.db.CreateSpace(t.Context(), s, "us_usr_t"); err != nil {
		t.Fatal(err)
	}
	return s
}

// receiver is a webhook endpoint that answers the statuses it is given, then 200.
type receiver struct {
	mu       sync.Mutex
	statuses []int
	got      []received
	srv      *httptest.Server
}

type received struct {
	topic, eventID, attempt string
	body                    []byte
	sigErr                  error
}

func newReceiver(t *testing.T, f *fixture, statuses ...int) *receiver {
	r := &receiver{statuses: statuses}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.got = append(r.got, received{topic: req.Header.Get("X-Sluice-Topic"), eventID: req.Header.Get("X-Sluice-Event-Id"),
			attempt: req.Header.Get("X-Sluice-Attempt"), body: body,
			sigErr: events.Verify(secret, req.Header.Get(events.SignatureHeader), body, f.clock.Now(), 5*time.Minute)})
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func TestSignature(t *testing.T) {
	now := time.Unix(1700000000, 0)
	body := []byte(`{"id":"us_evt_1"}`)
	h := events.Signature("sk_x", now, body)
	if h[:13] != "t=1700000000," {
		t.Fatalf("got %q, want t=<unix>,v1=…", h)
	}
	if err := events.Verify("sk_x", h, body, now.Add(time.Minute), 5*time.Minute); err != nil {
		t.Fatalf("valid signature: got %v", err)
	}
	tests := []struct {
		name   string
		secret string
		header string
		body   string
		at     time.Time
	}{
		{"tampered body", "sk_x", h, `{"id":"us_evt_2"}`, now},
		{"other secret", "sk_y", h, string(body), now},
		{"replayed later", "sk_x", h, string(body), now.Add(time.Hour)},
		{"garbage header", "sk_x", "v1=abc", string(body), now},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := events.Verify(tt.secret, tt.header, []byte(tt.body), tt.at, 5*time.Minute); err == nil {
				t.Fatal("got nil, want an error")
			}
		})
	}
}

func TestWebhookSignedAndRetried(t *testing.T) {
	f := mustOpenDB(t)
	ctx := t.Context()
	r := newReceiver(t, f, 500, 503)
	a := f.mustDeployAgent(t, model.AgentConfig{Slug: "hook", Topics: []string{"space:created"}, URL: r.srv.URL})
	sp := f.mustCreateSpace(t, "s")
	w := f.webhooks()
	if n, err := w.Dispatch(ctx); err != nil || n != 1 {
		t.Fatalf("dispatch: got %d %v, want one delivery (only space:created matches)", n, err)
	}
	if _, err := w.SendDue(ctx); err != nil {
		t.Fatal(err)
	}
	// Attempt 1 failed: the retry waits 1 s, then 2 s after attempt 2.
	for i, wait := range []time.Duration{time.Second, 2 * time.Second} {
		f.clock.add(wait - time.Millisecond)
		if _, err := w.SendDue(ctx); err != nil {
			t.Fatal(err)
		}
		if got := len(r.received()); got != i+1 {
			t.Fatalf("before the backoff of %v is over: got %d attempts, want %d", wait, got, i+1)
		}
		f.clock.add(time.Millisecond)
		if _, err := w.SendDue(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := r.received()
	if len(got) != 3 {
		t.Fatalf("got %d attempts, want 3", len(got))
	}
	for i, g := range got {
		if g.sigErr != nil || g.topic != "space:created" || g.attempt != []string{"1", "2", "3"}[i] {
			t.Fatalf("attempt %d: got %+v", i+1, g)
		}
	}
	var body map[string]any
	_ = json.Unmarshal(got[2].body, &body)
	if body["topic"] != "space:created" || body["context"].(map[string]any)["spaceId"] != sp.ID || body["id"] != got[2].eventID {
		t.Fatalf("body: got %v, want the event's wire JSON", body)
	}
	logs, _, err := f.db.ListDeliveries(ctx, store.DeliveryFilter{AccountID: f.acc, AgentID: a.ID, Page: model.Page{Size: 10, Number: 1}})
	if err != nil || len(logs) != 1 || logs[0].Status != model.DeliveryDelivered || logs[0].Attempts != 3 || logs[0].LastStatus != 200 {
		t.Fatalf("delivery log: got %+v %v", logs, err)
	}
	// Nothing left to send.
	f.clock.add(time.Hour)
	if n, _ := w.SendDue(ctx); n != 0 || len(r.received()) != 3 {
		t.Fatalf("after delivery: got %d more sends", n)
	}
}

func TestWebhookGivesUp(t *testing.T) {
	f := mustOpenDB(t)
	ctx := t.Context()
	r := newReceiver(t, f, 500, 500, 500, 500, 500)
	a := f.mustDeployAgent(t, model.AgentConfig{Topics: []string{"space:*"}, URL: r.srv.URL})
	f.mustCreateSpace(t, "s")
	w := f.webhooks()
	if err := w.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		f.clock.add(10 * time.Second)
		if err := w.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(r.received()); got != 4 {
		t.Fatalf("got %d attempts, want MaxAttempts = 4", got)
	}
	logs, _, _ := f.db.ListDeliveries(ctx, store.DeliveryFilter{AccountID: f.acc, AgentID: a.ID, Page: model.Page{Size: 10, Number: 1}})
	if len(logs) != 1 || logs[0].Status != model.DeliveryFailed || logs[0].LastError != "HTTP 500" || logs[0].CompletedAt == nil {
		t.Fatalf("got %+v, want one failed delivery", logs[0])
	}
}

func TestWebhookResumesAfterRestart(t *testing.T) {
	f := mustOpenDB(t)
	ctx := t.Context()
	r := newReceiver(t, f, 502)
	f.mustDeployAgent(t, model.AgentConfig{Topics: []string{"space:created"}, URL: r.srv.URL})
	f.mustCreateSpace(t, "before")
	w := f.webhooks()
	if err := w.RunOnce(ctx); err != nil { // attempt 1 fails, a retry is scheduled
		t.Fatal(err)
	}
	// The server stops; while it is down another event is written.
	f.db.Close()
	f.open(t)
	f.mustCreateSpace(t, "while down")
	f.clock.add(time.Minute)
	w = f.webhooks() // a new process: nothing in memory
	w.Interval = 10 * time.Millisecond
	w.Start()
	deadline := time.Now().Add(5 * time.Second)
	for len(r.received()) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	w.Stop()
	got := r.received()
	if len(got) != 3 {
		t.Fatalf("got %d requests, want 3 (a failed one, its retry, the event written while down)", len(got))
	}
	// Deliveries due together go out in parallel, so only the counts are fixed: the first
	// event twice (attempt and retry), the one written while down once.
	count := map[string]int{}
	for _, g := range got {
		count[g.eventID]++
	}
	if first := got[0].eventID; count[first] != 2 || len(count) != 2 {
		t.Fatalf("got deliveries %v, want the first event twice and the second once", count)
	}
	// Running again sends nothing twice.
	if err := w.RunOnce(ctx); err != nil || len(r.received()) != 3 {
		t.Fatalf("after resuming: got %d requests, %v", len(r.received()), err)
	}
}

func TestAgentWants(t *testing.T) {
	now := time.Now()
	a := &model.Agent{AccountID: "acc", EnvironmentID: "env", CreatedAt: now, Config: model.AgentConfig{Topics: []string{"job:*", "space:created"}}}
	ev := func(topic, env string, at time.Time, ns ...string) *model.Event {
		return &model.Event{Topic: topic, CreatedAt: at, Context: model.EventContext{AccountID: "acc", EnvironmentID: env, Namespaces: ns}}
	}
	tests := []struct {
		name string
		ev   *model.Event
		ns   string
		want bool
	}{
		{"exact topic", ev("space:created", "env", now), "", true},
		{"glob", ev("job:ready", "env", now), "", true},
		{"other topic", ev("space:deleted", "env", now), "", false},
		{"other environment", ev("job:ready", "env2", now), "", false},
		{"older than the agent", ev("job:ready", "env", now.Add(-time.Second)), "", false},
		{"namespace match", ev("job:ready", "env", now, "red"), "red", true},
		{"namespace miss", ev("job:ready", "env", now, "blue"), "red", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.Config.Namespace = tt.ns
			if got := events.AgentWants(a, tt.ev); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	if !events.TopicMatches(nil, "anything:at-all") || !events.TopicMatches([]string{"**"}, "x:y") {
		t.Fatal("no topics and ** should match every topic")
	}
}

// M6: by default a delivery never reaches a loopback or private address, even when the URL
// was stored (or resolves there later): the receiver sees nothing and the log says why.
func TestWebhookRefusesPrivateAddresses(t *testing.T) {
	f := mustOpenDB(t)
	ctx := t.Context()
	r := newReceiver(t, f, 200)
	a := f.mustDeployAgent(t, model.AgentConfig{Slug: "hook", Topics: []string{"space:created"}, URL: r.srv.URL})
	f.mustCreateSpace(t, "s")
	w := f.webhooks()
	w.AllowPrivate = false
	if _, err := w.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SendDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(r.received()); n != 0 {
		t.Fatalf("the loopback receiver got %d requests", n)
	}
	logs, _, err := f.db.ListDeliveries(ctx, store.DeliveryFilter{AccountID: f.acc, AgentID: a.ID, Page: model.Page{Size: 10, Number: 1}})
	if err != nil || len(logs) != 1 || !strings.Contains(logs[0].LastError, "private") {
		t.Fatalf("delivery log: %+v %v, want an error naming the private address", logs, err)
	}
}

// A node that stopped between claiming deliveries and attempting them hands them back when it
// starts again (or when another node takes over from it): they go out at once, not when
// their claims run out a minute later. Another node's claims stay its own.
func TestWebhookClaimsOfAStoppedNodeAreReleased(t *testing.T) {
	f := mustOpenDB(t)
	ctx := t.Context()
	r := newReceiver(t, f)
	f.mustDeployAgent(t, model.AgentConfig{Topics: []string{"space:created"}, URL: r.srv.URL})
	f.mustCreateSpace(t, "one")
	f.mustCreateSpace(t, "two")
	w := f.webhooks()
	w.Node = "node-a"
	if n, err := w.Dispatch(ctx); err != nil || n != 2 {
		t.Fatalf("dispatch: %d, %v", n, err)
	}
	// node-a claims both, then dies before attempting either.
	claimed, err := f.db.ClaimDueDeliveries(ctx, f.db.Now(), 2*time.Minute, 1, "node-a")
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	other, err := f.db.ClaimDueDeliveries(ctx, f.db.Now(), 2*time.Minute, 1, "node-b")
	if err != nil || len(other) != 1 {
		t.Fatalf("claim by another node: %d, %v", len(other), err)
	}
	if n, _ := w.SendDue(ctx); n != 0 {
		t.Fatalf("%d deliveries went out while claimed", n)
	}
	if n, err := f.db.ReleaseDeliveryClaims(ctx, "node-a"); err != nil || n != 1 {
		t.Fatalf("released %d, %v; want node-a's one", n, err)
	}
	if n, err := w.SendDue(ctx); err != nil || n != 1 || len(r.received()) != 1 {
		t.Fatalf("after the release: %d sent, %d received, %v; want node-a's one now", n, len(r.received()), err)
	}
	if n, _ := f.db.ReleaseDeliveryClaims(ctx, "node-a"); n != 0 {
		t.Errorf("an attempted delivery was released again (%d)", n)
	}
	f.clock.add(3 * time.Minute) // node-b's claim runs out
	if n, _ := w.SendDue(ctx); n != 1 {
		t.Errorf("node-b's delivery after its claim ran out: %d sent", n)
	}
}
