package recordset_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// On SQLite a searched sheet gets an FTS5 trigram index, built a slice at a time while
// writes go on; once ready, searches use it and find exactly what scanning finds, and later
// writes keep it in step.
func TestSearchIndexOnSQLite(t *testing.T) {
	e := mustOpenDB(t)
	if e.db.Postgres() {
		t.Skip("SQLite only (TestSearchIndexOnPostgres)")
	}
	skipWithoutFTS5(t, e)
	e.db.Configure(sqldb.Settings{SearchIndexMin: 50})
	defer recordset.SetFTSSlice(40)()
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "I", Fields: []model.Field{{Key: "email", Type: model.FieldString}, {Key: "note", Type: model.FieldString}}})
	var in []map[string]any
	for i := 0; i < 300; i++ {
		in = append(in, map[string]any{"email": fmt.Sprintf("user%d@Example.com", i), "note": []string{`say "hi"`, `back\slash`, "Müller", "日本語です", "ab", "50%_off"}[i%6]})
	}
	ids := e.mustInsert(t, sh, rows(in...)).Records
	needles := []string{"user42@", "USER4", "example.COM", `"hi"`, `say "`, `k\s`, "müller", "MÜLLER", "日本語", "ab", "50%_", "%_o", "nobody", "user29", `"user7@Example.com"`}
	// search answers each needle; scan says what scanning finds (the index not used).
	search := func(s string) []string {
		var out []string
		for _, r := range e.mustGet(t, sh, recordset.RecordQuery{SearchValue: s, Page: model.Page{Size: 1000, Number: 1}}) {
			out = append(out, r.ID)
		}
		return out
	}
	scan := func(s string) []string {
		defer e.db.Configure(e.db.Settings())
		e.db.Configure(sqldb.Settings{SearchIndexMin: 1 << 40})
		return search(s)
	}
	// The insert started the build (the sheet is big enough), which waited for a pause in the
	// writes; the writes below come while it is under way.
	search("user42@")
	// Writes while it is being built: before and after how far it has come.
	e.mustUpdate(t, sh, set(ids[1].ID, map[string]any{"email": "renamed@example.com"}), set(ids[290].ID, map[string]any{"note": "late note"}))
	if _, err := e.db.DeleteRecords(t.Context(), sh, []string{ids[2].ID, ids[295].ID}, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	e.mustInsert(t, sh, rows(map[string]any{"email": "newcomer@example.com", "note": "added while building"}))
	sqldb.Eventually(t, "the search index is not ready", func() bool {
		n, _ := e.db.CountForTest(t.Context(), `SELECT count(*) FROM search_indexes WHERE ready = 1`)
		return n == 1
	})
	e.mustUpdate(t, sh, set(ids[3].ID, map[string]any{"email": "after@example.com"}))
	e.mustInsert(t, sh, rows(map[string]any{"email": "afterwards@example.com", "note": `say "hi"`}))
	for _, s := range append(needles, "renamed", "late note", "newcomer", "while", "after", "user1@", "user2@", "user3@") {
		got, want := search(s), scan(s)
		if !slices.Equal(got, want) {
			t.Errorf("search %q with the index: %d records, scanning finds %d", s, len(got), len(want))
		}
	}
	// A write of more records than the index takes in itself leaves them after its reach:
	// searches scan those (found at once), and they are added after the commit.
	defer recordset.SetFTSBulk(20)()
	var many []map[string]any
	for i := 0; i < 60; i++ {
		many = append(many, map[string]any{"email": fmt.Sprintf("bulk%d@example.org", i)})
	}
	e.mustInsert(t, sh, rows(many...))
	for _, s := range []string{"bulk7@", "example.org", "user42@"} {
		if got, want := search(s), scan(s); !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("search %q right after a bulk insert: %d records, scanning finds %d", s, len(got), len(want))
		}
	}
	covered := func() int {
		n, _ := e.db.CountForTest(t.Context(), `SELECT count(*) FROM search_indexes s JOIN records r ON r.rid > s.upto AND r.rid <= s.upto + 4294967296`)
		return n
	}
	sqldb.Eventually(t, "records still outside the index since the bulk insert", func() bool { return covered() == 0 })
	if got, want := search("example.org"), scan("example.org"); !slices.Equal(got, want) {
		t.Errorf("after the index caught up: %d records, scanning finds %d", len(got), len(want))
	}
	// Half built (as while the build runs): the index answers up to its reach, and the
	// records after it are scanned.
	if err := e.db.ExecForTest(t.Context(), `UPDATE search_indexes SET upto = (SELECT rid FROM records ORDER BY rid LIMIT 1 OFFSET 150), ready = 0`); err != nil {
		t.Fatal(err)
	}
	if err := e.db.ExecForTest(t.Context(), `DELETE FROM records_search_1 WHERE rowid > (SELECT upto FROM search_indexes)`); err != nil {
		t.Fatal(err)
	}
	for _, s := range append(needles, "bulk7@", "example.org", "user1@", "user2@") {
		if got, want := search(s), scan(s); !slices.Equal(got, want) {
			t.Errorf("search %q with the index half built: %d records, scanning finds %d", s, len(got), len(want))
		}
	}
	if err := e.db.ExecForTest(t.Context(), `UPDATE search_indexes SET upto = (SELECT max(rid) FROM records), ready = 1`); err != nil {
		t.Fatal(err)
	}
	// A needle with candidates in a sixteenth of the sheet or more is scanned for (sooner
	// than through the index's list): with the index's second half removed behind the
	// store's back, a common needle still finds every record, a rare one only what the index
	// holds.
	if err := e.db.ExecForTest(t.Context(), `DELETE FROM records_search_1 WHERE rowid > (SELECT rid FROM records ORDER BY rid LIMIT 1 OFFSET 200)`); err != nil {
		t.Fatal(err)
	}
	if got, want := search("example.com"), scan("example.com"); !slices.Equal(got, want) || len(want) < 250 {
		t.Errorf("common needle with half the index gone: %d records, scanning finds %d", len(got), len(want))
	}
	// (scanned in two halves at once, as any scan of a big sheet, once the index is built)
	restoreSplit := recordset.SetSplitMin(10)
	if got, want := search("example.com"), scan("example.com"); !slices.Equal(got, want) || len(want) < 250 {
		t.Errorf("common needle scanned in halves: %d records, scanning finds %d", len(got), len(want))
	}
	restoreSplit()
	if got, want := search("user250@"), scan("user250@"); len(got) != 0 || len(want) != 1 {
		t.Errorf("rare needle with half the index gone: %d records (scanning finds %d), want none: it scanned", len(got), len(want))
	}
	// The index does answer: emptied behind the store's back, a long needle finds nothing.
	if err := e.db.ExecForTest(t.Context(), `DELETE FROM records_search_1`); err != nil {
		t.Fatal(err)
	}
	if got := search("example.com"); len(got) != 0 {
		t.Fatalf("with the index emptied a search still finds %d records: it scanned", len(got))
	}
}

