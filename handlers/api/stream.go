package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// StreamStore is what the event stream reads: backlogs and resume positions.
type StreamStore interface {
	EventsAfter(ctx context.Context, seq int64, limit int) ([]store.SeqEvent, error)
	EventSeq(ctx context.Context, accountID, id string) (int64, error)
	EventSeqAt(ctx context.Context, t time.Time) (int64, error)
	LastEventSeq(ctx context.Context) (int64, error)
}

// Stream serves GET /v1/events/stream: Server-Sent Events fed by the shared notifier.
type Stream struct {
	store     StreamStore
	notifier  *events.Notifier
	heartbeat time.Duration
	// Recheck authenticates the stream's token again: at every heartbeat and before an event
	// when a second has passed since the last check. A revoked credential (deleted user or
	// PAT, removed guest, rotated key) ends the stream with an error event.
	Recheck func(ctx context.Context, token string) error
}

// recheckEvery bounds how long a revoked credential may still receive events.
const recheckEvery = time.Second

// NewStream returns the stream handler; heartbeat is the interval of keep-alive comments
// (default 15 s). A nil notifier makes the endpoint answer 500.
func NewStream(s StreamStore, n *events.Notifier, heartbeat time.Duration) *Stream {
	if heartbeat <= 0 {
		heartbeat = 15 * time.Second
	}
	return &Stream{store: s, notifier: n, heartbeat: heartbeat}
}

// streamFilter is what one stream lets through.
type streamFilter struct {
	p       *auth.Principal
	envID   string
	spaceID string
	domain  string
	topics  []string
}

func (f *streamFilter) match(e *model.Event) bool {
	c := &e.Context
	switch {
	case c.AccountID != f.p.AccountID || !reachable(f.p, e):
		return false
	case f.envID != "" && c.EnvironmentID != f.envID:
		return false
	case f.spaceID != "" && c.SpaceID != f.spaceID:
		return false
	case f.domain != "" && e.Domain != f.domain:
		return false
	}
	return len(f.topics) == 0 || events.TopicMatches(f.topics, e.Topic)
}

func (h *Stream) filter(c *fiber.Ctx) (*streamFilter, error) {
	p := PrincipalOf(c)
	f := &streamFilter{p: p, domain: c.Query("domain")}
	var err error
	if f.envID, f.spaceID, err = listScope(c, auth.ResContent, c.Query("environmentId"), c.Query("spaceId")); err != nil {
		return nil, err
	}
	for _, t := range strings.Split(c.Query("topic"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			f.topics = append(f.topics, t)
		}
	}
	return f, nil
}

// start is the position after which the stream begins: the Last-Event-ID header (or
// lastEventId parameter) of a reconnecting client, else since, else -1 for "from now".
func (h *Stream) start(c *fiber.Ctx, p *auth.Principal) (int64, error) {
	id := c.Get("Last-Event-ID")
	if id == "" {
		id = c.Query("lastEventId")
	}
	if id != "" {
		return h.store.EventSeq(ctxOf(c), p.AccountID, id)
	}
	since, err := queryTime(c, "since")
	if err != nil || since == nil {
		return -1, err
	}
	return h.store.EventSeqAt(ctxOf(c), *since)
}

