package web_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// gzipBomb returns a gzip body of a few hundred KiB that inflates to n bytes of JSON whitespace.
func gzipBomb(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for written := 0; written < n; written += len(chunk) {
		_, _ = zw.Write(chunk)
	}
	_ = zw.Close()
	return buf.Bytes()
}

// allocatedBy returns how many bytes the process allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestGzipBombIsRefusedCheaply reproduces finding C1: a small gzip body that inflates far past the
// body limit was inflated whole, before the token check. Now an anonymous one is refused before
// its body is read, and an authenticated one stops inflating at the limit.
func TestGzipBombIsRefusedCheaply(t *testing.T) {
	e := newAPI(t)
	bomb := gzipBomb(t, 256<<20)
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"no token", "", 401},
		{"forged token", "eyJhbGciOiJIUzI1NiJ9.e30.x", 401},
		{"secret key", testSecret, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var status int
			var body []byte
			used := allocatedBy(func() {
				req := httptest.NewRequest("POST", "/v1/spaces", bytes.NewReader(bomb))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Content-Encoding", "gzip")
				if tc.token != "" {
					req.Header.Set("Authorization", "Bearer "+tc.token)
				}
				resp, err := e.app.Test(req, -1)
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
	e := newAPI(t)
	req := httptest.NewRequest("POST", "/v1/spaces", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+testSecret)
	req.Header.Set("Content-Encoding", "br")
	resp, err := e.app.Test(req, -1)
	if err != nil || resp.StatusCode != 415 {
		t.Fatalf("br body: got %v %v, want 415", resp.StatusCode, err)
	}
	srv := listen(t, e)
	for _, tc := range []struct{ name, path, header string }{
		{"long header", "/v1/spaces", strings.Repeat("x", 40<<10)},
		{"long URL", "/v1/spaces?q=" + strings.Repeat("y", 40<<10), ""},
	} {
		req, _ := http.NewRequest("GET", srv+tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+testSecret)
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

// listen serves the app on a loopback port for the test's length and returns its base URL.
func listen(t *testing.T, e *apiEnv) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.app.Listener(ln) }()
	t.Cleanup(func() { _ = e.app.Shutdown() })
	return "http://" + ln.Addr().String()
}
