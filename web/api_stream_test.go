package web_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/web"
)

// streamServer is the app on a real port (streams need one) with a running notifier.
type streamServer struct {
	*apiEnv
	base     string
	notifier *events.Notifier
}

func newStreamServer(t *testing.T) *streamServer {
	t.Helper()
	return newStreamServerEvery(t, 10*time.Millisecond)
}

// newStreamServerEvery is newStreamServer with a notifier polling every interval.
func newStreamServerEvery(t *testing.T, interval time.Duration) *streamServer {
	t.Helper()
	e := newAPI(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	n := events.NewNotifier(e.db, interval, log)
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	tokens := &auth.Tokens{Key: []byte("test-signing-key"), TTL: time.Hour, Now: e.db.Now}
	app := web.New(web.Deps{Store: e.db, Auth: &auth.Authenticator{Keys: e.db, Tokens: tokens, PATs: e.db, Guests: e.db, Live: e.db}, Tokens: tokens, Log: log,
		SessionSecret: []byte("0123456789abcdef0123456789abcdef"), Events: n, StreamHeartbeat: 30 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() {
		n.Stop()
		_ = app.ShutdownWithTimeout(5 * time.Second)
	})
	return &streamServer{apiEnv: e, base: "http://" + ln.Addr().String(), notifier: n}
}

type sseMessage struct {
	id    string
	event map[string]any
}

// sseClient reads a stream into messages (and counts heartbeat comments).
type sseClient struct {
	msgs  chan sseMessage
	pings chan struct{}
	done  chan struct{}
	body  io.Closer
}

func (s *streamServer) open(t *testing.T, query, token string, header map[string]string) *sseClient {
	t.Helper()
	req, _ := http.NewRequest("GET", s.base+"/v1/events/stream"+query, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream %s: got %d %s %s", query, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	c := &sseClient{msgs: make(chan sseMessage, 100), pings: make(chan struct{}, 100), done: make(chan struct{}), body: resp.Body}
	t.Cleanup(func() { resp.Body.Close() })
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var m sseMessage
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, ": ping"):
				select {
				case c.pings <- struct{}{}:
				default:
				}
			case strings.HasPrefix(line, "id: "):
				m.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m.event)
			case line == "" && m.event != nil:
				c.msgs <- m
				m = sseMessage{}
			}
		}
	}()
	return c
}

// next returns the next message or fails after a second.
func (c *sseClient) next(t *testing.T) sseMessage {
	t.Helper()
	select {
	case m := <-c.msgs:
		return m
	case <-time.After(2 * time.Second):
		t.Fatal("no event within 2 s")
	}
	return sseMessage{}
}

func (c *sseClient) expect(t *testing.T, topics ...string) []sseMessage {
	t.Helper()
	var got []sseMessage
	for _, want := range topics {
		m := c.next(t)
		if m.event["topic"] != want || m.id != m.event["id"] {
			t.Fatalf("got %v (id %s), want %s", m.event["topic"], m.id, want)
		}
		got = append(got, m)
	}
	return got
}

func (c *sseClient) quiet(t *testing.T) {
	t.Helper()
	select {
	case m := <-c.msgs:
		t.Fatalf("got unexpected %v", m.event["topic"])
	case <-time.After(100 * time.Millisecond):
	}
}

func TestEventStream(t *testing.T) {
	s := newStreamServer(t)
	before := s.now
	s.now = s.now.Add(time.Second)
	first := s.mustCreateSpace(t, testSecret, map[string]any{"autoConfigure": true, "name": "first"})

	// since: the backlog first, then live events.
	a := s.open(t, "?topic=space:created&since="+before.Format(time.RFC3339Nano), testSecret, nil)
	backlog := a.expect(t, "space:created")
	if backlog[0].event["context"].(map[string]any)["spaceId"] != first["id"] {
		t.Fatalf("got %v, want the first space", backlog[0].event)
	}
	// No since: only what happens from now on, here filtered by domain.
	b := s.open(t, "?domain=job", testSecret, nil)
	second := s.mustCreateSpace(t, testSecret, map[string]any{"autoConfigure": true, "name": "second"})
	a.expect(t, "space:created")
	got := b.expect(t, "job:created", "job:ready")
	if got[1].event["context"].(map[string]any)["spaceId"] != second["id"] || got[1].event["payload"].(map[string]any)["job"] != "space:configure" {
		t.Fatalf("got %v", got[1].event)
	}
	a.quiet(t)

	// A reconnecting client resumes after its Last-Event-ID.
	c := s.open(t, "", testSecret, map[string]string{"Last-Event-ID": backlog[0].id})
	resumed := c.expect(t, "job:created", "job:ready", "space:created", "job:created", "job:ready")
	if resumed[0].event["context"].(map[string]any)["spaceId"] != first["id"] {
		t.Fatalf("got %v, want the event right after the first space:created", resumed[0].event)
	}
	// A space token sees only its space.
	d := s.open(t, "", second["accessToken"].(string), nil)
	s.mustCreateSpace(t, testSecret, map[string]any{"name": "third"})
	s.mustCall(t, "POST", "/v1/spaces/"+second["id"].(string)+"/archive", testSecret, nil)
	d.expect(t, "space:archived")
	d.quiet(t)

	// Heartbeats keep the connection alive.
	select {
	case <-d.pings:
	case <-time.After(time.Second):
		t.Fatal("no heartbeat")
	}
	// Stopping the notifier (as shutdown does) ends every stream.
	s.notifier.Stop()
	for _, cl := range []*sseClient{a, b, c, d} {
		select {
		case <-cl.done:
		case <-time.After(2 * time.Second):
			t.Fatal("stream still open after the notifier stopped")
		}
	}
}

func TestEventStreamErrors(t *testing.T) {
	s := newStreamServer(t)
	tests := []struct {
		query, token string
		status       int
	}{
		{"?since=yesterday", testSecret, http.StatusBadRequest},
		{"?lastEventId=us_evt_nope", testSecret, http.StatusNotFound},
		{"", testPublic, http.StatusForbidden},
		{"", "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.query+tt.token, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.base+"/v1/events/stream"+tt.query, nil)
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("got %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
}

// A stream opened without a start begins at the newest event committed when it opens, not at
// the newest its notifier had read: an event committed just before, which the notifier reads
// at its next poll, is not news to this stream.
func TestEventStreamFromNowSkipsWhatCameBefore(t *testing.T) {
	s := newStreamServerEvery(t, time.Hour) // polls only when woken
	s.mustCreateSpace(t, testSecret, map[string]any{"name": "before"})
	c := s.open(t, "?topic=space:created", testSecret, nil)
	s.notifier.Wake()
	after := s.mustCreateSpace(t, testSecret, map[string]any{"name": "after"})
	time.Sleep(50 * time.Millisecond) // the first wake's poll has run
	s.notifier.Wake()
	got := c.expect(t, "space:created")
	if id := got[0].event["context"].(map[string]any)["spaceId"]; id != after["id"] {
		t.Fatalf("the stream's first event is of space %v, want the one created after it opened (%v)", id, after["id"])
	}
	c.quiet(t)
}