// An edit of more records than the index takes in itself drops the index (searches scan,
// exactly), and the next search builds it again.
func TestSearchIndexDroppedByBigEdits(t *testing.T) {
	e := mustOpenDB(t)
	if e.db.Postgres() {
		t.Skip("SQLite only")
	}
	skipWithoutFTS5(t, e)
	e.db.Configure(sqldb.Settings{SearchIndexMin: 50})
	defer recordset.SetFTSBulk(20)()
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "I", Fields: []model.Field{{Key: "email", Type: model.FieldString}}})
	var in []map[string]any
	for i := 0; i < 100; i++ {
		in = append(in, map[string]any{"email": fmt.Sprintf("user%d@example.com", i)})
	}
	e.mustInsert(t, sh, rows(in...))
	ready := func() bool {
		n, _ := e.db.CountForTest(t.Context(), `SELECT count(*) FROM search_indexes WHERE ready = 1`)
		return n == 1
	}
	find := func(s string) int {
		return len(e.mustGet(t, sh, recordset.RecordQuery{SearchValue: s, Page: model.Page{Size: 1000, Number: 1}}))
	}
	find("user1")
	sqldb.Eventually(t, "no index", ready)
	fr := recordset.FindReplace{FieldKey: "email", Find: json.RawMessage(`"example.com"`), Replace: json.RawMessage(`"example.net"`)}
	if _, err := e.db.FindAndReplace(t.Context(), sh, recordset.RecordQuery{}, fr, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
	if ready() {
		t.Fatal("the index survived an edit of 100 records (more than it takes in itself)")
	}
	if n, m := find("example.net"), find("example.com"); n != 100 || m != 0 {
		t.Fatalf("after the edit: %d records with example.net (want 100), %d with example.com (want 0)", n, m)
	}
	sqldb.Eventually(t, "the search after the edit did not build the index again", ready)
	if n := find("example.net"); n != 100 {
		t.Fatalf("with the rebuilt index: %d records, want 100", n)
	}
}

