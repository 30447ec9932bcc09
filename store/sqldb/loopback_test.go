package sqldb

import (
	"net/url"
	"testing"
)

// A server on this host is asked for a plain connection first (sslmode=allow) unless the URL or
// PGSSLMODE says otherwise; other hosts keep libpq's default.
func TestPlainOnLoopback(t *testing.T) {
	t.Setenv("PGSSLMODE", "")
	for _, tc := range []struct{ in, sslmode string }{
		{"postgres://u:p%40ss@localhost:5432/db", "allow"},
		{"postgres://u@127.0.0.1/db?application_name=x", "allow"},
		{"postgresql://u@[::1]:5433/db", "allow"},
		{"postgres://u@localhost/db?sslmode=require", "require"},
		{"postgres://u@db.internal/db", ""},
		{"postgres://u@10.0.0.5/db", ""},
		{"postgres:///db?host=/var/run/postgresql", ""},
	} {
		out := plainOnLoopback(tc.in)
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("%s → %s: %v", tc.in, out, err)
		}
		if got := u.Query().Get("sslmode"); got != tc.sslmode {
			t.Errorf("%s → %s: sslmode %q, want %q", tc.in, out, got, tc.sslmode)
		}
		if in, _ := url.Parse(tc.in); u.User.String() != in.User.String() || u.Host != in.Host || u.Path != in.Path {
			t.Errorf("%s → %s: changed more than sslmode", tc.in, out)
		}
	}
	t.Setenv("PGSSLMODE", "require")
	if out := plainOnLoopback("postgres://u@localhost/db"); out != "postgres://u@localhost/db" {
		t.Errorf("with PGSSLMODE set: %s", out)
	}
}

// The test server is on this host: the node's connections to it are plain.
func TestLoopbackConnectionsArePlain(t *testing.T) {
	dsn := postgresOnly(t, "PostgreSQL's connections")
	if u, _ := url.Parse(dsn); plainOnLoopback(dsn) == dsn {
		t.Skipf("the test server (%s) is not on this host, or the URL sets its sslmode", u.Hostname())
	}
	db, err := OpenDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, p := range []*Pool{db.Writer, db.Reader, db.Lookup} {
		var ssl bool
		if err := p.QueryRowContext(t.Context(), `SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`).Scan(&ssl); err != nil {
			t.Fatal(err)
		}
		if ssl {
			t.Fatal("a connection to PostgreSQL on this host is encrypted")
		}
	}
}
