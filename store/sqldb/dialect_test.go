package sqldb

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestToPostgres(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`SELECT ?1, x FROM json_each(?2) WHERE y = ?1 AND z = ?`, `SELECT $1, x FROM json_each($2) WHERE y = $1 AND z = $3`},
		{`SELECT '?' || "col?" FROM t WHERE a = ?`, `SELECT '?' || "col?" FROM t WHERE a = $1`},
		{`INSERT INTO t (a) VALUES (?) ON CONFLICT DO NOTHING`, `INSERT INTO t (a) VALUES ($1) ON CONFLICT DO NOTHING`},
		{`SELECT CAST(value AS BIGINT) FROM json_each(?)`, `SELECT CAST(value AS BIGINT) FROM json_each($1)`},
	} {
		if got := toPostgres(c.in); got != c.want {
			t.Errorf("toPostgres(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestArgsLeaveTheCallersSliceAlone(t *testing.T) {
	in := []any{"a", true, false, int64(3)}
	out := PostgresDialect.Args(in)
	if out[1] != int64(1) || out[2] != int64(0) || out[0] != "a" || out[3] != int64(3) {
		t.Fatalf("args(%v) = %v", in, out)
	}
	if in[1] != true || in[2] != false {
		t.Fatalf("the caller's arguments changed: %v", in)
	}
	if got := SQLiteDialect.Args(in); &got[0] != &in[0] {
		t.Fatal("SQLite's arguments should pass through")
	}
}

// The store's SQL is written in words both engines read; what they spell differently goes
// through a method of dialect at the query site. Nothing rewrites SQLite's own spellings for
// PostgreSQL any more, so none may be left in a query.
func TestNoSQLiteOnlySpellings(t *testing.T) {
	only := regexp.MustCompile(`INSERT OR (IGNORE|REPLACE)|INDEXED BY|\bAS INTEGER\)|\bGLOB\b`)
	isNot := regexp.MustCompile(`\bIS NOT (\S+)`) // SQLite's IS NOT between values; IS NOT NULL, TRUE, FALSE are both engines'
	both := map[string]bool{"NULL": true, "TRUE": true, "FALSE": true, "DISTINCT": true}
	var files []string
	for _, dir := range []string{".", "../recordset", ".."} {
		m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		files = append(files, m...)
	}
	if len(files) < 60 {
		t.Fatalf("found %d store files; the walk lost its way", len(files))
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_sqlite.go") || f == "dialect.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			m := isNot.FindStringSubmatch(code)
			if only.MatchString(code) || (m != nil && !both[strings.TrimRight(m[1], ")`,")]) {
				t.Errorf("%s:%d: SQLite's own spelling in a query both engines run: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

func TestDialectSpellings(t *testing.T) {
	if SQLiteDialect.Like() != " LIKE " || PostgresDialect.Like() != " ILIKE " {
		t.Error("like")
	}
	if SQLiteDialect.IndexedBy("i") != " INDEXED BY i" || PostgresDialect.IndexedBy("i") != "" {
		t.Error("indexedBy")
	}
	if SQLiteDialect.CollateC("v") != "v" || PostgresDialect.CollateC("v") != `v COLLATE "C"` {
		t.Error("collateC")
	}
}
