package recordset

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/sqldb"
)

// Sorting a big sheet by a field reads every record's value (about 0.3–0.6 s at 1,000,000
// records), and paging through the result would sort again for every page. sortCache keeps
// the full order of the last few sorted queries, computed by the first page, so the pages
// after it are slices of it. An entry belongs to one generation of its sheet: every
// committed transaction that changes the sheet's records, counts or schema starts a new
// generation, and an entry of an older one is never used, except that a sorted order moves
// to the next generation when the transaction changed few records in ways it can follow
// (noteChanged), and places them at its next use (sortEntry.patch).
type sortCache struct {
	// shared: other nodes write the same database (PostgreSQL), so an entry's generation is
	// the sheet's newest version in the database (db.sheetGen), not this node's count.
	shared   bool
	mu       sync.Mutex
	gens     map[int64]uint64         // sheet key → generation
	entries  []*sortEntry             // most recently used first
	building map[string]chan struct{} // orders being computed, closed when done
	patched  atomic.Int64             // orders patched after writes (tests)
}

type sortEntry struct {
	sk  int64
	gen uint64
	key string
	val any // a sorted order ([]int64), or a field's distinct values ([]CellCount)
	// A sorted order is patched rather than computed again after small writes: patch
	// places the records in changed (written since the order was computed) where they now
	// belong, or leaves them out; it runs at the first use after the writes, under mu.
	patch   patchFunc
	changed []int64
	mu      sync.Mutex
}

// patchFunc returns order with the records in changed placed where they belong now.
type patchFunc func(ctx context.Context, order, changed []int64) ([]int64, error)

// sortPatchMax is the most records writes may change in a sheet for its kept orders to be
// patched (each takes about 20 comparisons of two records in the database, a millisecond
// on SQLite and a few on PostgreSQL) rather than computed again (0.4 s at 1,000,000).
const sortPatchMax = 32

