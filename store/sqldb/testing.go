package sqldb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Eventually checks cond every 50 ms until it holds, and fails t with what after 10 s: for
// the work tests wait on in the background (index builds, counted values).
func Eventually(t TestingTB, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i > 200 {
			t.Fatalf("%s after 10 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
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
// run on either engine. PostgreSQL's are copies of a migrated template, made once per
// migration set: a copy takes a fraction of running the migrations.
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
	tmpl, err := testTemplate(admin, *u)
	if err != nil {
		admin.Close()
		t.Fatalf("test database template: %v", err)
	}
	name := fmt.Sprintf("sluice_t%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, testDBs.Add(1))
	if _, err := admin.Exec(`CREATE DATABASE ` + name + ` TEMPLATE ` + tmpl); err != nil {
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

var (
	templateMu sync.Mutex
	templates  = map[string]string{} // role → template name, once made or found
)

// testTemplate makes (once per migration set, across test processes) a migrated database
// to copy, and returns its name; within a process it is looked up once per role.
func testTemplate(admin *sql.DB, u url.URL) (string, error) {
	templateMu.Lock()
	defer templateMu.Unlock()
	if name, ok := templates[u.User.Username()]; ok {
		return name, nil
	}
	name, err := makeTemplate(admin, u)
	if err == nil {
		templates[u.User.Username()] = name
	}
	return name, err
}

func makeTemplate(admin *sql.DB, u url.URL) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations, "migrations", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := migrations.ReadFile(path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	if err != nil {
		return "", err
	}
	h.Write([]byte(u.User.Username())) // a role copies only its own databases
	name := fmt.Sprintf("sluice_tmpl_%x", h.Sum(nil)[:6])
	ctx := context.Background()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	// Test processes of several packages start together: one builds, the others wait.
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(7358201)`); err != nil {
		return "", err
	}
	// (an unlock that fails: the connection is gone, and its lock with it)
	defer func() { _, _ = conn.ExecContext(ctx, `SELECT pg_advisory_unlock(7358201)`) }()
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil || n > 0 {
		return name, err
	}
	build := name + "_build"
	if _, err := conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+build+` WITH (FORCE)`); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+build); err != nil {
		return "", err
	}
	u.Path = "/" + build
	db, err := OpenPostgres(u.String())
	if err != nil {
		return "", err
	}
	db.Close()
	_, err = conn.ExecContext(ctx, `ALTER DATABASE `+build+` RENAME TO `+name)
	return name, err
}

// ExecForTest runs a statement on the writer; tests use it to set up rows that have no API yet.
func (db *DB) ExecForTest(ctx context.Context, q string, args ...any) error {
	_, err := db.Writer.ExecContext(ctx, q, args...)
	return err
}

// CountForTest runs a COUNT query.
func (db *DB) CountForTest(ctx context.Context, q string, args ...any) (int, error) {
	var n int
	err := db.Reader.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// OpenDSN opens a database setting: a postgres:// URL or a SQLite file path.
func OpenDSN(dsn string) (*DB, error) {
	if IsPostgresURL(dsn) {
		return OpenPostgres(dsn)
	}
	return Open(dsn)
}
