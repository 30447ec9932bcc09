package recordset

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

type changeKind int

const (
	kInsert  changeKind = iota // a new row
	kUpdate                    // an existing row, old state counted and indexed
	kDelete                    // a row going away
	kRecheck                   // an existing row revalidated after its sheet's index and counts were reset
)

// change is one record's move from old to new state inside a write.
type change struct {
	kind     changeKind
	old, new *stored.State
}

func (c *change) rid() int64 {
	if c.new != nil {
		return c.new.RID
	}
	return c.old.RID
}

// WriteOptions says who writes and which events follow.
type WriteOptions struct {
	Actor string
	// AccountID limits the write to sheets of one account; empty skips the check (tests, workers).
	AccountID string
	// Silent suppresses records:* events (bulk-update's silent flag).
	Silent bool
	// DisableHooks marks the write as one that must not wake record hooks (X-Disable-Hooks).
	DisableHooks bool
	// Completes names a pending commit this write answers (a record hook writing back to
	// the commit's dataUrl); it is completed in the same transaction.
	Completes string
	// Job names the built-in job whose records these are: the records added are
	// noted with it, so the job takes them back unless it completes.
	Job string
	// Formats reads text values of some fields in the given format (fieldKey → DMY, MDY,
	// serial, "." or ","), as the import wizard chose for their columns.
	Formats map[string]string
	// Undo notes the write in the actor's undo history of the sheet as this kind of change
	// (edit, paste, fill, add, delete, replace, clear, set): the grid's writes (undo.go).
	Undo string
	// Lines, for a streamed insert of a file's rows, notes each record's row in the file.
	Lines *Lines
	// Answer, when set, renders the request's 200 JSON answer from the write's result,
	// inside the write and before its commit, for a request whose Idempotency-Key the
	// write claims (sqldb.Tx.ClaimsKey): the write keeps the answer with the key in its
	// commit (sqldb.Tx.KeepAnswer). Not called otherwise.
	Answer func(*WriteResult) ([]byte, error)
	// Allow, when set, is asked inside the write, once the sheet is loaded, whether the
	// request may write to it (the resource policy): a request that has not loaded the
	// sheet's scope itself saves that query. Its error ends the write.
	Allow func(*SheetScope) error
}

// writeCtx is the state shared by the steps of one versioned write.
type writeCtx struct {
	opt WriteOptions
	// vseq is the version key the write's rows are stamped with (seq), 0 while the
	// statement that answers it is held back.
	vseq        int64
	versionID   string
	emptyBefore bool     // the sheet had no records when the write began
	undo        *undoLog // where the changes are noted for undo; nil: they are not
	// pre is the values of a streamed batch counted ahead for the kept value lists (nil:
	// none); keptAfter reports back which lists the write left kept.
	pre       *valueDelta
	keptAfter []bool
	// guess (PostgreSQL inserts): the rows and the kept lists' changes are held back to go
	// with the commit, on the guess that the write leaves every kept list kept and loses no
	// value from one (true but once in a list's life); where it does not, the commit fails
	// (sqldb.WriteAgain) and the write runs again without guessing (insert). The write's
	// lock is then held for two round trips instead of three.
	guess bool
}

// beginSheetWrite loads the sheet sheetID of opt's account and begins a write to it
// (beginWrite). Errors: not_found, forbidden.
func (tx *Tx) beginSheetWrite(sheetID string, opt WriteOptions) (*stored.Sheet, *writeCtx, error) {
	rs, err := stored.LoadWrite(tx.Context(), tx, opt.AccountID, sheetID)
	if err != nil {
		return nil, nil, err
	}
	if opt.Allow != nil {
		if err := opt.Allow(scopeOf(rs)); err != nil {
			return nil, nil, err
		}
	}
	w, err := tx.beginWrite(rs, opt)
	return rs, w, err
}