// Serve handles GET /v1/events/stream. Each event is one message: `id:` its event id and
// `data:` its JSON (as GET /v1/events/:id). Filters: environmentId, spaceId, domain, topic
// (comma-separated, globs like job:*), since; a reconnecting client resumes after its
// Last-Event-ID. A comment line every heartbeat keeps proxies from closing the connection.
func (h *Stream) Serve(c *fiber.Ctx) error {
	f, err := h.filter(c)
	if err != nil {
		return err
	}
	if h.notifier == nil {
		return errs.Wrap(events.ErrStopped, "event stream is not running")
	}
	from, err := h.start(c, f.p)
	if err != nil {
		return err
	}
	sub, err := h.notifier.Subscribe(512)
	if err != nil {
		return errs.Wrap(err, "subscribe to events")
	}
	if from < 0 {
		// "From now" is the newest event committed when the stream opens, not the newest the
		// notifier has read: events committed since its last poll are the past too.
		last, err := h.store.LastEventSeq(ctxOf(c))
		if err != nil {
			sub.Close()
			return err
		}
		from = max(sub.Start, last)
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set(fiber.HeaderConnection, "keep-alive")
	c.Set("X-Accel-Buffering", "no")
	conn := c.Context().Conn()
	token := bearerOf(c)
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		s := &streamer{h: h, w: w, conn: conn, f: f, sub: sub, cursor: from, token: token, checked: time.Now()}
		s.run()
	})
	return nil
}

// streamer writes one client's stream; it runs after the handler returned, so it holds no
// fiber context.
type streamer struct {
	h       *Stream
	w       *bufio.Writer
	conn    net.Conn
	f       *streamFilter
	sub     *events.Subscription
	cursor  int64
	token   string
	checked time.Time // the last time the token was found good
}

// alive checks the stream's credential again (at most once a second unless forced); when it
// is gone it sends an error event and reports false.
func (s *streamer) alive(force bool) bool {
	if s.h.Recheck == nil || (!force && time.Since(s.checked) < recheckEvery) {
		return true
	}
	err := s.h.Recheck(context.Background(), s.token)
	if err == nil {
		s.checked = time.Now()
		return true
	}
	msg := "This stream's credential is no longer valid"
	if e := (*errs.Error)(nil); errors.As(err, &e) && e.Code == errs.Unauthorized {
		msg = e.Message
	}
	body, _ := json.Marshal(map[string]any{"errors": []map[string]string{{"key": "Authorization", "message": msg}}})
	s.write("event: error\ndata: " + string(body) + "\n\n")
	return false
}

func (s *streamer) write(text string) bool {
	// The server's write timeout would cut a long stream; each write gets its own deadline.
	_ = s.conn.SetWriteDeadline(time.Now().Add(2*s.h.heartbeat + 10*time.Second))
	if _, err := s.w.WriteString(text); err != nil {
		return false
	}
	return s.w.Flush() == nil
}

func (s *streamer) send(e store.SeqEvent) bool {
	s.cursor = e.Seq
	if !s.f.match(e.Event) {
		return true
	}
	if !s.alive(false) {
		return false
	}
	body, err := EventBody(e.Event)
	if err != nil {
		return false
	}
	return s.write("id: " + e.ID + "\ndata: " + string(body) + "\n\n")
}

// catchUp sends the stored events after the cursor up to the subscription's start.
func (s *streamer) catchUp() bool {
	for s.cursor < s.sub.Start {
		evs, err := s.h.store.EventsAfter(context.Background(), s.cursor, 500)
		if err != nil || len(evs) == 0 {
			return err == nil
		}
		for _, e := range evs {
			if e.Seq > s.sub.Start {
				return true
			}
			if !s.send(e) {
				return false
			}
		}
	}
	return true
}

func (s *streamer) run() {
	defer func() { s.sub.Close() }()
	if !s.write("retry: 2000\n: connected\n\n") || !s.catchUp() {
		return
	}
	hb := time.NewTicker(s.h.heartbeat)
	defer hb.Stop()
	for {
		select {
		case e, ok := <-s.sub.C:
			if !ok {
				if !s.sub.Lagged() {
					return // the server is stopping
				}
				// Too slow for the live feed: read what was missed from the table and go on.
				sub, err := s.h.notifier.Subscribe(512)
				if err != nil {
					return
				}
				s.sub = sub
				if !s.catchUp() {
					return
				}
				continue
			}
			if e.Seq <= s.cursor {
				continue
			}
			if !s.send(e) {
				return
			}
		case <-hb.C:
			if !s.alive(true) || !s.write(": ping\n\n") {
				return
			}
		}
	}
}
