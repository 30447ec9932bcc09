package web_test

import (
	"database/sql"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// When PostgreSQL drops the node's connections (a restart, a failover), requests get 503
// with a JSON error and Retry-After, never a 500, and the node serves again by itself.
func TestLostDatabaseConnectionGives503AndRecovers(t *testing.T) {
	e := webtest.NewAPI(t)
	if !strings.HasPrefix(e.Path, "postgres") {
		t.Skip("needs SLUICE_TEST_DATABASE_URL (PostgreSQL)")
	}
	e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "before"})
	admin, err := sql.Open("pgx", os.Getenv("SLUICE_TEST_DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	u, _ := url.Parse(e.Path)
	res, err := admin.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, strings.TrimPrefix(u.Path, "/"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("no connection of the node was cut")
	}
	seen := map[int]int{}
	for try := 0; try < 10; try++ {
		resp := e.Raw(t, "GET", "/v1/spaces", map[string]string{"Authorization": "Bearer " + webtest.Secret}, "")
		seen[resp.StatusCode]++
		if resp.StatusCode == http.StatusOK {
			break
		}
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("after the connections were cut: %d (Retry-After %q), want 503 with Retry-After or 200", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	if seen[http.StatusOK] == 0 {
		t.Fatalf("the node did not recover: answers %v", seen)
	}
	t.Logf("answers after the cut: %v", seen)
}
