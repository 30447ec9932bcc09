package store_test

import (
	"testing"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
)

// Keys written before migration 020 were plain text; SealKeys turns them into a hash and a
// sealed copy at the next start, after which the same key still authenticates and still
// signs webhooks.
func TestSealKeysConvertsPlainKeys(t *testing.T) {
	e := openBootstrapped(t)
	sealer, _ := auth.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	e.db.Sealer = sealer
	if err := e.db.ExecForTest(t.Context(), `UPDATE api_keys SET raw = 'sk_plain_legacy_key', sealed = NULL, hint = '' WHERE type = 'SECRET'`); err != nil {
		t.Fatal(err)
	}
	n, err := e.db.SealKeys(t.Context())
	if err != nil || n != 1 {
		t.Fatalf("SealKeys: %d %v, want 1 key converted", n, err)
	}
	if n, _ := e.db.SealKeys(t.Context()); n != 0 {
		t.Fatalf("a second run converted %d keys", n)
	}
	if c, _ := e.db.CountForTest(t.Context(), `SELECT COUNT(*) FROM api_keys WHERE raw LIKE '%plain%'`); c != 0 {
		t.Fatal("the plain key is still stored")
	}
	k, err := e.db.KeyByRaw(t.Context(), "sk_plain_legacy_key")
	if err != nil || k.EnvironmentID != e.env {
		t.Fatalf("the converted key does not authenticate: %v %v", k, err)
	}
	if raw, err := e.db.SecretKey(t.Context(), e.env); err != nil || raw != "sk_plain_legacy_key" {
		t.Fatalf("webhook signing key: %q %v", raw, err)
	}
}

type bootstrapped struct {
	db  *store.DB
	env string
}

// openBootstrapped is a test database with its first account and environment.
func openBootstrapped(t *testing.T) bootstrapped {
	t.Helper()
	db, err := store.OpenDSN(sqldb.TestDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	res, err := db.EnsureBootstrap(t.Context(), store.Bootstrap{AccountName: "T", AdminEmail: "a@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return bootstrapped{db: db, env: res.Environment.ID}
}
