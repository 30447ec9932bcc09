package store_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"testing"

	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
)

// A file's bytes in PostgreSQL come back exactly, across chunk boundaries and from any offset.
func TestFileBytesRoundTrip(t *testing.T) {
	db, err := store.OpenDSN(sqldb.TestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.Postgres() {
		t.Skip("file bytes live in the database with PostgreSQL only (SLUICE_TEST_DATABASE_URL)")
	}
	ctx := t.Context()
	want := make([]byte, 2*store.ChunkSize+12345)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range want {
		want[i] = byte(r.Uint32())
	}
	n, err := db.PutFileBytes(ctx, "us_fl_a", bytes.NewReader(want))
	if err != nil || n != int64(len(want)) {
		t.Fatalf("put: %d %v", n, err)
	}
	f, err := db.OpenFileBytes(ctx, "us_fl_a")
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != int64(len(want)) {
		t.Fatalf("size %d, want %d", f.Size(), len(want))
	}
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read all: %d bytes, equal %v, %v", len(got), bytes.Equal(got, want), err)
	}
	for _, off := range []int64{0, 1, store.ChunkSize - 1, store.ChunkSize, 2*store.ChunkSize + 12000} {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 600)
		k, err := io.ReadFull(f, buf)
		end := min(off+600, int64(len(want)))
		if int64(k) != end-off || !bytes.Equal(buf[:k], want[off:end]) {
			t.Fatalf("at %d: read %d (%v), want %d bytes equal", off, k, err, end-off)
		}
	}
	// Putting again replaces; removing leaves nothing.
	if _, err := db.PutFileBytes(ctx, "us_fl_a", bytes.NewReader([]byte("short"))); err != nil {
		t.Fatal(err)
	}
	f, _ = db.OpenFileBytes(ctx, "us_fl_a")
	if got, _ := io.ReadAll(f); string(got) != "short" {
		t.Fatalf("after replace: %q", got)
	}
	if err := db.RemoveFileBytes(ctx, "us_fl_a"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.OpenFileBytes(ctx, "us_fl_a"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after remove: %v, want not exist", err)
	}
	// An empty file is a file.
	if _, err := db.PutFileBytes(ctx, "us_fl_empty", bytes.NewReader(nil)); err != nil {
		t.Fatal(err)
	}
	if f, err := db.OpenFileBytes(ctx, "us_fl_empty"); err != nil || f.Size() != 0 {
		t.Fatalf("empty file: %v", err)
	}
	// Bytes never recorded as a file are swept once old.
	if _, err := db.PutFileBytes(ctx, "us_fl_orphan", bytes.NewReader([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	if n, err := db.RemoveOrphanFileBytes(ctx, db.Now().Add(1).UnixMilli()+1); err != nil || n != 2 {
		t.Fatalf("orphan chunks removed: %d %v, want 2 (of the two files never recorded)", n, err)
	}
}
