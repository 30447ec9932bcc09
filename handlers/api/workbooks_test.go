package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestWorkbookCreateAndGet(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "Import", "spaceId": sp["id"], "labels": []string{"primary"},
		"treatments": []string{"ExtractedFromSource"}, "sheets": []any{webtest.ContactsSheet()}})
	if !strings.HasPrefix(wb["id"].(string), "us_wb_") || wb["environmentId"] != e.EnvID {
		t.Fatalf("got %v, want a us_wb_ workbook in the space's environment", wb)
	}
	if tr := wb["treatments"].([]any); len(tr) != 1 || tr[0] != "EXTRACTED_FROM_SOURCE" {
		t.Fatalf("got treatments %v, want the client's EXTRACTED_FROM_SOURCE", tr)
	}
	sheet := wb["sheets"].([]any)[0].(map[string]any)
	if !strings.HasPrefix(sheet["id"].(string), "us_sh_") || sheet["slug"] != "contacts" {
		t.Fatalf("got sheet %v", sheet)
	}
	fields := sheet["config"].(map[string]any)["fields"].([]any)
	status := fields[2].(map[string]any)
	cfg := status["config"].(map[string]any)
	if opts, ok := cfg["options"].([]any); !ok || len(opts) != 0 || cfg["sortBy"] != "label" {
		t.Fatalf("enum without options: got config %v, want options [] and sortBy label", cfg)
	}
	got := webtest.DataOf(e.MustCall(t, "GET", "/v1/workbooks/"+wb["id"].(string), webtest.Secret, nil))
	if got["name"] != "Import" {
		t.Fatalf("got %v", got)
	}
	sh := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheet["id"].(string), webtest.Secret, nil))
	if rc := sh["recordCounts"].(map[string]any); rc["total"] != 0.0 {
		t.Fatalf("got recordCounts %v, want zeros", rc)
	}
	spAfter := webtest.DataOf(e.MustCall(t, "GET", "/v1/spaces/"+sp["id"].(string), webtest.Secret, nil))
	if spAfter["workbooksCount"] != 1.0 {
		t.Fatalf("got workbooksCount %v, want 1", spAfter["workbooksCount"])
	}
	topics := e.Topics(t, "&spaceId="+sp["id"].(string))
	if !slices.Contains(topics, "workbook:created") || !slices.Contains(topics, "sheet:created") {
		t.Fatalf("got %v, want workbook:created and sheet:created", topics)
	}
}

func TestWorkbookSchemaRules(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	field := func(k, typ string) map[string]any { return map[string]any{"key": k, "type": typ} }
	tests := []struct {
		name  string
		sheet map[string]any
		key   string
	}{
		{"duplicate keys ignoring case", map[string]any{"name": "A", "fields": []any{field("Email", "string"), field("email", "string")}}, "sheets[0].fields[1].key"},
		{"threshold zero", map[string]any{"name": "A", "mappingConfidenceThreshold": 0, "fields": []any{}}, "sheets[0].mappingConfidenceThreshold"},
		{"threshold negative", map[string]any{"name": "A", "mappingConfidenceThreshold": -0.5, "fields": []any{}}, "sheets[0].mappingConfidenceThreshold"},
		{"threshold above one", map[string]any{"name": "A", "mappingConfidenceThreshold": 1.01, "fields": []any{}}, "sheets[0].mappingConfidenceThreshold"},
		{"unknown type", map[string]any{"name": "A", "fields": []any{field("a", "colour")}}, "sheets[0].fields[0].type"},
		{"bad sortBy", map[string]any{"name": "A", "fields": []any{map[string]any{"key": "a", "type": "enum", "config": map[string]any{"sortBy": "size"}}}}, "sheets[0].fields[0].config.sortBy"},
		{"reference without ref", map[string]any{"name": "A", "fields": []any{field("a", "reference")}}, "sheets[0].fields[0].config"},
		{"dangling reference", map[string]any{"name": "A", "fields": []any{map[string]any{"key": "a", "type": "reference", "config": map[string]any{"ref": "nope", "key": "id"}}}}, "fields.a.config.ref"},
		{"composite unique of one field", map[string]any{"name": "A", "fields": []any{field("a", "string")}, "constraints": []any{map[string]any{"type": "unique", "name": "u", "fields": []string{"a"}}}}, "sheets[0].constraints[0].fields"},
		{"bad appearance", map[string]any{"name": "A", "fields": []any{map[string]any{"key": "a", "type": "string", "appearance": map[string]any{"size": "huge"}}}}, "sheets[0].fields[0].appearance.size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, out := e.Call(t, "POST", "/v1/workbooks", webtest.Secret, map[string]any{"name": "W", "spaceId": sp["id"], "sheets": []any{tt.sheet}})
			if st != http.StatusBadRequest || webtest.ErrorKey(t, out) != tt.key {
				t.Fatalf("got %d %v, want 400 with key %s", st, out, tt.key)
			}
		})
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?spaceId="+sp["id"].(string), webtest.Secret, nil)); len(l) != 0 {
		t.Fatalf("rejected workbooks were stored: %v", l)
	}
	ok := map[string]any{"name": "A", "mappingConfidenceThreshold": 1, "fields": []any{field("a", "string")}}
	e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp["id"], "sheets": []any{ok}})
}