// sheetPatch is what a transaction's writes changed in a sheet, for its kept orders.
type sheetPatch struct {
	rids []int64
	// over: too many records, or a change of another kind (schema, retention): the kept
	// orders are dropped
	over bool
	// bumps is how many times the transaction counted a write of the sheet
	// (record_sheets.changes), and changes the count it left (PostgreSQL)
	bumps   int64
	changes int64
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

// bump starts a new generation of each sheet, dropping their entries, except sorted orders
// that the writes' patches let be patched: they move to the new generation with the
// records to place.
func (c *sortCache) bump(sks map[int64]bool, patches map[int64]*sheetPatch) {
	if len(sks) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gens == nil {
		c.gens = map[int64]uint64{}
	}
	for sk := range sks {
		c.gens[sk]++
	}
	kept := c.entries[:0]
	for _, e := range c.entries {
		if !sks[e.sk] {
			kept = append(kept, e)
			continue
		}
		p := patches[e.sk]
		if p == nil || p.over || e.patch == nil {
			continue
		}
		e.mu.Lock()
		// With a shared database the entry is of the generation before this transaction's
		// writes only if no other node wrote the sheet in between.
		next := c.gens[e.sk]
		ok := len(e.changed)+len(p.rids) <= sortPatchMax
		if c.shared {
			ok = ok && p.bumps > 0 && int64(e.gen)+p.bumps == p.changes
			next = uint64(p.changes)
		} else {
			ok = ok && e.gen+1 == next
		}
		if ok {
			e.gen, e.changed = next, append(e.changed, p.rids...)
			kept = append(kept, e)
		}
		e.mu.Unlock()
	}
	c.entries = kept
}

// get returns what is kept for key at generation gen, if anything; a sorted order that
// writes changed since it was computed is patched first (ok false if that fails).
func (c *sortCache) get(ctx context.Context, sk int64, gen uint64, key string) (any, bool) {
	c.mu.Lock()
	var found *sortEntry
	for i, e := range c.entries {
		if e.sk == sk && e.gen == gen && e.key == key {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			found = e
			break
		}
	}
	c.mu.Unlock()
	if found == nil {
		return nil, false
	}
	found.mu.Lock()
	defer found.mu.Unlock()
	if len(found.changed) > 0 {
		// A new slice: pages being read from the old one keep it as it was.
		order, err := found.patch(ctx, found.val.([]int64), found.changed)
		if err != nil {
			return nil, false
		}
		found.val, found.changed = order, nil
		c.patched.Add(1)
	}
	return found.val, true
}

// put keeps what was computed for key at generation gen, unless the sheet has moved on
// since; patch (nil for value lists) lets small writes patch it.
func (c *sortCache) put(sk int64, gen uint64, key string, val any, patch patchFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.shared && c.gens[sk] != gen {
		return
	}
	c.entries = append([]*sortEntry{{sk: sk, gen: gen, key: key, val: val, patch: patch}}, c.entries...)
	if len(c.entries) > sortCacheSize {
		c.entries = c.entries[:sortCacheSize]
	}
}

// kept returns what c keeps for key at generation gen, or computes it now with compute and
// keeps it (the first sorted page reads every value anyway, so it computes the whole order
// and the pages after it are slices). A request that finds it being computed waits for it
// instead of computing again; when that computation fails, it computes its own.
func kept[T any](ctx context.Context, c *sortCache, sk int64, gen uint64, key string, compute func(context.Context) (T, error), patch patchFunc) (T, error) {
	if v, ok := c.get(ctx, sk, gen, key); ok {
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
		if v, ok := c.get(ctx, sk, gen, key); ok {
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
		c.put(sk, gen, key, v, patch)
	}
	return v, err
}

// sortKey identifies a sorted query: its SQL and arguments.
func sortKey(sql string, args []any) string {
	return fmt.Sprintf("%s\x00%v", sql, args)
}

// touch records that the transaction changes sheet sk in a way kept orders cannot follow
// (its schema, all its records): they are dropped at the commit.
func (tx *Tx) touch(sk int64) {
	tx.touchRecords(sk)
	tx.sheetPatch(sk).over = true
}

// touchRecords records that the transaction writes records of sheet sk; the records it
// changes are noted by noteChanged.
func (tx *Tx) touchRecords(sk int64) {
	if tx.touched == nil {
		tx.touched = map[int64]bool{}
	}
	tx.touched[sk] = true
}

func (tx *Tx) sheetPatch(sk int64) *sheetPatch {
	if tx.patches == nil {
		tx.patches = map[int64]*sheetPatch{}
	}
	p := tx.patches[sk]
	if p == nil {
		p = &sheetPatch{}
		tx.patches[sk] = p
	}
	return p
}

// noteChanged records that the transaction changes (adds, edits, deletes, revalidates) n
// records of sheet sk, the i-th being rid(i): once per write, not per record, since an
// import's batches of thousands are too many at once.
func (tx *Tx) noteChanged(sk int64, n int, rid func(i int) int64) {
	p := tx.sheetPatch(sk)
	if p.over {
		return
	}
	if len(p.rids)+n > sortPatchMax {
		p.over, p.rids = true, nil
		return
	}
	for i := range n {
		p.rids = append(p.rids, rid(i))
	}
}

// sheetGen is the generation kept orders and value lists of sheet sk are valid for: this
// node's count of its committed writes to the sheet, or with a shared database the sheet's
// count of committed writes (record_sheets.changes, bumped by every write under the row's
// lock, so it follows commit order).
func (db *DB) sheetGen(ctx context.Context, q sqldb.Querier, sk int64) (uint64, error) {
	if !db.sorts.shared {
		return db.sorts.gen(sk), nil
	}
	v, err := sheetChanges(ctx, q, sk)
	return uint64(v), err
}

// sheetChanges is sheet sk's count of committed writes (record_sheets.changes).
func sheetChanges(ctx context.Context, q sqldb.Querier, sk int64) (int64, error) {
	var n int64
	if err := q.QueryRowContext(ctx, `SELECT changes FROM record_sheets WHERE sk = ?`, sk).Scan(&n); err != nil {
		return 0, errs.Wrap(err, "read sheet changes")
	}
	return n, nil
}