// searchIndexQueries count the database's search indexes begun (SQLite: the FTS5 table
// created; PostgreSQL: the index created, valid or not) and ready.
func searchIndexQueries(e *sheetEnv) (begun, ready string) {
	if e.db.Postgres() {
		return `SELECT count(*) FROM pg_class WHERE relname LIKE 'records_search_%'`,
			`SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE 'records_search_%' AND i.indisvalid`
	}
	return `SELECT count(*) FROM search_indexes`, `SELECT count(*) FROM search_indexes WHERE ready = 1`
}

// skipWithoutFTS5 skips a test of SQLite's FTS5 index when the driver was built without it
// (the Makefile builds with it and sets SLUICE_REQUIRE_FTS5, which makes that a failure).
func skipWithoutFTS5(t *testing.T, e *sheetEnv) {
	t.Helper()
	if n, _ := e.db.CountForTest(t.Context(), `SELECT count(*) FROM pragma_module_list WHERE name = 'fts5'`); n == 0 {
		if os.Getenv("SLUICE_REQUIRE_FTS5") != "" {
			t.Fatal("the SQLite driver was built without FTS5 (build with -tags sqlite_fts5, as the Makefile does)")
		}
		t.Skip("the SQLite driver was built without FTS5 (-tags sqlite_fts5)")
	}
}

// A write that makes a sheet big gives it a search index without waiting for its first
// search, once the writes pause: the build does not run beside an import.
func TestSearchIndexAfterABigWrite(t *testing.T) {
	e := mustOpenDB(t)
	if !e.db.Postgres() {
		skipWithoutFTS5(t, e)
	}
	e.db.Configure(sqldb.Settings{SearchIndexMin: 50})
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "I", Fields: []model.Field{{Key: "email", Type: model.FieldString}}})
	n := 0
	batch := func(size int) []recordset.RecordIn {
		var in []map[string]any
		for ; size > 0; size-- {
			n++
			in = append(in, map[string]any{"email": fmt.Sprintf("user%d@example.com", n)})
		}
		return rows(in...)
	}
	// started: the build has begun (the index created; on PostgreSQL valid or not); ready:
	// it is done. (An FTS5 index begun during an import had each batch of it count the
	// records after the index's reach: the import took 2.8 times as long.)
	started, ready := searchIndexQueries(e)
	count := func(q string) int {
		c, err := e.db.CountForTest(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	e.mustInsert(t, sh, batch(30))
	// An import under way: a batch every 100 ms, the sheet past the size from the third on.
	for i := 0; i < 20; i++ {
		e.mustInsert(t, sh, batch(10))
		if count(started) != 0 {
			t.Fatalf("the search index is being built while records are still being written (batch %d)", i)
		}
		time.Sleep(100 * time.Millisecond)
	}
	sqldb.Eventually(t, "no search index after the writes stopped, without a search", func() bool { return count(ready) == 1 })
	if got := len(e.mustGet(t, sh, recordset.RecordQuery{SearchValue: "user230@"})); got != 1 {
		t.Fatalf("search user230@: %d records, want 1", got)
	}
}

// With SearchIndexMin 0 (SLUICE_SEARCH_INDEX_MIN=0) no sheet gets a search index, after
// writes or searches; searches scan.
func TestSearchIndexTurnedOff(t *testing.T) {
	e := mustOpenDB(t)
	e.db.Configure(sqldb.Settings{SearchIndexMin: 0})
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "I", Fields: []model.Field{{Key: "email", Type: model.FieldString}}})
	var in []map[string]any
	for i := 0; i < 300; i++ {
		in = append(in, map[string]any{"email": fmt.Sprintf("user%d@example.com", i)})
	}
	e.mustInsert(t, sh, rows(in...))
	if got := len(e.mustGet(t, sh, recordset.RecordQuery{SearchValue: "user42@"})); got != 1 {
		t.Fatalf("search user42@: %d records, want 1", got)
	}
	time.Sleep(2500 * time.Millisecond) // a build waits a second without writes and one without reads
	begun, _ := searchIndexQueries(e)
	if n, err := e.db.CountForTest(t.Context(), begun); err != nil || n != 0 {
		t.Fatalf("%d search indexes (%v), want none", n, err)
	}
}