// beginWrite checks the sheet accepts writes, prepares its index and opens a version.
func (tx *Tx) beginWrite(rs *stored.Sheet, opt WriteOptions) (*writeCtx, error) {
	if err := rs.CheckWritable(); err != nil {
		return nil, err
	}
	if err := tx.prepareWrite(rs); err != nil {
		return nil, err
	}
	w := &writeCtx{opt: opt, emptyBefore: rs.Total == 0}
	if opt.Undo != "" {
		w.undo = &undoLog{what: opt.Undo}
	}
	return w, tx.newVersion(rs, w)
}

// newVersion opens the commit the write's rows are stamped with (its id is the version id)
// and maps it to a version key. Writes without hooks complete their commit at once.
func (tx *Tx) newVersion(rs *stored.Sheet, w *writeCtx) error {
	scope := &workbookScope{AccountID: rs.AccountID, EnvironmentID: rs.EnvironmentID, SpaceID: rs.SpaceID, TrackChanges: rs.TrackChanges}
	early, err := tx.takeEarly(rs, func(e *earlyReserve) bool { return e.vseq != 0 })
	if err != nil {
		return err
	}
	var id string
	if early != nil {
		id, w.vseq, early.vseq = early.versionID, early.vseq, 0
	}
	c, err := tx.createCommit(scope, rs.Sheet, id, w.opt.Actor, !w.opt.DisableHooks)
	if err != nil {
		return err
	}
	w.versionID = c.ID
	tx.touchRecords(rs.SK)
	// (held back: an insert sends it with its record keys' reservation, nextRids)
	if early == nil {
		if err := tx.LaterScan("create version", insertVersion, []any{&w.vseq}, w.versionID, rs.SK, sqldb.Millis(tx.Now())); err != nil {
			return err
		}
	}
	if w.opt.Completes != "" {
		if _, err := tx.CompleteCommitTx(w.opt.AccountID, w.opt.Completes, w.opt.Actor); err != nil {
			return err
		}
	}
	return nil
}

// seq is the write's version key (vseq), sending its statement first if it is still held.
func (w *writeCtx) seq(tx *Tx) (int64, error) {
	if w.vseq == 0 { // (keys start at 1)
		if err := tx.Flush(); err != nil {
			return 0, err
		}
	}
	return w.vseq, nil
}

// applyChanges validates what references and unique constraints need, writes the rows and
// the counts. Type, required and enum checks have already run on the new states.
func (tx *Tx) applyChanges(rs *stored.Sheet, changes []*change, w *writeCtx) error {
	var news []*stored.State
	for _, c := range changes {
		if c.new != nil {
			c.new.Dups = c.new.Dups[:0]
			news = append(news, c.new)
		}
	}
	if err := tx.checkRefs(rs, news); err != nil {
		return err
	}
	// The sheets referring to this one are found (a query) before the upkeep below, whose
	// statements need no answer: on PostgreSQL they go with the commit's (sqldb.Tx.Later).
	if err := tx.staleReferrers(rs); err != nil {
		return err
	}
	if w.undo != nil {
		if err := tx.noteUndo(rs, w, changes); err != nil {
			return err
		}
	}
	if err := tx.registerLayers(rs, news, w); err != nil {
		return err
	}
	d := newCountDelta()
	var err error
	if d.values, err = tx.keptValues(rs); err != nil {
		return err
	}
	d.values.adopt(w.pre)
	if err := tx.reconcileUniques(rs, changes, w, d); err != nil {
		return err
	}
	var ins, ups []*stored.State
	var dels []int64
	tx.noteChanged(rs.SK, len(changes), func(i int) int64 { return changes[i].rid() })
	for _, c := range changes {
		if c.old != nil && c.kind != kRecheck {
			d.tally(rs, c.old, -1)
		}
		if c.new != nil {
			rs.Settle(c.new)
			d.tally(rs, c.new, 1)
			if c.new.PreCounted {
				d.values.correct(c.new.Row, c.new.PreValid, c.new.Valid)
			}
		}
		switch c.kind {
		case kInsert:
			ins = append(ins, c.new)
		case kUpdate, kRecheck:
			ups = append(ups, c.new)
		case kDelete:
			dels = append(dels, c.old.RID)
		}
	}
	if len(ins) > 0 || len(dels) > 0 {
		d.shape = 1
	}
	blooms, packs := planBlooms(rs, changes), planPacks(rs, changes, d.values)
	defer blooms.wait() // (the rows are left alone once applyChanges returns, whatever it returns)
	defer packs.wait()
	if err := tx.sendKept(rs, d.values, w.guess); err != nil { // (goes with the rows' statement)
		return err
	}
	if err := tx.insertRows(rs, ins, w); err != nil {
		return err
	}
	if err := tx.updateRows(rs, ups, w); err != nil {
		return err
	}
	if err := tx.deleteRows(dels); err != nil {
		return err
	}
	if err := tx.keepFTS(rs, changes); err != nil {
		return err
	}
	if err := tx.applyCounts(rs, d); err != nil { // (the kept value lists' statements answer)
		return err
	}
	if err := tx.writeBlooms(rs, blooms); err != nil {
		return err
	}
	w.keptAfter = d.values.keptRules(len(rs.Schema.Rules))
	return tx.writePacks(rs, packs, w.keptAfter)
}

