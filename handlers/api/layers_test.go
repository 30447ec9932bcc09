package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestLayers(t *testing.T) {
	e := webtest.NewAPI(t)
	spaceID, sh := e.MustCreateRecordSheet(t, webtest.ContactFields)
	base := "/v1/sheets/" + sh + "/records"
	ins := webtest.RecordsOf(t, e.MustCall(t, "POST", base, webtest.Secret, []map[string]any{
		{"name": map[string]any{"value": "Ann"}, "email": map[string]any{"value": "ann@x.io", "layer": "enrichment"}},
		{"name": map[string]any{"value": "Bob", "layer": "enrichment"}},
	}))
	count := func() int {
		n := 0
		for _, tp := range e.Topics(t, "&spaceId="+spaceID) {
			if tp == "layer:created" {
				n++
			}
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("got %d layer:created events, want one for the new layer", n)
	}
	cell := func(r map[string]any, k string) map[string]any {
		return r["values"].(map[string]any)[k].(map[string]any)
	}
	if cell(ins[0], "email")["layer"] != "enrichment" || cell(ins[0], "name")["layer"] != nil {
		t.Errorf("got %v, want the email in layer enrichment and the name in the base layer", ins[0]["values"])
	}

	// A second write in the same layer creates nothing; a new name does; "" moves a value back.
	e.MustCall(t, "PUT", base, webtest.Secret, []map[string]any{
		{"id": ins[0]["id"], "values": map[string]any{"email": map[string]any{"value": "ann@y.io", "layer": ""}, "age": map[string]any{"value": 3, "layer": "guess"}}},
		{"id": ins[1]["id"], "values": map[string]any{"name": map[string]any{"value": "Bob B", "layer": "enrichment"}}},
	})
	if n := count(); n != 2 {
		t.Errorf("got %d layer:created events, want 2 (enrichment, guess)", n)
	}
	got := webtest.RecordsOf(t, e.MustCall(t, "GET", base, webtest.Secret, nil))
	if cell(got[0], "email")["layer"] != nil || cell(got[0], "age")["layer"] != "guess" || cell(got[1], "name")["layer"] != "enrichment" {
		t.Errorf("got %v / %v, want email back in the base layer, age in guess, Bob in enrichment", got[0]["values"], got[1]["values"])
	}

	evs := e.MustCall(t, "GET", "/v1/events?spaceId="+spaceID+"&topic=layer:created&pageSize=100", webtest.Secret, nil)["data"].([]any)
	ev := evs[0].(map[string]any)
	ctx := ev["context"].(map[string]any)
	if ev["domain"] != "workbook" || ctx["sheetId"] != sh || ctx["workbookId"] == nil || !slices.Contains([]any{"enrichment", "guess"}, ev["payload"].(map[string]any)["layer"]) {
		t.Errorf("got %v, want domain workbook, the sheet's context ids and the layer in the payload", ev)
	}

	status, out := e.Call(t, "POST", base, webtest.Secret, []map[string]any{{"name": map[string]any{"value": "X", "layer": 7}}})
	if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(out), "layer must be a string") {
		t.Errorf("got %d %v, want 400 saying the layer must be a string", status, out)
	}
}
