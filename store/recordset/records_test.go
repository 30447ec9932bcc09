package recordset_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// sheetEnv is a store with one account and space, ready for sheets made in SQL.
type sheetEnv struct {
	db      *store.DB
	account string
	env     string
	space   string
	n       int
	dsn     string // the database, for a second handle on it (another node)
}

func mustOpenDB(t testing.TB) *sheetEnv {
	t.Helper()
	dsn := sqldb.TestDatabase(t)
	db, err := store.OpenDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	res, err := db.EnsureBootstrap(t.Context(), store.Bootstrap{AccountName: "T", AdminEmail: "a@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	sp := &model.Space{AccountID: res.Account.ID, EnvironmentID: res.Environment.ID, Name: "S"}
	if err := db.CreateSpace(t.Context(), sp, "us_usr_test"); err != nil {
		t.Fatal(err)
	}
	return &sheetEnv{db: db, account: res.Account.ID, env: res.Environment.ID, space: sp.ID, dsn: dsn}
}

// mustCreateSheet inserts a workbook (once) and a sheet with cfg directly in SQL.
func (e *sheetEnv) mustCreateSheet(t testing.TB, cfg model.SheetConfig) string {
	t.Helper()
	ctx := t.Context()
	wb := "us_wb_test0001"
	if e.n == 0 {
		if err := e.db.ExecForTest(ctx, `INSERT INTO workbooks (id, account_id, environment_id, space_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, 'W', 0, 0)`,
			wb, e.account, e.env, e.space); err != nil {
			t.Fatal(err)
		}
	}
	e.n++
	id := fmt.Sprintf("us_sh_test%04d", e.n)
	if cfg.Slug == "" {
		cfg.Slug = fmt.Sprintf("sheet%d", e.n)
	}
	b, _ := json.Marshal(cfg)
	if err := e.db.ExecForTest(ctx, `INSERT INTO sheets (id, workbook_id, name, slug, config, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, 0)`,
		id, wb, cfg.Name, cfg.Slug, string(b)); err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *sheetEnv) setConfig(t testing.TB, sheetID string, cfg model.SheetConfig) {
	t.Helper()
	b, _ := json.Marshal(cfg)
	if err := e.db.ExecForTest(t.Context(), `UPDATE sheets SET config = ? WHERE id = ?`, string(b), sheetID); err != nil {
		t.Fatal(err)
	}
}

// rows builds insert input from maps of plain values.
func rows(vals ...map[string]any) []recordset.RecordIn {
	out := make([]recordset.RecordIn, len(vals))
	for i, v := range vals {
		out[i].Values = map[string]recordset.CellIn{}
		for k, x := range v {
			b, _ := json.Marshal(x)
			out[i].Values[k] = recordset.CellIn{Value: b, HasValue: true}
		}
	}
	return out
}

func set(id string, vals map[string]any) recordset.RecordIn {
	r := rows(vals)[0]
	r.ID = id
	return r
}

func (e *sheetEnv) mustInsert(t testing.TB, sheetID string, in []recordset.RecordIn) *recordset.WriteResult {
	t.Helper()
	res, err := e.db.InsertRecords(t.Context(), sheetID, in, recordset.WriteOptions{Actor: "us_usr_test"})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	return res
}

func (e *sheetEnv) mustUpdate(t testing.TB, sheetID string, in ...recordset.RecordIn) {
	t.Helper()
	if _, err := e.db.UpdateRecords(t.Context(), sheetID, in, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatalf("update: %v", err)
	}
}

func (e *sheetEnv) mustGet(t testing.TB, sheetID string, q recordset.RecordQuery) []*recordset.Record {
	t.Helper()
	recs, _, err := e.db.GetRecords(t.Context(), e.account, sheetID, q, false)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	return recs
}

func (e *sheetEnv) mustCounts(t testing.TB, sheetID string) *recordset.Counts {
	t.Helper()
	c, err := e.db.GetRecordCounts(t.Context(), e.account, sheetID)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func cell(r *recordset.Record, key string) *recordset.Cell {
	for i := range r.Cells {
		if r.Cells[i].Key == key {
			return &r.Cells[i]
		}
	}
	return nil
}

func value(r *recordset.Record, key string) string {
	c := cell(r, key)
	if c == nil || c.Value == nil {
		return "<empty>"
	}
	return string(c.Value)
}

func sources(c *recordset.Cell) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, m := range c.Messages {
		out = append(out, m.Source)
	}
	return out
}

func byID(recs []*recordset.Record) map[string]*recordset.Record {
	m := map[string]*recordset.Record{}
	for _, r := range recs {
		m[r.ID] = r
	}
	return m
}

var contacts = model.SheetConfig{Name: "Contacts", Fields: []model.Field{
	{Key: "name", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "required"}}},
	{Key: "email", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
	{Key: "age", Type: model.FieldNumber},
	{Key: "vip", Type: model.FieldBoolean},
	{Key: "tier", Type: model.FieldEnum, Config: &model.FieldConfig{Options: []model.EnumOption{{Value: json.RawMessage(`"gold"`), Label: "Gold"}, {Value: json.RawMessage(`"silver"`)}}}},
}}

func TestInsertKeepsOrderAndValidates(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	res := e.mustInsert(t, sh, rows(
		map[string]any{"name": "Ann", "email": "ann@x", "age": "42", "vip": "yes", "tier": "Gold"},
		map[string]any{"name": "", "email": "bob@x", "age": "old"},
		map[string]any{"name": "Cy", "tier": "bronze"},
	))
	if len(res.Records) != 3 || res.VersionID == "" {
		t.Fatalf("got %d records and version %q, want 3 and a version", len(res.Records), res.VersionID)
	}
	got := e.mustGet(t, sh, recordset.RecordQuery{})
	for i, r := range got {
		if r.ID != res.Records[i].ID {
			t.Fatalf("record %d: got id %s, want %s (insertion order)", i, r.ID, res.Records[i].ID)
		}
	}
	if !got[0].Valid || value(got[0], "age") != "42" || value(got[0], "vip") != "true" || value(got[0], "tier") != `"gold"` {
		t.Errorf("got %v valid=%v, want coerced valid values", got[0].Cells, got[0].Valid)
	}
	if got[1].Valid || !reflect.DeepEqual(sources(cell(got[1], "name")), []string{"required-constraint"}) || cell(got[1], "age").Valid {
		t.Errorf("got %+v, want required error on name and type error on age", got[1].Cells)
	}
	if got[2].Valid || !reflect.DeepEqual(sources(cell(got[2], "tier")), []string{"invalid-option"}) {
		t.Errorf("got %+v, want invalid-option on tier", got[2].Cells)
	}
	c := e.mustCounts(t, sh)
	if c.Total != 3 || c.Valid != 1 || c.Error != 2 || c.ErrorsByField["name"] != 1 || c.ErrorsByField["age"] != 1 || c.ErrorsByField["tier"] != 1 {
		t.Errorf("got counts %+v, want total 3, valid 1, error 2, one error each on name, age, tier", c)
	}
}

func TestInsertUnknownFieldWritesNothing(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	_, err := e.db.InsertRecords(t.Context(), sh, rows(map[string]any{"name": "A"}, map[string]any{"nmae": "B"}), recordset.WriteOptions{})
	if !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), `"nmae"`) {
		t.Fatalf("got %v, want an invalid error naming nmae", err)
	}
	if c := e.mustCounts(t, sh); c.Total != 0 {
		t.Errorf("got total %d, want 0", c.Total)
	}
}