// Rows are written by multi-row statements with numbered parameters: ?1 is the version,
// then rowCols per row.
const (
	rowCols  = 7
	rowChunk = 300
)

func rowArgs(rs *stored.Sheet, args []any, st *stored.State) []any {
	return append(args, st.RID, rs.Encoded(st), rs.EncodeExtra(st), stored.EncodeEFS(st.EFS), stored.EncodeDups(st.Dups), sqldb.BoolInt(st.Valid), rs.KindsOf(st))
}

// rowValues returns n groups "(?2, …, ?7)" numbering parameters after ?1, with tail
// appended inside each group. typed casts the integer columns (rid, valid, kinds): the rows of an
// UPDATE's VALUES have no column types, which PostgreSQL needs.
func rowValues(n int, tail string, typed bool) string {
	var b strings.Builder
	p := 2
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j := 0; j < rowCols; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			if typed && (j == 0 || j == 5 || j == 6) {
				b.WriteString("CAST(?" + strconv.Itoa(p) + " AS BIGINT)")
			} else {
				b.WriteByte('?')
				b.WriteString(strconv.Itoa(p))
			}
			p++
		}
		b.WriteString(tail)
		b.WriteByte(')')
	}
	return b.String()
}

// rowWrite is a multi-row statement over a list of records: per rows a statement, its text
// for n rows (sql), each row's arguments after ?1, the version (row), and arguments after a
// chunk's rows (tail, optional).
type rowWrite struct {
	per  int
	sql  func(n int) string
	row  func(args []any, st *stored.State) []any
	tail func(chunk []*stored.State) []any
}

