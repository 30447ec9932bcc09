package recordset_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset"
)

func values(t *testing.T, e *sheetEnv, sh, key string) []string {
	t.Helper()
	var out []string
	for _, r := range e.mustGet(t, sh, recordset.RecordQuery{}) {
		out = append(out, value(r, key))
	}
	return out
}

func TestFindAndReplace(t *testing.T) {
	tests := []struct {
		name          string
		find, replace string // JSON
		legacy        bool
		want          []string
	}{
		{"partial ignores case, every occurrence", `"an"`, `"AN"`, false, []string{`"AANn"`, `"bob"`, `"ANn-ANa"`, "<empty>"}},
		{"exact in double quotes", `"\"bob\""`, `"Robert"`, false, []string{`"Aann"`, `"Robert"`, `"Ann-ana"`, "<empty>"}},
		{"legacy replaces the whole cell", `"ann"`, `"X"`, true, []string{`"X"`, `"bob"`, `"X"`, "<empty>"}},
		{"empty string stays empty string", `"\"bob\""`, `""`, false, []string{`"Aann"`, `""`, `"Ann-ana"`, "<empty>"}},
		{"null find fills empty cells", `null`, `"none"`, false, []string{`"Aann"`, `"bob"`, `"Ann-ana"`, `"none"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustOpenDB(t)
			sh := e.mustCreateSheet(t, contacts)
			e.mustInsert(t, sh, rows(map[string]any{"name": "Aann"}, map[string]any{"name": "bob"}, map[string]any{"name": "Ann-ana"}, map[string]any{"email": "x"}))
			res, err := e.db.FindAndReplace(t.Context(), sh, recordset.RecordQuery{}, recordset.FindReplace{FieldKey: "name", Find: json.RawMessage(tt.find),
				Replace: json.RawMessage(tt.replace), LegacyReplace: tt.legacy}, recordset.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.VersionID == "" {
				t.Errorf("got no version id")
			}
			if got := values(t, e, sh, "name"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFindAndReplaceBatchesAndReadonly(t *testing.T) {
	e := mustOpenDB(t)
	cfg := contacts
	cfg.Fields = append([]model.Field{}, contacts.Fields...)
	cfg.Fields[4].Readonly = true // tier
	sh := e.mustCreateSheet(t, cfg)
	var in []map[string]any
	for i := 0; i < recordset.BatchSize+5; i++ {
		in = append(in, map[string]any{"name": "n", "tier": "gold"})
	}
	recs := rows(in...)
	recs[0].Config = json.RawMessage(`{"readonly":true}`)
	e.mustInsert(t, sh, recs)
	_, err := e.db.FindAndReplace(t.Context(), sh, recordset.RecordQuery{}, recordset.FindReplace{FieldKey: "tier", Find: json.RawMessage(`"gold"`), Replace: json.RawMessage(`"silver"`), ExcludeReadOnly: true}, recordset.WriteOptions{})
	if !errs.Is(err, errs.Invalid) {
		t.Fatalf("got %v, want a readonly field refused with excludeReadOnly", err)
	}
	res, err := e.db.FindAndReplace(t.Context(), sh, recordset.RecordQuery{}, recordset.FindReplace{FieldKey: "tier", Find: json.RawMessage(`"gold"`), Replace: json.RawMessage(`"silver"`)}, recordset.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != recordset.BatchSize+5 || len(res.VersionIDs) != 2 {
		t.Fatalf("got %d records in %d versions, want %d in 2", res.Count, len(res.VersionIDs), recordset.BatchSize+5)
	}
	res, err = e.db.FindAndReplace(t.Context(), sh, recordset.RecordQuery{}, recordset.FindReplace{FieldKey: "name", Find: json.RawMessage(`"n"`), Replace: json.RawMessage(`"m"`), ExcludeReadOnly: true}, recordset.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != recordset.BatchSize+4 {
		t.Errorf("got %d replaced, want the readonly record skipped", res.Count)
	}
}

// A bulk edit finds sparse matches across windows of keys, one of them emptied (PostgreSQL
// reads a batch BatchSize keys at a time), and batches of every record across them.
func TestFindAndReplaceAcrossKeyWindows(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	var in []map[string]any
	for i := range 2*recordset.BatchSize + 7 {
		tier := "silver"
		if i%7 == 0 {
			tier = "gold"
		}
		in = append(in, map[string]any{"name": fmt.Sprintf("n%d", i), "tier": tier})
	}
	recs := e.mustInsert(t, sh, rows(in...)).Records
	var gone []string // (keys 10,001 to 20,000: the second window of the first batch)
	for _, r := range recs[recordset.BatchSize : 2*recordset.BatchSize] {
		gone = append(gone, r.ID)
	}
	if _, err := e.db.DeleteRecords(t.Context(), sh, gone, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	left, gold := len(recs)-len(gone), 0
	for i := range in {
		if (i < recordset.BatchSize || i >= 2*recordset.BatchSize) && i%7 == 0 {
			gold++
		}
	}
	res, err := e.db.FindAndReplace(t.Context(), sh, recordset.RecordQuery{}, recordset.FindReplace{FieldKey: "tier", Find: json.RawMessage(`"\"gold\""`), Replace: json.RawMessage(`"bronze"`)}, recordset.WriteOptions{})
	if err != nil || res.Count != gold || len(res.VersionIDs) != 1 {
		t.Fatalf("gold: %+v (%v), want %d in one version", res, err, gold)
	}
	if n, _ := e.db.CountForTest(t.Context(), `SELECT count(*) FROM records WHERE CAST(vals AS TEXT) LIKE '%"gold"%'`); n != 0 {
		t.Fatalf("%d gold left", n)
	}
	res, err = e.db.FindAndReplace(t.Context(), sh, recordset.RecordQuery{}, recordset.FindReplace{FieldKey: "name", Find: json.RawMessage(`"n"`), Replace: json.RawMessage(`"m"`)}, recordset.WriteOptions{})
	if err != nil || res.Count != left || len(res.VersionIDs) != 2 {
		t.Fatalf("names: %+v (%v), want %d in two versions", res, err, left)
	}
}

func TestClearColumn(t *testing.T) {
	e := mustOpenDB(t)
	cfg := contacts
	cfg.Fields = append([]model.Field{}, contacts.Fields...)
	cfg.Fields[2].Readonly = true // age
	sh := e.mustCreateSheet(t, cfg)
	in := rows(map[string]any{"name": "A", "email": "same"}, map[string]any{"name": "B", "email": "same"}, map[string]any{"name": "C", "email": "keep"})
	in[2].Config = json.RawMessage(`{"readonly":true}`)
	e.mustInsert(t, sh, in)
	if _, err := e.db.ClearColumn(t.Context(), sh, "age", recordset.WriteOptions{}); err == nil || err.Error() != recordset.ErrColumnReadonly.Error() {
		t.Fatalf("got %v, want %v", err, recordset.ErrColumnReadonly)
	}
	if _, err := e.db.ClearColumn(t.Context(), sh, "email", recordset.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := values(t, e, sh, "email"); !reflect.DeepEqual(got, []string{"<empty>", "<empty>", `"keep"`}) {
		t.Errorf("got %v, want cleared except the readonly record", got)
	}
	if c := e.mustCounts(t, sh); c.Valid != 3 {
		t.Errorf("got %d valid, want the duplicates cleared with the column", c.Valid)
	}
	snaps, err := e.db.ListSnapshots(t.Context(), e.account, sh, "")
	if err != nil || len(snaps) != 1 || snaps[0].Label != "email" {
		t.Fatalf("got %v %v, want one snapshot labelled email", snaps, err)
	}
	cfg.Readonly = true
	e.setConfig(t, sh, cfg)
	if _, err := e.db.ClearColumn(t.Context(), sh, "name", recordset.WriteOptions{}); err == nil || err.Error() != recordset.ErrSheetReadonly.Error() {
		t.Fatalf("got %v, want %v", err, recordset.ErrSheetReadonly)
	}
}

func TestDeleteWhereAndBulkUpdate(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	e.mustInsert(t, sh, rows(map[string]any{"name": "A", "age": "x"}, map[string]any{"name": "B"}, map[string]any{"name": "C", "age": "y"}))
	res, err := e.db.BulkUpdate(t.Context(), sh, recordset.RecordQuery{Filter: "error"}, map[string]recordset.CellIn{"age": {Value: json.RawMessage(`7`), HasValue: true}}, recordset.WriteOptions{})
	if err != nil || res.Count != 2 {
		t.Fatalf("got %v %v, want 2 updated", res, err)
	}
	if c := e.mustCounts(t, sh); c.Valid != 3 {
		t.Fatalf("got %+v, want all valid", c)
	}
	if _, err := e.db.DeleteWhere(t.Context(), sh, recordset.RecordQuery{Q: `name ne B`}, recordset.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := values(t, e, sh, "name"); !reflect.DeepEqual(got, []string{`"B"`}) {
		t.Errorf("got %v, want only B left", got)
	}
}

func TestSnapshotSummaryAndRestore(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	res := e.mustInsert(t, sh, rows(map[string]any{"name": "A", "email": "a"}, map[string]any{"name": "B", "email": "b"}, map[string]any{"name": "C"}))
	snap, err := e.db.CreateSnapshot(t.Context(), e.account, sh, "before", "", "us_usr_test")
	if err != nil {
		t.Fatal(err)
	}
	e.mustUpdate(t, sh, set(res.Records[0].ID, map[string]any{"email": "b"})) // now a duplicate of B
	if _, err := e.db.DeleteRecords(t.Context(), sh, []string{res.Records[2].ID}, recordset.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.mustInsert(t, sh, rows(map[string]any{"name": "D"}))
	cfg := contacts
	cfg.Fields = append(append([]model.Field{}, contacts.Fields[1:]...), model.Field{Key: "notes", Type: "string"})
	e.setConfig(t, sh, cfg)
	got, err := e.db.GetSnapshot(t.Context(), e.account, snap.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	s := got.Summary
	if s.CreatedSince.Total != 1 || s.UpdatedSince.Total != 1 || s.DeletedSince.Total != 1 || s.UpdatedSince.ByField["email"] != 1 {
		t.Errorf("got created %d updated %d (%v) deleted %d, want 1, 1 (email 1), 1", s.CreatedSince.Total, s.UpdatedSince.Total, s.UpdatedSince.ByField, s.DeletedSince.Total)
	}
	if s.SchemaDiff["name"] != "removed" || s.SchemaDiff["notes"] != "added" || s.SchemaDiff["email"] != "unchanged" {
		t.Errorf("got schema diff %v", s.SchemaDiff)
	}
	diff, err := e.db.GetSnapshotRecords(t.Context(), e.account, snap.ID, "", model.Page{Size: 10, Number: 1})
	if err != nil || len(diff) != 3 {
		t.Fatalf("got %d diff records (%v), want 3", len(diff), err)
	}
	e.setConfig(t, sh, contacts)
	if _, err := e.db.RestoreSnapshot(t.Context(), e.account, snap.ID, recordset.RestoreOptions{Created: true, Updated: true, Deleted: true}, recordset.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	recs := e.mustGet(t, sh, recordset.RecordQuery{})
	if len(recs) != 3 || recs[2].ID != res.Records[2].ID || value(recs[0], "email") != `"a"` {
		t.Fatalf("got %d records, want the three originals back with their ids and values", len(recs))
	}
	if c := e.mustCounts(t, sh); c.Total != 3 || c.Valid != 3 {
		t.Errorf("got %+v, want 3 valid", c)
	}
}

func TestInsertStream(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	n := 0
	src := func() ([]json.RawMessage, error) {
		if n == 25 {
			return nil, io.EOF
		}
		n++
		email := fmt.Sprintf(`"e%d"`, n%20) // five duplicates pairs
		return []json.RawMessage{json.RawMessage(fmt.Sprintf(`"n%d"`, n)), json.RawMessage(email)}, nil
	}
	res, err := e.db.InsertStream(t.Context(), sh, []string{"name", "email"}, src, 10, recordset.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 25 || len(res.VersionIDs) != 3 {
		t.Fatalf("got %d records in %d versions, want 25 in 3", res.Count, len(res.VersionIDs))
	}
	recs := e.mustGet(t, sh, recordset.RecordQuery{})
	if value(recs[0], "name") != `"n1"` || value(recs[24], "name") != `"n25"` {
		t.Errorf("got %s … %s, want n1 … n25 in order", value(recs[0], "name"), value(recs[24], "name"))
	}
	if c := e.mustCounts(t, sh); c.Error != 10 {
		t.Errorf("got %d errors, want the 5 duplicate pairs across batches flagged", c.Error)
	}
	_, err = e.db.InsertStream(t.Context(), sh, []string{"nope"}, src, 10, recordset.WriteOptions{})
	if !errs.Is(err, errs.Invalid) {
		t.Errorf("got %v, want an unknown key refused", err)
	}
}

// A streamed insert of large rows flushes by size, not only by count: 400 rows of 100 KB
// (40 MB) asked for in one batch of 5,000 go in batches of at most BatchBytes, so an import
// job's memory does not grow with the width of the file's rows.
func TestInsertStreamBatchesBySize(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	val, _ := json.Marshal(fmt.Sprintf("%0100000d", 7))
	n := 0
	res, err := e.db.InsertStream(t.Context(), sh, []string{"name"}, func() ([]json.RawMessage, error) {
		if n == 400 {
			return nil, io.EOF
		}
		n++
		return []json.RawMessage{val}, nil
	}, 5000, recordset.WriteOptions{})
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	if res.Count != 400 {
		t.Fatalf("inserted %d records, want 400", res.Count)
	}
	want := (400*len(val) + recordset.BatchBytes - 1) / recordset.BatchBytes
	if len(res.VersionIDs) < want {
		t.Fatalf("400 rows of 100 KB went in %d batch(es), want at least %d of at most %d MiB", len(res.VersionIDs), want, recordset.BatchBytes>>20)
	}
}

// A source that fails part way: the rows it gave before the failure are written (in full
// batches and the part of one), in order, whether its keys are the schema's in order (the
// source's rows kept as they are) or not, and the failure comes back.
func TestInsertStreamKeepsRowsBeforeASourceError(t *testing.T) {
	pair := model.SheetConfig{Name: "Pairs", Fields: []model.Field{{Key: "name", Type: model.FieldString}, {Key: "email", Type: model.FieldString}}}
	for _, keys := range [][]string{{"name", "email"}, {"email", "name"}} {
		e := mustOpenDB(t)
		sh := e.mustCreateSheet(t, pair)
		broken := errors.New("the file broke off")
		n := 0
		src := func() ([]json.RawMessage, error) {
			if n == 2600 {
				return nil, broken
			}
			n++
			row := []json.RawMessage{json.RawMessage(fmt.Sprintf(`"n%d"`, n)), json.RawMessage(fmt.Sprintf(`"e%d@x.test"`, n))}
			if keys[0] == "email" {
				row[0], row[1] = row[1], row[0]
			}
			return row, nil
		}
		res, err := e.db.InsertStream(t.Context(), sh, keys, src, 1000, recordset.WriteOptions{})
		if !errors.Is(err, broken) {
			t.Fatalf("keys %v: got %v, want the source's error", keys, err)
		}
		if res.Count != 2600 || len(res.VersionIDs) != 3 {
			t.Fatalf("keys %v: %d records in %d versions, want 2600 in 3", keys, res.Count, len(res.VersionIDs))
		}
		recs := e.mustGet(t, sh, recordset.RecordQuery{Page: model.Page{Size: 3000, Number: 1}})
		if len(recs) != 2600 || value(recs[0], "name") != `"n1"` || value(recs[2599], "email") != `"e2600@x.test"` {
			t.Fatalf("keys %v: got %d records, first %s, last %s", keys, len(recs), value(recs[0], "name"), value(recs[len(recs)-1], "email"))
		}
	}
}

// Once InsertStream has returned (here: its context ended part way), it calls the source no
// more: the caller may read what the source gathered (a file's inferred formats).
func TestInsertStreamLeavesTheSourceWhenItReturns(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	ctx, cancel := context.WithCancel(t.Context())
	var n, after atomic.Int64
	var returned atomic.Bool
	src := func() ([]json.RawMessage, error) {
		if returned.Load() {
			after.Add(1)
		}
		if n.Add(1) >= 3000 {
			cancel()
			time.Sleep(2 * time.Millisecond) // (a slow source: still reading when the writer stops)
		}
		return []json.RawMessage{json.RawMessage(`"n"`), json.RawMessage(`"e"`)}, nil
	}
	_, err := e.db.InsertStream(ctx, sh, []string{"name", "email"}, src, 500, recordset.WriteOptions{})
	returned.Store(true)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the context's end", err)
	}
	time.Sleep(100 * time.Millisecond)
	if after.Load() != 0 {
		t.Fatalf("the source was called %d times after InsertStream returned", after.Load())
	}
}

// EachValues (a map job's reading of its source) hands over every record's values as
// EachRecord does — across a page boundary, holes in the keys, empty values and a field the
// schema dropped.
func TestEachValuesAsEachRecord(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	var in []map[string]any
	for i := range 5600 {
		rec := map[string]any{"name": fmt.Sprintf("n%d", i), "age": i % 90, "tier": []string{"gold", "silver", ""}[i%3]}
		if i%11 == 0 {
			rec["email"] = fmt.Sprintf(`e"%d@x.io`, i)
		}
		in = append(in, rec)
	}
	e.mustInsertWithHoles(t, sh, in, 13)
	cfg := contacts
	cfg.Fields = append([]model.Field{}, contacts.Fields[:3]...) // (vip and tier dropped)
	cfg.Fields = append(cfg.Fields, contacts.Fields[4])          // (tier back, empty: a new position)
	e.setConfig(t, sh, cfg)
	type rec struct {
		id   string
		vals map[string]string
	}
	var want, got []rec
	err := e.db.EachRecord(t.Context(), e.account, sh, recordset.RecordQuery{}, func(r *recordset.Record) error {
		vals := map[string]string{}
		for _, c := range r.Cells {
			if c.Value != nil {
				vals[c.Key] = string(c.Value)
			}
		}
		want = append(want, rec{r.ID, vals})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = e.db.EachValues(t.Context(), e.account, sh, func(keys []string, id string, row records.Row) error {
		vals := map[string]string{}
		for i, v := range row {
			if v != nil {
				vals[keys[i]] = string(v)
			}
		}
		got = append(got, rec{id, vals})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 5100 || !reflect.DeepEqual(got, want) {
		t.Fatalf("EachValues read %d records, EachRecord %d (first: %v / %v)", len(got), len(want), got[:1], want[:1])
	}
}
