package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sluice/sluice/ffql"
)

// Dialect is the SQL engine behind a DB. The store's queries are written once, in words
// both engines read; for PostgreSQL only their parameters are rewritten (rebind), and
// spellings that differ are the dialect's methods at the query site. SQLite's json_each,
// json_extract and instr exist in PostgreSQL as functions the PostgreSQL migrations create.
type Dialect uint8

const (
	SQLiteDialect Dialect = iota
	PostgresDialect
)

// Pool is a database/sql pool that speaks the store's SQL in its dialect.
type Pool struct {
	*sql.DB
	d   Dialect
	set *Settings // the DB's
}

// QueryContext runs a query in the pool's dialect.
func (p *Pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.DB.QueryContext(ctx, p.d.Rebind(query), p.d.Args(args)...)
}

// QueryRowContext runs a one-row query in the pool's dialect.
func (p *Pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.DB.QueryRowContext(ctx, p.d.Rebind(query), p.d.Args(args)...)
}

// ExecContext runs a statement in the pool's dialect.
func (p *Pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.DB.ExecContext(ctx, p.d.Rebind(query), p.d.Args(args)...)
}

// BeginTx starts a transaction that speaks the pool's dialect. On PostgreSQL it runs on a
// connection of its own (copyFrom and batches need it), and its BEGIN is held back (Later):
// it goes with the transaction's first statement, in one round trip.
func (p *Pool) BeginTx(ctx context.Context) (*dtx, error) {
	if p.d != PostgresDialect {
		tx, err := p.DB.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		return &dtx{stx: tx, q: tx, d: p.d, set: p.set}, nil
	}
	conn, err := p.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &dtx{q: conn, d: p.d, set: p.set, conn: conn, held: []heldStmt{{what: "begin transaction", query: beginStmt}}}, nil
}

func (p *Pool) Dialect() Dialect { return p.d }

func (p *Pool) Settings() *Settings { return p.set }

// dtx is a transaction that speaks the store's SQL in its dialect: a database/sql
// transaction on SQLite; on PostgreSQL a connection on which it sends BEGIN and COMMIT
// itself, each with other statements (Later), so neither costs a round trip of its own.
type dtx struct {
	stx *sql.Tx // SQLite
	// q runs the statements: stx, or conn (which keeps answering, with an error, once the
	// transaction has ended).
	q interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	}
	d    Dialect
	set  *Settings
	conn *sql.Conn // PostgreSQL: the transaction's connection, back to the pool when it ends
	// held are statements Later held back, sent with the next statement (PostgreSQL);
	// heldErr is the failure of one of them, which every statement after it answers.
	held    []heldStmt
	heldErr error
}

// beginStmt begins a PostgreSQL transaction: held back until its first statement.
const beginStmt = "begin"

// heldStmt is a statement held back (Later), rebound and with its arguments adapted; dest
// receives its one row (LaterScan), or row is called for each (LaterRows).
type heldStmt struct {
	what, query string
	args, dest  []any
	row         func(scan func(dest ...any) error) error
}

// Later runs a statement whose outcome the caller does not need but its error: on SQLite
// at once; on PostgreSQL it is held back and sent in one round trip with the transaction's
// next statement (an Exec goes in the same batch; a query follows it) or its commit. A small
// write is mostly round trips on PostgreSQL, so the upkeep statements a write ends with
// cost one instead of one each. If it fails, the statement that sent it and every one after
// it in the transaction fail with its error (named by what), and so does the commit.
func (t *dtx) Later(ctx context.Context, what, query string, args ...any) error {
	return t.LaterScan(ctx, what, query, nil, args...)
}

// LaterScan is Later for a statement that returns one row, scanned into dest when it is sent
// (at once on SQLite): dest is filled only after the next statement, Flush or the commit.
func (t *dtx) LaterScan(ctx context.Context, what, query string, dest []any, args ...any) error {
	return t.hold(heldStmt{what: what, query: query, args: args, dest: dest}, func(q string, a []any) error {
		if dest != nil {
			return t.stx.QueryRowContext(ctx, q, a...).Scan(dest...)
		}
		_, err := t.stx.ExecContext(ctx, q, a...)
		return err
	})
}