// writeRows runs rw over list in chunks of rw.per rows, through the driver's statement
// cache (a full chunk's statement stays prepared on its connection).
func (tx *Tx) writeRows(list []*stored.State, w *writeCtx, rw rowWrite) error {
	if len(list) == 0 {
		return nil
	}
	seq, err := w.seq(tx)
	if err != nil {
		return err
	}
	for start := 0; start < len(list); start += rw.per {
		chunk := list[start:min(start+rw.per, len(list))]
		args := make([]any, 1, 3+rowCols*len(chunk))
		args[0] = seq
		for _, st := range chunk {
			args = rw.row(args, st)
		}
		if rw.tail != nil {
			args = append(args, rw.tail(chunk)...)
		}
		// The driver keeps the statement prepared on the connection from one write to the
		// next (SQLite: Open's _stmt_cache_size; pgx: its statement cache): prepared in each
		// write, an import's statements of 300 rows took 0.2 s of its writer, and on
		// PostgreSQL the prepare was a round trip of its own.
		if w.guess { // nothing is read back: the rows go with the commit
			if err := tx.Later("write records", rw.sql(len(chunk)), args...); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.ExecContext(tx.Context(), rw.sql(len(chunk)), args...); err != nil {
			return errs.Wrap(err, "write records")
		}
	}
	return nil
}

// Statement texts by row count; updates by dialect too (PostgreSQL casts the values' text
// to jsonb, which a VALUES list leaves as text).
var insertSQL, updateSQL = map[int]string{}, [2]map[int]string{{}, {}}
var sqlMu sync.Mutex

// cachedSQL builds the statement text for n rows once.
func cachedSQL(cache map[int]string, n int, build func(int) string) string {
	return cachedSQLFull(cache, n, rowChunk, build)
}

// cachedSQLFull is cachedSQL for statements whose full chunk is full rows.
func cachedSQLFull(cache map[int]string, n, full int, build func(int) string) string {
	sqlMu.Lock()
	defer sqlMu.Unlock()
	if s, ok := cache[n]; ok {
		return s
	}
	s := build(n)
	if n == full {
		cache[n] = s
	}
	return s
}

// copyMin is the fewest rows PostgreSQL takes by COPY: a COPY is two round trips (its
// start, then the rows), a multi-row INSERT one, sent with the statements held before it.
const copyMin = 100

func (tx *Tx) insertRows(rs *stored.Sheet, list []*stored.State, w *writeCtx) error {
	if rs.Dialect.Copies() && len(list) >= copyMin {
		return tx.copyRows(rs, list, w)
	}
	// Most imported rows are valid and carry nothing but their values: they bind two
	// parameters, not six (binding is a cgo call each; issue 17).
	var plain, rest []*stored.State
	for _, st := range list {
		if st.Valid && len(st.EFS) == 0 && len(st.Dups) == 0 && rs.EncodeExtra(st) == nil {
			plain = append(plain, st)
		} else {
			rest = append(rest, st)
		}
	}
	if err := tx.insertPlain(rs, plain, w); err != nil {
		return err
	}
	return tx.writeRows(rest, w, rowWrite{per: rowChunk, row: func(args []any, st *stored.State) []any { return rowArgs(rs, args, st) }, sql: func(n int) string {
		return cachedSQL(insertSQL, n, func(n int) string {
			return `INSERT INTO records (rid, vals, x, efs, dups, valid, kinds, vseq) VALUES ` + rowValues(n, ", ?1", false)
		})
	}})
}

// plainSQL are the statements of insertPlain by row count and kinds (count × (kindsAll+1) +
// kinds).
var plainSQL = map[int]string{}

// insertPlain inserts valid rows without messages, metadata, config or duplicates: rid and
// values are all they bind. Their kinds are written into the statement, those of all its
// rows together (a record said to hold a kind it has not is only tested field by field
// where it need not be; binding each row's cost 5% of an import whose rows differ).
func (tx *Tx) insertPlain(rs *stored.Sheet, list []*stored.State, w *writeCtx) error {
	const per = 3 * rowChunk
	for start := 0; start < len(list); start += per {
		chunk := list[start:min(start+per, len(list))]
		var k int64
		for _, st := range chunk {
			k = stored.UnionKinds(k, rs.KindsOf(st))
		}
		err := tx.writeRows(chunk, w, rowWrite{per: per,
			row: func(args []any, st *stored.State) []any { return append(args, st.RID, rs.Encoded(st)) },
			sql: func(n int) string {
				return cachedSQLFull(plainSQL, n*(stored.KindsAll+1)+int(k), per*(stored.KindsAll+1)+int(k), func(int) string {
					var b strings.Builder
					b.WriteString(`INSERT INTO records (rid, vals, x, efs, dups, valid, kinds, vseq) VALUES `)
					for i := 0; i < n; i++ {
						if i > 0 {
							b.WriteString(", ")
						}
						b.WriteString("(?" + strconv.Itoa(2+2*i) + ", ?" + strconv.Itoa(3+2*i) + ", NULL, NULL, NULL, 1, " + strconv.FormatInt(k, 10) + ", ?1)")
					}
					return b.String()
				})
			}})
		if err != nil {
			return err
		}
	}
	return nil
}

// copyRows inserts rows on PostgreSQL with COPY (issue 15: a 10,000-row batch as one
// stream instead of 34 statements of 1,800 parameters).
func (tx *Tx) copyRows(rs *stored.Sheet, list []*stored.State, w *writeCtx) error {
	if len(list) == 0 {
		return nil
	}
	seq, err := w.seq(tx)
	if err != nil {
		return err
	}
	err = tx.CopyFrom(tx.Context(), "records", []string{"rid", "vals", "x", "efs", "dups", "valid", "kinds", "vseq"}, len(list), func(i int, row []any) {
		st := list[i]
		row[0], row[1] = st.RID, rs.Encoded(st)
		row[2], row[3], row[4], row[5], row[6], row[7] = rs.EncodeExtra(st), stored.EncodeEFS(st.EFS), stored.EncodeDups(st.Dups), int64(sqldb.BoolInt(st.Valid)), rs.KindsOf(st), seq
	})
	if err != nil {
		return errs.Wrap(err, "write records")
	}
	return nil
}

func (tx *Tx) updateRows(rs *stored.Sheet, list []*stored.State, w *writeCtx) error {
	// Each statement also bounds rid to its rows' range: without it SQLite 3.54 plans a
	// 300-row VALUES join as a scan of every record (21 ms a statement at 1,000,000
	// records, quadratic over a sheet-wide edit) instead of a search by key (0.5 ms).
	// Sorted by key, each chunk's range holds little else.
	list = append([]*stored.State(nil), list...)
	sort.Slice(list, func(i, j int) bool { return list[i].RID < list[j].RID })
	return tx.writeRows(list, w, rowWrite{per: rowChunk, row: func(args []any, st *stored.State) []any { return rowArgs(rs, args, st) },
		sql: func(n int) string {
			return cachedSQL(updateSQL[rs.Dialect], n, func(n int) string {
				vals := rs.Dialect.AsJSON("v.column2")
				lo := 2 + rowCols*n
				return `UPDATE records SET vals = ` + vals + `, x = v.column3, efs = v.column4, dups = v.column5, valid = v.column6, kinds = v.column7, vseq = ?1
			FROM (VALUES ` + rowValues(n, "", true) + `) AS v WHERE records.rid = v.column1 AND records.rid BETWEEN ?` + strconv.Itoa(lo) + ` AND ?` + strconv.Itoa(lo+1)
			})
		},
		tail: func(chunk []*stored.State) []any { return []any{chunk[0].RID, chunk[len(chunk)-1].RID} },
	})
}

func (tx *Tx) deleteRows(rids []int64) error {
	if len(rids) == 0 {
		return nil
	}
	if _, err := tx.Exec(`DELETE FROM records WHERE `+tx.Dialect().InInts("rid", "?"), stored.RIDsJSON(rids)); err != nil {
		return errs.Wrap(err, "delete records")
	}
	return nil
}

// nextRids reserves n record keys of the sheet, in order.
func (tx *Tx) nextRids(rs *stored.Sheet, n int) (int64, error) {
	var first int64
	early, err := tx.takeEarly(rs, func(e *earlyReserve) bool { return e.n == n })
	switch {
	case err != nil:
		return 0, err
	case early != nil:
		first, early.n = early.first, 0
	default:
		if err := tx.QueryRowScan(`UPDATE record_sheets SET next_seq = next_seq + ? WHERE sk = ? RETURNING next_seq - ?`, []any{&first}, n, rs.SK, n); err != nil {
			return 0, errs.Wrap(err, "reserve record ids")
		}
	}
	if first+int64(n) >= 1<<stored.SeqBits {
		return 0, errs.Invalidf("sheetId", "Sheet has reached the maximum number of records")
	}
	if rs.Fresh == 0 {
		rs.Fresh = rs.SK<<stored.SeqBits | first
	}
	return rs.SK<<stored.SeqBits | first, nil
}

// emitRecords writes the records:<verb> and sheet:counts-updated events of a write.
func (tx *Tx) emitRecords(rs *stored.Sheet, w *writeCtx, verb string, ids []string) error {
	if w.opt.Silent {
		return nil
	}
	ctx := rs.EventContext(w.opt.Actor, w.versionID)
	if len(ids) > 0 {
		if err := tx.emitWorkbook("records:"+verb, ctx, recordsPayload(rs.ID, ids)); err != nil {
			return err
		}
	}
	_, err := tx.Emit("sheet:counts-updated", ctx, map[string]any{"sheetId": rs.ID})
	return err
}

// emitChanges writes the records:updated, records:created and records:deleted events of
// changes, each naming its records in order, and touches the space when records came.
func (tx *Tx) emitChanges(rs *stored.Sheet, w *writeCtx, changes []*change) error {
	byKind := map[changeKind][]string{}
	for _, c := range changes {
		byKind[c.kind] = append(byKind[c.kind], stored.RecordID(c.rid()))
	}
	for _, v := range []struct {
		kind changeKind
		verb string
	}{{kUpdate, "updated"}, {kInsert, "created"}, {kDelete, "deleted"}} {
		if ids := byKind[v.kind]; len(ids) > 0 {
			if err := tx.emitRecords(rs, w, v.verb, ids); err != nil {
				return err
			}
		}
	}
	if len(byKind[kInsert]) > 0 {
		return tx.TouchSpace(rs.SpaceID)
	}
	return nil
}

// recordsPayload is {sheetId, recordIds, recordCount}, written directly: a batch names up to
// 10,000 records, and record ids need no escaping.
func recordsPayload(sheetID string, ids []string) json.RawMessage {
	b := make([]byte, 0, 64+len(ids)*(len(sqldb.PrefixRecord)+stored.RecordIDLen+3))
	b = append(b, `{"sheetId":`...)
	b = append(b, records.Quote(sheetID)...)
	b = append(b, `,"recordIds":[`...)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), id...), '"')
	}
	b = append(b, `],"recordCount":`...)
	b = strconv.AppendInt(b, int64(len(ids)), 10)
	return append(b, '}')
}

