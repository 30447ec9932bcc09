package store

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Sorting a big sheet by a field reads every record's value (about 0.3–0.6 s at 1,000,000
// records), and paging through the result would sort again for every page. sortCache keeps
// the full order of the last few sorted queries, computed in the background after the first
// page (which the usual LIMIT query answers), so the pages after it are slices of it. An entry belongs to one generation of its sheet: every committed transaction that
// changes the sheet's records, counts or schema starts a new generation (Tx.touch), and an
// entry of an older one is never used.
type sortCache struct {
	mu       sync.Mutex
	gens     map[int64]uint64 // sheet key → generation
	entries  []*sortEntry     // most recently used first
	building map[string]bool  // keys whose order a goroutine is computing
}

type sortEntry struct {
	sk   int64
	gen  uint64
	key  string
	rids []int64
}

// sortCacheSize is how many sorted orders are kept (8 bytes a record each).
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

// get returns the order of key at generation gen, if kept.
func (c *sortCache) get(sk int64, gen uint64, key string) ([]int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.sk == sk && e.gen == gen && e.key == key {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e.rids, true
		}
	}
	return nil, false
}

// put keeps an order computed at generation gen, unless the sheet has moved on since.
func (c *sortCache) put(sk int64, gen uint64, key string, rids []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gens[sk] != gen {
		return
	}
	c.entries = append([]*sortEntry{{sk: sk, gen: gen, key: key, rids: rids}}, c.entries...)
	if len(c.entries) > sortCacheSize {
		c.entries = c.entries[:sortCacheSize]
	}
}

// build computes key's order in the background and keeps it, unless it is being computed
// already. Errors only mean the order is not kept (the next page computes its own).
func (c *sortCache) build(sk int64, gen uint64, key string, order func(context.Context) ([]int64, error)) {
	c.mu.Lock()
	if c.building == nil {
		c.building = map[string]bool{}
	}
	if c.building[key] {
		c.mu.Unlock()
		return
	}
	c.building[key] = true
	c.mu.Unlock()
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.building, key)
			c.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if rids, err := order(ctx); err == nil {
			c.put(sk, gen, key, rids)
		}
	}()
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