func TestWorkbookListFiltersAndOrder(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	gone := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "gone"})
	e.MustCreateWorkbook(t, map[string]any{"name": "Alpha", "spaceId": sp["id"], "namespace": "red", "labels": []string{"file"}, "treatments": []string{"EXTRACTED_FROM_SOURCE"}})
	b := e.MustCreateWorkbook(t, map[string]any{"name": "Beta", "spaceId": sp["id"], "labels": []string{"primary"},
		"sheets": []any{map[string]any{"name": "One", "fields": []any{}}, map[string]any{"name": "Two", "fields": []any{}}, map[string]any{"name": "Three", "fields": []any{}}}})
	e.MustCreateWorkbook(t, map[string]any{"name": "Gamma", "spaceId": gone["id"]})
	e.MustCall(t, "DELETE", "/v1/spaces/"+gone["id"].(string), webtest.Secret, nil)

	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{"Alpha", "Beta"}},
		{"?name=Alpha", []string{"Alpha"}},
		{"?name=-Alpha", []string{"Beta"}},
		{"?namespace=red", []string{"Alpha"}},
		{"?namespace=-red", []string{"Beta"}},
		{"?label=primary", []string{"Beta"}},
		{"?label=-primary", []string{"Alpha"}},
		{"?treatment=ExtractedFromSource", []string{"Alpha"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			if got := webtest.Names(webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks"+tt.query, webtest.Secret, nil))); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	out := webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks?includeSheets=false&name=Beta", webtest.Secret, nil))
	if _, has := out[0].(map[string]any)["sheets"]; has {
		t.Fatalf("includeSheets=false: got sheets in %v", out[0])
	}
	// sheetSidebarOrder: listed sheets first in that order, the rest appended.
	sheets := b["sheets"].([]any)
	three := sheets[2].(map[string]any)["id"]
	got := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/workbooks/"+b["id"].(string), webtest.Secret, map[string]any{"settings": map[string]any{"sheetSidebarOrder": []any{three}}}))
	var order []string
	for _, s := range got["sheets"].([]any) {
		order = append(order, s.(map[string]any)["name"].(string))
	}
	if want := []string{"Three", "One", "Two"}; !slices.Equal(order, want) {
		t.Fatalf("got sheet order %v, want %v", order, want)
	}
}

func TestWorkbookUpdateEmitsUpdatedOnly(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp["id"], "sheets": []any{webtest.ContactsSheet()}})
	id := wb["id"].(string)
	e.Now = e.Now.Add(60e9)
	since := e.Now.Format("2006-01-02T15:04:05.000Z")
	// Actions change without sending fields.
	got := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/workbooks/"+id, webtest.Secret, map[string]any{"actions": []any{map[string]any{"operation": "submit", "label": "Submit"}}}))
	if acts := got["actions"].([]any); len(acts) != 1 || len(got["sheets"].([]any)[0].(map[string]any)["config"].(map[string]any)["fields"].([]any)) != 3 {
		t.Fatalf("got %v, want the action set and the fields kept", got)
	}
	// A sheet matched by slug is updated; a new slug adds a sheet.
	e.MustCall(t, "PATCH", "/v1/workbooks/"+id, webtest.Secret, map[string]any{"sheets": []any{
		map[string]any{"name": "Contacts", "slug": "contacts", "fields": []any{map[string]any{"key": "email", "type": "string"}}},
		map[string]any{"name": "Companies", "slug": "companies", "fields": []any{}},
	}})
	topics := e.Topics(t, "&since="+since)
	if slices.Contains(topics, "workbook:created") || !slices.Contains(topics, "workbook:updated") || !slices.Contains(topics, "sheet:created") {
		t.Fatalf("got %v, want workbook:updated and sheet:created, never workbook:created", topics)
	}
	w := webtest.DataOf(e.MustCall(t, "GET", "/v1/workbooks/"+id, webtest.Secret, nil))
	if n := len(w["sheets"].([]any)); n != 2 {
		t.Fatalf("got %d sheets, want 2", n)
	}
	e.MustCall(t, "POST", "/v1/workbooks/"+id+"/rebuild", webtest.Secret, nil)
	e.MustCall(t, "DELETE", "/v1/workbooks/"+id, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/workbooks/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted workbook: got %d, want 404", st)
	}
}

