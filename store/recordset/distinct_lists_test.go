package recordset_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// listsSheet has a field of every kind a value list holds, values that break rules (an
// error makes a record invalid), a unique field (duplicates turn other records invalid) and
// a list field.
var listsSheet = model.SheetConfig{Name: "Lists", Fields: []model.Field{
	{Key: "name", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "required"}}},
	{Key: "email", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
	{Key: "age", Type: model.FieldNumber},
	{Key: "vip", Type: model.FieldBoolean},
	{Key: "tier", Type: model.FieldEnum, Config: &model.FieldConfig{Options: []model.EnumOption{{Value: json.RawMessage(`"gold"`)}, {Value: json.RawMessage(`"silver"`)}}}},
	{Key: "tags", Type: model.FieldStringList},
}}

var listPools = map[string][]any{
	"name":  {"Ann", "Bob", "Cy", "", "Dée ü", `q"uote`, "日本"},
	"email": {"a@x.io", "b@x.io", "c@x.io", ""},
	"age":   {1, 2.5, "42", "old", "", 7},
	"vip":   {true, false, "yes", ""},
	"tier":  {"gold", "silver", "bronze", ""},
	"tags":  {[]string{"a", "b"}, []string{"b"}, []string{}, "a", ""},
}

// checkLists compares every field's kept list with a count of the records, for each filter
// the menu uses.
func checkLists(t *testing.T, e *sheetEnv, sh, step string) {
	t.Helper()
	checkValues(t, e, sh, step, listsSheet.Fields, nil)
}

// checkValues compares the distinct values of fields, as CellValues answers them, with a
// count of the records, for each filter the menu uses; also, when given, checks more
// answers against the count.
func checkValues(t *testing.T, e *sheetEnv, sh, step string, fields []model.Field, also func(key string, q recordset.RecordQuery, want []recordset.CellCount)) {
	t.Helper()
	for _, f := range fields {
		for _, filter := range []string{"", "valid", "error"} {
			q := recordset.RecordQuery{Filter: filter}
			got, err := e.db.CellValues(t.Context(), e.account, sh, f.Key, q)
			if err != nil {
				t.Fatalf("%s: %s: %v", step, f.Key, err)
			}
			want, err := e.db.CountedCellValues(t.Context(), e.account, sh, f.Key, q)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := listText(got), listText(want); g != w {
				t.Fatalf("%s: field %s, filter %q: %d values, %d counted\n kept    %.600s\n counted %.600s", step, f.Key, filter, len(got), len(want), g, w)
			}
			if also != nil {
				also(f.Key, q, want)
			}
		}
	}
}

func listText(cs []recordset.CellCount) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s=%d/%d/%d ", records.Canonical(c.Value), c.Total, c.Valid, c.Error)
	}
	return b.String()
}

func randomValues(r *rand.Rand, keys int) map[string]any {
	out := map[string]any{}
	for _, f := range listsSheet.Fields {
		if keys > 0 && r.IntN(3) != 0 {
			continue
		}
		pool := listPools[f.Key]
		out[f.Key] = pool[r.IntN(len(pool))]
	}
	return out
}