func TestDuplicatesOnFirstInsertAndTwinClearing(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	res := e.mustInsert(t, sh, rows(
		map[string]any{"name": "A", "email": "same@x"},
		map[string]any{"name": "B", "email": "same@x"},
	))
	for _, r := range e.mustGet(t, sh, recordset.RecordQuery{}) {
		if r.Valid || !reflect.DeepEqual(sources(cell(r, "email")), []string{"unique-constraint"}) {
			t.Fatalf("got %+v valid=%v, want a unique error on both", r.Cells, r.Valid)
		}
	}
	if c := e.mustCounts(t, sh); c.Error != 2 || c.ErrorsByField["email"] != 2 {
		t.Fatalf("got %+v, want 2 errors on email", c)
	}
	// A third with the same value, then fix the first: the other two stay duplicates.
	third := e.mustInsert(t, sh, rows(map[string]any{"name": "C", "email": "same@x"})).Records[0]
	e.mustUpdate(t, sh, set(res.Records[0].ID, map[string]any{"email": "a@x"}))
	m := byID(e.mustGet(t, sh, recordset.RecordQuery{}))
	if !m[res.Records[0].ID].Valid || m[res.Records[1].ID].Valid || m[third.ID].Valid {
		t.Fatalf("got valid %v %v %v, want true false false", m[res.Records[0].ID].Valid, m[res.Records[1].ID].Valid, m[third.ID].Valid)
	}
	// Fixing the second leaves its twin alone with the value: the twin is cleared.
	e.mustUpdate(t, sh, set(res.Records[1].ID, map[string]any{"email": "b@x"}))
	m = byID(e.mustGet(t, sh, recordset.RecordQuery{}))
	if !m[third.ID].Valid || len(cell(m[third.ID], "email").Messages) != 0 {
		t.Fatalf("got %+v, want the twin cleared", m[third.ID].Cells)
	}
	if c := e.mustCounts(t, sh); c.Total != 3 || c.Valid != 3 || c.ErrorsByField["email"] != 0 {
		t.Errorf("got %+v, want 3 valid", c)
	}
	// Deleting one of two duplicates clears the other.
	e.mustUpdate(t, sh, set(third.ID, map[string]any{"email": "a@x"}))
	if _, err := e.db.DeleteRecords(t.Context(), sh, []string{res.Records[0].ID}, recordset.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	m = byID(e.mustGet(t, sh, recordset.RecordQuery{}))
	if !m[third.ID].Valid {
		t.Errorf("got invalid, want the survivor of a deleted duplicate valid")
	}
	if c := e.mustCounts(t, sh); c.Total != 2 || c.Valid != 2 {
		t.Errorf("got %+v, want 2 valid", c)
	}
}

func TestSpecialCharacterKeys(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "X", Fields: []model.Field{
		{Key: "a.b", Type: model.FieldString, Constraints: []model.FieldConstraint{{Type: "unique"}}},
		{Key: `q"uote`, Type: model.FieldString},
		{Key: "x[0]", Type: model.FieldNumber},
	}})
	e.mustInsert(t, sh, rows(
		map[string]any{"a.b": "one", `q"uote`: "hi", "x[0]": 1},
		map[string]any{"a.b": "one", `q"uote`: "there", "x[0]": 2},
	))
	recs := e.mustGet(t, sh, recordset.RecordQuery{})
	if recs[0].Valid || recs[1].Valid {
		t.Fatalf("got valid records, want duplicates on a.b")
	}
	for _, q := range []string{`a.b eq one`, `"q\"uote" eq there`, `x[0] gt 1`, `a.b is error`} {
		got := e.mustGet(t, sh, recordset.RecordQuery{Q: q})
		if len(got) == 0 {
			t.Errorf("q %s: got no records, want some", q)
		}
	}
	if got := e.mustGet(t, sh, recordset.RecordQuery{SearchValue: "there", SearchField: `q"uote`}); len(got) != 1 {
		t.Errorf("search: got %d, want 1", len(got))
	}
}

