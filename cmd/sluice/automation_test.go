package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestShutdownEndsEventStreams(t *testing.T) {
	base, _, stop := start(t, map[string]string{"SLUICE_ADDR": "127.0.0.1:0", "SLUICE_DATA_DIR": t.TempDir(), "SLUICE_SECRET_KEY": "sk_stream_1"})
	req, _ := http.NewRequest("GET", base+"/v1/events/stream", nil)
	req.Header.Set("Authorization", "Bearer sk_stream_1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("stream: got %v %v, want 200", resp, err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if !strings.HasPrefix(line, "retry:") {
		t.Fatalf("got first line %q, want the retry hint", line)
	}
	began := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("shutdown with an open stream: %v", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("shutdown took %v with an open stream", d)
	}
}

func TestAutomationConfig(t *testing.T) {
	c, err := parseConfig([]string{"-job-ack-window", "90s"}, func(k string) string {
		return map[string]string{"SLUICE_READINESS_WAIT": "30s", "SLUICE_WEBHOOK_MAX_ATTEMPTS": "3"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Automation
	if a.JobAckWindow != 90*time.Second || a.ReadinessWait != 30*time.Second || a.JobCheckEvery != 5*time.Minute || a.WebhookMaxAttempts != 3 || a.WebhookRetryBase != time.Second {
		t.Fatalf("got %+v", a)
	}
	if a.SearchIndexMin != 200000 {
		t.Errorf("search index min %d, want 200000 by default", a.SearchIndexMin)
	}
	for v, want := range map[string]int64{"0": 0, "50000": 50000} {
		c, err := parseConfig(nil, func(k string) string { return map[string]string{"SLUICE_SEARCH_INDEX_MIN": v}[k] })
		if err != nil || c.Automation.SearchIndexMin != want {
			t.Errorf("SLUICE_SEARCH_INDEX_MIN=%s: %d (%v), want %d", v, c.Automation.SearchIndexMin, err, want)
		}
	}
	for _, env := range []map[string]string{{"SLUICE_JOB_ACK_WINDOW": "soon"}, {"SLUICE_WEBHOOK_MAX_ATTEMPTS": "0"}, {"SLUICE_READINESS_WAIT": "-1s"}, {"SLUICE_SEARCH_INDEX_MIN": "-1"}, {"SLUICE_SEARCH_INDEX_MIN": "lots"}} {
		if _, err := parseConfig(nil, func(k string) string { return env[k] }); err == nil {
			t.Errorf("%v: got no error, want one", env)
		}
	}
}

// The caps set in the environment are the ones the API enforces: they travel in the
// store's settings, not in package variables.
func TestConfiguredCapsAreEnforced(t *testing.T) {
	base, _, stop := start(t, map[string]string{"SLUICE_ADDR": "127.0.0.1:0", "SLUICE_DATA_DIR": t.TempDir(), "SLUICE_SECRET_KEY": "sk_caps_1",
		"SLUICE_MAX_COLUMNS": "3", "SLUICE_MAX_NAME_LENGTH": "8"})
	defer func() { _ = stop() }()
	post := func(path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer sk_caps_1")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	st, body := post("/v1/spaces", `{"name":"caps"}`)
	if st != 200 {
		t.Fatalf("space: %d %s", st, body)
	}
	var sp struct{ Data struct{ ID string } }
	if err := json.Unmarshal([]byte(body), &sp); err != nil {
		t.Fatal(err)
	}
	wide := `{"name":"W","spaceId":"` + sp.Data.ID + `","sheets":[{"name":"S","fields":[{"key":"a","type":"string"},{"key":"b","type":"string"},{"key":"c","type":"string"},{"key":"d","type":"string"}]}]}`
	if st, body := post("/v1/workbooks", wide); st != 400 || !strings.Contains(body, "the limit is 3 (SLUICE_MAX_COLUMNS)") {
		t.Errorf("a sheet of 4 fields under SLUICE_MAX_COLUMNS=3: %d %s", st, body)
	}
	long := `{"name":"W","spaceId":"` + sp.Data.ID + `","sheets":[{"name":"S","fields":[{"key":"much_too_long","type":"string"}]}]}`
	if st, body := post("/v1/workbooks", long); st != 400 || !strings.Contains(body, "the limit is 8 (SLUICE_MAX_NAME_LENGTH)") {
		t.Errorf("a 13-character key under SLUICE_MAX_NAME_LENGTH=8: %d %s", st, body)
	}
	if st, body := post("/v1/workbooks", `{"name":"W","spaceId":"`+sp.Data.ID+`","sheets":[{"name":"S","fields":[{"key":"a","type":"string"}]}]}`); st != 200 {
		t.Errorf("a sheet within the caps: %d %s", st, body)
	}
}
