package recordset_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// countsSheet has two fields with more distinct values than a kept list holds (a unique
// code, whose duplicates make records invalid, and a number with some values that are not
// numbers) and one with few (kept as a list).
var countsSheet = model.SheetConfig{Name: "Counts", Fields: []model.Field{
	{Key: "code", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
	{Key: "num", Type: model.FieldNumber},
	{Key: "flag", Type: model.FieldBoolean},
}}

// checkCounted compares every field's values, as CellValues, the menu's TopCellValues and
// (with pages) pages by count and by value answer them, with a count of the records, for
// each filter the menu uses.
func checkCounted(t *testing.T, e *sheetEnv, sh, step string, pages bool) {
	t.Helper()
	checkValues(t, e, sh, step, countsSheet.Fields, func(key string, q recordset.RecordQuery, want []recordset.CellCount) {
		t.Helper()
		top, err := e.db.TopCellValues(t.Context(), e.account, sh, key, q, 7)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := listText(top), listText(want[:min(7, len(want))]); g != w {
			t.Fatalf("%s: field %s, filter %q, top 7:\n got  %s\n want %s", step, key, q.Filter, g, w)
		}
		if !pages {
			return
		}
		for _, p := range []recordset.CellsPage{{Offset: 5, Limit: 10}, {ByValue: true, Offset: 3, Limit: 10}, {ByValue: true, Desc: true, Limit: 12}, {ByValue: true, Offset: max(0, len(want)-4)}, {Offset: 2}, {Offset: 98, Limit: 10}, {Offset: 195, Limit: 10}, {Offset: max(0, len(want)-3), Limit: 5}, {Limit: len(want) + 1}} {
			page, err := e.db.CellValuesPage(t.Context(), e.account, sh, key, q, p)
			if err != nil {
				t.Fatal(err)
			}
			w := want
			if p.ByValue {
				w = byValue(want, p.Desc)
			}
			w = w[min(p.Offset, len(w)):]
			if p.Limit > 0 {
				w = w[:min(p.Limit, len(w))]
			}
			if g, w := listText(page), listText(w); g != w {
				t.Fatalf("%s: field %s, filter %q, page %+v:\n got  %s\n want %s", step, key, q.Filter, p, g, w)
			}
		}
	})
}

// byValue sorts values as the databases do: numbers (booleans as 1 and 0) by value, then
// text by its bytes.
func byValue(cs []recordset.CellCount, desc bool) []recordset.CellCount {
	key := func(c recordset.CellCount) (bool, float64, string) {
		switch v := string(c.Value); {
		case v == "true":
			return true, 1, ""
		case v == "false":
			return true, 0, ""
		}
		var n float64
		if json.Unmarshal(c.Value, &n) == nil {
			return true, n, ""
		}
		var s string
		if json.Unmarshal(c.Value, &s) != nil {
			s = string(c.Value)
		}
		return false, 0, s
	}
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b recordset.CellCount) int {
		an, ax, as := key(a)
		bn, bx, bs := key(b)
		c := 0
		switch {
		case an != bn && an:
			c = -1
		case an != bn:
			c = 1
		case an && ax != bx:
			c = cmp.Compare(ax, bx)
		default:
			c = strings.Compare(as, bs)
		}
		if desc {
			return -c
		}
		return c
	})
	return out
}

