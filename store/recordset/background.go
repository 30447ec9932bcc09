package recordset

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
type foreground struct {
	n    atomic.Int32
	last atomic.Int64 // when the last read ended, or the last write committed (Unix nanoseconds)
}

// reading marks a request reading records until the returned func is called.
func (f *foreground) reading() func() {
	f.n.Add(1)
	return func() {
		f.done()
		f.n.Add(-1)
	}
}

// done marks something that just ended (a committed write of records).
func (f *foreground) done() { f.last.Store(time.Now().UnixNano()) }

const (
	// readsQuiet is how long after the last read a build goes on: the next request of a
	// burst (a user paging or typing a search) usually comes sooner.
	readsQuiet = 250 * time.Millisecond
	// readsWaitMax is the longest a build waits for reads before its next slice: under
	// requests that never stop it still moves on.
	readsWaitMax = time.Second
	// writesQuiet: an import commits a batch every few tens of milliseconds, so a second
	// without writes means it has ended.
	writesQuiet = time.Second
	// idleQuiet is how long a node goes without reads before work that cannot pause starts
	// (PostgreSQL's index build), unless it has waited idleWaitMax already.
	idleQuiet   = time.Second
	idleWaitMax = 2 * time.Minute
)

// wait returns once nothing has been in flight for quiet, after waitMax, or when ctx ends.
func (f *foreground) wait(ctx context.Context, quiet, waitMax time.Duration) error {
	for deadline := time.Now().Add(waitMax); !f.quiet(quiet) && time.Now().Before(deadline); {
		select {
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

// quiet reports whether nothing is in flight and nothing has ended for d.
func (f *foreground) quiet(d time.Duration) bool {
	return f.n.Load() == 0 && time.Since(time.Unix(0, f.last.Load())) >= d
}
