package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sluice/sluice/ffql"
)

// dialect is the SQL engine behind a DB. The store's queries are written once, in SQLite's
// words; for PostgreSQL each is rewritten once (and cached) by rebind: numbered parameters,
// INSERT OR IGNORE as ON CONFLICT DO NOTHING, LIKE as ILIKE (SQLite's LIKE ignores ASCII
// case). SQLite's json_each, json_extract and instr exist in PostgreSQL as functions the
// PostgreSQL migrations create.
type dialect uint8

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// pool is a database/sql pool that speaks the store's SQL in its dialect.
type pool struct {
	*sql.DB
	d dialect
}

// QueryContext runs a query in the pool's dialect.
func (p *pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.DB.QueryContext(ctx, p.d.rebind(query), p.d.args(args)...)
}

// QueryRowContext runs a one-row query in the pool's dialect.
func (p *pool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.DB.QueryRowContext(ctx, p.d.rebind(query), p.d.args(args)...)
}

// ExecContext runs a statement in the pool's dialect.
func (p *pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.DB.ExecContext(ctx, p.d.rebind(query), p.d.args(args)...)
}

// BeginTx starts a transaction that speaks the pool's dialect. A PostgreSQL transaction
// keeps its connection at hand so it can also COPY rows in (copyFrom).
func (p *pool) BeginTx(ctx context.Context, opts *sql.TxOptions) (*dtx, error) {
	if p.d != postgresDialect {
		tx, err := p.DB.BeginTx(ctx, opts)
		if err != nil {
			return nil, err
		}
		return &dtx{Tx: tx, d: p.d}, nil
	}
	conn, err := p.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, opts)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &dtx{Tx: tx, d: p.d, conn: conn}, nil
}

func (p *pool) dialect() dialect { return p.d }

// dtx is a transaction that speaks the store's SQL in its dialect.
type dtx struct {
	*sql.Tx
	d    dialect
	conn *sql.Conn // PostgreSQL: the transaction's connection, back to the pool when it ends
}

// Commit commits the transaction and gives its connection back.
func (t *dtx) Commit() error {
	err := t.Tx.Commit()
	t.release()
	return err
}

// Rollback abandons the transaction (a no-op after Commit) and gives its connection back.
func (t *dtx) Rollback() error {
	err := t.Tx.Rollback()
	t.release()
	return err
}

func (t *dtx) release() {
	if t.conn != nil {
		t.conn.Close()
		t.conn = nil
	}
}

// copyFrom streams rows into table's columns with PostgreSQL's COPY, inside the
// transaction: one stream and no statement to parse, where a multi-row INSERT binds
// every value as a parameter. fill puts the i-th of n rows' values (one per column) in row.
func (t *dtx) copyFrom(ctx context.Context, table string, cols []string, n int, fill func(i int, row []any)) error {
	if t.conn == nil {
		return errors.New("copy needs a PostgreSQL transaction")
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

// QueryContext runs a query in the transaction.
func (t *dtx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.Tx.QueryContext(ctx, t.d.rebind(query), t.d.args(args)...)
}

// QueryRowContext runs a one-row query in the transaction.
func (t *dtx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.Tx.QueryRowContext(ctx, t.d.rebind(query), t.d.args(args)...)
}

// ExecContext runs a statement in the transaction.
func (t *dtx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.Tx.ExecContext(ctx, t.d.rebind(query), t.d.args(args)...)
}

// PrepareContext prepares a statement in the transaction; its arguments are still the
// caller's, so PostgreSQL's are normalized by stmtArgs.
func (t *dtx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.Tx.PrepareContext(ctx, t.d.rebind(query))
}

func (t *dtx) dialect() dialect { return t.d }

// typing is how the dialect's record values are tested (ffql).
func (d dialect) typing() ffql.Typing {
	if d == postgresDialect {
		return ffql.Postgres
	}
	return ffql.SQLite
}

// stmtArgs adapts arguments for a prepared statement of the transaction.
func (t *dtx) stmtArgs(args []any) []any { return t.d.args(args) }

// args adapts Go values to the dialect: PostgreSQL keeps SQLite's integer flags as BIGINT,
// so booleans travel as 0 and 1. The caller's slice is left as it was (callers reuse their
// arguments, e.g. as a sort cache key).
func (d dialect) args(args []any) []any {
	if d != postgresDialect {
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

var (
	indexedBy = regexp.MustCompile(` INDEXED BY \w+`)
	isNotNull = regexp.MustCompile(` IS NOT NULL\b`)
)

// rebound caches rewritten queries (SQLite text → PostgreSQL text). Query texts built from
// a request (filters, field counts) vary, so it keeps at most reboundMax of them; the rest
// are rewritten each time.
var (
	rebound      sync.Map
	reboundCount atomic.Int64
)

const reboundMax = 4096

// rebind rewrites a query written for SQLite into the dialect.
func (d dialect) rebind(q string) string {
	if d != postgresDialect {
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

// toPostgres rewrites parameters (? and ?N become $N, as SQLite numbers them: a bare ? is one
// more than the largest number so far) outside quoted text, and SQLite's spellings
// PostgreSQL lacks.
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
	out := b.String()
	if strings.Contains(out, "INSERT OR IGNORE INTO") {
		out = strings.Replace(out, "INSERT OR IGNORE INTO", "INSERT INTO", 1) + " ON CONFLICT DO NOTHING"
	}
	out = strings.ReplaceAll(out, " LIKE ", " ILIKE ")
	out = strings.ReplaceAll(out, " AS INTEGER)", " AS BIGINT)") // SQLite's integers are 64-bit
	out = indexedBy.ReplaceAllString(out, "")                    // PostgreSQL's planner picks
	// SQLite's IS NOT between two values is PostgreSQL's IS DISTINCT FROM
	out = isNotNull.ReplaceAllString(out, "\x00")
	out = strings.ReplaceAll(out, " IS NOT ", " IS DISTINCT FROM ")
	out = strings.ReplaceAll(out, "\x00", " IS NOT NULL")
	return out
}
