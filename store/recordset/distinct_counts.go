package recordset

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ffql"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/recordset/tally"
	"github.com/sluice/sluice/store/sqldb"
)

// Counted values: a field with too many distinct values for a kept list (ids,
// e-mails) had its values counted for every request: 0.8 s for a page of the most frequent
// at 1,000,000 records, 2.5 s for the whole list. Such a field gets a row per value in
// value_counts once it is asked for on a sheet of sqldb.Settings.ValueCountsMin records or more: keyed in
// value order (the value's place, then the value) with how many records and valid records
// hold it, built in the background, then kept in step by every write like a kept list. A
// page in value order is a range of the table; the most frequent first is the values held
// by more than one record (a partial index, small for such a field) and then the others in
// value order; the whole list is one read.
//
// Building counts the sheet's values (one GROUP BY), stores them as a new generation a
// slice per transaction (other writes go on in between), then hands the field over to the
// generation in one transaction, provided no write reached the sheet since the count
// (record_sheets.changes); otherwise the generation is thrown away and the field stays
// counted when asked, until the next request tries again. A write that changes more than
// valueCountsWriteMax values of the field (an import into the sheet) or finds the counts
// not adding up hands it back to counting (state valuesTooMany); the rows of generations
// no longer in use are cleared by the next build and by retention.

const (
	// valuesCounted: the field's values are in value_counts, generation record_values.gen.
	valuesCounted = 2
	// valueCountsWriteMax is the most values of a field one write changes in value_counts.
	valueCountsWriteMax = 5000
	// valueCountsSlice is how many values a building transaction stores or clears.
	valueCountsSlice = 10000
	// valueCountsRetry is how long after a build thrown away the next one may start.
	valueCountsRetry = 30 * time.Second
)

// valueCountBuilds remembers the fields this node is building counted values for.
type valueCountBuilds struct {
	mu      sync.Mutex
	running map[[2]int64]bool
	// declined: when a build of the field was last thrown away because a write came
	// between; the next waits valueCountsRetry (a sheet being edited would otherwise be
	// counted again and again, each time in vain)
	declined map[[2]int64]time.Time
	// one: builds take turns (requests for ids, e-mails and names would otherwise count
	// them all at once, each on two threads)
	one chan struct{}
}

