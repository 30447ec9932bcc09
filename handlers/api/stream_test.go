package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"
)

func TestEventStream(t *testing.T) {
	s := webtest.NewStreamServer(t)
	before := s.Now
	s.Now = s.Now.Add(time.Second)
	first := s.MustCreateSpace(t, webtest.Secret, map[string]any{"autoConfigure": true, "name": "first"})

	// since: the backlog first, then live events.
	a := s.Open(t, "?topic=space:created&since="+before.Format(time.RFC3339Nano), webtest.Secret, nil)
	backlog := a.Expect(t, "space:created")
	if backlog[0].Event["context"].(map[string]any)["spaceId"] != first["id"] {
		t.Fatalf("got %v, want the first space", backlog[0].Event)
	}
	// No since: only what happens from now on, here filtered by domain.
	b := s.Open(t, "?domain=job", webtest.Secret, nil)
	second := s.MustCreateSpace(t, webtest.Secret, map[string]any{"autoConfigure": true, "name": "second"})
	a.Expect(t, "space:created")
	got := b.Expect(t, "job:created", "job:ready")
	if got[1].Event["context"].(map[string]any)["spaceId"] != second["id"] || got[1].Event["payload"].(map[string]any)["job"] != "space:configure" {
		t.Fatalf("got %v", got[1].Event)
	}
	a.Quiet(t)

	// A reconnecting client resumes after its Last-Event-ID.
	c := s.Open(t, "", webtest.Secret, map[string]string{"Last-Event-ID": backlog[0].Id})
	resumed := c.Expect(t, "job:created", "job:ready", "space:created", "job:created", "job:ready")
	if resumed[0].Event["context"].(map[string]any)["spaceId"] != first["id"] {
		t.Fatalf("got %v, want the event right after the first space:created", resumed[0].Event)
	}
	// A space token sees only its space.
	d := s.Open(t, "", second["accessToken"].(string), nil)
	s.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "third"})
	s.MustCall(t, "POST", "/v1/spaces/"+second["id"].(string)+"/archive", webtest.Secret, nil)
	d.Expect(t, "space:archived")
	d.Quiet(t)

	// Heartbeats keep the connection alive.
	select {
	case <-d.Pings:
	case <-time.After(time.Second):
		t.Fatal("no heartbeat")
	}
	// Stopping the notifier (as shutdown does) ends every stream.
	s.Notifier.Stop()
	for _, cl := range []*webtest.SseClient{a, b, c, d} {
		select {
		case <-cl.Done:
		case <-time.After(2 * time.Second):
			t.Fatal("stream still open after the notifier stopped")
		}
	}
}

func TestEventStreamErrors(t *testing.T) {
	s := webtest.NewStreamServer(t)
	tests := []struct {
		query, token string
		status       int
	}{
		{"?since=yesterday", webtest.Secret, http.StatusBadRequest},
		{"?lastEventId=us_evt_nope", webtest.Secret, http.StatusNotFound},
		{"", webtest.Public, http.StatusForbidden},
		{"", "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.query+tt.token, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.Base+"/v1/events/stream"+tt.query, nil)
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
	s := webtest.NewStreamServerEvery(t, time.Hour) // polls only when woken
	s.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "before"})
	c := s.Open(t, "?topic=space:created", webtest.Secret, nil)
	s.Notifier.Wake()
	after := s.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "after"})
	time.Sleep(50 * time.Millisecond) // the first wake's poll has run
	s.Notifier.Wake()
	got := c.Expect(t, "space:created")
	if id := got[0].Event["context"].(map[string]any)["spaceId"]; id != after["id"] {
		t.Fatalf("the stream's first event is of space %v, want the one created after it opened (%v)", id, after["id"])
	}
	c.Quiet(t)
}