// LaterRows is Later for a query whose rows the caller reads: row is called for each, with
// the function that scans it, when the query is sent (at once on SQLite).
func (t *dtx) LaterRows(ctx context.Context, what, query string, row func(scan func(dest ...any) error) error, args ...any) error {
	return t.hold(heldStmt{what: what, query: query, args: args, row: row}, func(q string, a []any) error {
		rows, err := t.stx.QueryContext(ctx, q, a...)
		if err != nil {
			return err
		}
		for rows.Next() && err == nil {
			err = row(rows.Scan)
		}
		if err == nil {
			err = rows.Err()
		}
		_ = rows.Close()
		return err
	})
}

// hold holds s back (PostgreSQL), rebound and with its arguments adapted, or runs it at once
// with now (SQLite); either way a failure names s.
func (t *dtx) hold(s heldStmt, now func(query string, args []any) error) error {
	s.query, s.args = t.d.Rebind(s.query), t.d.Args(s.args)
	if t.conn == nil {
		if err := now(s.query, s.args); err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
		return nil
	}
	if t.heldErr != nil {
		return t.heldErr
	}
	t.held = append(t.held, s)
	return nil
}

// sendHeld sends the held statements, then next if there is one, in one round trip
// (pgx batch) and returns next's command tag. A held statement's failure sticks to the
// transaction (PostgreSQL has aborted it); next's is only returned.
func (t *dtx) sendHeld(ctx context.Context, next *heldStmt) (pgconn.CommandTag, error) {
	if t.heldErr != nil {
		return pgconn.CommandTag{}, t.heldErr
	}
	stmts := t.held
	t.held = nil
	if next != nil {
		stmts = append(stmts, *next)
	}
	var tag pgconn.CommandTag
	var heldErr error
	err := t.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("batch: unexpected driver connection %T", dc)
		}
		b := &pgx.Batch{}
		for _, s := range stmts {
			b.Queue(s.query, s.args...)
		}
		br := c.Conn().SendBatch(ctx, b)
		for i, s := range stmts {
			var err error
			switch {
			case s.row != nil:
				var rows pgx.Rows
				if rows, err = br.Query(); err == nil {
					for rows.Next() && err == nil {
						err = s.row(rows.Scan)
					}
					rows.Close()
					if err == nil {
						err = rows.Err()
					}
				}
			case s.dest != nil:
				err = br.QueryRow().Scan(s.dest...)
			default:
				tag, err = br.Exec()
			}
			if err != nil {
				_ = br.Close()
				if next == nil || i < len(stmts)-1 {
					heldErr = fmt.Errorf("%s: %w", s.what, err)
					return heldErr
				}
				return err
			}
		}
		return br.Close()
	})
	if heldErr != nil {
		t.heldErr = heldErr
	}
	return tag, err
}

// flush sends the held statements, if any, before a statement that is not batched with
// them.
func (t *dtx) flush(ctx context.Context) error {
	if len(t.held) == 0 {
		return t.heldErr
	}
	_, err := t.sendHeld(ctx, nil)
	return err
}

// Commit sends what is held back and commits the transaction, in one round trip on
// PostgreSQL, then gives its connection back.
func (t *dtx) Commit() error {
	if t.conn == nil {
		return t.stx.Commit()
	}
	defer t.release()
	if len(t.held) == 1 && t.held[0].query == beginStmt {
		return nil // nothing was sent: nothing to commit
	}
	tag, err := t.sendHeld(context.Background(), &heldStmt{what: "commit", query: "commit"})
	if err == nil && tag.String() == "ROLLBACK" { // a statement of it had failed
		err = errors.New("the transaction was rolled back")
	}
	return err
}

// Rollback abandons the transaction (a no-op after Commit) and gives its connection back.
func (t *dtx) Rollback() error {
	if t.conn == nil {
		if t.stx == nil {
			return nil
		}
		return t.stx.Rollback()
	}
	t.held = nil
	t.release()
	return nil
}

// WriteAgainSQL is the expression that fails a PostgreSQL transaction sent on a guess (its
// statements held back to go with the commit, each deciding nothing the write reads back)
// when the guess, named by what, turned out wrong: see WriteAgain.
func WriteAgainSQL(what string) string { return `sluice_write_again('` + what + `')` }

// writeAgainCode is the SQLSTATE of sluice_write_again (postgres/051_write_again.sql).
const writeAgainCode = "SLW01"

