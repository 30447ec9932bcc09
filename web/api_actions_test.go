package web_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// mustCreateSheet inserts a workbook with one sheet (email required) in SQL: the workbooks
// API is built elsewhere.
func (e *apiEnv) mustCreateSheet(t *testing.T, spaceID string) (workbookID, sheetID string) {
	t.Helper()
	ctx := t.Context()
	workbookID, sheetID = sqldb.NewID(sqldb.PrefixWorkbook), sqldb.NewID(sqldb.PrefixSheet)
	acc := dataOf(e.mustCall(t, "GET", "/v1/accounts/current", testSecret, nil))["id"]
	if err := e.db.ExecForTest(ctx, `INSERT INTO workbooks (id, account_id, environment_id, space_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, 'W', 0, 0)`,
		workbookID, acc, e.envID, spaceID); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(model.SheetConfig{Name: "Contacts", Slug: "contacts", Fields: []model.Field{
		{Key: "email", Type: "string", Constraints: []model.FieldConstraint{{Type: "required"}}}, {Key: "name", Type: "string"}}})
	if err := e.db.ExecForTest(ctx, `INSERT INTO sheets (id, workbook_id, name, slug, config, created_at, updated_at) VALUES (?, ?, 'Contacts', 'contacts', ?, 0, 0)`,
		sheetID, workbookID, string(cfg)); err != nil {
		t.Fatal(err)
	}
	return workbookID, sheetID
}

func (e *apiEnv) mustInsertRecords(t *testing.T, sheetID string, emails ...string) {
	t.Helper()
	var in []recordset.RecordIn
	for _, m := range emails {
		v, _ := json.Marshal(m)
		in = append(in, recordset.RecordIn{Values: map[string]recordset.CellIn{"email": {Value: v, HasValue: true}}})
	}
	if _, err := e.db.InsertRecords(t.Context(), sheetID, in, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
}

// callAny is call for answers of any JSON kind (bare arrays included).
func (e *apiEnv) callAny(t *testing.T, method, path, token string, body any) (int, any) {
	t.Helper()
	buf, _ := json.Marshal(body)
	req := httptest.NewRequest(method, path, bytes.NewReader(buf))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: body is not JSON: %s", method, path, raw)
	}
	return resp.StatusCode, out
}

// callArray is call for endpoints whose answer is a bare JSON array.
func (e *apiEnv) callArray(t *testing.T, method, path string, body any) []any {
	t.Helper()
	status, out := e.callAny(t, method, path, testSecret, body)
	list, ok := out.([]any)
	if status != http.StatusOK || !ok {
		t.Fatalf("%s %s: got %d %v, want 200 and a bare array", method, path, status, out)
	}
	return list
}

var fullAction = map[string]any{
	"label": "Submit", "operation": "submitAction", "mode": "foreground", "description": "Send it", "primary": true,
	"constraints":     []any{map[string]any{"type": "hasData"}, map[string]any{"type": "hasAllValid", "ignoreSelection": true}, map[string]any{"type": "hasSelection"}, map[string]any{"type": "hasColumnEnabled"}},
	"requireAllValid": true, "requireAllValidTotal": true,
	"guide":     map[string]any{"content": "**Read** me"},
	"guardrail": map[string]any{"content": "Are you sure?"},
	"messages":  []any{map[string]any{"type": "error", "content": "Fix errors first"}, map[string]any{"type": "info", "content": "Ready"}},
	"mount":     map[string]any{"type": "workbook"},
	"inputForm": map[string]any{"type": "simple", "fields": []any{
		map[string]any{"key": "note", "label": "Note", "type": "textarea", "defaultValue": "hi", "description": "Why"},
		map[string]any{"key": "dest", "label": "Destination", "type": "enum", "defaultValue": "crm",
			"config":      map[string]any{"options": []any{map[string]any{"value": "crm", "label": "CRM"}, map[string]any{"value": "erp"}}},
			"constraints": []any{map[string]any{"type": "required"}}},
		map[string]any{"key": "count", "label": "Count", "type": "number"},
		map[string]any{"key": "notify", "label": "Notify", "type": "boolean"},
		map[string]any{"key": "who", "label": "Who", "type": "string", "constraints": []any{map[string]any{"type": "required"}}},
	}},
}

func withTarget(a map[string]any, target string) map[string]any {
	out := map[string]any{"targetId": target}
	for k, v := range a {
		out[k] = v
	}
	return out
}

