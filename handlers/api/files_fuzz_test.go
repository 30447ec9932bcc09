package api_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/handlers/api"
)

// detectHeaderApp serves POST /v1/files/detect-header alone: it reads no store.
func detectHeaderApp() *fiber.App {
	app := fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error {
		if errs.Is(err, errs.Invalid) {
			return c.Status(400).SendString(err.Error())
		}
		return c.Status(500).SendString(err.Error())
	}})
	app.Post("/v1/files/detect-header", api.NewFiles(nil, nil, nil).DetectHeader)
	return app
}

func detectHeader(t testing.TB, app *fiber.App, body string) (int, string) {
	req := httptest.NewRequest("POST", "/v1/files/detect-header", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Bad bodies get a 400 that names the field, never a panic or a 500.
func TestDetectHeaderRefusesBadInput(t *testing.T) {
	app := detectHeaderApp()
	for _, tt := range []struct{ body, key string }{
		{`{}`, "data"},
		{`{"data":[]}`, "data"},
		{`{"data":[["a"]],"options":{"algorithm":"specificRows","rowNumbers":[5]}}`, "options.rowNumbers"},
		{`{"data":[["a"]],"options":{"algorithm":"specificRows","rowNumbers":[-1]}}`, "options.rowNumbers"},
		{`{"data":[["a"]],"options":{"algorithm":"specificRows"}}`, "options.rowNumbers"},
		{`{"data":[["a"]],"options":{"rowsToSearch":-3}}`, "options.rowsToSearch"},
		{`{"data":[["a"]],"options":{"algorithm":"guess"}}`, "options.algorithm"},
	} {
		if st, body := detectHeader(t, app, tt.body); st != 400 || !strings.Contains(body, tt.key) {
			t.Errorf("%s: got %d %s, want 400 about %s", tt.body, st, body, tt.key)
		}
	}
	if st, body := detectHeader(t, app, `{"options":{"algorithm":"default","rowsToSearch":20},"data":[["Report"],[],["id","name","email"],["1","A","a@x"]]}`); st != 200 || !strings.Contains(body, `"headerRow":3`) {
		t.Errorf("a good request: %d %s", st, body)
	}
}

// FuzzDetectHeaderRequest: whatever the body, the answer is 200 or 400.
func FuzzDetectHeaderRequest(f *testing.F) {
	for _, s := range []string{`{}`, `{"data":[["a","b"],["1","2"]]}`, `{"data":[["a"]],"options":{"algorithm":"specificRows","rowNumbers":[0]}}`,
		`{"data":[["a"]],"options":{"algorithm":"explicitHeaders","headers":["x","y"]}}`, `{"data":[[]],"options":{"rowsToSearch":1}}`} {
		f.Add(s)
	}
	app := detectHeaderApp()
	f.Fuzz(func(t *testing.T, body string) {
		if st, out := detectHeader(t, app, body); st != 200 && st != 400 {
			t.Fatalf("%q: got %d %s", body, st, out)
		}
	})
}
