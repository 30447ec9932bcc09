package main

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

var loginURL = regexp.MustCompile(`Log in at (http://[^ ]+)/login`)

// start runs the server until the returned stop function is called.
func start(t *testing.T, env map[string]string) (base string, out *syncBuffer, stop func() error) {
	t.Helper()
	out = &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, nil, func(k string) string { return env[k] }, out) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := loginURL.FindStringSubmatch(out.String()); m != nil {
			return m[1], out, func() error { cancel(); return <-done }
		}
		select {
		case err := <-done:
			t.Fatalf("server stopped early: %v\n%s", err, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("server did not start:\n%s", out)
	return
}

func TestFirstStartCreatesAndSecondReuses(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SLUICE_ADDR": "127.0.0.1:0", "SLUICE_DATA_DIR": dir, "SLUICE_SECRET_KEY": "sk_given_key_1"}
	base, out, stop := start(t, env)
	resp, err := http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: got %v %v, want 200", resp, err)
	}
	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	first := out.String()
	for _, want := range []string{"First start", "admin password:", "publishable key: pk_"} {
		if !strings.Contains(first, want) {
			t.Errorf("first start output lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "sk_given_key_1") || strings.Contains(first, "secret key:") {
		t.Errorf("first start printed a key that was given, not generated:\n%s", first)
	}

	base, out, stop = start(t, env)
	req, _ := http.NewRequest("GET", base+"/v1/spaces", nil)
	req.Header.Set("Authorization", "Bearer sk_given_key_1")
	resp, err = http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("secret key after restart: got %v %v, want 200", resp, err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "First start") {
		t.Fatalf("second start created the account again:\n%s", out)
	}
}

func TestShutdownFinishesInFlightRequests(t *testing.T) {
	base, _, stop := start(t, map[string]string{"SLUICE_ADDR": "127.0.0.1:0", "SLUICE_DATA_DIR": t.TempDir()})
	// A slow client: the request is in flight while shutdown begins.
	type result struct {
		code int
		err  error
	}
	res := make(chan result, 1)
	go func() {
		r, err := http.Get(base + "/healthz")
		if err != nil {
			res <- result{err: err}
			return
		}
		res <- result{code: r.StatusCode}
	}()
	time.Sleep(50 * time.Millisecond)
	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	r := <-res
	if r.err != nil || r.code != 200 {
		t.Fatalf("in-flight request: got %d %v, want 200", r.code, r.err)
	}
}

func TestConfigRejectsBadKeys(t *testing.T) {
	tests := []map[string]string{
		{"SLUICE_SECRET_KEY": "pk_wrong"},
		{"SLUICE_PUBLISHABLE_KEY": "sk_wrong"},
		{"SLUICE_ADMIN_PASSWORD": "short"},
		{"SLUICE_ADMIN_PASSWORD": "password123"}, // long enough, but on the common list
	}
	for _, env := range tests {
		if _, err := parseConfig(nil, func(k string) string { return env[k] }); err == nil {
			t.Errorf("config %v: got no error, want one", env)
		}
	}
}
