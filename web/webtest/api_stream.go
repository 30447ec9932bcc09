package webtest

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

// StreamServer is the app on a real port (streams need one) with a running notifier.
type StreamServer struct {
	*Env
	Base     string
	Notifier *events.Notifier
}

func NewStreamServer(t *testing.T) *StreamServer {
	t.Helper()
	return NewStreamServerEvery(t, 10*time.Millisecond)
}

// NewStreamServerEvery is NewStreamServer with a notifier polling every interval.
func NewStreamServerEvery(t *testing.T, interval time.Duration) *StreamServer {
	t.Helper()
	e := NewAPI(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	n := events.NewNotifier(e.DB, interval, log)
	if err := n.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	tokens := &auth.Tokens{Key: []byte("test-signing-key"), TTL: time.Hour, Now: e.DB.Now}
	app := web.New(web.Deps{Store: e.DB, Auth: &auth.Authenticator{Keys: e.DB, Tokens: tokens, PATs: e.DB, Guests: e.DB, Live: e.DB}, Tokens: tokens, Log: log,
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
	return &StreamServer{Env: e, Base: "http://" + ln.Addr().String(), Notifier: n}
}

type SseMessage struct {
	Id    string
	Event map[string]any
}

// SseClient reads a stream into messages (and counts heartbeat comments).
type SseClient struct {
	Msgs  chan SseMessage
	Pings chan struct{}
	Done  chan struct{}
	Body  io.Closer
}

func (s *StreamServer) Open(t *testing.T, query, token string, header map[string]string) *SseClient {
	t.Helper()
	req, _ := http.NewRequest("GET", s.Base+"/v1/events/stream"+query, nil)
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
	c := &SseClient{Msgs: make(chan SseMessage, 100), Pings: make(chan struct{}, 100), Done: make(chan struct{}), Body: resp.Body}
	t.Cleanup(func() { resp.Body.Close() })
	go func() {
		defer close(c.Done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var m SseMessage
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, ": ping"):
				select {
				case c.Pings <- struct{}{}:
				default:
				}
			case strings.HasPrefix(line, "id: "):
				m.Id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m.Event)
			case line == "" && m.Event != nil:
				c.Msgs <- m
				m = SseMessage{}
			}
		}
	}()
	return c
}

// Next returns the next message or fails after a second.
func (c *SseClient) Next(t *testing.T) SseMessage {
	t.Helper()
	select {
	case m := <-c.Msgs:
		return m
	case <-time.After(2 * time.Second):
		t.Fatal("no event within 2 s")
	}
	return SseMessage{}
}

func (c *SseClient) Expect(t *testing.T, topics ...string) []SseMessage {
	t.Helper()
	var got []SseMessage
	for _, want := range topics {
		m := c.Next(t)
		if m.Event["topic"] != want || m.Id != m.Event["id"] {
			t.Fatalf("got %v (id %s), want %s", m.Event["topic"], m.Id, want)
		}
		got = append(got, m)
	}
	return got
}

func (c *SseClient) Quiet(t *testing.T) {
	t.Helper()
	select {
	case m := <-c.Msgs:
		t.Fatalf("got unexpected %v", m.Event["topic"])
	case <-time.After(100 * time.Millisecond):
	}
}