// waitCounted asks for the fields' values until both big fields are counted in
// value_counts (each request starts a build when none is running).
func waitCounted(t *testing.T, e *sheetEnv, sh string, want int) {
	t.Helper()
	sqldb.Eventually(t, fmt.Sprintf("not %d fields with counted values", want), func() bool {
		for _, k := range []string{"code", "num"} {
			if _, err := e.db.TopCellValues(t.Context(), e.account, sh, k, recordset.RecordQuery{}, 10); err != nil {
				t.Fatal(err)
			}
		}
		n, err := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values WHERE state = 2`)
		if err != nil {
			t.Fatal(err)
		}
		return n == want
	})
}

// Fields with too many values to keep get counted values once asked for, and every write
// keeps them exact: edits that make duplicates and undo them, deletes, inserts, undo. A
// write that changes more values than it writes one by one hands the field back to
// counting, and the next request builds its values again.
func TestCountedValuesFollowWrites(t *testing.T) {
	e := mustOpenDB(t)
	e.db.Reconfigure(func(s *sqldb.Settings) { s.ValueCountsMin = 1 })
	sh := e.mustCreateSheet(t, countsSheet)
	r := rand.New(rand.NewPCG(24, 11))
	value := func(i int) map[string]any {
		v := map[string]any{"code": fmt.Sprintf("c%05d", i%4400), "num": float64(i%4300) * 1.5, "flag": i%3 == 0}
		if i%97 == 0 {
			v["num"] = "n/a"
		}
		return v
	}
	var in []map[string]any
	for i := 0; i < 4500; i++ {
		in = append(in, value(i))
	}
	var ids []string
	for _, rec := range e.mustInsert(t, sh, rows(in...)).Records {
		ids = append(ids, rec.ID)
	}
	if n, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values WHERE state = 1`); n != 2 {
		t.Fatalf("%d fields with too many values to keep, want 2 (code and num)", n)
	}
	waitCounted(t, e, sh, 2)
	checkCounted(t, e, sh, "built", true)
	opt := recordset.WriteOptions{Actor: "us_usr_test", AccountID: e.account}
	for step := 0; step < 20; step++ {
		var what string
		switch op := r.IntN(6); {
		case op < 3:
			what = "update"
			var up []recordset.RecordIn
			for range 1 + r.IntN(4) {
				up = append(up, set(ids[r.IntN(len(ids))], value(r.IntN(6000))))
			}
			edit := opt
			edit.Undo = "edit"
			if _, err := e.db.UpdateRecords(t.Context(), sh, dedupe(up), edit); err != nil {
				t.Fatal(err)
			}
		case op == 3:
			what = "delete"
			i := r.IntN(len(ids))
			if _, err := e.db.DeleteRecords(t.Context(), sh, []string{ids[i]}, opt); err != nil {
				t.Fatal(err)
			}
			ids = append(ids[:i], ids[i+1:]...)
		case op == 4:
			what = "insert"
			for _, rec := range e.mustInsert(t, sh, rows(value(r.IntN(6000)), value(r.IntN(6000)))).Records {
				ids = append(ids, rec.ID)
			}
		default:
			what = "undo"
			_, _ = e.db.Undo(t.Context(), sh, opt) // nothing to undo is fine
		}
		checkCounted(t, e, sh, fmt.Sprintf("step %d (%s)", step, what), step%5 == 4)
	}
	if n, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values WHERE state = 2`); n != 2 {
		t.Fatalf("%d fields with counted values after small writes, want 2", n)
	}
	// An import-sized write: code gets 5,100 new values, more than a write changes one by one.
	in = in[:0]
	for i := 0; i < 5100; i++ {
		in = append(in, map[string]any{"code": fmt.Sprintf("new%05d", i), "num": 1, "flag": true})
	}
	big := e.mustInsert(t, sh, rows(in...))
	if n, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values WHERE state = 2`); n != 1 {
		t.Fatalf("%d fields with counted values after a big insert, want 1 (num)", n)
	}
	// Until code's values are counted again its pages are counted for each request: tallied
	// on a big sheet (distinct_tally.go, pages by count and by value kept to the page).
	e.db.Reconfigure(func(s *sqldb.Settings) { s.ValueCountsMin, s.TallyMin = 1<<40, 1 })
	checkCounted(t, e, sh, "after a big insert, tallied", true)
	e.db.Reconfigure(func(s *sqldb.Settings) { s.ValueCountsMin, s.TallyMin = 1, sqldb.DefaultTallyMin })
	checkCounted(t, e, sh, "after a big insert", true)
	waitCounted(t, e, sh, 2)
	checkCounted(t, e, sh, "built again", true)
	if n, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM (SELECT DISTINCT col, gen FROM value_counts) AS g`); n != 2 {
		t.Fatalf("rows of %d generations, want 2 (one a field): the first build of code is not cleared", n)
	}
	// Counts that stop adding up (a value's row removed behind the store's back) hand the
	// field back at the next write that removes the value; it is counted again when asked.
	if err := e.db.ExecForTest(t.Context(), `DELETE FROM value_counts WHERE v LIKE '%new00001%'`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.DeleteRecords(t.Context(), sh, []string{big.Records[1].ID}, opt); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values WHERE state = 2`); n != 1 {
		t.Fatalf("%d fields with counted values after counts stopped adding up, want 1 (num)", n)
	}
	checkCounted(t, e, sh, "after counts stopped adding up", true)
}

// A node's background builds hold their lock on a connection that is not a writer's: with
// a single writer connection (SLUICE_DB_WRITERS=1) a field's counted values are still built,
// written through that one connection.
func TestBuildsNeedOneWriter(t *testing.T) {
	e := mustOpenDB(t)
	e.db.Reconfigure(func(s *sqldb.Settings) { s.ValueCountsMin, s.WriterConns = 1, 1 })
	if e.db.Postgres() && e.db.Writer.Stats().MaxOpenConnections != 1 {
		t.Fatalf("the writers have %d connections, want 1", e.db.Writer.Stats().MaxOpenConnections)
	}
	sh := e.mustCreateSheet(t, countsSheet)
	var in []map[string]any
	for i := 0; i < 4500; i++ {
		in = append(in, map[string]any{"code": fmt.Sprintf("c%05d", i), "num": float64(i%4300) * 1.5})
	}
	e.mustInsert(t, sh, rows(in...))
	waitCounted(t, e, sh, 2)
}
