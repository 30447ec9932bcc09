package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestActionCRUD(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.MustCreateSheet(t, spaceID)
	a := webtest.DataOf(e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, webtest.WithTarget(webtest.FullAction, wb)))
	id := a["id"].(string)
	if !strings.HasPrefix(id, "us_act_") || a["targetId"] != wb || a["createdAt"] == nil || a["requireAllValidTotal"] != true || a["primary"] != true {
		t.Fatalf("got %v", a)
	}
	for _, k := range []string{"guide", "guardrail", "inputForm", "messages", "mount", "constraints", "description", "mode"} {
		want, _ := json.Marshal(webtest.FullAction[k])
		got, _ := json.Marshal(a[k])
		if string(got) != string(want) {
			t.Errorf("%s: got %s, want %s", k, got, want)
		}
	}
	if got := webtest.DataOf(e.MustCall(t, "GET", "/v1/actions/"+id, webtest.Secret, nil)); got["label"] != "Submit" {
		t.Fatalf("get: got %v", got)
	}
	bulk := e.CallArray(t, "POST", "/v1/actions/bulk?spaceId="+spaceID, []any{
		map[string]any{"label": "On sheet", "operation": "fix", "targetId": sh},
		map[string]any{"label": "On space", "operation": "tidy", "targetId": spaceID},
	})
	if len(bulk) != 2 || bulk[0].(map[string]any)["targetId"] != sh {
		t.Fatalf("bulk: got %v", bulk)
	}
	if list := e.CallArray(t, "GET", "/v1/actions?spaceId="+spaceID, nil); len(list) != 3 {
		t.Fatalf("list: got %d actions, want 3", len(list))
	}
	got := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/actions/"+id, webtest.Secret, map[string]any{"description": "Changed", "guardrail": nil}))
	if got["description"] != "Changed" || got["label"] != "Submit" || got["guardrail"] != nil || got["inputForm"] == nil {
		t.Fatalf("patch: got %v, want only description changed and guardrail removed", got)
	}
	if st, out := e.Call(t, "PATCH", "/v1/actions/"+id, webtest.Secret, map[string]any{"mode": "sideways"}); st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "mode" {
		t.Fatalf("patch bad mode: got %d %v", st, out)
	}
	e.MustCall(t, "DELETE", "/v1/actions/"+id, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/actions/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Fatalf("deleted action: got %d, want 404", st)
	}
	var mine []string
	for _, ev := range webtest.ListOf(e.MustCall(t, "GET", "/v1/events?domain=action&pageSize=100", webtest.Secret, nil)) {
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
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "o"})
	if st, out := e.Call(t, "POST", "/v1/actions?spaceId="+other["id"].(string), webtest.Secret, map[string]any{"label": "x", "targetId": wb}); st != http.StatusNotFound || webtest.ErrorKey(t, out) != "targetId" {
		t.Fatalf("target in another space: got %d %v, want 404 about targetId", st, out)
	}
	if st, _ := e.Call(t, "GET", "/v1/actions/"+bulk[0].(map[string]any)["id"].(string), other["accessToken"].(string), nil); st != http.StatusNotFound {
		t.Fatalf("other space's token: got %d, want 404", st)
	}
}

func TestActionValidation(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, _ := e.MustCreateSheet(t, spaceID)
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
			st, out := e.Call(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, tt.body)
			if st != http.StatusBadRequest || webtest.ErrorKey(t, out) != tt.key {
				t.Fatalf("got %d %v, want 400 about %s", st, out, tt.key)
			}
		})
	}
	if st, out := e.Call(t, "POST", "/v1/actions/bulk?spaceId="+spaceID, webtest.Secret, []any{map[string]any{"label": "ok", "targetId": wb}, map[string]any{"targetId": wb}}); st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "[1].label" {
		t.Fatalf("bulk with a bad second action: got %d %v, want 400 about [1].label", st, out)
	}
	if list := e.CallArray(t, "GET", "/v1/actions?spaceId="+spaceID, nil); len(list) != 0 {
		t.Fatalf("nothing is stored when a bulk create fails: got %v", list)
	}
	if st, out := e.Call(t, "GET", "/v1/actions", webtest.Secret, nil); st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "spaceId" {
		t.Fatalf("list without spaceId: got %d %v", st, out)
	}
}

