package recordset_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
)

// A grid edit sets cells, adds and removes records in one commit and skips read-only
// cells; undo writes back exactly what it replaced (the removed record with its own id) and
// redo writes the edit again.
func TestGridEditUndoRedo(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "G", Fields: []model.Field{
		{Key: "name", Type: model.FieldString},
		{Key: "age", Type: model.FieldNumber},
		{Key: "code", Type: model.FieldString, Readonly: true},
	}})
	ins := e.mustInsert(t, sh, rows(map[string]any{"name": "Ada", "age": 36, "code": "A"}, map[string]any{"name": "Bob", "code": "B"}, map[string]any{"name": "Cy"}))
	opt := recordset.WriteOptions{Actor: "us_usr_test", AccountID: e.account, Undo: "paste"}
	state := func() string {
		var out []string
		for _, r := range e.mustGet(t, sh, recordset.RecordQuery{}) {
			out = append(out, r.ID[len(r.ID)-3:]+":"+value(r, "name")+"|"+value(r, "age")+"|"+value(r, "code"))
		}
		return strings.Join(out, " ")
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	start := state()
	edit := recordset.GridEdit{
		Set: []recordset.GridRecord{
			{ID: ins.Records[0].ID, Values: map[string]json.RawMessage{"name": raw(`"Ada L"`), "age": raw(`"37"`), "code": raw(`"X"`)}},
			{ID: ins.Records[1].ID, Values: map[string]json.RawMessage{"age": raw(`null`)}}, // already empty: no change
		},
		Add:    []recordset.GridRecord{{Values: map[string]json.RawMessage{"name": raw(`"Dee"`), "code": raw(`"Y"`)}}},
		Remove: []string{ins.Records[2].ID},
	}
	res, err := e.db.ApplyGridEdit(t.Context(), sh, edit, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Set != 1 || len(res.Added) != 1 || res.Removed != 1 || res.Skipped != 2 {
		t.Fatalf("result %+v, want 1 set, 1 added, 1 removed, 2 read-only cells skipped", res)
	}
	edited := state()
	if want := `"Ada L"|37|"A" "Bob"|<empty>|"B" "Dee"|<empty>|<empty>`; stripIDs(edited) != want {
		t.Fatalf("after the edit: %s, want %s", edited, want)
	}
	mustUndo(t, e, sh, opt, true, "paste", 3)
	if got := state(); got != start {
		t.Fatalf("after undo: %s, want %s", got, start)
	}
	mustUndo(t, e, sh, opt, false, "paste", 3)
	if got := state(); got != edited {
		t.Fatalf("after redo: %s, want %s", got, edited)
	}
	mustUndo(t, e, sh, opt, true, "paste", 3)
	// Bad input changes nothing, and notes nothing to undo.
	if _, err := e.db.ApplyGridEdit(t.Context(), sh, recordset.GridEdit{Set: []recordset.GridRecord{{ID: ins.Records[0].ID, Values: map[string]json.RawMessage{"nope": raw(`1`)}}}}, opt); err == nil {
		t.Fatal("an unknown field was accepted")
	}
	if _, err := e.db.ApplyGridEdit(t.Context(), sh, recordset.GridEdit{Remove: []string{"us_rc_missing0000"}}, opt); err == nil {
		t.Fatal("an unknown record was accepted")
	}
	if got := state(); got != start {
		t.Fatalf("a refused edit changed the sheet: %s", got)
	}
	if st, _ := e.db.UndoState(t.Context(), sh, opt.Actor); st.CanUndo || !st.CanRedo {
		t.Fatalf("undo state %+v, want only a redo", st)
	}
}

// stripIDs drops the id tails state() puts before each record.
func stripIDs(s string) string {
	parts := strings.Split(s, " ")
	for i, p := range parts {
		parts[i] = p[strings.IndexByte(p, ':')+1:]
	}
	return strings.Join(parts, " ")
}

// mustUndo undoes (or redoes) the actor's last change and checks what it names and counts.
func mustUndo(t *testing.T, e *sheetEnv, sheetID string, opt recordset.WriteOptions, undo bool, what string, count int) *recordset.UndoResult {
	t.Helper()
	opt.Undo = ""
	do := e.db.Undo
	if !undo {
		do = e.db.Redo
	}
	res, err := do(t.Context(), sheetID, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.What != what || res.Count != count {
		t.Fatalf("undo=%v: %+v, want %s of %d records", undo, res, what, count)
	}
	return res
}

// Find & replace, clear column and row deletes are undone as a whole, over batches, with
// the text each value was read from (metadata.source) and the deleted records' own ids;
// every person has their own history, a new change ends what could be redone, and only the
// last UndoDepth changes are kept.
func TestUndoBulkChanges(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "U", Fields: []model.Field{
		{Key: "name", Type: model.FieldString},
		{Key: "amount", Type: model.FieldNumber},
	}})
	n := recordset.BatchSize + 50
	in := make([]recordset.RecordIn, n)
	for i := range in {
		in[i] = set("", map[string]any{"name": fmt.Sprintf("n%05d", i), "amount": "$1,200.50"})
	}
	ins := e.mustInsert(t, sh, in)
	first := e.mustGet(t, sh, recordset.RecordQuery{Page: model.Page{Size: 1, Number: 1}})[0]
	if !strings.Contains(string(first.Metadata), `"$1,200.50"`) {
		t.Fatalf("metadata %s does not keep the text as written", first.Metadata)
	}
	snapshot := func() string {
		var b strings.Builder
		for _, r := range e.mustGet(t, sh, recordset.RecordQuery{Page: model.Page{Size: n, Number: 1}}) {
			fmt.Fprintf(&b, "%s %s %s %s\n", r.ID, value(r, "name"), value(r, "amount"), r.Metadata)
		}
		return b.String()
	}
	start := snapshot()
	ada := recordset.WriteOptions{Actor: "us_usr_ada", AccountID: e.account}
	bob := recordset.WriteOptions{Actor: "us_usr_bob", AccountID: e.account}

	ada.Undo = "clear"
	if res, err := e.db.ClearColumn(t.Context(), sh, "amount", ada); err != nil || res.Count != n || len(res.VersionIDs) != 2 {
		t.Fatalf("clear: %+v %v, want %d records in 2 batches", res, err, n)
	}
	ada.Undo = "replace"
	fr := recordset.FindReplace{FieldKey: "name", Find: json.RawMessage(`"n0000"`), Replace: json.RawMessage(`"X"`), ExcludeReadOnly: true}
	if res, err := e.db.FindAndReplace(t.Context(), sh, recordset.RecordQuery{}, fr, ada); err != nil || res.Count != 10 {
		t.Fatalf("replace: %+v %v, want 10 records", res, err)
	}
	bob.Undo = "delete"
	if _, err := e.db.DeleteRecords(t.Context(), sh, []string{ins.Records[0].ID, ins.Records[n-1].ID}, bob); err != nil {
		t.Fatal(err)
	}
	// Bob's undo takes back his delete only: the records come back with their ids and metadata.
	mustUndo(t, e, sh, bob, true, "delete", 2)
	if r := byID(e.mustGet(t, sh, recordset.RecordQuery{Page: model.Page{Size: n, Number: 1}}))[ins.Records[0].ID]; r == nil || value(r, "name") != `"X0"` {
		t.Fatalf("the deleted record did not come back as it was: %+v", r)
	}
	mustUndo(t, e, sh, ada, true, "replace", 10)
	mustUndo(t, e, sh, ada, true, "clear", n)
	if got := snapshot(); got != start {
		t.Fatal("undoing the clear and the replace did not bring back every value and its metadata.source")
	}
	if res := mustUndo(t, e, sh, ada, true, "", 0); res.CanUndo || !res.CanRedo {
		t.Fatalf("nothing left to undo, yet %+v", res)
	}
	mustUndo(t, e, sh, ada, false, "clear", n)
	if r := e.mustGet(t, sh, recordset.RecordQuery{Page: model.Page{Size: 1, Number: 1}})[0]; value(r, "amount") != "<empty>" {
		t.Fatalf("redo of the clear left %s", value(r, "amount"))
	}
	// A new change ends what could be redone (the replace).
	ada.Undo = "edit"
	if _, err := e.db.ApplyGridEdit(t.Context(), sh, recordset.GridEdit{Set: []recordset.GridRecord{{ID: ins.Records[1].ID, Values: map[string]json.RawMessage{"name": json.RawMessage(`"Z"`)}}}}, ada); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.db.UndoState(t.Context(), sh, ada.Actor); !st.CanUndo || st.CanRedo {
		t.Fatalf("after a new change: %+v, want undo only", st)
	}
	// Only the last UndoDepth changes are kept.
	for i := 0; i < recordset.UndoDepth+5; i++ {
		v := json.RawMessage(fmt.Sprintf(`"v%d"`, i))
		if _, err := e.db.ApplyGridEdit(t.Context(), sh, recordset.GridEdit{Set: []recordset.GridRecord{{ID: ins.Records[2].ID, Values: map[string]json.RawMessage{"name": v}}}}, ada); err != nil {
			t.Fatal(err)
		}
	}
	undone := 0
	for {
		res, err := e.db.Undo(t.Context(), sh, recordset.WriteOptions{Actor: ada.Actor, AccountID: e.account})
		if err != nil {
			t.Fatal(err)
		}
		if res.What == "" {
			break
		}
		undone++
	}
	if undone != recordset.UndoDepth {
		t.Fatalf("%d changes could be undone, want the last %d", undone, recordset.UndoDepth)
	}
	if r := byID(e.mustGet(t, sh, recordset.RecordQuery{Page: model.Page{Size: 5, Number: 1}}))[ins.Records[2].ID]; value(r, "name") != `"v4"` {
		t.Fatalf("after undoing %d changes the cell holds %s, want v4", undone, value(r, "name"))
	}
}