func TestActionCRUD(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.mustCreateSheet(t, spaceID)
	a := dataOf(e.mustCall(t, "POST", "/v1/actions?spaceId="+spaceID, testSecret, withTarget(fullAction, wb)))
	id := a["id"].(string)
	if !strings.HasPrefix(id, "us_act_") || a["targetId"] != wb || a["createdAt"] == nil || a["requireAllValidTotal"] != true || a["primary"] != true {
		t.Fatalf("got %v", a)
	}
	for _, k := range []string{"guide", "guardrail", "inputForm", "messages", "mount", "constraints", "description", "mode"} {
		want, _ := json.Marshal(fullAction[k])
		got, _ := json.Marshal(a[k])
		if string(got) != string(want) {
			t.Errorf("%s: got %s, want %s", k, got, want)
		}
	}
	if got := dataOf(e.mustCall(t, "GET", "/v1/actions/"+id, testSecret, nil)); got["label"] != "Submit" {
		t.Fatalf("get: got %v", got)
	}
	bulk := e.callArray(t, "POST", "/v1/actions/bulk?spaceId="+spaceID, []any{
		map[string]any{"label": "On sheet", "operation": "fix", "targetId": sh},
		map[string]any{"label": "On space", "operation": "tidy", "targetId": spaceID},
	})
	if len(bulk) != 2 || bulk[0].(map[string]any)["targetId"] != sh {
		t.Fatalf("bulk: got %v", bulk)
	}
	if list := e.callArray(t, "GET", "/v1/actions?spaceId="+spaceID, nil); len(list) != 3 {
		t.Fatalf("list: got %d actions, want 3", len(list))
	}
	got := dataOf(e.mustCall(t, "PATCH", "/v1/actions/"+id, testSecret, map[string]any{"description": "Changed", "guardrail": nil}))
	if got["description"] != "Changed" || got["label"] != "Submit" || got["guardrail"] != nil || got["inputForm"] == nil {
		t.Fatalf("patch: got %v, want only description changed and guardrail removed", got)
	}
	if st, out := e.call(t, "PATCH", "/v1/actions/"+id, testSecret, map[string]any{"mode": "sideways"}); st != http.StatusBadRequest || errorKey(t, out) != "mode" {
		t.Fatalf("patch bad mode: got %d %v", st, out)
	}
	e.mustCall(t, "DELETE", "/v1/actions/"+id, testSecret, nil)
	if st, _ := e.call(t, "GET", "/v1/actions/"+id, testSecret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted action: got %d, want 404", st)
	}
	var mine []string
	for _, ev := range listOf(e.mustCall(t, "GET", "/v1/events?domain=action&pageSize=100", testSecret, nil)) {
		m := ev.(map[string]any)
		c := m["context"].(map[string]any)
		if c["actionId"] == id {
			mine = append(mine, m["topic"].(string))
			if c["spaceId"] != spaceID || c["workbookId"] != wb {
				t.Errorf("context: got %v", c)
			}
		}
	}
	if want := []string{"action:created", "action:updated", "action:deleted"}; !slices.Equal(mine, want) {
		t.Fatalf("got events %v, want %v", mine, want)
	}
	other := e.mustCreateSpace(t, testSecret, map[string]any{"name": "o"})
	if st, out := e.call(t, "POST", "/v1/actions?spaceId="+other["id"].(string), testSecret, map[string]any{"label": "x", "targetId": wb}); st != http.StatusNotFound || errorKey(t, out) != "targetId" {
		t.Fatalf("target in another space: got %d %v, want 404 about targetId", st, out)
	}
	if st, _ := e.call(t, "GET", "/v1/actions/"+bulk[0].(map[string]any)["id"].(string), other["accessToken"].(string), nil); st != http.StatusNotFound {
		t.Fatalf("other space's token: got %d, want 404", st)
	}
}