func TestCompositeUnique(t *testing.T) {
	e := mustOpenDB(t)
	cfg := model.SheetConfig{Name: "P", Fields: []model.Field{{Key: "first", Type: "string"}, {Key: "last", Type: "string"}},
		Constraints: []model.SheetConstraint{{Type: "unique", Name: "fullname", Fields: []string{"first", "last"}, Strategy: "hash"}}}
	sh := e.mustCreateSheet(t, cfg)
	res := e.mustInsert(t, sh, rows(
		map[string]any{"first": "Ann", "last": "Lee"},
		map[string]any{"first": "Ann", "last": "Lee"},
		map[string]any{"first": "Ann", "last": "Kim"},
	))
	m := byID(e.mustGet(t, sh, recordset.RecordQuery{}))
	if m[res.Records[0].ID].Valid || m[res.Records[1].ID].Valid || !m[res.Records[2].ID].Valid {
		t.Fatalf("want the first two invalid, the third valid")
	}
	if !reflect.DeepEqual(sources(cell(m[res.Records[0].ID], "last")), []string{"unique-constraint"}) {
		t.Errorf("got %+v, want a unique message on last", m[res.Records[0].ID].Cells)
	}
	e.mustUpdate(t, sh, set(res.Records[1].ID, map[string]any{"last": "Park"}))
	for _, r := range e.mustGet(t, sh, recordset.RecordQuery{}) {
		if !r.Valid {
			t.Errorf("record %s invalid after fixing the duplicate", r.ID)
		}
	}
}

func TestLockedSheetRejectsWritesUnchanged(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	res := e.mustInsert(t, sh, rows(map[string]any{"name": "A"}))
	if err := e.db.ExecForTest(t.Context(), `UPDATE sheets SET locked_at = 1, locked_by = 'x' WHERE id = ?`, sh); err != nil {
		t.Fatal(err)
	}
	_, err := e.db.InsertRecords(t.Context(), sh, rows(map[string]any{"name": "B"}), recordset.WriteOptions{})
	if !errs.Is(err, errs.Forbidden) {
		t.Fatalf("insert: got %v, want forbidden", err)
	}
	_, err = e.db.UpdateRecords(t.Context(), sh, []recordset.RecordIn{set(res.Records[0].ID, map[string]any{"name": "Z"})}, recordset.WriteOptions{})
	if !errs.Is(err, errs.Forbidden) {
		t.Fatalf("update: got %v, want forbidden", err)
	}
	recs := e.mustGet(t, sh, recordset.RecordQuery{})
	if len(recs) != 1 || value(recs[0], "name") != `"A"` {
		t.Errorf("got %d records, name %s; want the sheet unchanged", len(recs), value(recs[0], "name"))
	}
}

func TestAgentMessagesSurviveRevalidation(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	id := e.mustInsert(t, sh, rows(map[string]any{"name": "A", "age": "x"})).Records[0].ID
	up := recordset.RecordIn{ID: id, Values: map[string]recordset.CellIn{"name": {HasMessages: true, Messages: []records.Message{{Type: "warn", Source: "custom-logic", Message: "check spelling"}}}}}
	e.mustUpdate(t, sh, up)
	e.mustUpdate(t, sh, set(id, map[string]any{"age": 5}))
	r := e.mustGet(t, sh, recordset.RecordQuery{})[0]
	if c := cell(r, "name"); len(c.Messages) != 1 || c.Messages[0].Message != "check spelling" {
		t.Fatalf("got %+v, want the agent's warning kept", c)
	}
	if !r.Valid {
		t.Errorf("got invalid, want valid (a warning is not an error)")
	}
}

