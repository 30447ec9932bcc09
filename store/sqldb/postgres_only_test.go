package sqldb

import (
	"os"
	"testing"
)

// postgresOnly is a fresh database for a test of what only PostgreSQL does; where the tests
// run on SQLite (no PostgreSQL SLUICE_TEST_DATABASE_URL) the test is skipped, saying why.
func postgresOnly(t *testing.T, why string) string {
	t.Helper()
	if !IsPostgresURL(os.Getenv("SLUICE_TEST_DATABASE_URL")) {
		t.Skip(why)
	}
	return TestDatabase(t)
}
