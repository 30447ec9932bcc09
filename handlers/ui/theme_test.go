package ui_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestSpaceThemeAndLanguage(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "themed", "languageOverride": "de", "metadata": map[string]any{"theme": map[string]any{
		"root":  map[string]any{"borderColor": "#0f766e", "modalBorderRadius": "4px", "tooltipBackgroundColor": "red;}body{display:none"},
		"table": map[string]any{"column": map[string]any{"header": map[string]any{"fontFamily": "Georgia, serif"}}},
	}}})
	plain := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "plain"})
	b := webtest.LoggedIn(t, e)
	resp, doc := b.Do(t, "GET", "/space/"+sp["id"].(string), nil, false)
	style := doc.Find("head style").Text()
	if resp.StatusCode != 200 || !strings.Contains(style, "--sl-border-color:#0f766e;") || !strings.Contains(style, "--sl-table-column-header-font-family:Georgia, serif;") {
		t.Fatalf("themed space: got style %q", style)
	}
	if strings.Contains(style, "display:none") || strings.Contains(style, "tooltip") {
		t.Errorf("the injected value came through: %q", style)
	}
	// The space's languageOverride applies when the user chose no language.
	if lang, _ := doc.Find("html").Attr("lang"); lang != "de" {
		t.Errorf("got lang %q, want the space's de", lang)
	}
	_, doc = b.Do(t, "GET", "/space/"+plain["id"].(string), nil, false)
	if doc.Find("head style").Length() != 0 {
		t.Error("a space without a theme got a style")
	}
	if lang, _ := doc.Find("html").Attr("lang"); lang != "en" {
		t.Errorf("plain space: got lang %q, want en", lang)
	}
	// The user's own choice wins over the space's.
	req := httptest.NewRequest("GET", "/space/"+sp["id"].(string), nil)
	for k, v := range b.Cookies {
		req.Header.Add("Cookie", k+"="+v)
	}
	req.Header.Add("Cookie", "lang=en")
	r, _ := e.App.Test(req, -1)
	body := make([]byte, 200)
	n, _ := r.Body.Read(body)
	if !strings.Contains(string(body[:n]), `lang="en"`) {
		t.Errorf("with the user's choice en: got %q", body[:n])
	}
}
