package store

import (
	"context"
	"sync/atomic"
	"time"
)

// A background build of a sheet's FTS5 search index works a slice per transaction; before
// each slice it waits until no request has read records for a moment, so that on a machine
// of two cores a search or a sorted page, or a burst of them, runs beside nothing heavier
// than the slice already under way (a search that scans a 1,000,000-record sheet: 80 ms
// alone, 120-150 ms beside a build).
type foreground struct {
	n    atomic.Int32
	last atomic.Int64 // when the last read ended (Unix nanoseconds)
}

// reading marks a request reading records until the returned func is called.
func (f *foreground) reading() func() {
	f.n.Add(1)
	return func() {
		f.last.Store(time.Now().UnixNano())
		f.n.Add(-1)
	}
}

const (
	// foregroundQuiet is how long after the last read a build goes on: the next request of
	// a burst (a user paging or typing a search) usually comes sooner.
	foregroundQuiet = 250 * time.Millisecond
	// foregroundWaitMax is the longest the build waits before its next slice: under
	// requests that never stop it still moves on.
	foregroundWaitMax = time.Second
)

// wait returns once no request has read records for foregroundQuiet, after
// foregroundWaitMax, or when ctx ends.
func (f *foreground) wait(ctx context.Context) error {
	for deadline := time.Now().Add(foregroundWaitMax); !f.quiet() && time.Now().Before(deadline); {
		select {
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

// quiet reports whether no request is reading records and none has for foregroundQuiet.
func (f *foreground) quiet() bool {
	return f.n.Load() == 0 && time.Since(time.Unix(0, f.last.Load())) >= foregroundQuiet
}
