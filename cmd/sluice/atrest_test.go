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
	return callKeyed(t, method, url, token, "", body)
}

// callKeyed is call with an Idempotency-Key (none when key is empty).
func callKeyed(t *testing.T, method, url, token, key string, body any) (int, map[string]any) {
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
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
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
		"SLUICE_PUBLISHABLE_KEY": "pk_at_rest_key_0001", "SLUICE_ADMIN_EMAIL": "rest@example.com", "SLUICE_ADMIN_PASSWORD": "a long rest password"}
	base, _, stop := start(t, env)
	envID := ""
	if st, out := call(t, "GET", base+"/v1/environments", "sk_at_rest_key_0001", nil); st == 200 {
		envID = out["data"].([]any)[0].(map[string]any)["id"].(string)
	}
	if st, out := callKeyed(t, "POST", base+"/v1/secrets", "sk_at_rest_key_0001", "k1", map[string]any{"name": "crm", "value": "value-nobody-may-read", "environmentId": envID}); st != 200 {
		t.Fatalf("secret: %d %v", st, out)
	}
	// Answers kept for Idempotency-Key replays carry credentials: a space's token, a public
	// data clip's link, a personal access token.
	hidden := []string{"sk_at_rest_key_0001", "pk_at_rest_key_0001", "value-nobody-may-read"}
	st, out := callKeyed(t, "POST", base+"/v1/spaces", "sk_at_rest_key_0001", "k2", map[string]any{"name": "kept", "environmentId": envID})
	if st != 200 {
		t.Fatalf("space: %d %v", st, out)
	}
	sp := out["data"].(map[string]any)
	hidden = append(hidden, sp["accessToken"].(string))
	_, out = call(t, "POST", base+"/v1/workbooks", "sk_at_rest_key_0001", map[string]any{"name": "W", "spaceId": sp["id"],
		"sheets": []any{map[string]any{"name": "S", "slug": "s", "fields": []any{map[string]any{"key": "a", "type": "string"}}}}})
	sheet := out["data"].(map[string]any)["sheets"].([]any)[0].(map[string]any)["id"]
	if st, out = callKeyed(t, "POST", base+"/v1/data-clips", "sk_at_rest_key_0001", "k3", map[string]any{"name": "c", "sourceSheetId": sheet, "sharedLinkAccess": "public"}); st != 200 {
		t.Fatalf("clip: %d %v", st, out)
	}
	hidden = append(hidden, out["accessToken"].(string))
	_, out = call(t, "POST", base+"/v1/auth", "", map[string]any{"email": "rest@example.com", "password": "a long rest password"})
	if st, out = callKeyed(t, "POST", base+"/v1/auth/personal-access-tokens", out["accessToken"].(string), "k4", map[string]any{"name": "ci"}); st != 200 {
		t.Fatalf("PAT: %d %v", st, out)
	}
	hidden = append(hidden, out["data"].(map[string]any)["token"].(string))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "master.key"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("master.key: %v %v, want a 0600 file", fi, err)
	}
	for _, f := range []string{"sluice.db", "sluice.db-wal"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		for _, s := range hidden {
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