func TestSheetLockFieldsAndCommits(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp["id"], "sheets": []any{webtest.ContactsSheet()}})
	sheetID := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	rec := []any{map[string]any{"email": map[string]any{"value": "a@b.c"}}}
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, rec)

	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/lock", webtest.Secret, nil)
	sh := webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheetID, webtest.Secret, nil))
	if sh["lockedAt"] == nil {
		t.Fatalf("got %v, want lockedAt set", sh)
	}
	if st, out := e.Call(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, rec); st != http.StatusForbidden {
		t.Fatalf("insert into a locked sheet: got %d %v, want 403", st, out)
	}
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/unlock", webtest.Secret, nil)
	e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/records", webtest.Secret, []any{map[string]any{"email": map[string]any{"value": "x@y.z"}}})

	f := webtest.DataOf(e.MustCall(t, "POST", "/v1/sheets/"+sheetID+"/fields?insertAtIndex=0", webtest.Secret, map[string]any{"key": "phone", "type": "string", "treatments": []string{"additional"}}))
	if f["key"] != "phone" {
		t.Fatalf("got %v", f)
	}
	if st, _ := e.Call(t, "POST", "/v1/sheets/"+sheetID+"/fields", webtest.Secret, map[string]any{"key": "EMAIL", "type": "string"}); st != http.StatusBadRequest {
		t.Fatalf("adding a key that differs only in case: got %d, want 400", st)
	}
	sh = webtest.DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheetID, webtest.Secret, nil))
	if first := sh["config"].(map[string]any)["fields"].([]any)[0].(map[string]any)["key"]; first != "phone" {
		t.Fatalf("got first field %v, want phone inserted at 0", first)
	}
	e.MustCall(t, "DELETE", "/v1/sheets/"+sheetID+"/fields/phone", webtest.Secret, nil)
	if st, _ := e.Call(t, "DELETE", "/v1/sheets/"+sheetID+"/fields/phone", webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("removing a missing field: got %d, want 404", st)
	}
	upd := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/sheets/"+sheetID, webtest.Secret, map[string]any{"name": "People", "slug": "people", "metadata": map[string]any{"a": 1}}))
	if upd["name"] != "People" || upd["slug"] != "people" {
		t.Fatalf("got %v", upd)
	}
	commits := webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks/"+wb["id"].(string)+"/commits", webtest.Secret, nil))
	sheetCommits := webtest.ListOf(e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/commits", webtest.Secret, nil))
	if len(commits) != len(sheetCommits) {
		t.Fatalf("got %d workbook commits and %d sheet commits, want the same", len(commits), len(sheetCommits))
	}
	sheets := webtest.ListOf(e.MustCall(t, "GET", "/v1/sheets?workbookId="+wb["id"].(string), webtest.Secret, nil))
	if len(sheets) != 1 {
		t.Fatalf("got %d sheets", len(sheets))
	}
	e.MustCall(t, "DELETE", "/v1/sheets/"+sheetID, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/sheets/"+sheetID, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted sheet: got %d, want 404", st)
	}
}

func TestWorkbooksOfOtherEnvironmentsAreInvisible(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": sp["id"], "sheets": []any{webtest.ContactsSheet()}})
	jwt := webtest.JwtFor(t, e)
	env2 := webtest.DataOf(e.MustCall(t, "POST", "/v1/environments", jwt, map[string]any{"name": "P", "isProd": true}))
	var sk2 string
	for _, k := range webtest.ListOf(e.MustCall(t, "GET", "/v1/auth/api-keys?environmentId="+env2["id"].(string), jwt, nil)) {
		if km := k.(map[string]any); km["type"] == "SECRET" {
			sk2 = km["rawKey"].(string)
		}
	}
	if st, _ := e.Call(t, "GET", "/v1/workbooks/"+wb["id"].(string), sk2, nil); st != http.StatusNotFound {
		t.Fatalf("got %d, want 404", st)
	}
	sheetID := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	if st, _ := e.Call(t, "GET", "/v1/sheets/"+sheetID, sk2, nil); st != http.StatusNotFound {
		t.Fatalf("got %d, want 404", st)
	}
	if l := webtest.ListOf(e.MustCall(t, "GET", "/v1/workbooks", sk2, nil)); len(l) != 0 {
		t.Fatalf("got %d workbooks, want 0", len(l))
	}
}
