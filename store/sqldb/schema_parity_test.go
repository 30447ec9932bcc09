package sqldb

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// engineOnly are the tables one engine has and the other has not, each for a reason of
// that engine (docs/architecture.md, "The SQL dialects").
var engineOnly = map[string]string{
	"search_indexes": "sqlite",   // FTS5 indexes being built (PostgreSQL's trigram indexes need no table)
	"file_chunks":    "postgres", // files' bytes for every node (SQLite: the data directory)
	"search_blooms":  "postgres", // Bloom filters for searches before the trigram index
	"tally_packs":    "postgres", // values packed for tallies (jsonb is slow to take apart)
	"event_inbox":    "postgres", // events of commits side by side, numbered after (SequenceEvents)
}

// sqliteImplicit are columns PostgreSQL declares that SQLite has without declaring them.
var sqliteImplicit = map[string]bool{"outbox column rowid": true}

// Both engines' migrations make the same schema: the same migrations by name, and the same
// tables, columns and indexes, but for the engine-only tables above. Runs where
// SLUICE_TEST_DATABASE_URL names a PostgreSQL server (make test-pg, CI).
func TestSchemaParity(t *testing.T) {
	sqliteNames, err := migrations.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	pgNames, err := migrations.ReadDir("migrations/postgres")
	if err != nil {
		t.Fatal(err)
	}
	var a, b []string
	for _, e := range sqliteNames {
		if !e.IsDir() {
			a = append(a, e.Name())
		}
	}
	for _, e := range pgNames {
		b = append(b, e.Name())
	}
	if !slices.Equal(a, b) {
		t.Errorf("the migrations are not in step (a number needs a file on both sides, even one that does nothing):\nSQLite:     %v\nPostgreSQL: %v", a, b)
	}
	if !IsPostgresURL(os.Getenv("SLUICE_TEST_DATABASE_URL")) {
		t.Skip("the schemas are compared where SLUICE_TEST_DATABASE_URL names a PostgreSQL server")
	}
	lite, err := OpenDSN(filepath.Join(t.TempDir(), "parity.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := OpenDSN(TestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	got := map[string]map[string]bool{"sqlite": schemaOf(t, lite), "postgres": schemaOf(t, pg)}
	for _, side := range [][2]string{{"sqlite", "postgres"}, {"postgres", "sqlite"}} {
		for item := range got[side[0]] {
			table, _, _ := strings.Cut(item, " ")
			if engineOnly[table] == side[0] {
				continue
			}
			if !got[side[1]][item] && !(side[1] == "sqlite" && sqliteImplicit[item]) {
				t.Errorf("%s has %s, %s has not", side[0], item, side[1])
			}
		}
	}
}

// schemaOf lists a database's tables, columns and indexes as "table", "table column c" and
// "table index i" (indexes that constraints make are left out: their names differ by engine).
func schemaOf(t *testing.T, db *DB) map[string]bool {
	t.Helper()
	q := map[Dialect]string{
		SQLiteDialect: `SELECT m.name, 'column', c.name FROM sqlite_master m, pragma_table_info(m.name) c
			WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE 'records_search_%'
			UNION ALL SELECT tbl_name, 'index', name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`,
		PostgresDialect: `SELECT table_name, 'column', column_name FROM information_schema.columns WHERE table_schema = current_schema()
			UNION ALL SELECT i.tablename, 'index', i.indexname FROM pg_indexes i WHERE i.schemaname = current_schema()
			AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
	}[db.Reader.Dialect()]
	rows, err := db.Reader.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var table, kind, name string
		if err := rows.Scan(&table, &kind, &name); err != nil {
			t.Fatal(err)
		}
		out[table] = true
		out[fmt.Sprintf("%s %s %s", table, kind, name)] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