// Every kind of write keeps the lists exact: inserts, updates, deletes, duplicates that
// make other records invalid and valid again, bulk updates, clearing a column, undo, and
// schema changes that revalidate the sheet.
func TestValueListsFollowEveryWrite(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, listsSheet)
	r := rand.New(rand.NewPCG(17, 2026))
	opt := recordset.WriteOptions{Actor: "us_usr_test", AccountID: e.account}
	var ids []string
	ins := func(n int) {
		var in []map[string]any
		for range n {
			in = append(in, randomValues(r, 0))
		}
		for _, rec := range e.mustInsert(t, sh, rows(in...)).Records {
			ids = append(ids, rec.ID)
		}
	}
	ins(30)
	checkLists(t, e, sh, "first insert")
	if n, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values WHERE state = 0`); n != len(listsSheet.Fields) {
		t.Fatalf("%d kept lists, want one per field (%d)", n, len(listsSheet.Fields))
	}
	cfg := listsSheet
	for step := 0; step < 60; step++ {
		var what string
		switch op := r.IntN(9); {
		case op < 2:
			what = "insert"
			ins(1 + r.IntN(5))
		case op < 5 && len(ids) > 0:
			what = "update"
			var in []recordset.RecordIn
			for range 1 + r.IntN(3) {
				in = append(in, set(ids[r.IntN(len(ids))], randomValues(r, 1)))
			}
			edit := opt
			edit.Undo = "edit"
			if _, err := e.db.UpdateRecords(t.Context(), sh, dedupe(in), edit); err != nil {
				t.Fatal(err)
			}
		case op == 5 && len(ids) > 2:
			what = "delete"
			i := r.IntN(len(ids))
			if _, err := e.db.DeleteRecords(t.Context(), sh, []string{ids[i]}, opt); err != nil {
				t.Fatal(err)
			}
			ids = append(ids[:i], ids[i+1:]...)
		case op == 6:
			what = "bulk update of valid records"
			v, _ := json.Marshal(listPools["tier"][r.IntN(4)])
			if _, err := e.db.BulkUpdate(t.Context(), sh, recordset.RecordQuery{Filter: "valid"}, map[string]recordset.CellIn{"tier": {Value: v, HasValue: true}}, opt); err != nil {
				t.Fatal(err)
			}
		case op == 7:
			what = "undo"
			undo := opt
			_, _ = e.db.Undo(t.Context(), sh, undo) // nothing to undo is fine
		default:
			what = "schema change"
			// age required and not, in turn: the sheet is revalidated and the lists counted again.
			cfg.Fields = append([]model.Field(nil), cfg.Fields...)
			if len(cfg.Fields[2].Constraints) == 0 {
				cfg.Fields[2].Constraints = []model.FieldConstraint{{Type: "required"}}
			} else {
				cfg.Fields[2].Constraints = nil
			}
			e.setConfig(t, sh, cfg)
		}
		checkLists(t, e, sh, fmt.Sprintf("step %d (%s)", step, what))
	}
	if _, err := e.db.ClearColumn(t.Context(), sh, "tags", opt); err != nil {
		t.Fatal(err)
	}
	checkLists(t, e, sh, "clear column")
	if got, _ := e.db.CellValues(t.Context(), e.account, sh, "tags", recordset.RecordQuery{}); len(got) != 0 {
		t.Fatalf("tags after clearing the column: %s", listText(got))
	}
}

// A write that duplicates (or stops duplicating) a unique value changes the validity of
// records it does not touch: their values' valid counts follow.
func TestValueListsFollowDuplicates(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, listsSheet)
	ann := e.mustInsert(t, sh, rows(map[string]any{"name": "Ann", "email": "t@x.io", "tier": "gold"})).Records[0].ID
	checkLists(t, e, sh, "one record")
	bob := e.mustInsert(t, sh, rows(map[string]any{"name": "Bob", "email": "t@x.io", "tier": "gold"})).Records[0].ID
	checkLists(t, e, sh, "a duplicate e-mail (Ann turns invalid)")
	if got, _ := e.db.CellValues(t.Context(), e.account, sh, "tier", recordset.RecordQuery{}); listText(got) != `"gold"=2/0/2 ` {
		t.Fatalf("tiers with both records invalid: %s", listText(got))
	}
	e.mustUpdate(t, sh, set(bob, map[string]any{"email": "u@x.io"}))
	checkLists(t, e, sh, "no longer a duplicate (Ann valid again)")
	if _, err := e.db.DeleteRecords(t.Context(), sh, []string{ann}, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	checkLists(t, e, sh, "deleted")
}

// dedupe keeps the last update of each record.
func dedupe(in []recordset.RecordIn) []recordset.RecordIn {
	at := map[string]int{}
	var out []recordset.RecordIn
	for _, r := range in {
		if i, ok := at[r.ID]; ok {
			out[i] = r
			continue
		}
		at[r.ID] = len(out)
		out = append(out, r)
	}
	return out
}

// A field with more distinct values than a list keeps is counted when asked; when deletes
// bring it back under the limit, the next count keeps it again. A sheet whose lists are not
// known (written before they were kept) is counted, and kept from then on; so is a list
// whose counts stopped adding up.
func TestValueListsLimitAndRecovery(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "Many", Fields: []model.Field{{Key: "code", Type: model.FieldString}, {Key: "kind", Type: model.FieldString}}})
	var in []map[string]any
	for i := range 4097 {
		in = append(in, map[string]any{"code": fmt.Sprintf("c%05d", i), "kind": []string{"x", "y"}[i%2]})
	}
	res := e.mustInsert(t, sh, rows(in...))
	state := func(key string) string {
		n0, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values v JOIN record_columns c ON c.sk = v.sk AND c.col = v.col WHERE c.field_key = ? AND v.state = 0`, key)
		n1, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values v JOIN record_columns c ON c.sk = v.sk AND c.col = v.col WHERE c.field_key = ? AND v.state = 1`, key)
		return map[[2]int]string{{1, 0}: "kept", {0, 1}: "too many", {0, 0}: "unknown"}[[2]int{n0, n1}]
	}
	compare := func(step string) {
		t.Helper()
		for _, key := range []string{"code", "kind"} {
			got, err := e.db.CellValues(t.Context(), e.account, sh, key, recordset.RecordQuery{})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := e.db.CountedCellValues(t.Context(), e.account, sh, key, recordset.RecordQuery{})
			if listText(got) != listText(want) {
				t.Fatalf("%s: %s differs from a count (%d values, want %d)", step, key, len(got), len(want))
			}
		}
	}
	if s := state("code"); s != "too many" {
		t.Fatalf("4,097 codes: list %s, want too many", s)
	}
	if s := state("kind"); s != "kept" {
		t.Fatalf("two kinds: list %s, want kept", s)
	}
	compare("over the limit")
	// The menu's few most frequent values of a field with too many to keep are counted alone.
	for _, key := range []string{"code", "kind"} {
		top, err := e.db.TopCellValues(t.Context(), e.account, sh, key, recordset.RecordQuery{}, 5)
		all, _ := e.db.CountedCellValues(t.Context(), e.account, sh, key, recordset.RecordQuery{})
		if err != nil || listText(top) != listText(all[:min(5, len(all))]) {
			t.Fatalf("top values of %s: %s (%v), want %s", key, listText(top), err, listText(all[:min(5, len(all))]))
		}
	}
	if _, err := e.db.DeleteRecords(t.Context(), sh, []string{res.Records[0].ID, res.Records[1].ID}, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	compare("deleted under the limit")
	if s := state("code"); s != "kept" {
		t.Fatalf("after a count of 4,095 codes: list %s, want kept", s)
	}
	e.mustUpdate(t, sh, set(res.Records[2].ID, map[string]any{"code": "c00003"}))
	compare("kept again, then written")

	// Lists not known (as for sheets written before lists were kept): counted, then kept.
	if err := e.db.ExecForTest(t.Context(), `DELETE FROM record_values`); err != nil {
		t.Fatal(err)
	}
	compare("not known")
	if s := state("kind"); s != "kept" {
		t.Fatalf("after counting an unknown list: %s, want kept", s)
	}
	// A list that no longer adds up (here: emptied behind the store's back) is dropped at the
	// next write that removes a value it does not hold, and counted again.
	if err := e.db.ExecForTest(t.Context(), `DELETE FROM kept_values WHERE col = (SELECT col FROM record_columns WHERE field_key = 'kind')`); err != nil {
		t.Fatal(err)
	}
	e.mustUpdate(t, sh, set(res.Records[3].ID, map[string]any{"kind": "z"}))
	if s := state("kind"); s != "unknown" {
		t.Fatalf("a list that stopped adding up: %s, want dropped (unknown)", s)
	}
	compare("recovered")
}

// On PostgreSQL a small insert sends its rows and its kept lists' changes with its commit,
// guessing that every list stays kept (writeCtx.guess). The insert that takes a list past
// its limit finds the guess wrong, is rolled back and runs again: written once, one event,
// the list no longer kept, the other list still exact.
func TestInsertPastAListsLimitWritesOnce(t *testing.T) {
	e := mustOpenDB(t)
	defer recordset.TallyPacksForTest(12, 10)()
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "Guess", Fields: []model.Field{{Key: "code", Type: model.FieldString}, {Key: "kind", Type: model.FieldString}}})
	batch := func(from, n int) []recordset.RecordIn {
		var in []map[string]any
		for i := from; i < from+n; i++ {
			in = append(in, map[string]any{"code": fmt.Sprintf("c%02d", i), "kind": []string{"x", "y"}[i%2]})
		}
		return rows(in...)
	}
	e.mustInsert(t, sh, batch(0, 8))
	before := e.db.AgainWritesForTest()
	e.mustInsert(t, sh, batch(8, 5)) // 13 codes: past the limit of 10
	if e.db.Postgres() && e.db.AgainWritesForTest() != before+1 {
		t.Fatalf("the insert past the limit ran %d times again, want once", e.db.AgainWritesForTest()-before)
	}
	e.mustInsert(t, sh, batch(13, 2)) // (a list no longer kept: no guess to be wrong)
	if e.db.AgainWritesForTest() != before+map[bool]int64{true: 1}[e.db.Postgres()] {
		t.Fatal("an insert into a list no longer kept ran again")
	}
	if c := e.mustCounts(t, sh); c.Total != 15 {
		t.Fatalf("%d records, want 15", c.Total)
	}
	n, err := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values v JOIN record_columns c ON c.sk = v.sk AND c.col = v.col WHERE c.field_key = 'code' AND v.state = 1`)
	if err != nil || n != 1 {
		t.Fatalf("code's list: %d rows too many (%v), want 1", n, err)
	}
	evs, err := e.db.ListEvents(t.Context(), store.EventFilter{AccountID: e.account, Topic: "records:created", IncludeAcknowledged: true, Page: model.Page{Size: 10, Number: 1}})
	if err != nil || len(evs) != 3 {
		t.Fatalf("%d records:created events (%v), want 3", len(evs), err)
	}
	checkValues(t, e, sh, "past the limit", []model.Field{{Key: "code"}, {Key: "kind"}}, nil)
}

