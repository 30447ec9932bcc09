package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// TestGzipBombIsRefusedCheaply reproduces finding C1: a small gzip body that inflates far past the
// body limit was inflated whole, before the token check. Now an anonymous one is refused before
// its body is read, and an authenticated one stops inflating at the limit.
func TestGzipBombIsRefusedCheaply(t *testing.T) {
	e := webtest.NewAPI(t)
	bomb := webtest.GzipBomb(t, 256<<20)
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"no token", "", 401},
		{"forged token", "eyJhbGciOiJIUzI1NiJ9.e30.x", 401},
		{"secret key", webtest.Secret, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var status int
			var body []byte
			used := webtest.AllocatedBy(func() {
				req := httptest.NewRequest("POST", "/v1/spaces", bytes.NewReader(bomb))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Content-Encoding", "gzip")
				if tc.token != "" {
					req.Header.Set("Authorization", "Bearer "+tc.token)
				}
				resp, err := e.App.Test(req, -1)
				if err != nil {
					t.Fatal(err)
				}
				status = resp.StatusCode
				body, _ = io.ReadAll(resp.Body)
			})
			if status != tc.want {
				t.Fatalf("got %d, want %d: %s", status, tc.want, body)
			}
			var out struct{ Errors []struct{ Message string } }
			if json.Unmarshal(body, &out) != nil || len(out.Errors) == 0 {
				t.Errorf("got body %s, want a JSON errors list", body)
			}
			if used > 64<<20 {
				t.Errorf("the request allocated %d MiB, want under 64 MiB (the bomb inflates to 256 MiB)", used>>20)
			}
		})
	}
}

// TestOtherEncodingsAndHugeHeaders: an encoding Sluice does not inflate is refused with 415, and
// a request head over the limit gets a 431 with a JSON error instead of a 500 or a reset.
func TestOtherEncodingsAndHugeHeaders(t *testing.T) {
	e := webtest.NewAPI(t)
	req := httptest.NewRequest("POST", "/v1/spaces", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+webtest.Secret)
	req.Header.Set("Content-Encoding", "br")
	resp, err := e.App.Test(req, -1)
	if err != nil || resp.StatusCode != 415 {
		t.Fatalf("br body: got %v %v, want 415", resp.StatusCode, err)
	}
	srv := webtest.Listen(t, e)
	for _, tc := range []struct{ name, path, header string }{
		{"long header", "/v1/spaces", strings.Repeat("x", 40<<10)},
		{"long URL", "/v1/spaces?q=" + strings.Repeat("y", 40<<10), ""},
	} {
		req, _ := http.NewRequest("GET", srv+tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+webtest.Secret)
		if tc.header != "" {
			req.Header.Set("X-Padding", tc.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 431 || !strings.Contains(string(b), `"errors"`) {
			t.Errorf("%s: got %d %.200s, want 431 with a JSON error", tc.name, resp.StatusCode, b)
		}
	}
}
