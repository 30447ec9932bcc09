package recordset_test

import (
	"fmt"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
)

// Deep pages of a whole sheet start from anchors a node keeps: they must show exactly what
// skipping from the start shows, after inserts, deletes and edits, also when another
// handle on the database (another node) made the change.
func TestDeepPagesFollowInsertsAndDeletes(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "N", Fields: []model.Field{{Key: "n", Type: model.FieldNumber}}})
	const total = 25050
	var ids []string
	for start := 0; start < total; start += 5000 {
		var in []map[string]any
		for i := start; i < min(start+5000, total); i++ {
			in = append(in, map[string]any{"n": i})
		}
		for _, r := range e.mustInsert(t, sh, rows(in...)).Records {
			ids = append(ids, r.ID)
		}
	}
	// first returns the n of a page's first and last records, and its length.
	first := func(db *store.DB, page int) string {
		t.Helper()
		recs, _, err := db.GetRecords(t.Context(), e.account, sh, recordset.RecordQuery{Page: model.Page{Size: 100, Number: page}}, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 {
			return "empty"
		}
		return fmt.Sprintf("%s..%s (%d)", value(recs[0], "n"), value(recs[len(recs)-1], "n"), len(recs))
	}
	for page, want := range map[int]string{1: "0..99 (100)", 101: "10000..10099 (100)", 201: "20000..20099 (100)", 251: "25000..25049 (50)", 252: "empty", 400: "empty"} {
		if got := first(e.db, page); got != want {
			t.Errorf("page %d: %s, want %s", page, got, want)
		}
	}
	// Five records before the first anchor go: every later page moves by five.
	if _, err := e.db.DeleteRecords(t.Context(), sh, ids[10:15], recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	if got := first(e.db, 201); got != "20005..20104 (100)" {
		t.Fatalf("after deleting five: page 201 is %s", got)
	}
	// An edit moves nothing.
	e.mustUpdate(t, sh, set(ids[20010], map[string]any{"n": -1}))
	if got := first(e.db, 201); got != "20005..20104 (100)" {
		t.Fatalf("after an edit: page 201 is %s", got)
	}
	// Another node deletes and inserts: this node's anchors follow.
	other, err := store.OpenDSN(e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.DeleteRecords(t.Context(), sh, ids[9990:10000], recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	if got := first(e.db, 201); got != "20015..20114 (100)" {
		t.Fatalf("after another node deleted ten: page 201 is %s", got)
	}
	if _, err := other.InsertRecords(t.Context(), sh, rows(map[string]any{"n": 99999}), recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	if got := first(e.db, 251); got != "25015..99999 (36)" {
		t.Fatalf("after another node inserted one: page 251 is %s", got)
	}
}