// WriteAgain reports whether err ended a write whose guess was wrong (WriteAgainSQL): the
// transaction is rolled back and the write should run again without guessing.
func WriteAgain(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == writeAgainCode
}

// release ends what the connection still has open (a transaction that failed, or was
// abandoned) and gives it back; a connection that cannot roll back is closed instead (the
// driver will not hand out a connection inside a transaction).
func (t *dtx) release() {
	if t.conn == nil {
		return
	}
	_ = t.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok || c.Conn().PgConn().TxStatus() == 'I' {
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := c.Conn().Exec(ctx, "rollback"); err != nil {
			return driver.ErrBadConn
		}
		return nil
	})
	t.conn.Close()
	t.conn = nil
}

// CopyFrom streams rows into table's columns with PostgreSQL's COPY, inside the
// transaction: one stream and no statement to parse, where a multi-row INSERT binds
// every value as a parameter. fill puts the i-th of n rows' values (one per column) in row.
func (t *dtx) CopyFrom(ctx context.Context, table string, cols []string, n int, fill func(i int, row []any)) error {
	if t.conn == nil {
		return errors.New("copy needs a PostgreSQL transaction")
	}
	if err := t.flush(ctx); err != nil { // (outside Raw: it takes the connection too)
		return err
	}
	return t.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("copy: unexpected driver connection %T", dc)
		}
		row, i := make([]any, len(cols)), 0
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			fill(i, row)
			i++
			return row, nil
		}))
		return err
	})
}

// QueryContext runs a query in the transaction (after what is held back).
func (t *dtx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.q.QueryContext(ctx, t.d.Rebind(query), t.d.Args(args)...)
}

// QueryRowContext runs a one-row query in the transaction (after what is held back; if that
// failed, so does the query: PostgreSQL has aborted the transaction, and the commit reports
// why).
func (t *dtx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	_ = t.flush(ctx)
	return t.q.QueryRowContext(ctx, t.d.Rebind(query), t.d.Args(args)...)
}

// QueryRowScan runs a one-row query in the transaction and scans it into dest, in one round
// trip with what is held back. No row: an error that is sql.ErrNoRows.
func (t *dtx) QueryRowScan(ctx context.Context, query string, dest []any, args ...any) error {
	if len(t.held) > 0 {
		_, err := t.sendHeld(ctx, &heldStmt{query: t.d.Rebind(query), args: t.d.Args(args), dest: dest})
		return err
	}
	if t.heldErr != nil {
		return t.heldErr
	}
	return t.q.QueryRowContext(ctx, t.d.Rebind(query), t.d.Args(args)...).Scan(dest...)
}

// ExecContext runs a statement in the transaction, in one round trip with what is held back.
func (t *dtx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if len(t.held) > 0 {
		tag, err := t.sendHeld(ctx, &heldStmt{query: t.d.Rebind(query), args: t.d.Args(args)})
		if err != nil {
			return nil, err
		}
		return driver.RowsAffected(tag.RowsAffected()), nil
	}
	if t.heldErr != nil {
		return nil, t.heldErr
	}
	return t.q.ExecContext(ctx, t.d.Rebind(query), t.d.Args(args)...)
}

func (t *dtx) Dialect() Dialect { return t.d }

func (t *dtx) Settings() *Settings { return t.set }

// Typing is how the dialect's record values are tested (ffql).
func (d Dialect) Typing() ffql.Typing {
	if d == PostgresDialect {
		return ffql.Postgres
	}
	return ffql.SQLite
}

