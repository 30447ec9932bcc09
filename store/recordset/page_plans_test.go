package recordset_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/recordset/stored"
	"github.com/sluice/sluice/store/sqldb"
)

// A page's records and versions are read by key through their indexes however small the
// tables: PostgreSQL planned `rid IN (SELECT … FROM jsonb_array_elements_text(…))` as a scan
// of every record of every sheet under ~100,000 records (sqldb.Dialect.InInts).
func TestRecordsByKeyUseTheIndex(t *testing.T) {
	e := mustOpenDB(t)
	if !e.db.Postgres() {
		t.Skip("PostgreSQL's plans")
	}
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "Plans", Fields: []model.Field{{Key: "a", Type: model.FieldString}}})
	var in []map[string]any
	for i := range 3000 {
		in = append(in, map[string]any{"a": fmt.Sprintf("value %d", i)})
	}
	e.mustInsert(t, sh, rows(in...))
	if err := e.db.ExecForTest(t.Context(), `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	keys := func(q string) string {
		var ks []int64
		err := sqldb.EachRow(t.Context(), e.db.Reader, "keys", q, nil, func(rows *sql.Rows) error {
			var k int64
			ks = append(ks, k)
			return rows.Scan(&ks[len(ks)-1])
		})
		if err != nil {
			t.Fatal(err)
		}
		return stored.RIDsJSON(ks)
	}
	// (The versions' statement is the same form; their table holds a row a write, too few
	// here for an index to beat a scan.)
	for _, q := range recordset.PageByKeySQL(sqldb.PostgresDialect)[:1] {
		var plan []string
		err := sqldb.EachRow(t.Context(), e.db.Reader, "explain", "EXPLAIN "+q, []any{keys(`SELECT rid FROM records ORDER BY rid DESC LIMIT 100`)}, func(rows *sql.Rows) error {
			var line string
			err := rows.Scan(&line)
			plan = append(plan, line)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(plan, "\n"); strings.Contains(text, "Seq Scan") || !strings.Contains(text, "Index") {
			t.Errorf("%s\nis planned as\n%s", q, text)
		}
	}
}
