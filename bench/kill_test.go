package bench_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3"
)

// A node SIGKILLed half way through extracting an upload, and started again under its node
// id, leaves none of the file's rows in the records table itself (not only hidden from the
// API): on SQLite and, with SLUICE_TEST_DATABASE_URL, on PostgreSQL. The file then says it
// failed. Runs the server binary (SLUICE_BIN; make test-pg sets it).
func TestKilledExtractionLeavesNoRows(t *testing.T) {
	bin := os.Getenv("SLUICE_BIN")
	if bin == "" {
		t.Skip("set SLUICE_BIN to the server binary (make test-pg does)")
	}
	const rows = 200000
	csvPath, _ := writeCSV(t, t.TempDir(), rows)
	type engine struct {
		name  string
		start func(t *testing.T) (*server, *sql.DB)
	}
	engines := []engine{{"SQLite", func(t *testing.T) (*server, *sql.DB) {
		dir := filepath.Join(t.TempDir(), "data")
		s := startServer(t, bin, dir, "SLUICE_NODE_ID=kill-1")
		db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "sluice.db")+"?mode=ro&_busy_timeout=10000")
		if err != nil {
			t.Fatal(err)
		}
		return s, db
	}}}
	if base := os.Getenv("SLUICE_TEST_DATABASE_URL"); strings.HasPrefix(base, "postgres") {
		engines = append(engines, engine{"PostgreSQL", func(t *testing.T) (*server, *sql.DB) {
			url := freshDatabase(t, base)
			s := startServer(t, bin, filepath.Join(t.TempDir(), "data"), "SLUICE_DATABASE_URL="+url,
				"SLUICE_MASTER_KEY=bench-master-key-0123456789abcdef", "SLUICE_NODE_ID=kill-1")
			db, err := sql.Open("pgx", url)
			if err != nil {
				t.Fatal(err)
			}
			return s, db
		}})
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			s, db := e.start(t)
			t.Cleanup(func() { db.Close() })
			stored := func() int {
				var n int
				if err := db.QueryRow(`SELECT COUNT(*) FROM records`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			file := s.upload(t, csvPath)
			id, _ := file["id"].(string)
			if id == "" {
				t.Fatalf("upload: %v", file)
			}
			deadline := time.Now().Add(2 * time.Minute)
			for stored() < rows/2 {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d rows stored after 2 minutes", stored(), rows)
				}
				time.Sleep(20 * time.Millisecond)
			}
			s.kill()
			before := stored()
			if before == 0 || before == rows {
				t.Fatalf("killed with %d of %d rows stored: not half way", before, rows)
			}
			s.restart(t, bin)
			defer s.stop()
			got := s.waitFile(t, id, time.Minute)
			if got["status"] != "failed" {
				t.Errorf("the file after the restart: %v, want failed", got)
			}
			left := stored()
			if left != 0 {
				t.Errorf("killed with %d rows stored; %d left in the records table after the restart", before, left)
			}
			t.Logf("killed with %d of %d rows stored; %d left; file: %v", before, rows, left, got["description"])
		})
	}
}
