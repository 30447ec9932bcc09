package recordset_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/recordset/stored"
)

// A search trusts its first pass (the needle in the stored JSON text of all values) for
// needles and records where a match there is a match in one value's text (records_query.go,
// firstPassTrusted; records.kinds): it finds what testing each field finds, with escapes,
// empty cells, booleans, numbers, lists, objects and dropped fields in the values, and in
// records of strings alone.
func TestSearchShortcutFindsWhatTheFieldTestFinds(t *testing.T) {
	e := mustOpenDB(t)
	fields := []model.Field{
		{Key: "name", Type: model.FieldString},
		{Key: "n", Type: model.FieldNumber},
		{Key: "flag", Type: model.FieldBoolean},
		{Key: "tags", Type: model.FieldStringList},
		{Key: "gone", Type: model.FieldString},
	}
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "S", Fields: fields})
	names := []any{"ann", "Ann Lee", "line\nabc", "tab\there", `say "hi"`, `back\slash`, "ümlaut", "日本語", "50%_off", "a,b", "x]y",
		map[string]any{"key": "objval"}, nil, "", "null", "true", "12.50", "1e21", " lead", "trail ", "u001f", "\u001fctl", "nul"}
	var in []map[string]any
	for i := range 120 {
		rec := map[string]any{"name": names[i%len(names)], "gone": fmt.Sprintf("zebra%d", i%3)}
		switch i % 5 {
		case 0:
			rec["n"] = 12.5
		case 1:
			rec["n"] = "12.50" // a number field keeps the number; its stored text may differ
		case 2:
			rec["n"] = 1e21
		case 3:
			rec["n"] = []any{"not a number", "1.0", "-0", "11111111111111111999", "0.000001", "1E5"}[i%6]
		}
		if i%3 > 0 {
			rec["flag"] = i%2 == 0
		}
		if i%4 > 0 {
			rec["tags"] = []string{"p,q", `r"s`, "t"}[:i%4]
		}
		in = append(in, rec)
	}
	for i := range 30 {
		// strings only: no number, true, false or null in the stored text
		in = append(in, map[string]any{"name": names[i%len(names)]})
	}
	ids := e.mustInsert(t, sh, rows(in...)).Records
	// an insert whose records all have the same kinds (written into its statement)
	var same []map[string]any
	for range 10 {
		same = append(same, map[string]any{"name": "line\nabc", "tags": []string{"t"}})
	}
	e.mustInsert(t, sh, rows(same...))
	needles := []string{"ann", "ANN", "nabc", "there", "here", "abc", "hi", `"hi"`, `y "`, "slash", `\`, `k\s`, "ümlaut", "日本", "50%_", "%",
		"a,b", ",", "x]", "]y", "objval", "key", "ul", "nul", "null", "rue", "true", "fals", "1", "12.5", "12.50", "2.5", "e21", "e+2", "1.0", "-0", "1999", "e-", "0.0000", "1e", "00000",
		"not a", " lead", "lead", "trail ", " 1", " n", " t", " \"", "u001f", "001f", "ctl", "p,q", "r\"s", "t", "zebra", "zebra1", "nobody", "a", "e"}
	search := func(s string, shortcut bool) []string {
		defer recordset.SearchShortcutForTest(shortcut)()
		var out []string
		for _, r := range e.mustGet(t, sh, recordset.RecordQuery{SearchValue: s, Page: model.Page{Size: 1000, Number: 1}}) {
			out = append(out, r.ID)
		}
		return out
	}
	check := func(when string) {
		for _, s := range needles {
			if got, want := search(s, true), search(s, false); !slices.Equal(got, want) {
				t.Errorf("%s: search %q finds %d records, testing each field %d", when, s, len(got), len(want))
			}
		}
	}
	check("all fields")
	// A record of strings written again with an escape, and one with an empty cell before
	// the last: each write keeps its kinds.
	e.mustUpdate(t, sh, set(ids[len(ids)-1].ID, map[string]any{"name": "zz\nqq"}), set(ids[len(ids)-2].ID, map[string]any{"tags": []string{"t"}}))
	needles = append(needles, "nqq", "qq")
	check("after updates")
	// Records written before their kinds were kept (NULL) are tested field by field, until
	// FillRecordKinds works them out from the stored values: no more than a write stored.
	kindsOf := func() map[string]int {
		out := map[string]int{}
		for _, r := range e.mustGet(t, sh, recordset.RecordQuery{Page: model.Page{Size: 1000, Number: 1}}) {
			rid, _ := stored.ParseRecordID(r.ID)
			n, err := e.db.CountForTest(t.Context(), `SELECT coalesce(kinds, -1) FROM records WHERE rid = ?`, rid)
			if err != nil {
				t.Fatal(err)
			}
			out[r.ID] = n
		}
		return out
	}
	written := kindsOf()
	// (as a database upgraded with records in it: a new one has nothing to fill in)
	if n, err := e.db.FillRecordKinds(t.Context()); err != nil || n != 0 {
		t.Fatalf("filled in %d records of a database that always kept them (%v)", n, err)
	}
	if err := e.db.ExecForTest(t.Context(), `UPDATE records SET kinds = NULL`); err != nil {
		t.Fatal(err)
	}
	if err := e.db.ExecForTest(t.Context(), `DELETE FROM settings WHERE key = 'record_kinds_filled'`); err != nil {
		t.Fatal(err)
	}
	check("kinds unknown")
	defer recordset.SetKindsSlice(7)()
	if n, err := e.db.FillRecordKinds(t.Context()); err != nil || n != int64(len(written)) {
		t.Fatalf("filled in the kinds of %d records (%v), want %d", n, err, len(written))
	}
	// (the two kinds of number taken as one: PostgreSQL writes 1E5 as 100000)
	numbers := func(k int) int {
		if k&(8|16) != 0 {
			k |= 8 | 16
		}
		return k
	}
	for id, k := range kindsOf() {
		// (a statement's union of its rows' kinds drops "escaped quotes only" when one row
		// has another escape: filled in, the record's own may have it)
		if k < 0 || k&^numbers(written[id])&^64 != 0 {
			t.Errorf("record %s: kinds %d filled in, %d written", id, k, written[id])
		}
	}
	check("kinds filled in")
	if n, err := e.db.FillRecordKinds(t.Context()); err != nil || n != 0 {
		t.Fatalf("filled in %d records again (%v)", n, err)
	}
	if n := len(search("zebra", true)); n != 120 {
		t.Fatalf("search zebra: %d records, want 120", n)
	}
	// A dropped field's values stay in the stored arrays until the sheet is revalidated,
	// which a read inside a write can come before.
	e.setConfig(t, sh, model.SheetConfig{Name: "S", Fields: fields[:4]})
	if n, err := e.db.StaleCountForTest(t.Context(), e.account, sh, recordset.RecordQuery{SearchValue: "zebra"}); n != 0 || err != nil {
		t.Fatalf("search zebra after its field was dropped, before the revalidation: %d records (%v), want none", n, err)
	}
	check("a field dropped")
	if n := len(search("zebra", true)); n != 0 {
		t.Fatalf("search zebra after its field was dropped: %d records, want none", n)
	}
}

// A scan's first pass may start at the needle's rarest character in the sheet (SQLite:
// rareStart); it finds what the pass from the first character finds, escapes, LIKE's
// wildcards and letters beyond ASCII included, in split scans and whole ones.
func TestRareStartFindsWhatTheWholeNeedleFinds(t *testing.T) {
	e := mustOpenDB(t)
	if e.db.Postgres() {
		t.Skip("SQLite's LIKE")
	}
	defer recordset.SetSplitMin(50)()
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "S", Fields: []model.Field{{Key: "a", Type: model.FieldString}, {Key: "b", Type: model.FieldString}}})
	texts := []string{"sessions sass", "season's seas", `say "qz%_x"`, "Zoë.333@mail3.test", "zoë.333@MAIL3.TEST", "ss\nqz\\w", "sq_z%", "ssss.sss@ss.s", "s s s qz"}
	var in []map[string]any
	for i := range 400 {
		in = append(in, map[string]any{"a": texts[i%len(texts)] + fmt.Sprint(i%7), "b": texts[(i*5)%len(texts)]})
	}
	e.mustInsert(t, sh, rows(in...))
	needles := []string{"sessions", "ssion", "zoë.333@mail3", "oë.333@", ".333@mail3.test", `y "qz%_`, "qz%_", "s\nqz", `\w`, "sss.sss@", "s s s qz", "sq_z%3", "sas", "seas"}
	started := 0
	for _, n := range needles {
		at, restore, err := e.db.RareStartForTest(t.Context(), e.account, sh, n, true)
		if err != nil {
			t.Fatal(err)
		}
		if at > 0 {
			started++
		}
		for _, q := range []recordset.RecordQuery{{SearchValue: n}, {SearchValue: n, SearchField: "a"}} {
			q.Page = model.Page{Size: 1000, Number: 1}
			var with, without []string
			for _, r := range e.mustGet(t, sh, q) {
				with = append(with, r.ID)
			}
			_, off, _ := e.db.RareStartForTest(t.Context(), e.account, sh, n, false)
			for _, r := range e.mustGet(t, sh, q) {
				without = append(without, r.ID)
			}
			off()
			if !slices.Equal(with, without) || len(without) == 0 {
				t.Errorf("search %q (field %q), pass from character %d: %d records, from the first %d", n, q.SearchField, at, len(with), len(without))
			}
		}
		restore()
	}
	if started < len(needles)/2 {
		t.Fatalf("only %d of %d needles start past their first character: the test tells nothing", started, len(needles))
	}
}
