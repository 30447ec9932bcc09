package recordset

import (
	"context"
	"database/sql"
	"sync"

	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// A search or an FFQL filter on SQLite reads every record it cannot rule out by an index,
// on one core: 75 ms for a search of 1,000,000 records. On a big sheet the page and the
// count are asked of the two halves of the sheet's keys at once, on two reading
// connections, and put together (the lower half's records come first in key order): 39-41
// ms (54 instead of 120 on connections whose caches are cold), 49-54 ms right after a
// 1,000,000-row import in make bench-files (75-86 before). Not while the sheet's search
// index is being built, nor for a search the index answers.

// splitMin is the size of sheet whose scans are split in two (a variable for tests).
var splitMin int64 = 100000

// halves returns where the sheet's keys split in two, when a scan of q is worth splitting:
// SQLite, outside a transaction, a search or a filter on a big sheet, in key order.
func (rc *readCtx) halves(rs *stored.Sheet, q *RecordQuery, hint string) (lo, mid, hi int64, ok bool) {
	p, isPool := rc.q.(*sqldb.Pool)
	if !isPool || p.Dialect() != sqldb.SQLiteDialect || rs.Total < splitMin || hint != "" || q.SortField != "" || (q.SearchValue == "" && q.Q == "") {
		return 0, 0, 0, false
	}
	if q.looked || rc.ftsBuilding(rs) {
		// The sheet's search index answers what it reaches: little is scanned, and while it
		// is being built the halves would share the two cores with the build (a search
		// took 94 ms split, 72-77 whole). A common needle, scanned for once it is built, is
		// split (its count at 1,000,000 records: 139 ms whole, 97 ms split).
		return 0, 0, 0, false
	}
	lo, hi, found, err := rc.keyBounds(rs)
	if err != nil || !found || hi-lo < 2 {
		return 0, 0, 0, false
	}
	return lo, lo + (hi-lo)/2, hi, true
}

// splitRids is the page (offset, size) of the records where selects, in key order (desc:
// the other way), read from the two halves of the keys at once.
func (rc *readCtx) splitRids(where, order ffql.Frag, lo, mid, hi int64, desc bool, offset, size int) ([]int64, error) {
	ranges := [2][2]int64{{lo, mid}, {mid + 1, hi}}
	if desc {
		ranges[0], ranges[1] = ranges[1], ranges[0]
	}
	var parts [2][]int64
	err := bothHalves(rc.ctx, func(ctx context.Context, i int) error {
		query, args := keysQuery("", stored.Within(where, ranges[i]), order)
		var err error
		parts[i], err = stored.QueryRIDs(ctx, rc.q, "select records", query+` LIMIT ?`, append(args, offset+size)...)
		return err
	})
	if err != nil {
		return nil, err
	}
	all := append(parts[0], parts[1]...)
	from := min(offset, len(all))
	return all[from:min(from+size, len(all))], nil
}

// splitCount is countWhere over the two halves at once.
func (rc *readCtx) splitCount(where ffql.Frag, lo, mid, hi int64, countCap int) (int64, error) {
	ranges := [2][2]int64{{lo, mid}, {mid + 1, hi}}
	var n [2]int64
	err := bothHalves(rc.ctx, func(ctx context.Context, i int) error {
		var err error
		n[i], err = rc.countWhere(ctx, stored.Within(where, ranges[i]), countCap)
		return err
	})
	total := n[0] + n[1]
	if countCap > 0 {
		total = min(total, int64(countCap+1))
	}
	return total, err
}

// bothHalves runs fn for halves 0 and 1 at once and returns the first error (the one that
// stopped the other half, not the other's "context canceled").
func bothHalves(ctx context.Context, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx, i); err != nil {
				once.Do(func() { first = err })
				cancel()
			}
		}()
	}
	wg.Wait()
	return first
}

// rareStart returns where in enc (a needle's JSON text, ASCII case folded) a scan's first
// pass best starts: at the character least frequent in a sample of the sheet's stored
// values, when it is less than half as frequent as enc's first and at least three
// characters of enc follow from it; 0 otherwise, and on sheets too small to split
// (splitMin), whose scans are quick either way, and for a search the index answers (looked:
// no sample is read). Any part of enc is in every record enc is in, so the pass with it
// first finds what the pass without finds.
func (tx *readCtx) rareStart(rs *stored.Sheet, enc string, looked bool) int {
	if looked || !rareStarts || rs.Dialect != sqldb.SQLiteDialect || rs.Total < splitMin || len(enc) < 4 || enc[0] >= 128 {
		return 0
	}
	lo, hi := stored.RIDRange(rs.SK)
	var freq [128]int
	err := sqldb.EachRow(tx.ctx, tx.q, "sample values", `SELECT vals FROM records WHERE rid BETWEEN ? AND ? LIMIT 500`, []any{lo, hi}, func(rows *sql.Rows) error {
		var v sql.RawBytes
		if err := rows.Scan(&v); err != nil {
			return err
		}
		for _, c := range v {
			if c < 128 {
				freq[asciiFold(c)]++
			}
		}
		return nil
	})
	if err != nil {
		return 0
	}
	at, best := 0, freq[enc[0]]
	for i := 1; i+3 <= len(enc); i++ {
		if c := enc[i]; c < 128 && freq[c] < best {
			at, best = i, freq[c]
		}
	}
	if best*2 >= freq[enc[0]] {
		return 0
	}
	return at
}

// rareStarts: searches start their first pass at the needle's rarest character (a variable
// for tests, which compare with the pass from its first).
var rareStarts = true

func asciiFold(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