// A streamed insert (a file import) counts each batch's values ahead of its write: the
// lists come out the same as counting, with rows that break rules, duplicates found only
// by the write (across batches), and a field with too many values for a list.
func TestValueListsFollowStreamedInserts(t *testing.T) {
	e := mustOpenDB(t)
	cfg := listsSheet
	cfg.Fields = append(append([]model.Field(nil), cfg.Fields...), model.Field{Key: "code", Type: model.FieldString})
	sh := e.mustCreateSheet(t, cfg)
	keys := []string{"name", "email", "age", "vip", "tier", "tags", "code"}
	r := rand.New(rand.NewPCG(5, 7))
	n := 0
	src := func() ([]json.RawMessage, error) {
		if n == 12000 {
			return nil, io.EOF
		}
		n++
		vals := randomValues(r, 0)
		vals["email"] = fmt.Sprintf("u%d@x.io", r.IntN(20000)) // a few duplicates, across batches too
		vals["code"] = fmt.Sprintf("c%d", n)
		out := make([]json.RawMessage, len(keys))
		for i, k := range keys {
			out[i], _ = json.Marshal(vals[k])
		}
		return out, nil
	}
	if _, err := e.db.InsertStream(t.Context(), sh, keys, src, 5000, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	checkLists(t, e, sh, "streamed")
	for _, key := range []string{"code"} {
		got, _ := e.db.CellValues(t.Context(), e.account, sh, key, recordset.RecordQuery{})
		want, _ := e.db.CountedCellValues(t.Context(), e.account, sh, key, recordset.RecordQuery{})
		if len(got) != 12000 || listText(got) != listText(want) {
			t.Fatalf("codes: %d values, want 12,000 as counted", len(got))
		}
	}
	if n, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM record_values WHERE state = 0`); n != len(listsSheet.Fields)-1 {
		t.Fatalf("%d kept lists after the import, want %d (all but e-mail and code)", n, len(listsSheet.Fields)-1)
	}
}

// Sorting by a field puts cells without a value first (last descending), then numbers by
// value (booleans as 1 and 0), then text in byte order ("" the least; a list as its JSON
// text), ties by record: the same on both dialects for every type (PostgreSQL takes a
// shorter way for fields that only hold text, and orders the others by two keys instead of
// SQLite's one).
func TestSortFields(t *testing.T) {
	e := mustOpenDB(t)
	enum := &model.FieldConfig{Options: []model.EnumOption{{Value: json.RawMessage(`"a"`)}, {Value: json.RawMessage(`"b"`)}, {Value: json.RawMessage(`2`)}, {Value: json.RawMessage(`10`)}}}
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "T", Fields: []model.Field{{Key: "s", Type: model.FieldString}, {Key: "l", Type: model.FieldStringList},
		{Key: "n", Type: model.FieldNumber}, {Key: "b", Type: model.FieldBoolean}, {Key: "d", Type: model.FieldDate}, {Key: "e", Type: model.FieldEnum, Config: enum}}})
	cols := map[string][]any{
		"s": {"b", "", nil, "B", "a b", "Ä", "ä", "10", "9", "b", `q"`, "日本", []string{"x"}},
		"l": {[]string{"b", "a"}, []string{"a"}, []string{}, []string{"a", "c"}},
		"n": {3, -1, 2.5, "abc", "", nil, 10, "9x", 1e20, 0, -0.5, "Zed", 3, "-2", true},
		"b": {true, false, "maybe", nil, "no", "yes", ""},
		"d": {"2024-01-02", "2023-12-31", 20240101, "garbage", nil, "2024-01-02", 5},
		"e": {"a", "b", 2, 10, "zzz", nil, "10", 7, "A"},
	}
	var in []map[string]any
	for i := 0; i < 60; i++ {
		r := map[string]any{}
		for k, vs := range cols {
			r[k] = vs[i%len(vs)]
		}
		in = append(in, r)
	}
	recs := e.mustInsert(t, sh, rows(in...)).Records
	order := map[string]int{}
	for i, r := range recs {
		order[r.ID] = i
	}
	// key is a cell's place: 0 no value, 1 a number (or boolean), 2 text; and its number or text.
	key := func(r *recordset.Record, field string) (rank int, num float64, text string) {
		c := cell(r, field)
		if c == nil || c.Value == nil || string(c.Value) == "null" {
			return 0, 0, ""
		}
		switch v := c.Value; {
		case string(v) == "true" || string(v) == "false":
			if string(v) == "true" {
				return 1, 1, ""
			}
			return 1, 0, ""
		case json.Unmarshal(v, &num) == nil:
			return 1, num, ""
		case json.Unmarshal(v, &text) == nil:
			return 2, 0, text
		default:
			return 2, 0, string(v) // a list: its JSON text
		}
	}
	compare := func(a, b *recordset.Record, field string) int {
		ra, na, ta := key(a, field)
		rb, nb, tb := key(b, field)
		if c := cmp.Compare(ra, rb); c != 0 {
			return c
		}
		if c := cmp.Compare(na, nb); c != 0 {
			return c
		}
		return strings.Compare(ta, tb)
	}
	all := e.mustGet(t, sh, recordset.RecordQuery{Page: model.Page{Size: 100, Number: 1}})
	// Sorted by the database, then (SQLite) tallied (sort_tally.go) on a second handle
	// of the database, whose kept orders start empty.
	second, err := store.OpenDSN(e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	for round, db := range []*store.DB{e.db, second} {
		if round == 1 {
			db.Reconfigure(func(s *sqldb.Settings) { s.TallyMin = 1 })
		}
		sortFieldsAsExpected(t, db, e.account, sh, cols, all, compare, order)
	}
}

func sortFieldsAsExpected(t *testing.T, db *store.DB, account, sh string, cols map[string][]any, all []*recordset.Record, compare func(a, b *recordset.Record, field string) int, order map[string]int) {
	for field := range cols {
		for _, desc := range []bool{false, true} {
			got, _, err := db.GetRecords(t.Context(), account, sh, recordset.RecordQuery{SortField: field, SortDesc: desc, Page: model.Page{Size: 100, Number: 1}}, false)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(all)
			slices.SortFunc(want, func(a, b *recordset.Record) int {
				c := compare(a, b, field)
				if c == 0 {
					c = cmp.Compare(order[a.ID], order[b.ID])
				}
				if desc {
					return -c
				}
				return c
			})
			show := func(r *recordset.Record) string {
				if c := cell(r, field); c != nil {
					return r.ID[len(r.ID)-4:] + "=" + string(c.Value)
				}
				return r.ID[len(r.ID)-4:] + "="
			}
			var g, w []string
			for i := range got {
				g, w = append(g, show(got[i])), append(w, show(want[i]))
			}
			if !slices.Equal(g, w) {
				t.Fatalf("sorted by %s (desc %v):\n got  %v\n want %v", field, desc, g, w)
			}
		}
	}
}
