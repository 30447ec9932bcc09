package recordset

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
)

// RowSource yields rows of values aligned with the keys given to InsertStream, and io.EOF
// after the last row. Each row is a slice of its own, which InsertStream keeps and changes.
type RowSource func() ([]json.RawMessage, error)

// InsertStream adds every row src yields, batch rows per transaction and version (each
// with its own events), as a file import does. Reading and checking rows runs in its own
// goroutine, ahead of the transactions that write them, so the two overlap; each
// transaction still confirms the schema the rows were checked against and checks again if
// it changed. Memory stays at about three batches. Errors: as InsertRecords; rows written
// before an error stay written.
func (db *DB) InsertStream(ctx context.Context, sheetID string, keys []string, src RowSource, batch int, opt WriteOptions) (*BulkResult, error) {
	if batch <= 0 {
		batch = BatchSize
	}
	rs, err := db.writableLayout(ctx, opt.AccountID, sheetID)
	if err != nil {
		return nil, err
	}
	if len(opt.Formats) > 0 {
		c := *rs
		c.Schema = rs.Schema.WithFormats(opt.Formats)
		rs = &c
	}
	idx := make([]int, len(keys))
	inOrder := len(keys) == len(rs.Schema.Rules)
	for j, k := range keys {
		i, ok := rs.Schema.Index(k)
		if !ok {
			return nil, records.UnknownField(k)
		}
		idx[j] = i
		inOrder = inOrder && i == j
	}
	hash := stored.SchemaHash(&rs.Config)
	// The values of each batch are counted for the kept value lists here, ahead of its
	// write, while the rows are fresh in memory; the writer says which lists stop being kept.
	kept, _, err := keptFields(ctx, db.Reader, rs)
	if err != nil {
		return nil, err
	}
	want := make([]atomic.Bool, len(kept))
	for i, k := range kept {
		want[i].Store(k)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // (src is not called once InsertStream has returned)
	defer cancel()
	type prepared struct {
		states []*stored.State
		pre    *valueDelta
		err    error
	}
	// Reading rows (src: for a file, parsing it) and checking them each run in a goroutine
	// of their own, so that both cores work beside the writer (issue 17: a file of twelve
	// columns with dates, quotes and accents spent 4.6 s of its 6.7 s import reading and
	// checking rows one after the other).
	raw := make(chan rawBatch, 1)
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(raw)
		for {
			b := readBatch(ctx, src, opt.Lines, len(idx), min(batch, rawChunk))
			select {
			case raw <- b:
			case <-ctx.Done():
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	ch := make(chan prepared, 1)
	go func() {
		defer wg.Done()
		defer close(ch)
		var states []*stored.State
		size := 0
		send := func(p prepared) bool {
			select {
			case ch <- p:
				return true
			case <-ctx.Done():
				return false
			}
		}
		flush := func() bool {
			if len(states) == 0 {
				return true
			}
			now := make([]bool, len(want))
			for i := range want {
				now[i] = want[i].Load()
			}
			p := prepared{states: states, pre: preTally(rs, states, now)}
			states, size = nil, 0
			return send(p)
		}
		for b := range raw {
			for k, vals := range b.rows {
				if states == nil {
					states = make([]*stored.State, 0, min(batch, 1024))
				}
				var row records.Row
				if inOrder && len(vals) == len(idx) {
					row = vals // (the source's own slice: a file's row, keys in the schema's order)
				} else {
					row = make(records.Row, len(rs.Schema.Rules))
					for j, v := range vals {
						row[idx[j]] = v
					}
				}
				st := newState(rs, 0, row)
				st.Enc, st.EncKinds = rs.Encode(row), rs.Kinds(row)+1
				st.PrecomputeKeys(rs.Schema)
				if b.lines != nil {
					st.Line = b.lines[k]
				}
				states = append(states, st)
				if size += len(st.Enc); len(states) >= batch || size >= BatchBytes {
					if !flush() {
						return
					}
				}
			}
			if b.err != nil {
				if flush() && !errors.Is(b.err, io.EOF) {
					send(prepared{err: b.err})
				}
				return
			}
		}
	}()
	res := &BulkResult{}
	defer func() {
		if res.Count >= vacuumAfter {
			db.VacuumAfterBulk()
		}
	}()
	for p := range ch {
		if p.err != nil {
			return res, p.err
		}
		keptAfter, err := db.insertPrepared(ctx, sheetID, hash, p.states, p.pre, opt, res)
		if err != nil {
			return res, err
		}
		for i, k := range keptAfter {
			if i < len(want) && !k {
				want[i].Store(false)
			}
		}
	}
	return res, ctx.Err()
}

// rawChunk is the most rows the reading goroutine hands on at a time: the checking
// goroutine makes batches of them, so that few rows wait between the two (a whole batch did:
// 90 MiB more peak RSS importing a file of twelve columns).
const rawChunk = 1024

// rawBatch is a chunk of rows as src yielded them, and the error that ended it (io.EOF
// after the last row).
type rawBatch struct {
	rows  [][]json.RawMessage
	lines []int // each row's line in its file (Lines); nil: none
	err   error
}

// readBatch reads up to batch rows of keys values from src, and fewer when they hold
// BatchBytes of values or ctx ends.
func readBatch(ctx context.Context, src RowSource, lines *Lines, keys, batch int) rawBatch {
	b := rawBatch{rows: make([][]json.RawMessage, 0, batch)}
	for size := 0; len(b.rows) < batch && size < BatchBytes; {
		if len(b.rows)%64 == 63 && ctx.Err() != nil {
			b.err = ctx.Err()
			return b
		}
		vals, err := src()
		if err != nil {
			b.err = err
			return b
		}
		if len(vals) > keys {
			b.err = errs.Invalidf("rows", "A row has %d values for %d keys", len(vals), keys)
			return b
		}
		b.rows = append(b.rows, vals)
		if lines != nil {
			b.lines = append(b.lines, lines.Line())
		}
		size += len(vals) + 1 // (as the stored array: values, commas and brackets)
		for _, v := range vals {
			size += len(v)
		}
	}
	return b
}

// vacuumAfter is how many records a streamed insert adds before PostgreSQL's visibility
// map is brought up to date behind it (vacuumAfterBulk).
const vacuumAfter = 50000

// ImportBatch is how many rows each transaction of a file import holds: 5,000 on SQLite;
// 20,000 on PostgreSQL, where each transaction costs round trips and a commit a node
// shares with every other (measured on the 1,000,000-row import: 9.3 s with 5,000, 7.2 s
// with 20,000, peak RSS 90 and 200 MiB).
func (db *DB) ImportBatch() int {
	if db.Postgres() {
		return 20000
	}
	return 5000
}

// insertPrepared writes one batch of checked states in its own transaction.
func (db *DB) insertPrepared(ctx context.Context, sheetID, hash string, states []*stored.State, pre *valueDelta, opt WriteOptions, res *BulkResult) ([]bool, error) {
	var keptAfter []bool
	err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
		if opt.Job != "" {
			if err := tx.DeferFlush(); err != nil {
				return err
			}
		}
		rs, err := stored.Load(ctx, tx, opt.AccountID, sheetID)
		if err != nil {
			return err
		}
		if stored.SchemaHash(&rs.Config) != hash {
			schema := rs.Schema.WithFormats(opt.Formats)
			for _, st := range states {
				st.Msgs, st.Enc, st.UKeys, st.UHas = schema.Check(st.Row), "", nil, nil
				st.PreCounted = false
			}
			pre = nil
		}
		w, err := tx.beginWrite(rs, opt)
		if err != nil {
			return err
		}
		w.pre = pre
		first, err := tx.nextRids(rs, len(states))
		if err != nil {
			return err
		}
		changes := make([]*change, len(states))
		ids := make([]string, len(states))
		for i, st := range states {
			st.RID = first + int64(i)
			changes[i] = &change{kind: kInsert, new: st}
			ids[i] = stored.RecordID(st.RID)
		}
		if err := tx.applyChanges(rs, changes, w); err != nil {
			return err
		}
		if opt.Job != "" {
			if err := tx.noteJobWrite(opt.Job, sheetID, first, first+int64(len(states))-1); err != nil {
				return err
			}
		}
		if opt.Lines != nil {
			if err := tx.writeLines(opt.Lines.File, states); err != nil {
				return err
			}
		}
		res.VersionID = w.versionID
		res.VersionIDs = append(res.VersionIDs, w.versionID)
		res.Count += len(states)
		// Adding records is space activity (lastActivityAt).
		if err := tx.TouchSpace(rs.SpaceID); err != nil {
			return err
		}
		keptAfter = w.keptAfter
		return tx.emitRecords(rs, w, "created", ids)
	})
	return keptAfter, err
}

// writableLayout loads a sheet for a streamed write, first giving every field a value
// position so rows can be encoded before their transactions. Errors: not_found, forbidden.
func (db *DB) writableLayout(ctx context.Context, accountID, sheetID string) (*stored.Sheet, error) {
	rs, err := stored.Load(ctx, db.Reader, accountID, sheetID)
	if err != nil {
		return nil, err
	}
	if err := rs.CheckWritable(); err != nil {
		return nil, err
	}
	for _, col := range rs.Layout.Cols {
		if col < 0 {
			err := db.UpdateSheet(ctx, sheetID, func(tx *Tx) error {
				w, err := stored.Load(ctx, tx, accountID, sheetID)
				if err != nil {
					return err
				}
				return tx.prepareWrite(w)
			})
			if err != nil {
				return nil, err
			}
			return stored.Load(ctx, db.Reader, accountID, sheetID)
		}
	}
	return rs, nil
}
