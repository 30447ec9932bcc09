package webtest

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// PostJSON sends a JSON body to a page endpoint the way grid-edit.js does (htmx and CSRF
// headers, the session's cookies) and returns the status and body.
func (b *BrowserSession) PostJSON(t testing.TB, path, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp := b.Send(t, req, true)
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}
