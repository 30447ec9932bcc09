package recordset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// The tally (distinct_tally.go) counts a field's distinct values as SQL's GROUP BY does:
// the same values, counts and order, whole and as the first values of the most frequent,
// over the whole sheet and filtered, across holes in the keys and many slices.
func TestTalliedValuesAsGrouped(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "S", Fields: []model.Field{
		{Key: "name", Type: model.FieldString},
		{Key: "n", Type: model.FieldNumber},
		{Key: "flag", Type: model.FieldBoolean},
		{Key: "tags", Type: model.FieldStringList},
		{Key: "code", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "required"}}},
		{Key: "never", Type: model.FieldString},
		{Key: "long", Type: model.FieldString},
	}})
	r := rand.New(rand.NewPCG(5, 6))
	names := []string{"ann", "Ann", "ann ", " ann", "bob", `quote"d`, `back\slash`, "line\nbreak", "tab\there", "ümlaut", "日本", "emoji 😀", "<tag>&", "", "zz", "a"}
	var in []map[string]any
	for i := range 700 {
		rec := map[string]any{
			"name": names[r.IntN(len(names))] + fmt.Sprint(r.IntN(3)),
			"code": fmt.Sprintf("c%d", i),
			// values alike in their first bytes (the tally's order prefix)
			"long": fmt.Sprintf("the same beginning %d", r.IntN(300)),
		}
		switch r.IntN(6) {
		case 0:
			rec["n"] = r.IntN(20) - 10
		case 1:
			rec["n"] = float64(r.IntN(2000))/8 - 100
		case 2:
			rec["n"] = fmt.Sprintf("not a number %d", r.IntN(4)) // kept as given, invalid
		case 3:
			rec["n"] = 1e21 + float64(r.IntN(3))*1e6
		case 4:
			rec["n"] = nil
		}
		if r.IntN(3) > 0 {
			rec["flag"] = r.IntN(2) == 0
		}
		if k := r.IntN(4); k > 0 {
			rec["tags"] = []string{"x", "y", "z", `q"`}[:k]
		} else if r.IntN(2) == 0 {
			rec["tags"] = []string{}
		}
		if r.IntN(9) == 0 {
			rec["code"] = "" // required: an invalid record
		}
		in = append(in, rec)
	}
	// Records of plain text alone (PostgreSQL's tally takes their values' text as is), some
	// of it looking like other JSON.
	lookalikes := []string{"12", "12.50", "true", "null", `["a"]`, "{}", "", "ann", "ümlaut", "<tag>&", " spaced ", `quote"d0`, `back\slash1`, `"\"`}
	for i := range 120 {
		in = append(in, map[string]any{"name": lookalikes[i%len(lookalikes)], "code": fmt.Sprintf("t%d", i), "long": lookalikes[(i/3)%len(lookalikes)]})
	}
	// A list or an object kept as given in a text field (invalid), beside a number: the
	// record's kinds send it down the JSON path however plain its number is.
	for i := range 30 {
		name := any([]string{"ann", "x"})
		if i%2 == 1 {
			name = map[string]any{"k": "ann"}
		}
		in = append(in, map[string]any{"name": name, "n": i, "code": fmt.Sprintf("l%d", i), "long": "ann"})
	}
	e.mustInsertWithHoles(t, sh, in, 5)
	counted := 0
	for _, q := range []recordset.RecordQuery{{}, {Filter: "valid"}, {Filter: "error"}, {Q: `n gt 0`}, {SearchValue: "ann"}, {SearchValue: "nobody"}} {
		for _, key := range []string{"name", "n", "flag", "tags", "code", "never", "long"} {
			for _, top := range []int{0, 1, 7, 100, 10000} {
				want, err := e.db.GroupedValuesForTest(t.Context(), e.account, sh, key, q, top, false, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, slice := range []int64{13, 50000} {
					got, err := e.db.GroupedValuesForTest(t.Context(), e.account, sh, key, q, top, true, slice)
					if err != nil {
						t.Fatalf("%+v %s top %d: %v", q, key, top, err)
					}
					if !slices.EqualFunc(got, want, func(a, b recordset.CellCount) bool {
						return string(a.Value) == string(b.Value) && a.Total == b.Total && a.Valid == b.Valid && a.Error == b.Error
					}) {
						t.Fatalf("%+v %s top %d slice %d:\ntallied %s\ngrouped %s", q, key, top, slice, cellsText(got), cellsText(want))
					}
				}
				counted += len(want)
				if top == 0 {
					// through the store's own path on a sheet big enough to be tallied
					e.db.Reconfigure(func(s *sqldb.Settings) { s.TallyMin = 1 })
					got, err := e.db.CountedCellValues(t.Context(), e.account, sh, key, q)
					e.db.Reconfigure(func(s *sqldb.Settings) { s.TallyMin = sqldb.DefaultTallyMin })
					if err != nil || cellsText(got) != cellsText(want) {
						t.Fatalf("%+v %s: counted %s (%v)\ngrouped %s", q, key, cellsText(got), err, cellsText(want))
					}
				}
			}
		}
	}
	if counted < 1000 {
		t.Fatalf("only %d values compared", counted)
	}
}

func cellsText(cs []recordset.CellCount) string {
	s := ""
	for _, c := range cs {
		s += fmt.Sprintf("%s=%d/%d ", c.Value, c.Total, c.Valid)
	}
	return s
}

// mustInsertWithHoles inserts in and deletes every n-th record inserted (holes in the keys).
func (e *sheetEnv) mustInsertWithHoles(t *testing.T, sh string, in []map[string]any, n int) {
	t.Helper()
	ids := e.mustInsert(t, sh, rows(in...)).Records
	var gone []string
	for i := 0; i < len(ids); i += n {
		gone = append(gone, ids[i].ID)
	}
	if _, err := e.db.DeleteRecords(t.Context(), sh, gone, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
}
