package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/sluice/sluice/errs"
)

// Sorting a big sheet by a field reads every record's value (about 0.3–0.6 s at 1,000,000
// records), and paging through the result would sort again for every page. sortCache keeps
// the full order of the last few sorted queries, computed in the background after the first
// page (which the usual LIMIT query answers), so the pages after it are slices of it. An entry belongs to one generation of its sheet: every committed transaction that
// changes the sheet's records, counts or schema starts a new generation (Tx.touch), and an
// entry of an older one is never used.
type sortCache struct {
	// shared: other nodes write the same database (PostgreSQL), so an entry's generation is
	// the sheet's newest version in the database (db.sheetGen), not this node's count.
	shared   bool
	mu       sync.Mutex
	gens     map[int64]uint64         // sheet key → generation
	entries  []*sortEntry             // most recently used first
	building map[string]chan struct{} // orders being computed, closed when done
}

type sortEntry struct {
	sk  int64
	gen uint64
	key string
	val any // a sorted order ([]int64), or a field's distinct values ([]CellCount)
}

// sortCacheSize is how many sorted orders and value lists are kept (an order is 8 bytes a
// record).
const sortCacheSize = 4

// gen is the sheet's current generation.
func (c *sortCache) gen(sk int64) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gens[sk]
}

// bump starts a new generation of each sheet, dropping their entries.
func (c *sortCache) bump(sks map[int64]bool) {
	if len(sks) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gens == nil {
		c.gens = map[int64]uint64{}
	}
	kept := c.entries[:0]
	for _, e := range c.entries {
		if !sks[e.sk] {
			kept = append(kept, e)
		}
	}
	c.entries = kept
	for sk := range sks {
		c.gens[sk]++
	}
}

// get returns what is kept for key at generation gen, if anything.
func (c *sortCache) get(sk int64, gen uint64, key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.sk == sk && e.gen == gen && e.key == key {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e.val, true
		}
	}
	return nil, false
}

// put keeps what was computed for key at generation gen, unless the sheet has moved on since.
func (c *sortCache) put(sk int64, gen uint64, key string, val any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.shared && c.gens[sk] != gen {
		return
	}
	c.entries = append([]*sortEntry{{sk: sk, gen: gen, key: key, val: val}}, c.entries...)
	if len(c.entries) > sortCacheSize {
		c.entries = c.entries[:sortCacheSize]
	}
}

// kept returns what c keeps for key at generation gen, or computes it now with compute and
// keeps it (the first sorted page reads every value anyway, so it computes the whole order
// and the pages after it are slices). A request that finds it being computed waits for it
// instead of computing again; when that computation fails, it computes its own.
func kept[T any](ctx context.Context, c *sortCache, sk int64, gen uint64, key string, compute func(context.Context) (T, error)) (T, error) {
	if v, ok := c.get(sk, gen, key); ok {
		return v.(T), nil
	}
	c.mu.Lock()
	if c.building == nil {
		c.building = map[string]chan struct{}{}
	}
	bkey := fmt.Sprintf("%d\x00%d\x00%s", sk, gen, key)
	if done, ok := c.building[bkey]; ok {
		c.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
		if v, ok := c.get(sk, gen, key); ok {
			return v.(T), nil
		}
		return compute(ctx)
	}
	done := make(chan struct{})
	c.building[bkey] = done
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.building, bkey)
		c.mu.Unlock()
		close(done)
	}()
	v, err := compute(ctx)
	if err == nil {
		c.put(sk, gen, key, v)
	}
	return v, err
}

// sortKey identifies a sorted query: its SQL and arguments.
func sortKey(sql string, args []any) string {
	return fmt.Sprintf("%s\x00%v", sql, args)
}

// touch records that the transaction changes the records of sheet sk.
func (tx *Tx) touch(sk int64) {
	if tx.touched == nil {
		tx.touched = map[int64]bool{}
	}
	tx.touched[sk] = true
}

// sheetGen is the generation kept orders and value lists of sheet sk are valid for: this
// node's count of its committed writes to the sheet, or with a shared database the sheet's
// count of committed writes (record_sheets.changes, bumped by every write under the row's
// lock, so it follows commit order).
func (db *DB) sheetGen(ctx context.Context, q querier, sk int64) (uint64, error) {
	if !db.sorts.shared {
		return db.sorts.gen(sk), nil
	}
	v, err := sheetChanges(ctx, q, sk)
	return uint64(v), err
}

// sheetChanges is sheet sk's count of committed writes (record_sheets.changes).
func sheetChanges(ctx context.Context, q querier, sk int64) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx, `SELECT changes FROM record_sheets WHERE sk = ?`, sk).Scan(&n); err != nil {
		return 0, errs.Wrap(err, "read sheet changes")
	}
	return n, nil
}