func TestReadonly(t *testing.T) {
	e := mustOpenDB(t)
	cfg := contacts
	cfg.Fields = append([]model.Field{}, contacts.Fields...)
	cfg.Fields[2].Readonly = true // age
	sh := e.mustCreateSheet(t, cfg)
	in := rows(map[string]any{"name": "A", "age": 3}, map[string]any{"name": "B"})
	in[1].Config = json.RawMessage(`{"readonly":true}`)
	res := e.mustInsert(t, sh, in)
	_, err := e.db.UpdateRecords(t.Context(), sh, []recordset.RecordIn{set(res.Records[0].ID, map[string]any{"age": 4})}, recordset.WriteOptions{})
	if !errs.Is(err, errs.Invalid) {
		t.Fatalf("got %v, want readonly field refused", err)
	}
	// Sending the current value is fine (record hooks send whole records back).
	e.mustUpdate(t, sh, set(res.Records[0].ID, map[string]any{"age": 3, "name": "AA"}))
	_, err = e.db.UpdateRecords(t.Context(), sh, []recordset.RecordIn{set(res.Records[1].ID, map[string]any{"name": "X"})}, recordset.WriteOptions{})
	if !errs.Is(err, errs.Invalid) {
		t.Fatalf("got %v, want readonly record refused", err)
	}
}

func TestInsertMovesSpaceActivity(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	later := time.Date(2026, 3, 4, 5, 6, 7, 890e6, time.UTC)
	e.db.Now = func() time.Time { return later }
	e.mustInsert(t, sh, rows(map[string]any{"name": "A"}))
	sp, err := e.db.GetSpace(t.Context(), e.account, e.space)
	if err != nil {
		t.Fatal(err)
	}
	if sp.LastActivityAt == nil || !sp.LastActivityAt.Equal(later.Truncate(time.Second)) {
		t.Errorf("got lastActivityAt %v, want %v", sp.LastActivityAt, later.Truncate(time.Second))
	}
}

