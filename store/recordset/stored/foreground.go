package stored

import (
	"context"
	"sync/atomic"
	"time"
)

// Background builds of a sheet's search index let requests and writes go first. Before each
// slice of an FTS5 build (and before a PostgreSQL index build starts) they wait until no
// request has read records for a moment, so that on a machine of two cores a search or a
// sorted page, or a burst of them, runs beside nothing heavier than the slice already under
// way (a search that scans a 1,000,000-record sheet: 80 ms alone, 120-150 ms beside a build);
// and until this node has written no records for a second, so that an import (into any
// sheet) does not share the writer and the processor with them.
type Foreground struct {
	n    atomic.Int32
	last atomic.Int64 // when the last read ended, or the last write committed (Unix nanoseconds)
}

// Reading marks a request reading records until the returned func is called.
func (f *Foreground) Reading() func() {
	f.n.Add(1)
	return func() {
		f.Done()
		f.n.Add(-1)
	}
}

// Done marks something that just ended (a committed write of records).
func (f *Foreground) Done() { f.last.Store(time.Now().UnixNano()) }

const (
	// ReadsQuiet is how long after the last read a build goes on: the next request of a
	// burst (a user paging or typing a search) usually comes sooner.
	ReadsQuiet = 250 * time.Millisecond
	// ReadsWaitMax is the longest a build waits for reads before its next slice: under
	// requests that never stop it still moves on.
	ReadsWaitMax = time.Second
	// WritesQuiet: an import commits a batch every few tens of milliseconds, so a second
	// without writes means it has ended.
	WritesQuiet = time.Second
	// IdleQuiet is how long a node goes without reads before work that cannot pause starts
	// (PostgreSQL's index build), unless it has waited idleWaitMax already.
	IdleQuiet   = time.Second
	IdleWaitMax = 2 * time.Minute
)

// Wait returns once nothing has been in flight for quiet, after waitMax, or when ctx ends.
func (f *Foreground) Wait(ctx context.Context, quiet, waitMax time.Duration) error {
	for deadline := time.Now().Add(waitMax); !f.Quiet(quiet) && time.Now().Before(deadline); {
		select {
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

// Quiet reports whether nothing is in flight and nothing has ended for d.
func (f *Foreground) Quiet(d time.Duration) bool {
	return f.n.Load() == 0 && time.Since(time.Unix(0, f.last.Load())) >= d
}
