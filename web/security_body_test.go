package web_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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
	addr := strings.TrimPrefix(webtest.Listen(t, e), "http://")
	for _, tc := range []struct{ name, path, header string }{
		{"long header", "/v1/spaces", strings.Repeat("x", 40<<10)},
		{"long URL", "/v1/spaces?q=" + strings.Repeat("y", 40<<10), ""},
	} {
		head := "GET " + tc.path + " HTTP/1.1\r\nHost: sluice\r\nAuthorization: Bearer " + webtest.Secret + "\r\n"
		if tc.header != "" {
			head += "X-Padding: " + tc.header + "\r\n"
		}
		status, b, err := answerWhileWriting(addr, head+"\r\n")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if status != 431 || !strings.Contains(string(b), `"errors"`) {
			t.Errorf("%s: got %d %.200s, want 431 with a JSON error", tc.name, status, b)
		}
	}
}

// answerWhileWriting sends a raw request and reads the answer while the request is still being
// written: a server that refuses an oversized head answers and closes before reading it all, and
// net/http's client would then report its failed write instead of the answer.
func answerWhileWriting(addr, request string) (int, []byte, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = io.WriteString(conn, request) }() // fails once the server has closed; the answer decides
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, fmt.Errorf("reading the answer: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil && len(b) == 0 {
		return resp.StatusCode, nil, fmt.Errorf("reading the answer's body: %w", err)
	}
	return resp.StatusCode, b, nil
}
