package recordset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// A kept sorted order follows small writes by placing the records they changed (edited,
// added, deleted, made valid or invalid, duplicates flipped) instead of being computed
// again; every page then reads as a fresh sort does. A big write drops it.
func TestKeptOrdersPatchedBySmallWrites(t *testing.T) {
	// Orders sorted by SQL, and (SQLite) orders tallied (sort_tally.go) that the
	// database's comparisons then patch: the two must agree.
	for _, tallyMin := range []int64{sqldb.DefaultTallyMin, 1} {
		t.Run(fmt.Sprint("tally min ", tallyMin), func(t *testing.T) {
			keptOrdersPatchedBySmallWrites(t, tallyMin)
		})
	}
}

func keptOrdersPatchedBySmallWrites(t *testing.T, tallyMin int64) {
	e := mustOpenDB(t)
	e.db.Reconfigure(func(s *sqldb.Settings) { s.TallyMin = tallyMin })
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "P", Fields: []model.Field{
		{Key: "name", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "required"}}},
		{Key: "email", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
		{Key: "age", Type: model.FieldNumber},
	}})
	r := rand.New(rand.NewPCG(7, 8))
	names := []any{"Ann", "bob", "Cy", "", "Dée", "ann", "Zed", "10", 7}
	record := func() map[string]any {
		return map[string]any{"name": names[r.IntN(len(names))], "email": fmt.Sprintf("u%d@x.io", r.IntN(400)), "age": []any{r.IntN(90), "old", "", 2.5}[r.IntN(4)]}
	}
	var in []map[string]any
	for range 300 {
		in = append(in, record())
	}
	var ids []string
	for _, rec := range e.mustInsert(t, sh, rows(in...)).Records {
		ids = append(ids, rec.ID)
	}
	// (as many as the store keeps orders)
	queries := []recordset.RecordQuery{
		{SortField: "name"},
		{SortField: "age", SortDesc: true, Q: `age gt 40`},
		{SortField: "email", Filter: "valid"},
		{SortField: "name", Filter: "error", SearchValue: "u1"},
	}
	pageOf := func(db *store.DB, q recordset.RecordQuery, n int) []string {
		q.Page = model.Page{Size: 20, Number: n}
		recs, _, err := db.GetRecords(t.Context(), e.account, sh, q, false)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, rec := range recs {
			out = append(out, rec.ID)
		}
		return out
	}
	check := func(step string) {
		t.Helper()
		// A handle of its own, with no kept orders: what a sort says now.
		fresh, err := store.OpenDSN(e.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		for _, q := range queries {
			for _, n := range []int{1, 2, 5, 9, 16} {
				if got, want := pageOf(e.db, q, n), pageOf(fresh, q, n); !slices.Equal(got, want) {
					t.Fatalf("%s: %+v page %d:\n kept  %v\n fresh %v", step, q, n, got, want)
				}
			}
		}
	}
	check("computed")
	before := e.db.PatchedOrdersForTest()
	for round := range 12 {
		switch round % 4 {
		case 0:
			e.mustUpdate(t, sh, set(ids[r.IntN(len(ids))], record()), set(ids[r.IntN(len(ids))], map[string]any{"name": ""}))
		case 1:
			ids = append(ids, e.mustInsert(t, sh, rows(record(), record())).Records[0].ID)
		case 2:
			i := r.IntN(len(ids))
			if _, err := e.db.DeleteRecords(t.Context(), sh, []string{ids[i]}, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
				t.Fatal(err)
			}
			ids = slices.Delete(ids, i, i+1)
		case 3:
			// a duplicate made and another one undone: their twins flip valid
			e.mustUpdate(t, sh, set(ids[r.IntN(len(ids))], map[string]any{"email": "u1@x.io"}), set(ids[r.IntN(len(ids))], map[string]any{"email": fmt.Sprintf("new%d@x.io", round)}))
		}
		check(fmt.Sprintf("after write %d", round))
	}
	if e.db.PatchedOrdersForTest() == before {
		t.Fatal("no kept order was patched: every write made them be computed again")
	}
	// A write of more records than a patch takes drops the orders; pages stay exact.
	var many []recordset.RecordIn
	for _, id := range ids[:60] {
		many = append(many, set(id, map[string]any{"age": r.IntN(90)}))
	}
	e.mustUpdate(t, sh, many...)
	patched := e.db.PatchedOrdersForTest()
	check("after a big write")
	if e.db.PatchedOrdersForTest() != patched {
		t.Fatal("an order was patched after a write of 60 records")
	}
}

// Pages read while small writes patch the order they come from: no race, and the order is
// exact once the writes stop (go test -race).
func TestKeptOrdersPatchedWhileRead(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "P", Fields: []model.Field{{Key: "n", Type: model.FieldNumber}}})
	var in []map[string]any
	for i := range 200 {
		in = append(in, map[string]any{"n": (i * 37) % 101})
	}
	var ids []string
	for _, rec := range e.mustInsert(t, sh, rows(in...)).Records {
		ids = append(ids, rec.ID)
	}
	page := func(db *store.DB, n int) []string {
		recs, _, err := db.GetRecords(t.Context(), e.account, sh, recordset.RecordQuery{SortField: "n", Page: model.Page{Size: 25, Number: n}}, false)
		if err != nil {
			t.Error(err)
			return nil
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.ID)
		}
		return out
	}
	page(e.db, 1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
				page(e.db, 1+i%8)
			}
		}
	}()
	for i := range 20 {
		e.mustUpdate(t, sh, set(ids[(i*13)%len(ids)], map[string]any{"n": 200 - i}))
	}
	close(stop)
	<-done
	fresh, err := store.OpenDSN(e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	for n := 1; n <= 8; n++ {
		if got, want := page(e.db, n), page(fresh, n); !slices.Equal(got, want) {
			t.Fatalf("page %d after the writes:\n kept  %v\n fresh %v", n, got, want)
		}
	}
}