func TestQueryCombinations(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	res := e.mustInsert(t, sh, rows(
		map[string]any{"name": "Ann", "email": "a@x", "age": 30},
		map[string]any{"name": "Bob", "email": "a@x", "age": "old"},
		map[string]any{"email": "c@x", "age": 50},
	))
	ids := []string{res.Records[0].ID, res.Records[1].ID, res.Records[2].ID}
	tests := []struct {
		name string
		q    recordset.RecordQuery
		want []string
	}{
		{"error", recordset.RecordQuery{Filter: "error"}, ids},
		{"error on email", recordset.RecordQuery{Filter: "error", FilterField: "email"}, ids[:2]},
		{"valid on email", recordset.RecordQuery{Filter: "valid", FilterField: "email"}, ids[2:]},
		{"error, q and search", recordset.RecordQuery{Filter: "error", Q: "age gte 30", SearchValue: "x"}, []string{ids[0], ids[2]}},
		{"error sorted by age desc", recordset.RecordQuery{Filter: "error", SortField: "age", SortDesc: true}, []string{ids[1], ids[2], ids[0]}},
		{"error excluding an id", recordset.RecordQuery{Filter: "error", IDs: ids[:1]}, ids[1:]},
		{"none", recordset.RecordQuery{Filter: "none"}, nil},
		{"none with ids", recordset.RecordQuery{Filter: "none", IDs: ids[1:2]}, ids[1:2]},
		{"ids only", recordset.RecordQuery{IDs: []string{ids[2], ids[0]}}, []string{ids[0], ids[2]}},
		{"version", recordset.RecordQuery{VersionID: res.VersionID}, ids},
		{"since version", recordset.RecordQuery{SinceVersionID: res.VersionID}, nil},
		{"exact search", recordset.RecordQuery{SearchValue: `"Bob"`}, ids[1:2]},
		{"empty search", recordset.RecordQuery{SearchValue: `""`, SearchField: "name"}, ids[2:]},
		{"page 2 of 2", recordset.RecordQuery{Page: model.Page{Size: 2, Number: 2}}, ids[2:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range e.mustGet(t, sh, tt.q) {
				got = append(got, r.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	for _, bad := range []recordset.RecordQuery{{Filter: "bogus"}, {FilterField: "name"}, {Filter: "error", FilterField: "nope"}, {SortField: "nope"}, {Q: "name eq"}, {IDs: []string{"us_rc_bad"}}, {VersionID: "us_vr_nope"}} {
		if _, _, err := e.db.GetRecords(t.Context(), e.account, sh, bad, false); !errs.Is(err, errs.Invalid) {
			t.Errorf("query %+v: got %v, want invalid", bad, err)
		}
	}
}

func TestValuesLayoutSurvivesSchemaChanges(t *testing.T) {
	e := mustOpenDB(t)
	cfg := model.SheetConfig{Name: "L", Fields: []model.Field{{Key: "a", Type: "string"}, {Key: "tags", Type: "string-list"}, {Key: "b", Type: "string"}}}
	sh := e.mustCreateSheet(t, cfg)
	tricky := `x"],[{"y":1}` + "\n\u00e9"
	e.mustInsert(t, sh, rows(map[string]any{"a": tricky, "tags": []string{"p,q", "]"}, "b": "keep"}))
	snap, err := e.db.CreateSnapshot(t.Context(), e.account, sh, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	// Drop a, add c: b keeps its value, c is empty.
	e.setConfig(t, sh, model.SheetConfig{Name: "L", Fields: []model.Field{{Key: "tags", Type: "string-list"}, {Key: "b", Type: "string"}, {Key: "c", Type: "number"}}})
	r := e.mustGet(t, sh, recordset.RecordQuery{})[0]
	if value(r, "b") != `"keep"` || value(r, "c") != "<empty>" || cell(r, "a") != nil {
		t.Fatalf("got %+v, want b kept, c empty, a gone", r.Cells)
	}
	// A field added again under a dropped key starts empty.
	e.setConfig(t, sh, cfg)
	r = e.mustGet(t, sh, recordset.RecordQuery{})[0]
	if cell(r, "a") != nil || value(r, "tags") != `["p,q","]"]` {
		t.Fatalf("got a=%v tags=%s, want a empty and tags kept", cell(r, "a"), value(r, "tags"))
	}
	if n := len(e.mustGet(t, sh, recordset.RecordQuery{Q: `tags contains "p,q"`})); n != 1 {
		t.Errorf("got %d records, want 1", n)
	}
	// The snapshot from before still knows what a held.
	if _, err := e.db.RestoreSnapshot(t.Context(), e.account, snap.ID, recordset.RestoreOptions{Updated: true}, recordset.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	r = e.mustGet(t, sh, recordset.RecordQuery{})[0]
	var got string
	_ = json.Unmarshal(cell(r, "a").Value, &got)
	if got != tricky {
		t.Errorf("got a=%q after restore, want %q", got, tricky)
	}
}

func TestRecordEventsPayload(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	res := e.mustInsert(t, sh, rows(map[string]any{"name": "A"}, map[string]any{"name": "B"}))
	evs, err := e.db.ListEvents(t.Context(), store.EventFilter{AccountID: e.account, Topic: "records:created", IncludeAcknowledged: true, Page: model.Page{Size: 10, Number: 1}})
	if err != nil || len(evs) != 1 {
		t.Fatalf("got %d events (%v), want one records:created", len(evs), err)
	}
	var p struct {
		SheetID     string   `json:"sheetId"`
		RecordIDs   []string `json:"recordIds"`
		RecordCount int      `json:"recordCount"`
	}
	if err := json.Unmarshal(evs[0].Payload, &p); err != nil {
		t.Fatalf("payload %s: %v", evs[0].Payload, err)
	}
	if p.SheetID != sh || p.RecordCount != 2 || !reflect.DeepEqual(p.RecordIDs, []string{res.Records[0].ID, res.Records[1].ID}) || evs[0].Domain != "workbook" {
		t.Errorf("got %+v (domain %s), want sheet, both ids in order and count 2 in domain workbook", p, evs[0].Domain)
	}
}

func TestWarningLevelUniqueAndStatusQueries(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "W", Fields: []model.Field{
		{Key: "email", Type: "string", Constraints: []model.FieldConstraint{{Type: "unique", Config: json.RawMessage(`{"level":"warn","message":"seen before"}`)}}},
		{Key: "n", Type: "number"},
	}})
	e.mustInsert(t, sh, rows(map[string]any{"email": "a"}, map[string]any{"email": "a"}, map[string]any{"email": "b", "n": "x"}))
	for q, want := range map[string]int{"email is warning": 2, "is warning": 2, "email is error": 0, "is error": 1, "n is error": 1, "is valid": 2, "email is valid": 3} {
		if got := len(e.mustGet(t, sh, recordset.RecordQuery{Q: q})); got != want {
			t.Errorf("q %q: got %d, want %d", q, got, want)
		}
	}
	r := e.mustGet(t, sh, recordset.RecordQuery{})[0]
	if !r.Valid || cell(r, "email").Messages[0].Message != "seen before" || cell(r, "email").Messages[0].Type != "warn" {
		t.Errorf("got %+v, want a valid record with the warning", r)
	}
}

func TestReferences(t *testing.T) {
	e := mustOpenDB(t)
	companies := e.mustCreateSheet(t, model.SheetConfig{Name: "Companies", Slug: "companies", Fields: []model.Field{
		{Key: "code", Type: "string", Constraints: []model.FieldConstraint{{Type: "unique"}}}, {Key: "country", Type: "string"}}})
	e.mustInsert(t, companies, rows(map[string]any{"code": "ACME", "country": "CH"}, map[string]any{"code": "INIT", "country": "DE"}))
	people := e.mustCreateSheet(t, model.SheetConfig{Name: "People", Fields: []model.Field{
		{Key: "company", Type: "reference", Config: &model.FieldConfig{Ref: "companies", Key: "code"}},         // unique index
		{Key: "country", Type: "reference-list", Config: &model.FieldConfig{Ref: "companies", Key: "country"}}, // scan
		{Key: "lost", Type: "reference", Config: &model.FieldConfig{Ref: "nowhere", Key: "code"}},
	}})
	res := e.mustInsert(t, people, rows(
		map[string]any{"company": "ACME", "country": []string{"CH", "DE"}},
		map[string]any{"company": "NOPE", "country": []string{"CH", "FR"}},
		map[string]any{"lost": "x"},
	))
	m := byID(e.mustGet(t, people, recordset.RecordQuery{}))
	if r := m[res.Records[0].ID]; !r.Valid {
		t.Errorf("got %+v, want links found", r.Cells)
	}
	r := m[res.Records[1].ID]
	if !reflect.DeepEqual(sources(cell(r, "company")), []string{"unlinked"}) || !reflect.DeepEqual(sources(cell(r, "country")), []string{"unlinked"}) {
		t.Errorf("got %+v, want dangling references flagged", r.Cells)
	}
	if r := m[res.Records[2].ID]; !reflect.DeepEqual(sources(cell(r, "lost")), []string{"unlinked"}) {
		t.Errorf("got %+v, want a reference to a missing sheet flagged", r.Cells)
	}
}

// CellValues counts every distinct value of a field exactly, most frequent first, with the
// valid and invalid records holding each; the kept list follows writes.
func TestCellValues(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	e.mustInsert(t, sh, rows(
		map[string]any{"name": "Ann", "age": "42"}, map[string]any{"name": "Bob", "age": "42"},
		map[string]any{"name": "Ann", "age": "7"}, map[string]any{"name": "", "age": "old"}, map[string]any{"name": "Cy"},
	))
	got, err := e.db.CellValues(t.Context(), e.account, sh, "name", recordset.RecordQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || string(got[0].Value) != `"Ann"` || got[0].Total != 2 || string(got[1].Value) != `"Bob"` || got[1].Total != 1 {
		t.Errorf("names: got %s", fmt.Sprint(got))
	}
	got, _ = e.db.CellValues(t.Context(), e.account, sh, "age", recordset.RecordQuery{})
	if len(got) != 3 || string(got[0].Value) != "42" || got[0].Total != 2 || string(got[2].Value) != `"old"` || got[2].Error != 1 {
		t.Errorf("ages (numbers stay numbers, the invalid text stays text and counts as an error): got %s", fmt.Sprint(got))
	}
	if got, _ = e.db.CellValues(t.Context(), e.account, sh, "name", recordset.RecordQuery{Filter: "error"}); len(got) != 0 {
		t.Errorf("names of records with errors (the one without a name has none): got %s", fmt.Sprint(got))
	}
	if _, err := e.db.CellValues(t.Context(), e.account, sh, "nope", recordset.RecordQuery{}); err == nil {
		t.Error("an unknown field is not refused")
	}
	e.mustInsert(t, sh, rows(map[string]any{"name": "Bob"}, map[string]any{"name": "Bob"}))
	if got, _ = e.db.CellValues(t.Context(), e.account, sh, "name", recordset.RecordQuery{}); string(got[0].Value) != `"Bob"` || got[0].Total != 3 {
		t.Errorf("after a write the kept list is stale: %s", fmt.Sprint(got))
	}
}

// TestSortedPagesFollowWrites pages through a sorted query (whose order the store keeps
// between pages) and changes the sheet between pages: every page reflects the data as it
// is now, never an order computed before a write.
func TestSortedPagesFollowWrites(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	res := e.mustInsert(t, sh, rows(map[string]any{"name": "Cy"}, map[string]any{"name": "Ann"}, map[string]any{"name": "Bob"}, map[string]any{"name": "Dee"}))
	names := func(page int) string {
		var out []string
		for _, r := range e.mustGet(t, sh, recordset.RecordQuery{SortField: "name", Page: model.Page{Size: 2, Number: page}}) {
			out = append(out, value(r, "name"))
		}
		return strings.Join(out, ",")
	}
	if p1, p2 := names(1), names(2); p1 != `"Ann","Bob"` || p2 != `"Cy","Dee"` {
		t.Fatalf("sorted pages: %s | %s", p1, p2)
	}
	// Cy becomes Aaron: the first page changes at once.
	if _, err := e.db.UpdateRecords(t.Context(), sh, []recordset.RecordIn{{ID: res.Records[0].ID, Values: map[string]recordset.CellIn{"name": {Value: json.RawMessage(`"Aaron"`), HasValue: true}}}}, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	if p1, p2 := names(1), names(2); p1 != `"Aaron","Ann"` || p2 != `"Bob","Dee"` {
		t.Fatalf("after the update: %s | %s", p1, p2)
	}
	if _, err := e.db.DeleteRecords(t.Context(), sh, []string{res.Records[1].ID}, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	if p1, p2 := names(1), names(2); p1 != `"Aaron","Bob"` || p2 != `"Dee"` {
		t.Fatalf("after the delete: %s | %s", p1, p2)
	}
	e.mustInsert(t, sh, rows(map[string]any{"name": "Al"}))
	if p1 := names(1); p1 != `"Aaron","Al"` {
		t.Fatalf("after an insert: %s", p1)
	}
}

// A search finds text anywhere in a value ignoring ASCII case, and LIKE's wildcards and
// escape character in what is searched are plain text.
func TestSearchTextIsPlain(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "S", Fields: []model.Field{{Key: "name", Type: model.FieldString}}})
	e.mustInsert(t, sh, rows(map[string]any{"name": "50% off"}, map[string]any{"name": "a_b"}, map[string]any{"name": `c\d`},
		map[string]any{"name": "MiXeD Case"}, map[string]any{"name": `say "hi"`}, map[string]any{"name": "plain"}))
	for needle, want := range map[string]string{"%": "50% off", "_": "a_b", `\`: `c\d`, "mixed": "MiXeD Case", "XED c": "MiXeD Case", `"hi`: `say "hi"`} {
		got := e.mustGet(t, sh, recordset.RecordQuery{SearchValue: needle})
		if len(got) != 1 || value(got[0], "name") != strconv.Quote(want) {
			var names []string
			for _, r := range got {
				names = append(names, value(r, "name"))
			}
			t.Errorf("search %q found %v, want only %q", needle, names, want)
		}
	}
}

// On PostgreSQL the first search of a big sheet builds its trigram index in the background;
// searches give the same answers before and after, and the index follows later writes.
func TestSearchIndexOnPostgres(t *testing.T) {
	e := mustOpenDB(t)
	if !e.db.Postgres() {
		t.Skip("PostgreSQL only")
	}
	e.db.Configure(sqldb.Settings{SearchIndexMin: 50})
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "I", Fields: []model.Field{{Key: "email", Type: model.FieldString}}})
	var in []recordset.RecordIn
	for i := 0; i < 100; i++ {
		in = append(in, set("", map[string]any{"email": fmt.Sprintf("user%d@Example.com", i)}))
	}
	e.mustInsert(t, sh, in)
	find := func(s string) int { return len(e.mustGet(t, sh, recordset.RecordQuery{SearchValue: s})) }
	if n := find("USER42@"); n != 1 {
		t.Fatalf("before the index: %d records for USER42@, want 1", n)
	}
	_, ready := searchIndexQueries(e)
	for i := 0; ; i++ {
		n, err := e.db.CountForTest(t.Context(), ready)
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if i > 100 {
			t.Fatal("no search index after 5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.mustInsert(t, sh, rows(map[string]any{"email": "late%_arrival@example.com"}))
	for s, want := range map[string]int{"user42@": 1, "USER4": 11, "late%_": 1, "nobody": 0} {
		if n := find(s); n != want {
			t.Errorf("with the index: %d records for %q, want %d", n, s, want)
		}
	}
	// With enough records for the planner to care, a search reads the index.
	var pad []map[string]any
	for i := 0; i < 3000; i++ {
		pad = append(pad, map[string]any{"email": fmt.Sprintf("pad%d@other.org", i)})
	}
	e.mustInsert(t, sh, rows(pad...))
	if err := e.db.ExecForTest(t.Context(), `VACUUM ANALYZE records`); err != nil {
		t.Fatal(err)
	}
	plan, err := e.db.ExplainForTest(t.Context(), e.account, sh, recordset.RecordQuery{SearchValue: "user42@"})
	if err != nil || !strings.Contains(plan, "Index Scan on records_search_") {
		def, _ := e.db.TextForTest(t.Context(), `SELECT indexdef FROM pg_indexes WHERE indexname LIKE 'records_search_%'`)
		t.Fatalf("a search does not use the sheet's index %s (%v):\n%s", def, err, plan)
	}
	// A needle common among the sheet's first records is scanned for, and found as well.
	plan, err = e.db.ExplainForTest(t.Context(), e.account, sh, recordset.RecordQuery{SearchValue: "other.org"})
	if err != nil || strings.Contains(plan, "records_search_") {
		t.Fatalf("a search for a common needle reads the index (%v):\n%s", err, plan)
	}
	// and the planner expects many matches (not the few it guesses for a pattern), so a page
	// reads the sheet in key order and stops at its first (a page of 100 of a search
	// matching 1,000,000 records sorted them all: 0.5 s).
	guess := func(plan string) (n int) {
		if i := strings.Index(plan, "rows="); i >= 0 {
			fmt.Sscanf(plan[i:], "rows=%d", &n)
		}
		return n
	}
	if guess(plan) < 3101/20 {
		t.Errorf("the planner expects %d of 3,101 records to hold a common needle:\n%s", guess(plan), plan)
	}
	if n := find("other.org"); n != 3000 {
		t.Errorf("a common needle: %d records, want 3000", n)
	}
	if c, err := e.db.CountRecords(t.Context(), e.account, sh, recordset.RecordQuery{SearchValue: "OTHER.org"}); err != nil || c.Total != 3000 {
		t.Errorf("a common needle: %+v records (%v), want 3000", c, err)
	}
	// ... also when it is common only among the records written last (the sample takes some
	// from each quarter of the keys).
	var late []map[string]any
	for i := 0; i < 3600; i++ {
		host := "more.org"
		if i >= 3000 {
			host = "latest.io"
		}
		late = append(late, map[string]any{"email": fmt.Sprintf("late%d@%s", i, host)})
	}
	e.mustInsert(t, sh, rows(late...))
	if plan, err := e.db.ExplainForTest(t.Context(), e.account, sh, recordset.RecordQuery{SearchValue: "latest.io"}); err != nil || strings.Contains(plan, "records_search_") || guess(plan) < 6701/20 {
		t.Fatalf("a needle common among the last records is not taken as common (%v):\n%s", err, plan)
	}
	if c, err := e.db.CountRecords(t.Context(), e.account, sh, recordset.RecordQuery{SearchValue: "latest.io"}); err != nil || c.Total != 600 {
		t.Errorf("a needle common among the last records: %+v records (%v), want 600", c, err)
	}
	// The index is partial, over the sheet's rid range, which the query passes as arguments:
	// a plan made once for any arguments (PostgreSQL's choice after five runs of a prepared
	// statement) could not use it, so every run is planned for its own.
	if n, err := e.db.CountForTest(t.Context(), `SELECT count(*) WHERE current_setting('plan_cache_mode') = 'force_custom_plan'`); err != nil || n != 1 {
		t.Fatalf("plan_cache_mode is not force_custom_plan (%v)", err)
	}
}

// Searches and FFQL's ilike fold ASCII case only, on both dialects: ü and Ü are different
// letters, M and m the same.
func TestSearchFoldsASCIICaseOnly(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "S", Fields: []model.Field{{Key: "name", Type: model.FieldString}}})
	e.mustInsert(t, sh, rows(map[string]any{"name": "Müller"}, map[string]any{"name": "MÜLLER"}, map[string]any{"name": "Mueller"}))
	for needle, want := range map[string]string{"müller": "Müller", "MüLLER": "Müller", "MÜLLER": "MÜLLER", "mÜller": "MÜLLER", "UELL": "Mueller"} {
		var got []string
		for _, r := range e.mustGet(t, sh, recordset.RecordQuery{SearchValue: needle}) {
			got = append(got, string(cell(r, "name").Value))
		}
		if len(got) != 1 || got[0] != `"`+want+`"` {
			t.Errorf("search %q found %v, want only %q", needle, got, want)
		}
		got = got[:0]
		for _, r := range e.mustGet(t, sh, recordset.RecordQuery{Q: `name ilike "%` + needle + `%"`}) {
			got = append(got, string(cell(r, "name").Value))
		}
		if len(got) != 1 || got[0] != `"`+want+`"` {
			t.Errorf("FFQL ilike %q found %v, want only %q", needle, got, want)
		}
	}
}

// FFQL's cell status finds a field's messages of each level, whoever wrote them (Sluice's
// validation or an agent), the same on both databases.
func TestStatusQueriesFindMessages(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	res := e.mustInsert(t, sh, rows(map[string]any{"name": "A"}, map[string]any{"name": "B", "age": "x"}, map[string]any{"name": "C"}))
	warn := recordset.RecordIn{ID: res.Records[0].ID, Values: map[string]recordset.CellIn{"name": {HasMessages: true, Messages: []records.Message{{Type: "warn", Source: "custom-logic", Message: "check spelling"}}}}}
	info := recordset.RecordIn{ID: res.Records[2].ID, Values: map[string]recordset.CellIn{"name": {HasMessages: true, Messages: []records.Message{{Type: "info", Source: "custom-logic", Message: "looked up"}}}}}
	e.mustUpdate(t, sh, warn, info)
	for q, want := range map[string]int{"name is warning": 1, "is warning": 1, "name is info": 1, "age is error": 1, "is error": 1, "name is error": 0, "name is valid": 3} {
		if got := len(e.mustGet(t, sh, recordset.RecordQuery{Q: q})); got != want {
			t.Errorf("q %q: got %d, want %d", q, got, want)
		}
	}
}

// A page of records written by several writes names each record's own version and time
// (read for the whole page in one query).
func TestPageOfManyVersions(t *testing.T) {
	e := mustOpenDB(t)
	sh := e.mustCreateSheet(t, contacts)
	want := map[string]string{}
	for i := range 5 {
		res := e.mustInsert(t, sh, rows(map[string]any{"name": fmt.Sprintf("A%d", i)}, map[string]any{"name": fmt.Sprintf("B%d", i)}))
		for _, r := range res.Records {
			want[r.ID] = res.VersionID
		}
	}
	got := e.mustGet(t, sh, recordset.RecordQuery{})
	versions := map[string]bool{}
	for _, r := range got {
		if r.VersionID != want[r.ID] || r.UpdatedAt.IsZero() {
			t.Errorf("record %s: version %q at %v, want %q", r.ID, r.VersionID, r.UpdatedAt, want[r.ID])
		}
		versions[r.VersionID] = true
	}
	if len(got) != 10 || len(versions) != 5 {
		t.Errorf("%d records in %d versions, want 10 in 5", len(got), len(versions))
	}
}