// On PostgreSQL an index left invalid by a build that did not finish (its node stopped) is
// dropped and built again by the next build of the sheet's index.
func TestSearchIndexRebuiltAfterAnUnfinishedBuild(t *testing.T) {
	e := mustOpenDB(t)
	if !e.db.Postgres() {
		t.Skip("PostgreSQL only")
	}
	e.db.Configure(sqldb.Settings{SearchIndexMin: 1 << 40}) // no build until the invalid index is in place
	sh := e.mustCreateSheet(t, model.SheetConfig{Name: "I", Fields: []model.Field{{Key: "email", Type: model.FieldString}}})
	var in []map[string]any
	for i := 0; i < 100; i++ {
		in = append(in, map[string]any{"email": fmt.Sprintf("user%d@example.com", i)})
	}
	e.mustInsert(t, sh, rows(in...))
	sk, err := e.db.CountForTest(t.Context(), `SELECT sk FROM record_sheets WHERE sheet_id = ?`, sh)
	if err != nil {
		t.Fatal(err)
	}
	// A unique index over equal values fails half way and stays, invalid, as a build does
	// when its node stops.
	name := fmt.Sprintf("records_search_%d", sk)
	if err := e.db.ExecForTest(t.Context(), `CREATE UNIQUE INDEX CONCURRENTLY `+name+` ON records ((1)) WHERE rid > 0`); err == nil {
		t.Fatal("the unique index over equal values was built")
	}
	valid := func() int {
		n, err := e.db.CountForTest(t.Context(), `SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND i.indisvalid`, name)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n, _ := e.db.CountForTest(t.Context(), `SELECT count(*) FROM pg_class WHERE relname = ?`, name); n != 1 || valid() != 0 {
		t.Fatalf("no invalid index %s to start from", name)
	}
	e.db.Configure(sqldb.Settings{SearchIndexMin: 50})
	if got := len(e.mustGet(t, sh, recordset.RecordQuery{SearchValue: "user42@"})); got != 1 {
		t.Fatalf("search user42@: %d records, want 1", got)
	}
	sqldb.Eventually(t, "the invalid index was not built again", func() bool { return valid() == 1 })
}

// Sluice's own SQL functions on PostgreSQL (SQLite compatibility: instr, json_extract …)
// are PARALLEL SAFE: a query calling one that is not runs in one process (a search's scan
// of 1,000,000 records: 590 ms instead of 330).
func TestPostgresFunctionsAreParallelSafe(t *testing.T) {
	e := mustOpenDB(t)
	if !e.db.Postgres() {
		t.Skip("PostgreSQL only")
	}
	text, err := e.db.TextForTest(t.Context(), `SELECT COALESCE(string_agg(p.proname || '/' || CAST(p.proparallel AS TEXT), ', '), '') FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = current_schema() AND p.prokind = 'f' AND p.proparallel <> 's'`)
	if err != nil {
		t.Fatal(err)
	}
	if text != "" {
		t.Fatalf("functions not parallel safe: %s", text)
	}
}
