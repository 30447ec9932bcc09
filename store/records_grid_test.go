package store_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// A grid edit sets cells, adds and removes records in one commit, skips read-only cells and
// answers with the edit that undoes it; applying that inverse restores the sheet exactly, and
// the inverse's inverse redoes the edit.
func TestGridEditAndItsInverse(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "G", Fields: []model.Field{
		{Key: "name", Type: model.FieldString},
		{Key: "age", Type: model.FieldNumber},
		{Key: "code", Type: model.FieldString, Readonly: true},
	}})
	ins := e.mustInsert(t, sh, rows(map[string]any{"name": "Ada", "age": 36, "code": "A"}, map[string]any{"name": "Bob", "code": "B"}, map[string]any{"name": "Cy"}))
	opt := store.WriteOptions{Actor: "us_usr_test", AccountID: e.account}
	state := func() string {
		var out []string
		for _, r := range e.mustGet(t, sh, store.RecordQuery{}) {
			out = append(out, value(r, "name")+"|"+value(r, "age")+"|"+value(r, "code"))
		}
		return strings.Join(out, " ")
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	start := state()
	edit := store.GridEdit{
		Set: []store.GridRecord{
			{ID: ins.Records[0].ID, Values: map[string]json.RawMessage{"name": raw(`"Ada L"`), "age": raw(`"37"`), "code": raw(`"X"`)}},
			{ID: ins.Records[1].ID, Values: map[string]json.RawMessage{"age": raw(`null`)}}, // already empty: no change
		},
		Add:    []store.GridRecord{{Values: map[string]json.RawMessage{"name": raw(`"Dee"`), "code": raw(`"Y"`)}}},
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
	if want := `"Ada L"|37|"A" "Bob"|<empty>|"B" "Dee"|<empty>|<empty>`; edited != want {
		t.Fatalf("after the edit: %s, want %s", edited, want)
	}
	undo, err := e.db.ApplyGridEdit(t.Context(), sh, res.Inverse, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The removed record comes back (as a new record, after the others: here the same order).
	if got := state(); got != start {
		t.Fatalf("after undo: %s, want %s", got, start)
	}
	if _, err := e.db.ApplyGridEdit(t.Context(), sh, undo.Inverse, opt); err != nil {
		t.Fatal(err)
	}
	if got := state(); got != edited {
		t.Fatalf("after redo: %s, want %s", got, edited)
	}
	// Bad input changes nothing.
	if _, err := e.db.ApplyGridEdit(t.Context(), sh, store.GridEdit{Set: []store.GridRecord{{ID: ins.Records[0].ID, Values: map[string]json.RawMessage{"nope": raw(`1`)}}}}, opt); err == nil {
		t.Fatal("an unknown field was accepted")
	}
	if _, err := e.db.ApplyGridEdit(t.Context(), sh, store.GridEdit{Remove: []string{"us_rc_missing0000"}}, opt); err == nil {
		t.Fatal("an unknown record was accepted")
	}
	if got := state(); got != edited {
		t.Fatalf("a refused edit changed the sheet: %s", got)
	}
}
