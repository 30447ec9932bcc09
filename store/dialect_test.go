package store

import "testing"

func TestToPostgres(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`SELECT ?1, x FROM json_each(?2) WHERE y = ?1 AND z = ?`, `SELECT $1, x FROM json_each($2) WHERE y = $1 AND z = $3`},
		{`SELECT '?' || "col?" FROM t WHERE a = ?`, `SELECT '?' || "col?" FROM t WHERE a = $1`},
		{`INSERT OR IGNORE INTO t (a) VALUES (?)`, `INSERT INTO t (a) VALUES ($1) ON CONFLICT DO NOTHING`},
		{`SELECT 1 FROM r INDEXED BY r_errors WHERE a IS NOT b AND c IS NOT NULL AND d LIKE ?`, `SELECT 1 FROM r WHERE a IS DISTINCT FROM b AND c IS NOT NULL AND d ILIKE $1`},
		{`SELECT NULLIF(a, 1) IS NOT NULLIF(b, 1)`, `SELECT NULLIF(a, 1) IS DISTINCT FROM NULLIF(b, 1)`},
		{`SELECT CAST(value AS INTEGER) FROM json_each(?)`, `SELECT CAST(value AS BIGINT) FROM json_each($1)`},
	} {
		if got := toPostgres(c.in); got != c.want {
			t.Errorf("toPostgres(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestArgsLeaveTheCallersSliceAlone(t *testing.T) {
	in := []any{"a", true, false, int64(3)}
	out := postgresDialect.args(in)
	if out[1] != int64(1) || out[2] != int64(0) || out[0] != "a" || out[3] != int64(3) {
		t.Fatalf("args(%v) = %v", in, out)
	}
	if in[1] != true || in[2] != false {
		t.Fatalf("the caller's arguments changed: %v", in)
	}
	if got := sqliteDialect.args(in); &got[0] != &in[0] {
		t.Fatal("SQLite's arguments should pass through")
	}
}
