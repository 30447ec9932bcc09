package recordset_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// A tallied sort (sort_tally.go) orders a sheet's records as the database's ORDER BY
// does (SQLite's, and PostgreSQL's typed order): empty first, numbers (booleans as 1 and 0)
// by value, text by its bytes, equal values in key order; descending the other way round;
// filtered or not, across holes in the keys and many slices, over values alike in their
// first bytes and values the database holds as equal (1, 1.0, true). On failure it shows the
// records around the first difference.
func TestTalliedSortsAsTheDatabase(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "S", Fields: []model.Field{
		{Key: "name", Type: model.FieldString},
		{Key: "n", Type: model.FieldNumber},
		{Key: "flag", Type: model.FieldBoolean},
		{Key: "tags", Type: model.FieldStringList},
		{Key: "mixed", Type: model.FieldNumber},
		{Key: "never", Type: model.FieldString},
	}})
	r := rand.New(rand.NewPCG(8, 9))
	texts := []string{"", "a", "A", "ab", "a b", "abcdefgh", "abcdefghi", "abcdefghij", "abcdefgi", `quote"d`, `back\slash`, "line\nbreak", "é", "日本", "😀", "<&>", " lead", "zz", "the same beginning 1", "the same beginning 2", "the same beginning 10", "tab\tx", "tab x", "tab~x", "tab\\x"}
	if !e.db.Postgres() { // (PostgreSQL's jsonb holds no U+0000)
		texts = append(texts, "abcdefgh\u0000")
	}
	var in []map[string]any
	for range 900 {
		rec := map[string]any{}
		if r.IntN(8) > 0 {
			rec["name"] = texts[r.IntN(len(texts))]
		}
		switch r.IntN(7) {
		case 0:
			rec["n"] = r.IntN(20) - 10
		case 1:
			rec["n"] = float64(r.IntN(400))/8 - 20
		case 2:
			rec["n"] = 1e14 + float64(r.IntN(3))
		case 3:
			rec["n"] = math.Copysign(0, -1) // negative zero
		case 4:
			rec["n"] = 1.5e-7 * float64(r.IntN(5))
		}
		if r.IntN(3) > 0 {
			rec["flag"] = r.IntN(2) == 0
		}
		if k := r.IntN(5); k > 0 {
			rec["tags"] = []string{"x", "<&>", "é", `q"`}[:k-1]
		}
		switch r.IntN(6) { // kept as given in a number field: numbers, booleans, text, lists
		case 0:
			rec["mixed"] = 1
		case 1:
			rec["mixed"] = true
		case 2:
			rec["mixed"] = "1"
		case 3:
			rec["mixed"] = texts[r.IntN(len(texts))]
		case 4:
			rec["mixed"] = []string{"1"}
		}
		in = append(in, rec)
	}
	e.mustInsertWithHoles(t, sh, in, 6)
	compared := 0
	for _, base := range []recordset.RecordQuery{{}, {Filter: "valid"}, {Filter: "error"}, {Q: `n gt 0`}} {
		for _, key := range []string{"name", "n", "flag", "tags", "mixed", "never"} {
			for _, desc := range []bool{false, true} {
				q := base
				q.SortField, q.SortDesc = key, desc
				want, err := e.db.SortedKeysForTest(t.Context(), e.account, sh, q, false, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, slice := range []int64{17, 50000} {
					got, err := e.db.SortedKeysForTest(t.Context(), e.account, sh, q, true, slice)
					if err != nil {
						t.Fatalf("%+v: %v", q, err)
					}
					if !slices.Equal(got, want) {
						at := 0
						for at < min(len(got), len(want)) && got[at] == want[at] {
							at++
						}
						for _, rid := range got[max(at-1, 0):min(at+3, len(got))] {
							var txt string
							_ = e.db.QueryRowForTest(t.Context(), fmt.Sprintf("SELECT CAST(vals AS TEXT) FROM records WHERE rid = %d", rid), &txt)
							t.Logf("%d %s", rid, txt)
						}
						t.Fatalf("%+v slice %d: %d keys tallied, %d sorted by SQLite; first difference at %d: %v", q, slice, len(got), len(want), at, fmt.Sprint(got[at:min(at+5, len(got))], want[at:min(at+5, len(want))]))
					}
				}
				compared += len(want)
			}
		}
	}
	if compared < 5000 {
		t.Fatalf("only %d keys compared", compared)
	}
}
