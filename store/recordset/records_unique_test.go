package recordset_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// TestUniqueIndexMatchesBruteForce runs random inserts, updates and deletes and checks after
// each that every record's duplicate state and the counts equal a count from scratch.
func TestUniqueIndexMatchesBruteForce(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { randomUniqueRun(t, seed) })
	}
}

func randomUniqueRun(t *testing.T, seed int64) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "U", Fields: []model.Field{
		{Key: "k", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
		{Key: "a", Type: model.FieldString},
		{Key: "b", Type: model.FieldString},
	}, Constraints: []model.SheetConstraint{{Type: "unique", Name: "ab", Fields: []string{"a", "b"}}}})
	rng := rand.New(rand.NewSource(seed))
	pick := func() any {
		return []any{"x", "y", "z", "w", "", nil}[rng.Intn(6)]
	}
	random := func() map[string]any { return map[string]any{"k": pick(), "a": pick(), "b": pick()} }
	var ids []string
	for step := 0; step < 120; step++ {
		switch op := rng.Intn(3); {
		case op == 0 || len(ids) < 3:
			n := 1 + rng.Intn(5)
			var in []map[string]any
			for i := 0; i < n; i++ {
				in = append(in, random())
			}
			for _, r := range e.mustInsert(t, sh, rows(in...)).Records {
				ids = append(ids, r.ID)
			}
		case op == 1:
			var ups []recordset.RecordIn
			for i := 0; i < 1+rng.Intn(3); i++ {
				ups = append(ups, set(ids[rng.Intn(len(ids))], random()))
			}
			e.mustUpdate(t, sh, ups...)
		default:
			i := rng.Intn(len(ids))
			if _, err := e.db.DeleteRecords(t.Context(), sh, []string{ids[i]}, recordset.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			ids = append(ids[:i], ids[i+1:]...)
		}
		checkUniques(t, e, sh, step)
	}
}

func checkUniques(t *testing.T, e *sheetEnv, sh string, step int) {
	t.Helper()
	recs := e.mustGet(t, sh, recordset.RecordQuery{})
	key := func(r *recordset.Record, k string) string {
		v := value(r, k)
		if v == "<empty>" || v == `""` {
			return ""
		}
		return v
	}
	countK, countAB := map[string]int{}, map[string]int{}
	abKey := func(r *recordset.Record) string {
		a, b := key(r, "a"), key(r, "b")
		if a == "" && b == "" {
			return ""
		}
		return a + "|" + b
	}
	for _, r := range recs {
		if k := key(r, "k"); k != "" {
			countK[k]++
		}
		if k := abKey(r); k != "" {
			countAB[k]++
		}
	}
	valid, errK, errA := 0, 0, 0
	for _, r := range recs {
		dupK := key(r, "k") != "" && countK[key(r, "k")] > 1
		dupAB := abKey(r) != "" && countAB[abKey(r)] > 1
		if r.Valid != (!dupK && !dupAB) {
			t.Fatalf("step %d: record %s (k=%s a=%s b=%s): got valid %v, want %v", step, r.ID, key(r, "k"), key(r, "a"), key(r, "b"), r.Valid, !dupK && !dupAB)
		}
		if r.Valid {
			valid++
		}
		if dupK {
			errK++
		}
		if dupAB {
			errA++
		}
	}
	c := e.mustCounts(t, sh)
	want := fmt.Sprintf("total %d valid %d k %d a %d b %d", len(recs), valid, errK, errA, errA)
	got := fmt.Sprintf("total %d valid %d k %d a %d b %d", c.Total, c.Valid, c.ErrorsByField["k"], c.ErrorsByField["a"], c.ErrorsByField["b"])
	if got != want {
		t.Fatalf("step %d: got counts %s, want %s", step, got, want)
	}
}
