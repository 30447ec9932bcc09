package sqldb

import (
	"os"
	"testing"
)

// postgresOnly is a fresh database for a test of what only PostgreSQL does (skipOnSQLite).
func postgresOnly(t *testing.T, why string) string {
	t.Helper()
	skipOnSQLite(t, why)
	return TestDatabase(t)
}

// skipOnSQLite skips a test of what only PostgreSQL does, saying why, where the tests run on
// SQLite (no PostgreSQL SLUICE_TEST_DATABASE_URL).
func skipOnSQLite(t *testing.T, why string) {
	t.Helper()
	if !IsPostgresURL(os.Getenv("SLUICE_TEST_DATABASE_URL")) {
		t.Skip(why)
	}
}