func TestActionValidation(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, _ := e.mustCreateSheet(t, spaceID)
	field := func(f map[string]any) map[string]any {
		return map[string]any{"label": "A", "targetId": wb, "inputForm": map[string]any{"type": "simple", "fields": []any{f}}}
	}
	tests := []struct {
		name string
		body map[string]any
		key  string
	}{
		{"no label", map[string]any{"targetId": wb}, "label"},
		{"no target", map[string]any{"label": "A"}, "targetId"},
		{"target not a resource", map[string]any{"label": "A", "targetId": "xyz"}, "targetId"},
		{"bad mode", map[string]any{"label": "A", "targetId": wb, "mode": "modal"}, "mode"},
		{"bad constraint", map[string]any{"label": "A", "targetId": wb, "constraints": []any{map[string]any{"type": "hasMoney"}}}, "constraints"},
		{"bad message", map[string]any{"label": "A", "targetId": wb, "messages": []any{map[string]any{"type": "warn", "content": "x"}}}, "messages"},
		{"empty guide", map[string]any{"label": "A", "targetId": wb, "guide": map[string]any{"content": ""}}, "guide.content"},
		{"bad mount", map[string]any{"label": "A", "targetId": wb, "mount": map[string]any{"type": "toolbar"}}, "mount.type"},
		{"form type", map[string]any{"label": "A", "targetId": wb, "inputForm": map[string]any{"type": "wizard", "fields": []any{}}}, "inputForm.type"},
		{"field type", field(map[string]any{"key": "a", "label": "A", "type": "date"}), "inputForm.fields[0].type"},
		{"field key", field(map[string]any{"label": "A", "type": "string"}), "inputForm.fields[0].key"},
		{"number default", field(map[string]any{"key": "a", "label": "A", "type": "number", "defaultValue": 3}), "inputForm.fields[0].defaultValue"},
		{"boolean default", field(map[string]any{"key": "a", "label": "A", "type": "boolean", "defaultValue": true}), "inputForm.fields[0].defaultValue"},
		{"string default not a string", field(map[string]any{"key": "a", "label": "A", "type": "string", "defaultValue": 3}), "inputForm.fields[0].defaultValue"},
		{"enum default not an option", field(map[string]any{"key": "a", "label": "A", "type": "enum", "defaultValue": "z", "config": map[string]any{"options": []any{map[string]any{"value": "y"}}}}), "inputForm.fields[0].defaultValue"},
		{"enum without options", field(map[string]any{"key": "a", "label": "A", "type": "enum"}), "inputForm.fields[0].config.options"},
		{"bad input constraint", field(map[string]any{"key": "a", "label": "A", "type": "string", "constraints": []any{map[string]any{"type": "unique"}}}), "inputForm.fields[0].constraints"},
		{"wrong JSON type", map[string]any{"label": "A", "targetId": wb, "primary": "yes"}, "primary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, out := e.call(t, "POST", "/v1/actions?spaceId="+spaceID, testSecret, tt.body)
			if st != http.StatusBadRequest || errorKey(t, out) != tt.key {
				t.Fatalf("got %d %v, want 400 about %s", st, out, tt.key)
			}
		})
	}
	if st, out := e.call(t, "POST", "/v1/actions/bulk?spaceId="+spaceID, testSecret, []any{map[string]any{"label": "ok", "targetId": wb}, map[string]any{"targetId": wb}}); st != http.StatusBadRequest || errorKey(t, out) != "[1].label" {
		t.Fatalf("bulk with a bad second action: got %d %v, want 400 about [1].label", st, out)
	}
	if list := e.callArray(t, "GET", "/v1/actions?spaceId="+spaceID, nil); len(list) != 0 {
		t.Fatalf("nothing is stored when a bulk create fails: got %v", list)
	}
	if st, out := e.call(t, "GET", "/v1/actions", testSecret, nil); st != http.StatusBadRequest || errorKey(t, out) != "spaceId" {
		t.Fatalf("list without spaceId: got %d %v", st, out)
	}
}

func TestRunActionInput(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.mustCreateSheet(t, spaceID)
	e.mustInsertRecords(t, sh, "a@x.test")
	a := dataOf(e.mustCall(t, "POST", "/v1/actions?spaceId="+spaceID, testSecret, withTarget(fullAction, wb)))
	id := a["id"].(string)
	tests := []struct {
		name  string
		input map[string]any
		key   string
	}{
		{"missing required", map[string]any{}, "input.who"},
		{"empty required", map[string]any{"who": ""}, "input.who"},
		{"number as string", map[string]any{"who": "me", "count": "3"}, "input.count"},
		{"boolean as number", map[string]any{"who": "me", "notify": 1}, "input.notify"},
		{"enum outside options", map[string]any{"who": "me", "dest": "mars"}, "input.dest"},
		{"unknown key", map[string]any{"who": "me", "color": "red"}, "input.color"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, out := e.call(t, "POST", "/v1/actions/"+id+"/run", testSecret, map[string]any{"input": tt.input})
			if st != http.StatusBadRequest || errorKey(t, out) != tt.key {
				t.Fatalf("got %d %v, want 400 about %s", st, out, tt.key)
			}
		})
	}
	j := dataOf(e.mustCall(t, "POST", "/v1/actions/"+id+"/run", testSecret, map[string]any{"input": map[string]any{"who": "me", "count": 2, "notify": true}}))
	in := j["input"].(map[string]any)
	if j["type"] != "workbook" || j["operation"] != "submitAction" || j["status"] != "ready" || j["actionId"] != id || j["mode"] != "foreground" {
		t.Fatalf("got job %v", j)
	}
	if in["who"] != "me" || in["note"] != "hi" || in["dest"] != "crm" || in["count"] != 2.0 || in["notify"] != true {
		t.Fatalf("got input %v, want the values with defaults filled", in)
	}
	evs := e.jobEvents(t, j["id"].(string))
	if got := topicsOf(evs); !slices.Equal(got, []string{"job:created", "job:ready"}) {
		t.Fatalf("got %v", got)
	}
	c := evs[1]["context"].(map[string]any)
	p := evs[1]["payload"].(map[string]any)
	if c["actionId"] != id || c["workbookId"] != wb || p["job"] != "workbook:submitAction" || p["input"].(map[string]any)["who"] != "me" {
		t.Fatalf("job:ready: got context %v payload %v", c, p)
	}
	// Creating the job directly (as Flatfile's UI does) runs the action's rules too.
	st, out := e.call(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "workbook", "operation": "submitAction", "source": wb, "trigger": "immediate", "input": map[string]any{"dest": "mars", "who": "x"}})
	if st != http.StatusBadRequest || errorKey(t, out) != "input.dest" {
		t.Fatalf("job with bad input for the action: got %d %v", st, out)
	}
	j = dataOf(e.mustCall(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "workbook", "operation": "submitAction", "source": wb, "trigger": "immediate", "input": map[string]any{"who": "x"}}))
	if j["actionId"] != id {
		t.Fatalf("job for the action's operation: got %v, want actionId %s", j, id)
	}
}

