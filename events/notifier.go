package events

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/sluice/sluice/store"
)

// ErrStopped is returned by Subscribe once the notifier has stopped.
var ErrStopped = errors.New("event notifier stopped")

// Notifier follows the events table by position and fans new events out to subscribers:
// one query every Interval for the whole server, however many streams are open.
type Notifier struct {
	db       *store.DB
	interval time.Duration
	log      *slog.Logger

	mu      sync.Mutex
	last    int64
	subs    map[*Subscription]struct{}
	stopped bool
	// idle: the last poll found no subscriber and read nothing, so last may be behind the
	// table (the first Subscribe after it reads the table's end).
	idle bool

	stop chan struct{}
	wake chan struct{}
	done chan struct{}
}

// Subscription receives every event after Start on C, in order. C is closed when the
// notifier stops or when the subscriber falls behind by more than its buffer (Lagged then
// reports true and the subscriber should resume from the database).
type Subscription struct {
	C      chan store.SeqEvent
	Start  int64
	n      *Notifier
	lagged bool
}

// Lagged reports whether C was closed because the subscriber fell behind.
func (s *Subscription) Lagged() bool {
	s.n.mu.Lock()
	defer s.n.mu.Unlock()
	return s.lagged
}

// Close unsubscribes.
func (s *Subscription) Close() {
	s.n.mu.Lock()
	defer s.n.mu.Unlock()
	if _, ok := s.n.subs[s]; ok {
		delete(s.n.subs, s)
		close(s.C)
	}
}

// NewNotifier returns a notifier polling every interval (default 200 ms).
func NewNotifier(db *store.DB, interval time.Duration, log *slog.Logger) *Notifier {
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	return &Notifier{db: db, interval: interval, log: log, subs: map[*Subscription]struct{}{}, stop: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// Start reads the current end of the events table and follows it in a goroutine until Stop.
func (n *Notifier) Start(ctx context.Context) error {
	last, err := n.db.LastEventSeq(ctx)
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.last = last
	n.mu.Unlock()
	n.done = make(chan struct{})
	go func() {
		defer close(n.done)
		tick := time.NewTicker(n.interval)
		defer tick.Stop()
		for {
			select {
			case <-n.stop:
				return
			case <-tick.C:
			case <-n.wake:
			}
			if err := n.Poll(context.Background()); err != nil {
				n.log.Error("event notifier", "err", err)
			}
		}
	}()
	return nil
}

// Wake polls now instead of at the next tick (a PostgreSQL notification says another node
// committed events).
func (n *Notifier) Wake() {
	select {
	case n.wake <- struct{}{}:
	default: // a poll is already due
	}
}

// Stop ends polling and closes every subscription, which ends open streams.
func (n *Notifier) Stop() {
	n.mu.Lock()
	if n.stopped {
		n.mu.Unlock()
		return
	}
	n.stopped = true
	close(n.stop)
	for s := range n.subs {
		delete(n.subs, s)
		close(s.C)
	}
	n.mu.Unlock()
	if n.done != nil {
		<-n.done
	}
}

// Subscribe returns a subscription buffering up to buffer events.
func (n *Notifier) Subscribe(buffer int) (*Subscription, error) {
	n.mu.Lock()
	idle := n.idle && len(n.subs) == 0
	n.mu.Unlock()
	var end int64
	if idle {
		// Nobody was listening, so nothing was read: the subscription starts at the end of
		// the table (events after it reach the subscriber through the next poll, which
		// starts there; the ones before it are the subscriber's to read).
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var err error
		if end, err = n.db.LastEventSeq(ctx); err != nil {
			return nil, err
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stopped {
		return nil, ErrStopped
	}
	if idle && n.idle && len(n.subs) == 0 {
		n.last, n.idle = max(n.last, end), false
	}
	s := &Subscription{C: make(chan store.SeqEvent, buffer), Start: n.last, n: n}
	n.subs[s] = struct{}{}
	return s, nil
}

// Poll reads the events written since the last poll and hands them to the subscribers.
func (n *Notifier) Poll(ctx context.Context) error {
	const batch = 500
	for {
		n.mu.Lock()
		last, none := n.last, len(n.subs) == 0
		// Once someone listens, last is their cursor again: it moves only by reading.
		n.idle = none
		n.mu.Unlock()
		if none {
			// No stream is open on this node: reading the events only to drop them cost a
			// query per write of any node.
			return nil
		}
		evs, err := n.db.EventsAfter(ctx, last, batch)
		if err != nil || len(evs) == 0 {
			return err
		}
		n.mu.Lock()
		for _, e := range evs {
			for s := range n.subs {
				select {
				case s.C <- e:
				default:
					s.lagged = true
					delete(n.subs, s)
					close(s.C)
				}
			}
		}
		n.last = evs[len(evs)-1].Seq
		n.mu.Unlock()
		if len(evs) < batch {
			return nil
		}
	}
}
