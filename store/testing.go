package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// ExecForTest runs a statement on the writer; tests use it to set up rows that have no API yet.
func (db *DB) ExecForTest(ctx context.Context, q string, args ...any) error {
	_, err := db.w.ExecContext(ctx, q, args...)
	return err
}

// CountForTest runs a COUNT query.
func (db *DB) CountForTest(ctx context.Context, q string, args ...any) (int, error) {
	var n int
	err := db.r.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// TestingTB is the part of testing.TB TestDatabase needs.
type TestingTB interface {
	Helper()
	TempDir() string
	Cleanup(func())
	Fatalf(format string, args ...any)
}

var testDBs atomic.Int64

// TestDatabase is a fresh, empty database for one test, as OpenDSN takes it: a SQLite file
// in the test's directory or, when SLUICE_TEST_DATABASE_URL names a PostgreSQL server, a
// new database there (dropped when the test ends), so every store test and the wire suite
// run on either engine.
func TestDatabase(t TestingTB) string {
	t.Helper()
	base := os.Getenv("SLUICE_TEST_DATABASE_URL")
	if !IsPostgresURL(base) {
		return filepath.Join(t.TempDir(), "test.db")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("SLUICE_TEST_DATABASE_URL: %v", err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("SLUICE_TEST_DATABASE_URL: %v", err)
	}
	name := fmt.Sprintf("sluice_t%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, testDBs.Add(1))
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		admin.Close()
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
	})
	u.Path = "/" + name
	return u.String()
}

// OpenDSN opens a database setting: a postgres:// URL or a SQLite file path.
func OpenDSN(dsn string) (*DB, error) {
	if IsPostgresURL(dsn) {
		return OpenPostgres(dsn)
	}
	return Open(dsn)
}