func TestActionConstraints(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.mustCreateSheet(t, spaceID)
	mk := func(label string, extra map[string]any) string {
		body := map[string]any{"label": label, "operation": strings.ToLower(label), "targetId": sh}
		for k, v := range extra {
			body[k] = v
		}
		return dataOf(e.mustCall(t, "POST", "/v1/actions?spaceId="+spaceID, testSecret, body))["id"].(string)
	}
	hasData := mk("Data", map[string]any{"constraints": []any{map[string]any{"type": "hasData"}}})
	allValid := mk("Valid", map[string]any{"constraints": []any{map[string]any{"type": "hasAllValid"}}})
	total := mk("Total", map[string]any{"requireAllValidTotal": true})
	plain := mk("Plain", nil)
	onWorkbook := dataOf(e.mustCall(t, "POST", "/v1/actions?spaceId="+spaceID, testSecret, map[string]any{"label": "WB", "operation": "wb", "targetId": wb,
		"constraints": []any{map[string]any{"type": "hasData"}}}))["id"].(string)
	run := func(id string) (int, string) {
		st, out := e.call(t, "POST", "/v1/actions/"+id+"/run", testSecret, nil)
		return st, errMsg(out)
	}
	for _, id := range []string{hasData, onWorkbook} {
		if st, msg := run(id); st != http.StatusConflict || !strings.Contains(msg, "no records") {
			t.Fatalf("hasData on an empty sheet: got %d %q, want 409", st, msg)
		}
	}
	if st, _ := run(plain); st != http.StatusOK {
		t.Fatalf("action without constraints: got %d, want 200", st)
	}
	e.mustInsertRecords(t, sh, "a@x.test", "") // the second record misses its required email
	for _, id := range []string{hasData, onWorkbook} {
		if st, msg := run(id); st != http.StatusOK {
			t.Fatalf("hasData with records: got %d %q, want 200", st, msg)
		}
	}
	for _, id := range []string{allValid, total} {
		if st, msg := run(id); st != http.StatusConflict || !strings.Contains(msg, "1 of 2 records have errors") {
			t.Fatalf("all-valid constraint with an invalid record: got %d %q, want 409", st, msg)
		}
	}
}

func TestToolbarBlocking(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.mustCreateSheet(t, spaceID)
	wb2, _ := e.mustCreateSheet(t, spaceID)
	mk := func(op, target, mode string) string {
		return dataOf(e.mustCall(t, "POST", "/v1/actions?spaceId="+spaceID, testSecret, map[string]any{"label": op, "operation": op, "targetId": target, "mode": mode}))["id"].(string)
	}
	blocking := mk("import", wb, "toolbarBlocking")
	other := mk("export", wb, "foreground")
	onSheet := mk("clean", sh, "background")
	elsewhere := mk("export", wb2, "foreground")
	job := dataOf(e.mustCall(t, "POST", "/v1/actions/"+blocking+"/run", testSecret, nil))
	if job["mode"] != "toolbarBlocking" {
		t.Fatalf("got %v", job)
	}
	for _, id := range []string{other, onSheet, blocking} {
		if st, out := e.call(t, "POST", "/v1/actions/"+id+"/run", testSecret, nil); st != http.StatusConflict || !strings.Contains(errMsg(out), job["id"].(string)) {
			t.Fatalf("action %s while a toolbarBlocking job runs: got %d %v, want 409 naming the job", id, st, out)
		}
	}
	e.mustCall(t, "POST", "/v1/actions/"+elsewhere+"/run", testSecret, nil) // another workbook is not blocked
	e.mustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/ack", testSecret, nil)
	e.mustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/complete", testSecret, nil)
	for _, id := range []string{other, onSheet} {
		e.mustCall(t, "POST", "/v1/actions/"+id+"/run", testSecret, nil)
	}
}

