package api_test

import (
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestReferencesFollowTheReferencedSheet(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "refs"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "CRM", "spaceId": sp["id"], "sheets": []any{
		map[string]any{"name": "Companies", "slug": "companies", "fields": []any{map[string]any{"key": "name", "type": "string", "constraints": []any{map[string]any{"type": "unique"}}}}},
		map[string]any{"name": "Contacts", "slug": "contacts", "fields": []any{map[string]any{"key": "company", "type": "reference", "config": map[string]any{"ref": "companies", "key": "name"}}}},
	}})
	sheets := wb["sheets"].([]any)
	companies, contacts := sheets[0].(map[string]any)["id"].(string), sheets[1].(map[string]any)["id"].(string)
	added := webtest.DataOf(e.MustCall(t, "POST", "/v1/sheets/"+companies+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Acme"}}}))
	acme := added["records"].([]any)[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+contacts+"/records", webtest.Secret, []any{
		map[string]any{"company": map[string]any{"value": "Acme"}},
		map[string]any{"company": map[string]any{"value": "Beta"}},
	})
	valid := func() []bool {
		recs := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+contacts+"/records", webtest.Secret, nil))["records"].([]any)
		out := make([]bool, len(recs))
		for i, r := range recs {
			out[i] = r.(map[string]any)["valid"].(bool)
		}
		return out
	}
	if got := valid(); !got[0] || got[1] {
		t.Fatalf("got valid %v, want Acme linked and Beta dangling", got)
	}
	e.MustCall(t, "POST", "/v1/sheets/"+companies+"/records", webtest.Secret, []any{map[string]any{"name": map[string]any{"value": "Beta"}}})
	if got := valid(); !got[0] || !got[1] {
		t.Fatalf("after adding Beta: got valid %v, want both linked", got)
	}
	e.MustCall(t, "DELETE", "/v1/sheets/"+companies+"/records?ids="+acme, webtest.Secret, nil)
	if got := valid(); got[0] || !got[1] {
		t.Fatalf("after deleting Acme: got valid %v, want Acme dangling", got)
	}
}
