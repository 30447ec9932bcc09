package webtest

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
	Secret   = "sk_test_env_one"
	Public   = "pk_test_env_one"
	Email    = "admin@example.com"
	Password = "correct horse"
)

// AllowPrivateWebhooks is what NewAPI's apps use: the tests' webhook receivers listen on
// 127.0.0.1 (TestPrivateWebhookURLsRefused turns it off).
var AllowPrivateWebhooks = true

// BaseURL is the SLUICE_BASE_URL of NewAPI's apps ("" as in development).
var BaseURL = ""

// Env is a running app on a temp store with a bootstrapped account.
type Env struct {
	App      *fiber.App
	FilesDir string
	DB       *store.DB
	Events   *events.Notifier // live event streams; nil unless a test starts one (WithStreams)
	Path     string
	EnvID    string
	Account  string
	Now      time.Time
	Tune     func(*web.Deps) // changes the settings of the next NewApp
}

func NewAPI(t testing.TB) *Env {
	t.Helper()
	path := sqldb.TestDatabase(t)
	db, err := store.OpenDSN(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &Env{DB: db, Path: path, Now: time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)}
	db.Now = func() time.Time { return e.Now }
	sealer, _ := auth.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	db.Sealer = sealer
	hash, _ := auth.HashPassword(Password)
	res, err := db.EnsureBootstrap(t.Context(), store.Bootstrap{AccountName: "T", AdminEmail: Email, PasswordHash: hash, SecretKey: Secret, PublishableKey: Public})
	if err != nil {
		t.Fatal(err)
	}
	e.EnvID, e.Account = res.Environment.ID, res.Account.ID
	e.FilesDir = t.TempDir()
	e.App = e.NewApp(sealer)
	return e
}

// NewApp builds the web app over e's store, as a server start does.
func (e *Env) NewApp(sealer *auth.Sealer) *fiber.App {
	tokens := &auth.Tokens{Key: []byte("test-signing-key"), TTL: time.Hour, Now: e.DB.Now}
	d := web.Deps{Store: e.DB, Auth: &auth.Authenticator{Keys: e.DB, Tokens: tokens, PATs: e.DB, Guests: e.DB, Live: e.DB}, Tokens: tokens,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), SessionSecret: []byte("0123456789abcdef0123456789abcdef"),
		Sealer: sealer, FilesDir: e.FilesDir, AllowPrivateWebhooks: AllowPrivateWebhooks, BaseURL: BaseURL, Events: e.Events,
		StreamHeartbeat: time.Second}
	if e.Tune != nil {
		e.Tune(&d)
	}
	return web.New(d)
}

// WithStreams restarts e's app with a running event notifier, so /v1/events/stream works.
func (e *Env) WithStreams(t *testing.T) {
	t.Helper()
	e.Events = events.NewNotifier(e.DB, 10*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := e.Events.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Events.Stop)
	e.App = e.NewApp(e.DB.Sealer.(*auth.Sealer))
}

// Reopen closes e's database and starts a new app on the same file, as a restart does.
func Reopen(t *testing.T, e *Env) *Env {
	t.Helper()
	path := e.Path
	e.DB.Close()
	db, err := store.OpenDSN(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e2 := *e
	e2.DB = db
	db.Now = func() time.Time { return e2.Now }
	sealer, _ := auth.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	db.Sealer = sealer
	e2.App = e2.NewApp(sealer)
	return &e2
}

// Call sends a request with a bearer token and decodes the JSON answer.
func (e *Env) Call(t testing.TB, method, path, token string, body any) (int, map[string]any) {
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
	resp, err := e.App.Test(req, -1)
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

func (e *Env) MustCall(t testing.TB, method, path, token string, body any) map[string]any {
	t.Helper()
	status, out := e.Call(t, method, path, token, body)
	if status != http.StatusOK {
		t.Fatalf("%s %s: got status %d, want 200; body %v", method, path, status, out)
	}
	return out
}

func DataOf(m map[string]any) map[string]any { d, _ := m["data"].(map[string]any); return d }

func ListOf(m map[string]any) []any { l, _ := m["data"].([]any); return l }

func ErrorKey(t *testing.T, m map[string]any) string {
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

func (e *Env) MustCreateSpace(t testing.TB, token string, body map[string]any) map[string]any {
	t.Helper()
	return DataOf(e.MustCall(t, "POST", "/v1/spaces", token, body))
}

func (e *Env) Topics(t *testing.T, query string) []string {
	t.Helper()
	out := e.MustCall(t, "GET", "/v1/events?pageSize=1000&includeAcknowledged=true"+query, Secret, nil)
	var topics []string
	for _, ev := range ListOf(out) {
		topics = append(topics, ev.(map[string]any)["topic"].(string))
	}
	return topics
}
