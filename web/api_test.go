package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
	"github.com/sluice/sluice/web"
)

const (
	testSecret   = "sk_test_env_one"
	testPublic   = "pk_test_env_one"
	testEmail    = "admin@example.com"
	testPassword = "correct horse"
)

// allowPrivateWebhooks is what newAPI's apps use: the tests' webhook receivers listen on
// 127.0.0.1 (TestPrivateWebhookURLsRefused turns it off).
var allowPrivateWebhooks = true

// testBaseURL is the SLUICE_BASE_URL of newAPI's apps ("" as in development).
var testBaseURL = ""

// apiEnv is a running app on a temp store with a bootstrapped account.
type apiEnv struct {
	app      *fiber.App
	filesDir string
	db       *store.DB
	events   *events.Notifier // live event streams; nil unless a test starts one (withStreams)
	path     string
	envID    string
	account  string
	now      time.Time
	tune     func(*web.Deps) // changes the settings of the next newApp
}

func newAPI(t testing.TB) *apiEnv {
	t.Helper()
	path := sqldb.TestDatabase(t)
	db, err := store.OpenDSN(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &apiEnv{db: db, path: path, now: time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)}
	db.Now = func() time.Time { return e.now }
	sealer, _ := auth.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	db.Sealer = sealer
	hash, _ := auth.HashPassword(testPassword)
	res, err := db.EnsureBootstrap(t.Context(), store.Bootstrap{AccountName: "T", AdminEmail: testEmail, PasswordHash: hash, SecretKey: testSecret, PublishableKey: testPublic})
	if err != nil {
		t.Fatal(err)
	}
	e.envID, e.account = res.Environment.ID, res.Account.ID
	e.filesDir = t.TempDir()
	e.app = e.newApp(sealer)
	return e
}

// newApp builds the web app over e's store, as a server start does.
func (e *apiEnv) newApp(sealer *auth.Sealer) *fiber.App {
	tokens := &auth.Tokens{Key: []byte("test-signing-key"), TTL: time.Hour, Now: e.db.Now}
	d := web.Deps{Store: e.db, Auth: &auth.Authenticator{Keys: e.db, Tokens: tokens, PATs: e.db, Guests: e.db, Live: e.db}, Tokens: tokens,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), SessionSecret: []byte("0123456789abcdef0123456789abcdef"),
		Sealer: sealer, FilesDir: e.filesDir, AllowPrivateWebhooks: allowPrivateWebhooks, BaseURL: testBaseURL, Events: e.events,
		StreamHeartbeat: time.Second}
	if e.tune != nil {
		e.tune(&d)
	}
	return web.New(d)
}

// withStreams restarts e's app with a running event notifier, so /v1/events/stream works.
func (e *apiEnv) withStreams(t *testing.T) {
	t.Helper()
	e.events = events.NewNotifier(e.db, 10*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := e.events.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.events.Stop)
	e.app = e.newApp(e.db.Sealer.(*auth.Sealer))
}

// reopen closes e's database and starts a new app on the same file, as a restart does.
func reopen(t *testing.T, e *apiEnv) *apiEnv {
	t.Helper()
	path := e.path
	e.db.Close()
	db, err := store.OpenDSN(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e2 := *e
	e2.db = db
	db.Now = func() time.Time { return e2.now }
	sealer, _ := auth.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	db.Sealer = sealer
	e2.app = e2.newApp(sealer)
	return &e2
}

// call sends a request with a bearer token and decodes the JSON answer.
func (e *apiEnv) call(t testing.TB, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		buf, _ := json.Marshal(b)
		r = bytes.NewReader(buf)
	}
	req := httptest.NewRequest(method, path, r)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := e.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &out) != nil {
		t.Fatalf("%s %s: body is not a JSON object: %s", method, path, raw)
	}
	return resp.StatusCode, out
}

func (e *apiEnv) mustCall(t testing.TB, method, path, token string, body any) map[string]any {
	t.Helper()
	status, out := e.call(t, method, path, token, body)
	if status != http.StatusOK {
		t.Fatalf("%s %s: got status %d, want 200; body %v", method, path, status, out)
	}
	return out
}

func dataOf(m map[string]any) map[string]any { d, _ := m["data"].(map[string]any); return d }
func listOf(m map[string]any) []any          { l, _ := m["data"].([]any); return l }

func errorKey(t *testing.T, m map[string]any) string {
	t.Helper()
	list, _ := m["errors"].([]any)
	if len(list) == 0 {
		t.Fatalf("got %v, want an errors array", m)
	}
	first := list[0].(map[string]any)
	if msg, _ := first["message"].(string); msg == "" {
		t.Fatalf("got error without message: %v", m)
	}
	k, _ := first["key"].(string)
	return k
}

func (e *apiEnv) mustCreateSpace(t testing.TB, token string, body map[string]any) map[string]any {
	t.Helper()
	return dataOf(e.mustCall(t, "POST", "/v1/spaces", token, body))
}

func (e *apiEnv) topics(t *testing.T, query string) []string {
	t.Helper()
	out := e.mustCall(t, "GET", "/v1/events?pageSize=1000&includeAcknowledged=true"+query, testSecret, nil)
	var topics []string
	for _, ev := range listOf(out) {
		topics = append(topics, ev.(map[string]any)["topic"].(string))
	}
	return topics
}