// Args adapts Go values to the dialect: PostgreSQL keeps SQLite's integer flags as BIGINT,
// so booleans travel as 0 and 1. The caller's slice is left as it was (callers reuse their
// arguments, e.g. as a sort cache key).
func (d Dialect) Args(args []any) []any {
	if d != PostgresDialect {
		return args
	}
	var out []any
	for i, a := range args {
		b, ok := a.(bool)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = int64(0)
		if b {
			out[i] = int64(1)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// Capabilities: where the engines differ in what is fast or what exists, the code asks the
// dialect by name; what only one engine does lives in that engine's *_sqlite.go or
// *_postgres.go file.

// Notifies: a commit that wrote events tells every node's event stream at once (NOTIFY;
// SQLite's one process polls).
func (d Dialect) Notifies() bool { return d == PostgresDialect }

// JSONB: record values are jsonb (PostgreSQL), taken apart with ->, ->> and jsonb's own
// functions, rather than JSON text read with json_extract and json_each (SQLite).
func (d Dialect) JSONB() bool { return d == PostgresDialect }

// Copies: bulk rows go in with COPY (PostgreSQL), not multi-row INSERTs.
func (d Dialect) Copies() bool { return d == PostgresDialect }

// KeepsTallyPacks: writes keep tally packs beside the records (PostgreSQL,
// tally_packs_postgres.go), which go wherever the records' values go.
func (d Dialect) KeepsTallyPacks() bool { return d == PostgresDialect }

// AsyncCommit: a job's intermediate commits may skip waiting for the disk (PostgreSQL's
// synchronous_commit; SQLite's single writer gains nothing from it).
func (d Dialect) AsyncCommit() bool { return d == PostgresDialect }

// WindowsBatches: a batch of records passing a filter is read a window of keys at a time;
// PostgreSQL's planner otherwise reads and sorts every key after the last batch for each
// batch (a find & replace over 1,000,000 records: 41 s).
func (d Dialect) WindowsBatches() bool { return d == PostgresDialect }

// FTSIndexes: a big sheet's search index is an FTS5 table built a slice at a time
// (SQLite, search_fts_sqlite.go); PostgreSQL's is a trigram index with Bloom filters
// before it (search_trgm_postgres.go, search_blooms_postgres.go).
func (d Dialect) FTSIndexes() bool { return d == SQLiteDialect }

// PgxRows: wide reads go through pgx's own rows, as they came over the wire (PostgreSQL);
// SQLite's through its driver's rows, without database/sql's copies.
func (d Dialect) PgxRows() bool { return d == PostgresDialect }

// JSONTexts is a table of one text column, value, with the elements of the JSON array in
// param (a list of keys or strings the store sends): SQLite's json_each, PostgreSQL's own
// jsonb_array_elements_text rather than the json_each its compatibility functions define.
func (d Dialect) JSONTexts(param string) string {
	if d == PostgresDialect {
		return "jsonb_array_elements_text(CAST(" + param + " AS JSONB)) AS value"
	}
	return "json_each(" + param + ")"
}

// InInts is the condition that col is one of the integers of the JSON array in param
// (stored.RIDsJSON); InTexts of its strings. On PostgreSQL it is col = ANY(ARRAY(…)), not
// col IN (SELECT …): the planner then looks each key up in col's index whatever it guesses
// of the list's length, where it joined a function scan (guessed at 100 rows) to a scan of
// the whole table once the table was small enough to look cheaper — every page of 100
// records read all the records of every sheet under ~100,000 rows (6.5 ms instead of
// 0.15 for a page of 10,000 records; TestRecordsByKeyUseTheIndex).
func (d Dialect) InInts(col, param string) string {
	return d.in(col, "CAST(value AS BIGINT)", param)
}

// InTexts: see InInts.
func (d Dialect) InTexts(col, param string) string { return d.in(col, "value", param) }

func (d Dialect) in(col, value, param string) string {
	list := `SELECT ` + value + ` FROM ` + d.JSONTexts(param)
	if d == PostgresDialect {
		return col + ` = ANY(ARRAY(` + list + `))`
	}
	return col + ` IN (` + list + `)`
}

// JSONRows aggregates the rows of a query into one JSON array text of arrays, one per row
// with the values of exprs in order ("[]" for no row): a small list read in the same round
// trip as the row it belongs to.
func (d Dialect) JSONRows(exprs ...string) string {
	if d == PostgresDialect {
		return "COALESCE(json_agg(json_build_array(" + strings.Join(exprs, ", ") + ")), CAST('[]' AS JSON))"
	}
	return "json_group_array(json_array(" + strings.Join(exprs, ", ") + "))"
}

// RoundTrips: each statement costs a round trip to a server (PostgreSQL), so what a write
// reads besides its sheet is read with it (stored.LoadWrite); SQLite runs in the process,
// where the separate small queries cost less than the aggregates that gather them.
func (d Dialect) RoundTrips() bool { return d == PostgresDialect }

// NoLimit is the LIMIT that takes every row: SQLite's -1; PostgreSQL takes no negative.
func (d Dialect) NoLimit() int64 {
	if d == PostgresDialect {
		return math.MaxInt64
	}
	return -1
}

// AsJSON is a parameter's or column's JSON text as a stored value: jsonb on PostgreSQL,
// the text itself on SQLite.
func (d Dialect) AsJSON(expr string) string {
	if d == PostgresDialect {
		return "CAST(" + expr + " AS JSONB)"
	}
	return expr
}

// Contains is the condition that text haystack holds needle (SQLite's instr, PostgreSQL's
// strpos; both compare bytes).
func (d Dialect) Contains(haystack, needle string) string {
	if d == PostgresDialect {
		return "strpos(" + haystack + ", " + needle + ") > 0"
	}
	return "instr(" + haystack + ", " + needle + ") > 0"
}

// JSONField is the member at keys of the JSON text in column doc, as text: a string
// unquoted, a number's digits, an object or array as JSON text; NULL when missing or null.
// keys are the store's own constants, never input.
func (d Dialect) JSONField(doc string, keys ...string) string {
	if d == PostgresDialect {
		return "(CAST(" + doc + " AS JSONB) #>> '{" + strings.Join(keys, ",") + "}')"
	}
	return "json_extract(" + doc + ", '$." + strings.Join(keys, ".") + "')"
}

// JSONTrue is the condition that the member at keys of the JSON text in doc is true (or 1,
// which SQLite does not tell from true); false when missing.
func (d Dialect) JSONTrue(doc string, keys ...string) string {
	if d == PostgresDialect {
		return "COALESCE((CAST(" + doc + " AS JSONB) #> '{" + strings.Join(keys, ",") + "}') IN ('true'::jsonb, '1'::jsonb), false)"
	}
	return "COALESCE(CAST(json_extract(" + doc + ", '$." + strings.Join(keys, ".") + "') AS TEXT) = '1', 0)"
}

// JSONLength is the number of elements of the JSON array text in doc.
func (d Dialect) JSONLength(doc string) string {
	if d == PostgresDialect {
		return "jsonb_array_length(CAST(" + doc + " AS JSONB))"
	}
	return "json_array_length(" + doc + ")"
}

// Like is the match that folds ASCII case: SQLite's LIKE does, PostgreSQL's ILIKE (in the
// "C" collation, collateC) does the same.
func (d Dialect) Like() string {
	if d == PostgresDialect {
		return " ILIKE "
	}
	return " LIKE "
}

// CollateC puts text in the "C" collation on PostgreSQL, where ILIKE then folds ASCII case
// only, as SQLite's LIKE does (and scans faster); SQLite's text is compared bytewise already.
func (d Dialect) CollateC(expr string) string {
	if d == PostgresDialect {
		return expr + ` COLLATE "C"`
	}
	return expr
}

// IndexedBy makes SQLite's planner read a table through an index; PostgreSQL's planner
// picks its own.
func (d Dialect) IndexedBy(index string) string {
	if d == PostgresDialect {
		return ""
	}
	return " INDEXED BY " + index
}

// rebound caches rewritten queries (SQLite text → PostgreSQL text). Query texts built from
// a request (filters, field counts) vary, so it keeps at most reboundMax of them; the rest
// are rewritten each time.
var (
	rebound      sync.Map
	reboundCount atomic.Int64
)

const reboundMax = 4096

// Rebind turns a query's parameters into the dialect's.
func (d Dialect) Rebind(q string) string {
	if d != PostgresDialect {
		return q
	}
	if v, ok := rebound.Load(q); ok {
		return v.(string)
	}
	out := toPostgres(q)
	if reboundCount.Load() < reboundMax {
		if _, loaded := rebound.LoadOrStore(q, out); !loaded {
			reboundCount.Add(1)
		}
	}
	return out
}

// toPostgres rewrites parameters outside quoted text: ? and ?N become $N, as SQLite numbers
// them (a bare ? is one more than the largest number so far).
func toPostgres(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch c {
		case '\'', '"':
			j := i + 1
			for j < len(q) && q[j] != c {
				j++
			}
			if j >= len(q) {
				j = len(q) - 1
			}
			b.WriteString(q[i : j+1])
			i = j
		case '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			k := n + 1
			if j > i+1 {
				k, _ = strconv.Atoi(q[i+1 : j])
			}
			n = max(n, k)
			b.WriteString("$" + strconv.Itoa(k))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