func TestInlineWorkbookAction(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	wb, _ := e.mustCreateSheet(t, sp["id"].(string))
	actions, _ := json.Marshal([]any{map[string]any{"label": "Send", "operation": "send", "inputForm": map[string]any{"type": "simple",
		"fields": []any{map[string]any{"key": "to", "label": "To", "type": "string", "constraints": []any{map[string]any{"type": "required"}}}}}}})
	if err := e.db.ExecForTest(t.Context(), `UPDATE workbooks SET actions = ? WHERE id = ?`, string(actions), wb); err != nil {
		t.Fatal(err)
	}
	st, out := e.call(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "workbook", "operation": "send", "source": wb, "trigger": "immediate"})
	if st != http.StatusBadRequest || errorKey(t, out) != "input.to" {
		t.Fatalf("inline action's required input: got %d %v", st, out)
	}
	e.mustCreateJob(t, map[string]any{"type": "workbook", "operation": "send", "source": wb, "trigger": "immediate", "input": map[string]any{"to": "x"}})
}

func TestTrackChangesBlocksActions(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.mustCreateSheet(t, spaceID)
	id := dataOf(e.mustCall(t, "POST", "/v1/actions?spaceId="+spaceID, testSecret, map[string]any{"label": "Go", "operation": "go", "targetId": sh}))["id"].(string)
	ctx := t.Context()
	if err := e.db.ExecForTest(ctx, `INSERT INTO commits (id, sheet_id, workbook_id, created_at) VALUES ('us_vr_pending1', ?, ?, 0)`, sh, wb); err != nil {
		t.Fatal(err)
	}
	e.mustCall(t, "POST", "/v1/actions/"+id+"/run", testSecret, nil) // trackChanges is off
	if err := e.db.ExecForTest(ctx, `UPDATE workbooks SET settings = '{"trackChanges":true}' WHERE id = ?`, wb); err != nil {
		t.Fatal(err)
	}
	if st, out := e.call(t, "POST", "/v1/actions/"+id+"/run", testSecret, nil); st != http.StatusConflict || !strings.Contains(errMsg(out), "1 commit(s) are pending") {
		t.Fatalf("pending commit with trackChanges: got %d %v, want 409", st, out)
	}
	if err := e.db.ExecForTest(ctx, `UPDATE commits SET completed_at = 1 WHERE id = 'us_vr_pending1'`); err != nil {
		t.Fatal(err)
	}
	e.mustCall(t, "POST", "/v1/actions/"+id+"/run", testSecret, nil)
}

// An inline workbook action (written in the workbook's actions, the usual Flatfile setup) with
// mode toolbarBlocking blocks the workbook's other actions while its job runs.
func TestInlineToolbarBlocking(t *testing.T) {
	e := newAPI(t)
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "s"})
	wb, _ := e.mustCreateSheet(t, sp["id"].(string))
	e.mustCall(t, "PATCH", "/v1/workbooks/"+wb, testSecret, map[string]any{"actions": []any{
		map[string]any{"label": "Sync", "operation": "sync", "mode": "toolbarBlocking"}, map[string]any{"label": "Send", "operation": "send"}}})
	job := dataOf(e.mustCall(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "workbook", "operation": "sync", "source": wb, "trigger": "immediate"}))
	if job["mode"] != "toolbarBlocking" {
		t.Fatalf("the inline action's job: mode %v", job["mode"])
	}
	if st, out := e.call(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "workbook", "operation": "send", "source": wb, "trigger": "immediate"}); st != http.StatusConflict || !strings.Contains(errMsg(out), job["id"].(string)) {
		t.Fatalf("another action while the inline blocking job runs: got %d %v, want 409", st, out)
	}
	e.mustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/ack", testSecret, nil)
	e.mustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/complete", testSecret, nil)
	e.mustCall(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "workbook", "operation": "send", "source": wb, "trigger": "immediate"})
}
