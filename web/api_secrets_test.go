package web_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

func TestSecrets(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	e.mustCall(t, "POST", "/v1/secrets", testSecret, map[string]any{"name": "API key for CRM", "value": "env-value", "environmentId": e.envID})
	out := listOf(e.mustCall(t, "POST", "/v1/secrets", testSecret, map[string]any{"name": "API key for CRM", "value": "space-value", "spaceId": sp["id"]}))
	if len(out) != 2 {
		t.Fatalf("got %v, want the environment's and the space's secret", out)
	}
	// Upsert replaces the value in the same scope.
	e.mustCall(t, "POST", "/v1/secrets", testSecret, map[string]any{"name": "API key for CRM", "value": "env-value-2", "environmentId": e.envID})
	env := listOf(e.mustCall(t, "GET", "/v1/secrets?environmentId="+e.envID, testSecret, nil))
	var values []string
	for _, s := range env {
		values = append(values, s.(map[string]any)["value"].(string))
	}
	if strings.Join(values, ",") != "env-value-2,space-value" && strings.Join(values, ",") != "env-value-2" {
		t.Fatalf("got %v", values)
	}
	rows, err := e.db.Reader.QueryContext(t.Context(), `SELECT value_enc FROM secrets`)
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for rows.Next() {
		var enc []byte
		if err := rows.Scan(&enc); err != nil {
			t.Fatal(err)
		}
		if stored++; bytes.Contains(enc, []byte("value")) {
			t.Fatalf("a secret value is stored in the clear: %q", enc)
		}
	}
	if err := rows.Err(); err != nil || stored == 0 {
		t.Fatalf("read %d stored secrets (%v)", stored, err)
	}
	rows.Close()
	if st, _ := e.call(t, "GET", "/v1/secrets?environmentId="+e.envID, testPublic, nil); st != http.StatusForbidden {
		t.Fatalf("publishable key reading secrets: got %d, want 403", st)
	}
	id := env[0].(map[string]any)["id"].(string)
	e.mustCall(t, "DELETE", "/v1/secrets/"+id, testSecret, nil)
	if st, _ := e.call(t, "DELETE", "/v1/secrets/"+id, testSecret, nil); st != http.StatusNotFound {
		t.Fatalf("deleting twice: got %d, want 404", st)
	}
	if st, _ := e.call(t, "POST", "/v1/secrets", testSecret, map[string]any{"name": "x"}); st != http.StatusBadRequest {
		t.Fatalf("missing value: got %d, want 400", st)
	}
}
