package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func call(t *testing.T, method, url, token string, body any) (int, map[string]any) {
	t.Helper()
	var r *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	} else {
		r = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// L6: a copy of sluice.db (and its WAL) holds neither the API keys nor a secret's value, and
// without the master key the secret cannot be read: a server started on the copied database
// with another master key refuses the value instead of revealing it.
func TestCopiedDatabaseRevealsNothing(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SLUICE_ADDR": "127.0.0.1:0", "SLUICE_DATA_DIR": dir, "SLUICE_SECRET_KEY": "sk_at_rest_key_0001",
		"SLUICE_PUBLISHABLE_KEY": "pk_at_rest_key_0001"}
	base, _, stop := start(t, env)
	envID := ""
	if st, out := call(t, "GET", base+"/v1/environments", "sk_at_rest_key_0001", nil); st == 200 {
		envID = out["data"].([]any)[0].(map[string]any)["id"].(string)
	}
	if st, out := call(t, "POST", base+"/v1/secrets", "sk_at_rest_key_0001", map[string]any{"name": "crm", "value": "value-nobody-may-read", "environmentId": envID}); st != 200 {
		t.Fatalf("secret: %d %v", st, out)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "master.key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("master.key: %v %v, want a 0600 file", st, err)
	}
	for _, f := range []string{"sluice.db", "sluice.db-wal"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		for _, s := range []string{"sk_at_rest_key_0001", "pk_at_rest_key_0001", "value-nobody-may-read"} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q in the clear", f, s)
			}
		}
	}

	// The same database with another master key: keys still work (they are hashes), the
	// secret's value cannot be opened.
	env["SLUICE_MASTER_KEY"] = strings.Repeat("another master key ", 3)
	base, _, stop = start(t, env)
	defer stop()
	st2, out := call(t, "GET", base+"/v1/secrets?environmentId="+envID, "sk_at_rest_key_0001", nil)
	if st2 == 200 && strings.Contains(func() string { b, _ := json.Marshal(out); return string(b) }(), "value-nobody-may-read") {
		t.Fatalf("another master key read the secret: %d %v", st2, out)
	}
}