// startValueCounts builds counted values for field position col of sheet sk in the
// background, unless this node is doing so already.
func (db *DB) startValueCounts(rs *stored.Sheet, col int) {
	if rs.Total < db.Settings().ValueCountsMin {
		return
	}
	b := &db.valueCounts
	key := [2]int64{rs.SK, int64(col)}
	b.mu.Lock()
	if b.running[key] || time.Since(b.declined[key]) < valueCountsRetry {
		b.mu.Unlock()
		return
	}
	if b.running == nil {
		b.running, b.declined, b.one = map[[2]int64]bool{}, map[[2]int64]time.Time{}, make(chan struct{}, 1)
	}
	b.running[key] = true
	b.mu.Unlock()
	go func() {
		defer func() {
			b.mu.Lock()
			delete(b.running, key)
			b.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		select {
		case b.one <- struct{}{}:
			defer func() { <-b.one }()
		case <-ctx.Done():
			return
		}
		// (after the request that asked, and the requests for the sheet's other fields that
		// often come with it: a build beside them took their cores)
		if db.reads.Wait(ctx, stored.ReadsQuiet, stored.ReadsWaitMax) != nil {
			return
		}
		handed, err := db.buildValueCounts(ctx, rs, col)
		if err != nil {
			slog.Warn("field values not stored; the field is counted when asked", "sheet", rs.SK, "col", col, "err", err)
		}
		if !handed {
			b.mu.Lock()
			b.declined[key] = time.Now()
			b.mu.Unlock()
		}
	}()
}

// buildValueCounts counts the field's values into a new generation and hands the field
// over to it if no write came between (handed false: it was thrown away or failed; true
// also when there was nothing to build, or another node builds it).
func (db *DB) buildValueCounts(ctx context.Context, rs *stored.Sheet, col int) (handed bool, err error) {
	if db.Postgres() {
		// One node builds: the others find the lock taken and leave it to that node. (The
		// lock's connection is a reader's: the build writes through the writers, and one
		// held by it for the whole build would leave the writes one fewer.)
		conn, err := db.Reader.DB.Conn(ctx)
		if err != nil {
			return false, err
		}
		defer conn.Close()
		lock := int64(0x7a1c)<<48 ^ rs.SK<<12 ^ int64(col)
		var got bool
		if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, lock).Scan(&got); err != nil || !got {
			return true, err // another node builds it
		}
		// (an unlock that fails: the connection is gone, and its lock with it)
		defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lock) }()
	}
	var state int
	var gen int64
	err = db.Reader.QueryRowContext(ctx, `SELECT state, gen FROM record_values WHERE sk = ? AND col = ?`, rs.SK, col).Scan(&state, &gen)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && state != valuesTooMany) {
		return true, nil // kept as a list, or counted already
	}
	if err != nil {
		return false, errs.Wrap(err, "read value list state")
	}
	// No generation is in use and no other build is under way: any rows of the field are
	// left over from earlier builds.
	if err := db.clearValueCounts(ctx, rs.SK, col, 0); err != nil {
		return false, err
	}
	changes, err := sheetChanges(ctx, db.Reader, rs.SK)
	if err != nil {
		return false, err
	}
	started := time.Now()
	gen++ // a generation of its own (the rows of earlier ones are cleared above)
	kept := 0
	// The count reads the sheet as it was when it started; a write committed after that
	// moves changes, and the hand-over below then declines.
	lo, hi := stored.RIDRange(rs.SK)
	// In value order on PostgreSQL, so that the rows lie in the order pages read them: in
	// the order a GROUP BY by text gives, page 500 by value read 50,000 scattered rows for
	// its 100 (37 ms instead of 8).
	query, args := groupedValues(rs, rs.Layout.KeyOf[col], ffql.Frag{SQL: `r.rid BETWEEN ? AND ?`, Args: []any{lo, hi}}, byValue)
	var batch []CellCount
	store := func() error {
		// (Not held back by requests as the FTS5 build is: the requests for this field count
		// it, slowly, until the build is done.)
		err := db.UpdateSheet(ctx, rs.ID, func(tx *Tx) error { return tx.storeValueCounts(rs.SK, col, gen, batch) })
		kept += len(batch)
		batch = batch[:0]
		return err
	}
	err = db.eachGrouped(ctx, query, args, func(c CellCount) error {
		c.Value = records.Canonical(c.Value)
		batch = append(batch, c)
		if len(batch) == valueCountsSlice {
			return store()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = store()
	}
	if err == nil {
		err = db.UpdateSheet(ctx, rs.ID, func(tx *Tx) error {
			res, err := tx.Exec(`UPDATE record_values SET state = ?, gen = ? WHERE sk = ? AND col = ? AND state = ?
				AND EXISTS (SELECT 1 FROM record_sheets WHERE sk = ? AND changes = ?)`, valuesCounted, gen, rs.SK, col, valuesTooMany, rs.SK, changes)
			if err != nil {
				return errs.Wrap(err, "hand over counted values")
			}
			n, err := res.RowsAffected()
			handed = n == 1
			return err
		})
	}
	if handed && db.Postgres() {
		// The planner has no statistics of a million new rows yet, and would read them all
		// rather than a range of an index for a page (200 ms instead of 1).
		if _, err := db.Writer.ExecContext(ctx, `ANALYZE value_counts`); err != nil {
			return true, errs.Wrap(err, "analyze counted values")
		}
	}
	if handed {
		slog.Info("field values counted", "sheet", rs.SK, "col", col, "values", kept, "took", time.Since(started).Round(time.Millisecond))
	}
	if !handed {
		// Written to since the count (or failed): this generation is of no use.
		if cerr := db.clearValueCounts(context.WithoutCancel(ctx), rs.SK, col, 0, gen); cerr != nil && err == nil {
			err = cerr
		}
	}
	return handed, err
}

// storeValueCounts adds a slice of a generation's values (on PostgreSQL with COPY: the
// build of 1,000,000 values in a third of the time of multi-row INSERTs).
func (tx *Tx) storeValueCounts(sk int64, col int, gen int64, vals []CellCount) error {
	if tx.Dialect().Copies() {
		err := tx.CopyFrom(tx.Context(), "value_counts", []string{"sk", "col", "gen", "n", "t", "v", "total", "valid"}, len(vals), func(i int, row []any) {
			c := vals[i]
			n, t := tally.KeyOf(c.Value).Place()
			row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7] = sk, int64(col), gen, n, t, string(c.Value), c.Total, c.Valid
		})
		if err != nil {
			return errs.Wrap(err, "store counted values")
		}
		return nil
	}
	const perStatement = 500
	for len(vals) > 0 {
		part := vals[:min(len(vals), perStatement)]
		vals = vals[len(part):]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO value_counts (sk, col, gen, n, t, v, total, valid) VALUES `)
		args := make([]any, 0, 8*len(part))
		for i, c := range part {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`(?, ?, ?, ?, ?, ?, ?, ?)`)
			n, t := tally.KeyOf(c.Value).Place()
			args = append(args, sk, col, gen, n, t, string(c.Value), c.Total, c.Valid)
		}
		if _, err := tx.Exec(sb.String(), args...); err != nil {
			return errs.Wrap(err, "store counted values")
		}
	}
	return nil
}

// clearValueCounts deletes, a slice per transaction, the rows of field col's generations
// other than keep (0: all of them), or with only set, those of that one generation.
func (db *DB) clearValueCounts(ctx context.Context, sk int64, col int, keep int64, only ...int64) error {
	cond, args := `gen <> ?`, []any{keep}
	if len(only) > 0 {
		cond, args = `gen = ?`, []any{only[0]}
	}
	for {
		var n int64
		err := db.Update(ctx, func(tx *Tx) error {
			a := append(append([]any{sk, col}, args...), sk, col)
			a = append(append(a, args...), valueCountsSlice)
			res, err := tx.Exec(`DELETE FROM value_counts WHERE sk = ? AND col = ? AND `+cond+` AND (gen, n, t, v) IN
				(SELECT gen, n, t, v FROM value_counts WHERE sk = ? AND col = ? AND `+cond+` LIMIT ?)`, a...)
			if err != nil {
				return errs.Wrap(err, "clear counted values")
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil || n < valueCountsSlice {
			return err
		}
	}
}

// applyCounted writes a write's delta of the counted fields of rules into their counted
// values, every value of every field in one upsert (on PostgreSQL one round trip under the
// sheet's lock, not one a value); a field with a delta too big to write value by value, or
// whose counts stop adding up, is handed back to counting when asked (its vd.at entry
// cleared), and values left at 0 are removed.
func (tx *Tx) applyCounted(rs *stored.Sheet, vd *valueDelta, rules []int) error {
	type colValue struct {
		col int64
		v   string
	}
	type entry struct {
		gen  int64
		n    float64
		t    string
		c    *valueCount
		zero bool // left at 0 by the write
	}
	entries := map[colValue]*entry{}
	var keys []colValue
	for _, i := range rules {
		col, gen := int64(rs.Layout.Cols[i]), vd.counted(i)
		var mine []colValue
		for v, c := range vd.at[i] {
			if c.total != 0 || c.valid != 0 {
				n, t := tally.KeyOf([]byte(v)).Place()
				k := colValue{col, v}
				entries[k] = &entry{gen: gen, n: n, t: t, c: c}
				mine = append(mine, k)
			}
		}
		if len(mine) > valueCountsWriteMax {
			if err := tx.uncount(rs.SK, int(col)); err != nil {
				return err
			}
			vd.at[i] = nil
			continue
		}
		keys = append(keys, mine...)
	}
	broken := map[int64]bool{}
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), 500)]
		keys = keys[len(chunk):]
		args := make([]any, 0, 7*len(chunk)+1)
		for _, k := range chunk {
			e := entries[k]
			args = append(args, k.col, e.gen, e.n, e.t, k.v, e.c.total, e.c.valid)
		}
		args = append(args, rs.SK)
		q := `WITH d (col, gen, n, t, v, total, valid) AS (VALUES ` + strings.TrimSuffix(strings.Repeat(`(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT)), `, len(chunk)), ", ") + `)
			INSERT INTO value_counts (sk, col, gen, n, t, v, total, valid) SELECT CAST(? AS BIGINT), col, gen, n, t, v, total, valid FROM d WHERE true
			ON CONFLICT (sk, col, gen, n, t, v) DO UPDATE SET total = value_counts.total + excluded.total, valid = value_counts.valid + excluded.valid
			RETURNING col, v, total, valid`
		err := tx.LaterRows("write counted values", q, func(scan func(...any) error) error {
			var k colValue
			var total, valid int64
			if err := scan(&k.col, &k.v, &total, &valid); err != nil {
				return err
			}
			switch {
			case total < 0 || valid < 0 || valid > total:
				broken[k.col] = true
			case total == 0:
				entries[k].zero = true
			}
			return nil
		}, args...)
		if err == nil {
			err = tx.Flush() // (its answer decides what follows)
		}
		if err != nil {
			return errs.Wrap(err, "write counted values")
		}
	}
	for _, i := range rules {
		col := int64(rs.Layout.Cols[i])
		if vd.at[i] == nil {
			continue
		}
		if broken[col] {
			if err := tx.uncount(rs.SK, int(col)); err != nil {
				return err
			}
			vd.at[i] = nil
			continue
		}
		for v := range vd.at[i] {
			if e := entries[colValue{col, v}]; e != nil && e.zero {
				if err := tx.Later("write counted values", `DELETE FROM value_counts WHERE sk = ? AND col = ? AND gen = ? AND n = ? AND t = ? AND v = ?`, rs.SK, col, e.gen, e.n, e.t, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// uncount hands a field back to counting its values when asked; its rows are cleared by
// the next build.
func (tx *Tx) uncount(sk int64, col int) error {
	if _, err := tx.Exec(`UPDATE record_values SET state = ? WHERE sk = ? AND col = ?`, valuesTooMany, sk, col); err != nil {
		return errs.Wrap(err, "stop counted values")
	}
	return nil
}

// countedCells reads a page of a field's counted values: the most frequent first (for
// filter valid: of valid records; error: of records with an error), or by value.
func countedCells(rc *readCtx, sk int64, col int, gen int64, filter string, p CellsPage) ([]CellCount, error) {
	field := `SELECT v, total, valid FROM value_counts WHERE sk = ? AND col = ? AND gen = ?`
	switch {
	case p.ByValue && p.Desc:
		return readCounted(rc, filter, field+filterCond(filter)+` ORDER BY n DESC, t DESC, v DESC`, sk, col, gen, p.Offset, p.Limit)
	case p.ByValue:
		return readCounted(rc, filter, field+filterCond(filter)+` ORDER BY n, t, v`, sk, col, gen, p.Offset, p.Limit)
	case filter == "valid":
		return readCounted(rc, filter, field+` AND valid > 0 ORDER BY valid DESC, n, t, v`, sk, col, gen, p.Offset, p.Limit)
	case filter == "error":
		return readCounted(rc, filter, field+` AND total > valid ORDER BY total - valid DESC, n, t, v`, sk, col, gen, p.Offset, p.Limit)
	}
	// The most frequent first is the values held by more than one record (few, for a field
	// with a value per record: an index of their own), then the others in value order (the
	// table's own order).
	upto := 0 // all of them
	if p.Limit > 0 {
		upto = p.Offset + p.Limit
	}
	many, err := readCounted(rc, filter, field+` AND total > 1 ORDER BY total DESC, n, t, v`, sk, col, gen, 0, upto)
	if err != nil || (p.Limit > 0 && len(many) >= p.Offset+p.Limit) {
		return many[min(p.Offset, len(many)):], err
	}
	out := many[min(p.Offset, len(many)):]
	limit := 0
	if p.Limit > 0 {
		limit = p.Limit - len(out)
	}
	ones, err := readCounted(rc, filter, field+` AND total = 1 ORDER BY n, t, v`, sk, col, gen, max(0, p.Offset-len(many)), limit)
	return append(out, ones...), err
}

// filterCond is the condition of filter valid or error on counted values.
func filterCond(filter string) string {
	switch filter {
	case "valid":
		return ` AND valid > 0`
	case "error":
		return ` AND total > valid`
	}
	return ``
}

// readCounted runs a query of counted values from offset, at most limit rows (0: all),
// with the counts filter asks for.
func readCounted(rc *readCtx, filter, query string, sk int64, col int, gen int64, offset, limit int) ([]CellCount, error) {
	args := []any{sk, col, gen}
	if limit > 0 || offset > 0 {
		query += ` LIMIT ? OFFSET ?`
		n := int64(limit)
		if n <= 0 {
			n = rc.q.Dialect().NoLimit()
		}
		args = append(args, n, offset)
	}
	out := []CellCount{}
	err := sqldb.EachRow(rc.ctx, rc.q, "counted values", query, args, func(rows *sql.Rows) error {
		var v string
		var c CellCount
		if err := rows.Scan(&v, &c.Total, &c.Valid); err != nil {
			return errs.Wrap(err, "scan counted values")
		}
		c.Value, c.Error = []byte(v), c.Total-c.Valid
		switch filter {
		case "valid":
			c.Total, c.Error = c.Valid, 0
		case "error":
			c.Total, c.Valid = c.Error, 0
		}
		out = append(out, c)
		return nil
	})
	return out, err
}
