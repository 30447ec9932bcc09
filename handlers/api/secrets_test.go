package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestSecrets(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	e.MustCall(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "API key for CRM", "value": "env-value", "environmentId": e.EnvID})
	out := webtest.ListOf(e.MustCall(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "API key for CRM", "value": "space-value", "spaceId": sp["id"]}))
	if len(out) != 2 {
		t.Fatalf("got %v, want the environment's and the space's secret", out)
	}
	// Upsert replaces the value in the same scope.
	e.MustCall(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "API key for CRM", "value": "env-value-2", "environmentId": e.EnvID})
	env := webtest.ListOf(e.MustCall(t, "GET", "/v1/secrets?environmentId="+e.EnvID, webtest.Secret, nil))
	var values []string
	for _, s := range env {
		values = append(values, s.(map[string]any)["value"].(string))
	}
	if strings.Join(values, ",") != "env-value-2,space-value" && strings.Join(values, ",") != "env-value-2" {
		t.Fatalf("got %v", values)
	}
	rows, err := e.DB.Reader.QueryContext(t.Context(), `SELECT value_enc FROM secrets`)
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
	if st, _ := e.Call(t, "GET", "/v1/secrets?environmentId="+e.EnvID, webtest.Public, nil); st != http.StatusForbidden {
		t.Fatalf("publishable key reading secrets: got %d, want 403", st)
	}
	id := env[0].(map[string]any)["id"].(string)
	e.MustCall(t, "DELETE", "/v1/secrets/"+id, webtest.Secret, nil)
	if st, _ := e.Call(t, "DELETE", "/v1/secrets/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleting twice: got %d, want 404", st)
	}
	if st, _ := e.Call(t, "POST", "/v1/secrets", webtest.Secret, map[string]any{"name": "x"}); st != http.StatusBadRequest {
		t.Fatalf("missing value: got %d, want 400", st)
	}
}
