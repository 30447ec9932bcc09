package web_test

import (
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"
)

// M2: wrong passwords are throttled per account with exponential back-off, on the API and
// on the dashboard alike, with 429 and Retry-After; the answer is the same for an e-mail that
// exists and one that does not; the right password works again once the wait is over.
func TestLoginThrottling(t *testing.T) {
	e := webtest.NewAPI(t)
	wrong := map[string]any{"email": webtest.Email, "password": "nope"}
	for i := 1; i <= 5; i++ {
		if st, _ := e.Call(t, "POST", "/v1/auth", "", wrong); st != http.StatusUnauthorized {
			t.Fatalf("failure %d: got %d, want 401", i, st)
		}
	}
	// The sixth failure locks the account for 1 s; the next for 2 s.
	if st, _ := e.Call(t, "POST", "/v1/auth", "", wrong); st != http.StatusUnauthorized {
		t.Fatalf("failure 6: %d", st)
	}
	req := func(body map[string]any) *http.Response {
		t.Helper()
		r, _ := http.NewRequest("POST", "/v1/auth", strings.NewReader(`{"email":"`+body["email"].(string)+`","password":"`+body["password"].(string)+`"}`))
		r.Header.Set("Content-Type", "application/json")
		resp, err := e.App.Test(r, -1)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := req(map[string]any{"email": webtest.Email, "password": webtest.Password})
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("while locked, even the right password: got %d Retry-After %q, want 429 and 1", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// The dashboard shares the count and says so in the page's language.
	b := webtest.LoggedOut(t, e)
	r, doc := b.Do(t, "POST", "/login", url.Values{"email": {webtest.Email}, "password": {webtest.Password}, "_csrf": {b.Csrf}}, false)
	if r.StatusCode != http.StatusTooManyRequests || !strings.Contains(doc.Find(`[data-testid=login-error]`).Text(), "Too many sign-in attempts") {
		t.Fatalf("dashboard while locked: %d %q", r.StatusCode, doc.Find(`[data-testid=login-error]`).Text())
	}
	e.Now = e.Now.Add(1100 * time.Millisecond)
	if st, _ := e.Call(t, "POST", "/v1/auth", "", wrong); st != http.StatusUnauthorized {
		t.Fatalf("failure 7: %d", st)
	}
	resp = req(map[string]any{"email": webtest.Email, "password": webtest.Password})
	if ra, _ := strconv.Atoi(resp.Header.Get("Retry-After")); resp.StatusCode != http.StatusTooManyRequests || ra != 2 {
		t.Fatalf("after the 7th failure: %d Retry-After %q, want 429 and 2 (doubled)", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	e.Now = e.Now.Add(2100 * time.Millisecond)
	if st, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"email": webtest.Email, "password": webtest.Password}); st != http.StatusOK {
		t.Fatalf("the right password after the wait: %d %v", st, out)
	}
	// Unknown e-mails are counted and answered the same way: nothing tells them apart.
	ghost := map[string]any{"email": "nobody@example.com", "password": "nope"}
	var last int
	for i := 0; i < 7; i++ {
		last, _ = e.Call(t, "POST", "/v1/auth", "", ghost)
	}
	if last != http.StatusTooManyRequests {
		t.Fatalf("unknown e-mail after 7 failures: %d, want 429 like a known one", last)
	}
}

// The lock is in the database: a new server on the same database still refuses.
func TestThrottleSurvivesRestart(t *testing.T) {
	e := webtest.NewAPI(t)
	for i := 0; i < 6; i++ {
		e.Call(t, "POST", "/v1/auth", "", map[string]any{"email": webtest.Email, "password": "nope"})
	}
	e2 := webtest.Reopen(t, e)
	if st, _ := e2.Call(t, "POST", "/v1/auth", "", map[string]any{"email": webtest.Email, "password": webtest.Password}); st != http.StatusTooManyRequests {
		t.Fatalf("after a restart: %d, want 429", st)
	}
}

// M2: a dashboard login costs the same for an unknown e-mail as for a known one (both run
// bcrypt), so timing does not reveal who has an account. Medians of 7, within a factor of 2.
func TestLoginTimingDoesNotRevealUsers(t *testing.T) {
	e := webtest.NewAPI(t)
	median := func(email string) time.Duration {
		var d []time.Duration
		for i := 0; i < 7; i++ {
			b := webtest.LoggedOut(t, e)
			start := time.Now()
			b.Do(t, "POST", "/login", url.Values{"email": {email}, "password": {"wrong password " + strconv.Itoa(i)}, "_csrf": {b.Csrf}}, false)
			d = append(d, time.Since(start))
			e.Now = e.Now.Add(time.Hour) // stay under the throttle
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[3]
	}
	known, unknown := median(webtest.Email), median("nobody-"+strconv.Itoa(int(time.Now().UnixNano()))+"@example.com")
	t.Logf("known %v, unknown %v", known, unknown)
	if unknown*2 < known || known*2 < unknown {
		t.Fatalf("known e-mail %v vs unknown %v: the difference reveals who has an account", known, unknown)
	}
}