// On PostgreSQL several nodes write one database: a node's kept sorted order and value list
// of a sheet give way as soon as another node writes to it.
func TestKeptOrdersFollowOtherNodes(t *testing.T) {
	e := mustOpenDB(t)
	if !e.db.Postgres() {
		t.Skip("one node per SQLite database")
	}
	other, err := store.OpenDSN(e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "N", Fields: []model.Field{{Key: "name", Type: model.FieldString}}})
	e.mustInsert(t, sh, rows(map[string]any{"name": "b"}, map[string]any{"name": "c"}))
	names := func() string {
		recs, _, err := other.GetRecords(t.Context(), e.account, sh, recordset.RecordQuery{SortField: "name", Page: model.Page{Size: 10, Number: 1}}, false)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, value(r, "name"))
		}
		vals, err := other.CellValues(t.Context(), e.account, sh, "name", recordset.RecordQuery{})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, ",") + fmt.Sprintf(" (%d values)", len(vals))
	}
	if got := names(); got != `"b","c" (2 values)` {
		t.Fatalf("before: %s", got)
	}
	e.mustInsert(t, sh, rows(map[string]any{"name": "a"})) // through the first node
	if got := names(); got != `"a","b","c" (3 values)` {
		t.Fatalf("the other node kept its order after a write: %s", got)
	}
}

// A bulk update touches only the records it changes: writing the value a record holds ("42"
// onto 42 included) writes, counts and notes nothing.
func TestBulkUpdateSkipsUnchangedRecords(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "B", Fields: []model.Field{{Key: "age", Type: model.FieldNumber}}})
	e.mustInsert(t, sh, rows(map[string]any{"age": 42}, map[string]any{"age": 42}, map[string]any{"age": 7}))
	opt := recordset.WriteOptions{Actor: "us_usr_b", AccountID: e.account, Undo: "set"}
	res, err := e.db.BulkUpdate(t.Context(), sh, recordset.RecordQuery{}, map[string]recordset.CellIn{"age": {Value: json.RawMessage(`"42"`), HasValue: true}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 1 {
		t.Fatalf("setting 42 changed %d records, want 1 (the one holding 7)", res.Count)
	}
	mustUndo(t, e, sh, opt, true, "set", 1)
	if got := e.mustGet(t, sh, recordset.RecordQuery{}); value(got[2], "age") != "7" {
		t.Fatalf("undo left %s", value(got[2], "age"))
	}
}
