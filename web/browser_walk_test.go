package web_test

import (
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

// TestBrowserWalk walks the whole main job in chromium, once in English and once in German
// with a space theme: log in, create a space, upload a CSV with awkward data, accept the
// suggested mapping, fix an error in the grid, run an action with a guardrail and an input
// form, see its outcome, export. Every step writes a screenshot (SLUICE_SCREENSHOTS).
func TestBrowserWalk(t *testing.T) {
	for _, run := range []struct {
		lang, langName, spaceName string
		theme                     map[string]any
	}{
		{lang: "en", langName: "English", spaceName: "Partner onboarding"},
		{lang: "de", langName: "Deutsch", spaceName: "Lieferanten Q3", theme: map[string]any{
			"root":  map[string]any{"borderColor": "#0f766e", "tabstripActiveColor": "#0f766e", "modalBorderRadius": "2px", "interactiveBorderRadius": "2px"},
			"table": map[string]any{"column": map[string]any{"header": map[string]any{"fontFamily": "Georgia, serif"}}},
		}},
	} {
		t.Run(run.lang, func(t *testing.T) { webtest.Walk(t, run.lang, run.langName, run.spaceName, run.theme) })
	}
}
