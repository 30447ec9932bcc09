package webtest

import (
	"io"
	"testing"
)

// send makes an API request with an Idempotency-Key and returns status, body and whether it
// was replayed.
func (e *Env) SendKeyed(t *testing.T, method, path, key, token, body string) (int, string, bool) {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	resp := e.Raw(t, method, path, h, body)
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Idempotent-Replayed") == "true"
}

func (e *Env) CountRecords(t *testing.T, sheetID string) int {
	t.Helper()
	return len(RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", Secret, nil)))
}
