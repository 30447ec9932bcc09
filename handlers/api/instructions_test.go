package api_test

import (
	"net/http"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestInstructionsFollowTheFieldFamily(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "i"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp["id"], "sheets": []any{
		map[string]any{"name": "People", "fields": []any{map[string]any{"key": "Vorname", "type": "string"}, map[string]any{"key": "Nachname", "type": "string"}, map[string]any{"key": "E-Mail", "type": "string"}}},
	}})
	sheet := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	if st, _ := e.Call(t, "POST", "/v1/instructions?environmentId="+e.EnvID, webtest.Secret, map[string]any{"fieldKeys": []string{"a"}}); st != http.StatusBadRequest {
		t.Fatalf("missing text: got %d, want 400", st)
	}
	people := webtest.DataOf(e.MustCall(t, "POST", "/v1/instructions?environmentId="+e.EnvID+"&scope=crm", webtest.Secret, map[string]any{
		"instructions": "Map given names to first_name.", "fieldKeys": []string{"first_name", "last_name", "email"}, "metadata": map[string]any{"by": "ops"}}))
	e.MustCall(t, "POST", "/v1/instructions?environmentId="+e.EnvID, webtest.Secret, map[string]any{"instructions": "Orders: quantities are integers.", "fieldKeys": []string{"sku", "quantity", "price"}})
	got := webtest.ListOf(e.MustCall(t, "GET", "/v1/instructions/sheet/"+sheet, webtest.Secret, nil))
	if len(got) != 1 || got[0].(map[string]any)["id"] != people["id"] || got[0].(map[string]any)["confidence"].(float64) != 1 {
		t.Fatalf("got %v, want only the people instruction (same family in German keys), confidence 1", got)
	}
	e.MustCall(t, "PATCH", "/v1/instructions/"+people["id"].(string), webtest.Secret, map[string]any{"fieldKeys": []string{"first_name", "phone", "fax", "zip"}})
	if got := webtest.ListOf(e.MustCall(t, "GET", "/v1/instructions/sheet/"+sheet, webtest.Secret, nil)); len(got) != 0 {
		t.Fatalf("after narrowing the family: got %v, want none above the threshold", got)
	}
	e.MustCall(t, "DELETE", "/v1/instructions/"+people["id"].(string), webtest.Secret, nil)
	if st, _ := e.Call(t, "PATCH", "/v1/instructions/"+people["id"].(string), webtest.Secret, map[string]any{"instructions": "x"}); st != http.StatusNotFound {
		t.Fatalf("deleted instruction: got %d, want 404", st)
	}
}
