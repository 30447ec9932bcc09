package recordset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// A search or filter of a big SQLite sheet reads its two halves at once: every page, either
// direction, and every count (capped or not) is what one scan gives.
func TestSplitScansAnswerAsOneScan(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "S", Fields: []model.Field{{Key: "name", Type: model.FieldString}, {Key: "age", Type: model.FieldNumber}}})
	r := rand.New(rand.NewPCG(3, 4))
	var in []map[string]any
	for i := range 500 {
		in = append(in, map[string]any{"name": fmt.Sprintf("%s%d", []string{"ann", "bob", "Annika", "zed"}[r.IntN(4)], i), "age": r.IntN(100)})
	}
	ids := e.mustInsert(t, sh, rows(in...)).Records
	// holes in the keys
	var gone []string
	for i := 0; i < len(ids); i += 7 {
		gone = append(gone, ids[i].ID)
	}
	if _, err := e.db.DeleteRecords(t.Context(), sh, gone, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	answer := func(q recordset.RecordQuery) ([]string, int64) {
		recs, n, err := e.db.GetRecords(t.Context(), e.account, sh, q, true)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, rec := range recs {
			out = append(out, rec.ID)
		}
		return out, n
	}
	for _, base := range []recordset.RecordQuery{{SearchValue: "ann"}, {SearchValue: "zed1"}, {Q: `age gt 50`}, {Q: `age lt 3`, SearchValue: "a"}, {SearchValue: "nobody"}, {SearchValue: "ann", Filter: "valid"}} {
		for _, desc := range []bool{false, true} {
			for _, page := range []model.Page{{Size: 10, Number: 1}, {Size: 10, Number: 4}, {Size: 50, Number: 3}, {Size: 1000, Number: 1}, {Size: 7, Number: 30}} {
				for _, cap := range []int{0, 5, 1000} {
					q := base
					q.SortDesc, q.Page, q.CountCap = desc, page, cap
					undo := recordset.SetSplitMin(1 << 40)
					want, wantN := answer(q)
					undo()
					undo = recordset.SetSplitMin(10)
					got, gotN := answer(q)
					undo()
					if !slices.Equal(got, want) || gotN != wantN {
						t.Fatalf("%+v: split %v (%d), one scan %v (%d)", q, got, gotN, want, wantN)
					}
				}
			}
		}
	}
}