func TestRunActionInput(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.MustCreateSheet(t, spaceID)
	e.MustInsertRecords(t, sh, "a@x.test")
	a := webtest.DataOf(e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, webtest.WithTarget(webtest.FullAction, wb)))
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
			st, out := e.Call(t, "POST", "/v1/actions/"+id+"/run", webtest.Secret, map[string]any{"input": tt.input})
			if st != http.StatusBadRequest || webtest.ErrorKey(t, out) != tt.key {
				t.Fatalf("got %d %v, want 400 about %s", st, out, tt.key)
			}
		})
	}
	j := webtest.DataOf(e.MustCall(t, "POST", "/v1/actions/"+id+"/run", webtest.Secret, map[string]any{"input": map[string]any{"who": "me", "count": 2, "notify": true}}))
	in := j["input"].(map[string]any)
	if j["type"] != "workbook" || j["operation"] != "submitAction" || j["status"] != "ready" || j["actionId"] != id || j["mode"] != "foreground" {
		t.Fatalf("got job %v", j)
	}
	if in["who"] != "me" || in["note"] != "hi" || in["dest"] != "crm" || in["count"] != 2.0 || in["notify"] != true {
		t.Fatalf("got input %v, want the values with defaults filled", in)
	}
	evs := e.JobEvents(t, j["id"].(string))
	if got := webtest.TopicsOf(evs); !slices.Equal(got, []string{"job:created", "job:ready"}) {
		t.Fatalf("got %v", got)
	}
	c := evs[1]["context"].(map[string]any)
	p := evs[1]["payload"].(map[string]any)
	if c["actionId"] != id || c["workbookId"] != wb || p["job"] != "workbook:submitAction" || p["input"].(map[string]any)["who"] != "me" {
		t.Fatalf("job:ready: got context %v payload %v", c, p)
	}
	// Creating the job directly (as Flatfile's UI does) runs the action's rules too.
	st, out := e.Call(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "submitAction", "source": wb, "trigger": "immediate", "input": map[string]any{"dest": "mars", "who": "x"}})
	if st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "input.dest" {
		t.Fatalf("job with bad input for the action: got %d %v", st, out)
	}
	j = webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "submitAction", "source": wb, "trigger": "immediate", "input": map[string]any{"who": "x"}}))
	if j["actionId"] != id {
		t.Fatalf("job for the action's operation: got %v, want actionId %s", j, id)
	}
}

func TestActionConstraints(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.MustCreateSheet(t, spaceID)
	mk := func(label string, extra map[string]any) string {
		body := map[string]any{"label": label, "operation": strings.ToLower(label), "targetId": sh}
		for k, v := range extra {
			body[k] = v
		}
		return webtest.DataOf(e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, body))["id"].(string)
	}
	hasData := mk("Data", map[string]any{"constraints": []any{map[string]any{"type": "hasData"}}})
	allValid := mk("Valid", map[string]any{"constraints": []any{map[string]any{"type": "hasAllValid"}}})
	total := mk("Total", map[string]any{"requireAllValidTotal": true})
	plain := mk("Plain", nil)
	onWorkbook := webtest.DataOf(e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, map[string]any{"label": "WB", "operation": "wb", "targetId": wb,
		"constraints": []any{map[string]any{"type": "hasData"}}}))["id"].(string)
	run := func(id string) (int, string) {
		st, out := e.Call(t, "POST", "/v1/actions/"+id+"/run", webtest.Secret, nil)
		return st, webtest.ErrMsg(out)
	}
	for _, id := range []string{hasData, onWorkbook} {
		if st, msg := run(id); st != http.StatusConflict || !strings.Contains(msg, "no records") {
			t.Fatalf("hasData on an empty sheet: got %d %q, want 409", st, msg)
		}
	}
	if st, _ := run(plain); st != http.StatusOK {
		t.Fatalf("action without constraints: got %d, want 200", st)
	}
	e.MustInsertRecords(t, sh, "a@x.test", "") // the second record misses its required email
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
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.MustCreateSheet(t, spaceID)
	wb2, _ := e.MustCreateSheet(t, spaceID)
	mk := func(op, target, mode string) string {
		return webtest.DataOf(e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, map[string]any{"label": op, "operation": op, "targetId": target, "mode": mode}))["id"].(string)
	}
	blocking := mk("import", wb, "toolbarBlocking")
	other := mk("export", wb, "foreground")
	onSheet := mk("clean", sh, "background")
	elsewhere := mk("export", wb2, "foreground")
	job := webtest.DataOf(e.MustCall(t, "POST", "/v1/actions/"+blocking+"/run", webtest.Secret, nil))
	if job["mode"] != "toolbarBlocking" {
		t.Fatalf("got %v", job)
	}
	for _, id := range []string{other, onSheet, blocking} {
		if st, out := e.Call(t, "POST", "/v1/actions/"+id+"/run", webtest.Secret, nil); st != http.StatusConflict || !strings.Contains(webtest.ErrMsg(out), job["id"].(string)) {
			t.Fatalf("action %s while a toolbarBlocking job runs: got %d %v, want 409 naming the job", id, st, out)
		}
	}
	e.MustCall(t, "POST", "/v1/actions/"+elsewhere+"/run", webtest.Secret, nil) // another workbook is not blocked
	e.MustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/ack", webtest.Secret, nil)
	e.MustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/complete", webtest.Secret, nil)
	for _, id := range []string{other, onSheet} {
		e.MustCall(t, "POST", "/v1/actions/"+id+"/run", webtest.Secret, nil)
	}
}