// emitWorkbook writes an event with domain "workbook", where Flatfile's listeners expect
// record and snapshot events (Emit would take the domain from the topic).
func (tx *Tx) emitWorkbook(topic string, ctx model.EventContext, payload json.RawMessage) error {
	tx.AddEvent(&model.Event{ID: sqldb.NewID(sqldb.PrefixEvent), Topic: topic, Domain: "workbook", Context: ctx, Payload: payload, CreatedAt: tx.Now()})
	return nil
}

// newState starts a record state for rid with its values checked.
func newState(rs *stored.Sheet, rid int64, row records.Row) *stored.State {
	st := &stored.State{RID: rid, Row: row}
	var written []string
	st.Msgs, written = rs.Schema.CheckKeep(row)
	if written != nil {
		st.Meta = sourceMeta(rs.Schema, written)
	}
	return st
}

// sourceMeta is {"source": {fieldKey: text as written}} for the values reading changed:
// nothing of the file is lost, and an undo can put it back.
func sourceMeta(s *records.Schema, written []string) json.RawMessage {
	src := make(map[string]string)
	for i, w := range written {
		if w != "" {
			src[s.Rules[i].Key] = w
		}
	}
	b, _ := json.Marshal(map[string]any{"source": src})
	return b
}

// mergeMeta adds the metadata Sluice wrote (ours: the source texts) to what a client sent,
// the client's own source keys first.
func mergeMeta(client, ours json.RawMessage) json.RawMessage {
	if ours == nil {
		return client
	}
	if client == nil {
		return ours
	}
	var c, o map[string]json.RawMessage
	if json.Unmarshal(client, &c) != nil || json.Unmarshal(ours, &o) != nil {
		return client
	}
	var cs, xs map[string]json.RawMessage
	_ = json.Unmarshal(c["source"], &cs)
	_ = json.Unmarshal(o["source"], &xs)
	if cs == nil {
		cs = xs
	} else {
		for k, v := range xs {
			if _, ok := cs[k]; !ok {
				cs[k] = v
			}
		}
	}
	c["source"], _ = json.Marshal(cs)
	b, _ := json.Marshal(c)
	return b
}

