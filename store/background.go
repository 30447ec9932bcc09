package store

import (
	"context"
	"sync/atomic"
	"time"
)

// A background build of a sheet's FTS5 search index works a slice per transaction; before
// each slice it waits for the requests reading records to finish, so that on a machine of
// two cores a search or a sorted page runs beside nothing heavier than the slice already
// under way (a search that scans a 1,000,000-record sheet: 80 ms alone, 120-150 ms beside
// a build).
type foreground struct{ n atomic.Int32 }

// reading marks a request reading records until the returned func is called.
func (f *foreground) reading() func() {
	f.n.Add(1)
	return func() { f.n.Add(-1) }
}

// foregroundWaitMax is the longest the build waits before its next slice: under requests
// that never stop it still moves on.
const foregroundWaitMax = time.Second

// wait returns once no request is reading records, after foregroundWaitMax, or when ctx ends.
func (f *foreground) wait(ctx context.Context) error {
	for deadline := time.Now().Add(foregroundWaitMax); f.n.Load() > 0 && time.Now().Before(deadline); {
		select {
		case <-time.After(2 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}
