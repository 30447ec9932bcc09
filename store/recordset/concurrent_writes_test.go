package recordset_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

var plainSheet = model.SheetConfig{Name: "P", Fields: []model.Field{{Key: "name", Type: "string"}}}

// On PostgreSQL a write of one sheet's records does not wait for a write of another sheet's:
// while a write of sheet A is held open, a write of sheet B commits; a second write of A and a
// write of resources wait for the first. Events are numbered in the order their transactions
// commit, not the order they were emitted in.
func TestWritesOfDifferentSheetsRunSideBySide(t *testing.T) {
	e := mustOpenDB(t)
	if !e.db.Postgres() {
		t.Skip("PostgreSQL only: SQLite has one writer")
	}
	ctx := t.Context()
	a, b := e.mustCreateSheet(t, plainSheet), e.mustCreateSheet(t, plainSheet)
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- e.db.UpdateSheet(ctx, a, func(tx *recordset.Tx) error {
			// (the sheet's lock is taken with the write's first statement, as a write reads
			// its sheet first)
			var one int
			if err := tx.QueryRow(`SELECT 1`).Scan(&one); err != nil {
				return err
			}
			if _, err := tx.Emit("test:first-emitted", model.EventContext{AccountID: e.account, EnvironmentID: e.env}, nil); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	waited := func(what string, write func(ctx context.Context) error) bool {
		ctx, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
		defer cancel()
		return write(ctx) != nil
	}
	if waited("sheet B", func(ctx context.Context) error {
		_, err := e.db.InsertRecords(ctx, b, rows(map[string]any{"name": "Bo"}), recordset.WriteOptions{Actor: "us_usr_test"})
		return err
	}) {
		t.Error("a write of sheet B waited for the write of sheet A")
	}
	if !waited("sheet A", func(ctx context.Context) error {
		_, err := e.db.InsertRecords(ctx, a, rows(map[string]any{"name": "Al"}), recordset.WriteOptions{Actor: "us_usr_test"})
		return err
	}) {
		t.Error("a second write of sheet A did not wait for the first")
	}
	if !waited("resources", func(ctx context.Context) error {
		return e.db.DB.Update(ctx, func(tx *recordset.Tx) error { return nil })
	}) {
		t.Error("a write of resources did not wait for a write of records")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var topics []string
	rs, err := e.db.Reader.QueryContext(ctx, `SELECT topic FROM events WHERE topic IN ('records:created', 'test:first-emitted') ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for rs.Next() {
		var s string
		if err := rs.Scan(&s); err != nil {
			t.Fatal(err)
		}
		topics = append(topics, s)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(topics) != "[records:created test:first-emitted]" {
		t.Errorf("events in the order %v, want B's (committed first) before A's", topics)
	}
}

// Two sheets whose references point at each other, written at once from several goroutines:
// no write fails (on PostgreSQL they run side by side and each marks the other stale), and
// afterwards every reference says whether what it names exists.
func TestSheetsThatReferToEachOtherWrittenAtOnce(t *testing.T) {
	e := mustOpenDB(t)
	companies := e.mustCreateSheet(t, model.SheetConfig{Name: "Companies", Slug: "companies", Fields: []model.Field{
		{Key: "code", Type: "string", Constraints: []model.FieldConstraint{{Type: "unique"}}},
		{Key: "boss", Type: "reference", Config: &model.FieldConfig{Ref: "people", Key: "name"}}}})
	people := e.mustCreateSheet(t, model.SheetConfig{Name: "People", Slug: "people", Fields: []model.Field{
		{Key: "name", Type: "string", Constraints: []model.FieldConstraint{{Type: "unique"}}},
		{Key: "company", Type: "reference", Config: &model.FieldConfig{Ref: "companies", Key: "code"}}}})
	const writers, batches = 3, 8
	var wg sync.WaitGroup
	errc := make(chan error, 2*writers*batches)
	for w := range writers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range batches {
				// Companies c<w>-<i>, led by person p<w>-<i>; odd batches name a person who never comes.
				boss := fmt.Sprintf("p%d-%d", w, i)
				if i%2 == 1 {
					boss = "nobody"
				}
				_, err := e.db.InsertRecords(t.Context(), companies, rows(map[string]any{"code": fmt.Sprintf("c%d-%d", w, i), "boss": boss}),
					recordset.WriteOptions{Actor: "us_usr_test"})
				errc <- err
			}
		}()
		go func() {
			defer wg.Done()
			for i := range batches {
				_, err := e.db.InsertRecords(t.Context(), people, rows(map[string]any{"name": fmt.Sprintf("p%d-%d", w, i), "company": fmt.Sprintf("c%d-%d", w, i)}),
					recordset.WriteOptions{Actor: "us_usr_test"})
				errc <- err
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatalf("a write failed: %v", err)
		}
	}
	page := recordset.RecordQuery{Page: model.Page{Size: 1000, Number: 1}}
	for _, r := range e.mustGet(t, people, page) {
		if !r.Valid {
			t.Errorf("person %s: every company it names exists, got %+v", string(cell(r, "name").Value), r.Cells)
		}
	}
	invalid := 0
	for _, r := range e.mustGet(t, companies, page) {
		if !r.Valid {
			invalid++
		}
	}
	if invalid != writers*batches/2 {
		t.Errorf("%d companies flagged, want the %d whose boss never came", invalid, writers*batches/2)
	}
}

// An insert reserves its version and its record keys with the load of its sheet (on
// PostgreSQL, before it knows whether it may write): an insert refused after that — an
// unknown field, a locked sheet — leaves neither behind, and the next insert's keys follow
// the last stored ones with a version of its own.
func TestRefusedInsertReservesNothing(t *testing.T) {
	e := mustOpenDB(t)
	ctx := t.Context()
	sheet := e.mustCreateSheet(t, plainSheet)
	opt := recordset.WriteOptions{Actor: "us_usr_test"}
	insert := func(vals ...map[string]any) (*recordset.WriteResult, error) {
		return e.db.InsertRecords(ctx, sheet, rows(vals...), opt)
	}
	first, err := insert(map[string]any{"name": "a"}, map[string]any{"name": "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := insert(map[string]any{"nope": "x"}); err == nil {
		t.Fatal("an unknown field was stored")
	}
	if err := e.db.ExecForTest(ctx, `UPDATE sheets SET locked_by = 'us_usr_other', locked_at = 1 WHERE id = ?`, sheet); err != nil {
		t.Fatal(err)
	}
	if _, err := insert(map[string]any{"name": "c"}); err == nil {
		t.Fatal("a locked sheet took an insert")
	}
	if err := e.db.ExecForTest(ctx, `UPDATE sheets SET locked_by = '', locked_at = NULL WHERE id = ?`, sheet); err != nil {
		t.Fatal(err)
	}
	next, err := insert(map[string]any{"name": "d"})
	if err != nil {
		t.Fatal(err)
	}
	if next.VersionID == first.VersionID {
		t.Fatal("two inserts share a version")
	}
	var gap int64
	if err := e.db.Reader.QueryRowContext(ctx, `SELECT MAX(rid) - MIN(rid) FROM records`).Scan(&gap); err != nil {
		t.Fatal(err)
	}
	if gap != 2 {
		t.Errorf("the keys of the records stored span %d, want 2 (a, b, d: nothing reserved by the refused inserts)", gap)
	}
	var all int64
	if err := e.db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM record_versions`).Scan(&all); err != nil {
		t.Fatal(err)
	}
	if all != 2 {
		t.Errorf("%d versions, want 2 (one per stored insert)", all)
	}
}