// insertVersion opens a version of sheet sk.
const insertVersion = `INSERT INTO record_versions (id, sk, created_at) VALUES (?, ?, ?) RETURNING vseq`

// earlyReserve is what an insert of n records reserves before it loads its sheet
// (reserveEarly): the write's version (versionID, key vseq) and n record keys from first, of
// sheet sk. Each is taken once (takeEarly), by newVersion and nextRids.
type earlyReserve struct {
	sk, vseq, first int64
	n               int
	versionID       string
}

// reserveEarly holds back, for an insert of n records on PostgreSQL, its version and its
// record keys, by the sheet's id: they go in the round trip that takes the sheet's lock and
// loads the sheet, where they were a round trip of their own after it, spent holding the
// lock. A sheet without records yet (no record sheet) reserves nothing, and the write
// reserves as it always did. Nothing reserved stays if the write fails: it is all rolled back.
func (tx *Tx) reserveEarly(sheetID string, n int) error {
	if n == 0 || !tx.Dialect().RoundTrips() {
		return nil
	}
	e := &earlyReserve{versionID: sqldb.NewID(sqldb.PrefixVersion)}
	one := func(dest ...any) func(scan func(dest ...any) error) error {
		return func(scan func(dest ...any) error) error { return scan(dest...) }
	}
	if err := tx.LaterRows("reserve record ids", `UPDATE record_sheets SET next_seq = next_seq + ? WHERE sheet_id = ? RETURNING sk, next_seq - ?`,
		one(&e.sk, &e.first), n, sheetID, n); err != nil {
		return err
	}
	if err := tx.LaterRows("create version", `INSERT INTO record_versions (id, sk, created_at) SELECT CAST(? AS TEXT), sk, CAST(? AS BIGINT) FROM record_sheets WHERE sheet_id = ? RETURNING vseq`,
		one(&e.vseq), e.versionID, sqldb.Millis(tx.Now()), sheetID); err != nil {
		return err
	}
	e.n = n
	tx.early = e
	return nil
}

// takeEarly is what reserveEarly reserved for sheet rs, if it reserved anything (both
// statements found the sheet) and has still what has (its part not taken yet).
func (tx *Tx) takeEarly(rs *stored.Sheet, has func(*earlyReserve) bool) (*earlyReserve, error) {
	e := tx.early
	switch {
	case e == nil || e.sk == 0:
		return nil, nil
	case e.sk != rs.SK:
		return nil, errs.E(errs.Internal, "sheetId", "the record keys reserved belong to another sheet")
	case !has(e):
		return nil, nil
	}
	return e, nil
}

// keepAnswer has the write keep its request's answer with the Idempotency-Key it claims
// (WriteOptions.Answer).
func (tx *Tx) keepAnswer(opt WriteOptions, res *WriteResult) error {
	if opt.Answer == nil || !tx.ClaimsKey() {
		return nil
	}
	body, err := opt.Answer(res)
	if err != nil {
		return err
	}
	tx.KeepAnswer(200, "application/json", body)
	return nil
}
