package blobs_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/blobs"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
)

// The node that received an upload extracts from its own copy; any other node, or the same
// one once the copy is used or swept, reads the database's bytes.
func TestDatabaseKeepsTheReceivingNodesCopy(t *testing.T) {
	dsn := sqldb.TestDatabase(t)
	if !sqldb.IsPostgresURL(dsn) {
		t.Skip("the database store is PostgreSQL's (set SLUICE_TEST_DATABASE_URL)")
	}
	db, err := store.OpenDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, b := blobs.For(db, t.TempDir()), blobs.For(db, t.TempDir())
	put := func(id, body string) {
		t.Helper()
		tmp := filepath.Join(a.Staging(), id+".part")
		if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := a.Put(t.Context(), id, tmp); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tmp); !os.IsNotExist(err) {
			t.Fatalf("the staged upload is still there: %v", err)
		}
	}
	local := func(s blobs.Store, id string) (string, func()) {
		t.Helper()
		p, done, err := s.Local(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return p, done
	}
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	body := strings.Repeat("id,name\n1,Ann\n", 100000) // more than one chunk
	put("us_fl_one", body)
	copyPath := filepath.Join(a.Staging(), "us_fl_one"+blobs.CopySuffix)
	p, done := local(a, "us_fl_one")
	if p != copyPath || read(p) != body {
		t.Fatalf("the receiving node read %s, want its copy %s with the upload", p, copyPath)
	}
	done()
	if _, err := os.Stat(copyPath); !os.IsNotExist(err) {
		t.Fatal("the copy was not removed once read")
	}
	// Without the copy (used, or another node), the bytes come from the database.
	for _, s := range []blobs.Store{a, b} {
		p, done := local(s, "us_fl_one")
		if p == copyPath || read(p) != body {
			t.Fatalf("read %s without the copy: %d bytes", p, len(read(p)))
		}
		done()
	}
	f, err := b.Open(t.Context(), "us_fl_one")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if string(got) != body {
		t.Fatalf("another node opened %d bytes, want %d", len(got), len(body))
	}
	// Removing a file removes its copy; copies an hour old are swept.
	put("us_fl_two", "x")
	put("us_fl_three", "y")
	if err := a.Remove(t.Context(), "us_fl_two"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(a.Staging(), "us_fl_two"+blobs.CopySuffix)); !os.IsNotExist(err) {
		t.Fatal("Remove left the copy")
	}
	if n := blobs.RemoveCopies(a.Staging(), time.Now().Add(-time.Hour)); n != 0 {
		t.Fatalf("swept %d fresh copies", n)
	}
	if n := blobs.RemoveCopies(a.Staging(), time.Now().Add(time.Minute)); n != 1 {
		t.Fatalf("swept %d old copies, want 1", n)
	}
}