func TestInlineWorkbookAction(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	wb, _ := e.MustCreateSheet(t, sp["id"].(string))
	actions, _ := json.Marshal([]any{map[string]any{"label": "Send", "operation": "send", "inputForm": map[string]any{"type": "simple",
		"fields": []any{map[string]any{"key": "to", "label": "To", "type": "string", "constraints": []any{map[string]any{"type": "required"}}}}}}})
	if err := e.DB.ExecForTest(t.Context(), `UPDATE workbooks SET actions = ? WHERE id = ?`, string(actions), wb); err != nil {
		t.Fatal(err)
	}
	st, out := e.Call(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "send", "source": wb, "trigger": "immediate"})
	if st != http.StatusBadRequest || webtest.ErrorKey(t, out) != "input.to" {
		t.Fatalf("inline action's required input: got %d %v", st, out)
	}
	e.MustCreateJob(t, map[string]any{"type": "workbook", "operation": "send", "source": wb, "trigger": "immediate", "input": map[string]any{"to": "x"}})
}

func TestTrackChangesBlocksActions(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	spaceID := sp["id"].(string)
	wb, sh := e.MustCreateSheet(t, spaceID)
	id := webtest.DataOf(e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, map[string]any{"label": "Go", "operation": "go", "targetId": sh}))["id"].(string)
	ctx := t.Context()
	if err := e.DB.ExecForTest(ctx, `INSERT INTO commits (id, sheet_id, workbook_id, created_at) VALUES ('us_vr_pending1', ?, ?, 0)`, sh, wb); err != nil {
		t.Fatal(err)
	}
	e.MustCall(t, "POST", "/v1/actions/"+id+"/run", webtest.Secret, nil) // trackChanges is off
	if err := e.DB.ExecForTest(ctx, `UPDATE workbooks SET settings = '{"trackChanges":true}' WHERE id = ?`, wb); err != nil {
		t.Fatal(err)
	}
	if st, out := e.Call(t, "POST", "/v1/actions/"+id+"/run", webtest.Secret, nil); st != http.StatusConflict || !strings.Contains(webtest.ErrMsg(out), "1 commit(s) are pending") {
		t.Fatalf("pending commit with trackChanges: got %d %v, want 409", st, out)
	}
	if err := e.DB.ExecForTest(ctx, `UPDATE commits SET completed_at = 1 WHERE id = 'us_vr_pending1'`); err != nil {
		t.Fatal(err)
	}
	e.MustCall(t, "POST", "/v1/actions/"+id+"/run", webtest.Secret, nil)
}

// An inline workbook action (written in the workbook's actions, the usual Flatfile setup) with
// mode toolbarBlocking blocks the workbook's other actions while its job runs.
func TestInlineToolbarBlocking(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "s"})
	wb, _ := e.MustCreateSheet(t, sp["id"].(string))
	e.MustCall(t, "PATCH", "/v1/workbooks/"+wb, webtest.Secret, map[string]any{"actions": []any{
		map[string]any{"label": "Sync", "operation": "sync", "mode": "toolbarBlocking"}, map[string]any{"label": "Send", "operation": "send"}}})
	job := webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "sync", "source": wb, "trigger": "immediate"}))
	if job["mode"] != "toolbarBlocking" {
		t.Fatalf("the inline action's job: mode %v", job["mode"])
	}
	if st, out := e.Call(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "send", "source": wb, "trigger": "immediate"}); st != http.StatusConflict || !strings.Contains(webtest.ErrMsg(out), job["id"].(string)) {
		t.Fatalf("another action while the inline blocking job runs: got %d %v, want 409", st, out)
	}
	e.MustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/ack", webtest.Secret, nil)
	e.MustCall(t, "POST", "/v1/jobs/"+job["id"].(string)+"/complete", webtest.Secret, nil)
	e.MustCall(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "send", "source": wb, "trigger": "immediate"})
}
