package ui_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"
)

func TestActionBarAndRuns(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "actions"})
	spaceID := sp["id"].(string)
	wb, sheet := e.MustCreateSheet(t, spaceID)
	e.MustInsertRecords(t, sheet, "a@x.io", "")
	submit := webtest.WithTarget(webtest.FullAction, wb)
	submit["messages"] = []any{} // the default wording first
	a := webtest.DataOf(e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, submit))
	b := webtest.LoggedIn(t, e)
	bar := "/space/" + spaceID + "/actions?target=" + wb

	_, doc := b.Do(t, "GET", bar, nil, true)
	btn := doc.Find(`[data-testid=action-button][data-operation=submitAction]`)
	if _, disabled := btn.Attr("disabled"); !disabled || !strings.Contains(btn.AttrOr("title", ""), "1 record still has errors") {
		t.Fatalf("with an invalid record: got button %q disabled=%v, want disabled with the reason", btn.AttrOr("title", ""), disabled)
	}
	if tip := doc.Find(`[data-testid=action-tooltip]`); tip.Find(".sl-prose strong").Text() != "Read" || !strings.Contains(tip.Text(), "Read me") {
		t.Error("the guide is not shown as rendered Markdown")
	}
	// The action's own error message replaces the default wording.
	e.MustCall(t, "PATCH", "/v1/actions/"+a["id"].(string), webtest.Secret, map[string]any{"messages": []any{map[string]any{"type": "error", "content": "Fix errors first"}}})
	_, doc = b.Do(t, "GET", bar, nil, true)
	if got := doc.Find(`[data-testid=action-button]`).AttrOr("title", ""); got != "Fix errors first" {
		t.Errorf("got tooltip %q, want the action's error message", got)
	}

	// Valid data: the button opens its dialog with the guardrail and the input form.
	e.MustCall(t, "DELETE", "/v1/sheets/"+sheet+"/records?filter=error", webtest.Secret, nil)
	_, doc = b.Do(t, "GET", bar, nil, true)
	btn = doc.Find(`[data-testid=action-button]`)
	if _, disabled := btn.Attr("disabled"); disabled {
		t.Fatalf("got disabled %q, want enabled", btn.AttrOr("title", ""))
	}
	dialog := doc.Find(`dialog#` + btn.AttrOr("data-dialog-open", "none"))
	if !strings.Contains(dialog.Find(`[data-testid=action-guardrail]`).Text(), "Are you sure?") || dialog.Find(`[data-testid=action-input]`).Length() != 5 {
		t.Fatalf("dialog: got %q with %d inputs", dialog.Text(), dialog.Find(`[data-testid=action-input]`).Length())
	}
	if v := dialog.Find(`select[name="in.dest"] option[selected]`).AttrOr("value", ""); v != "crm" {
		t.Errorf("enum default: got %q, want crm", v)
	}

	run := "/space/" + spaceID + "/actions/run"
	form := url.Values{"target": {wb}, "operation": {"submitAction"}, "in.note": {"line 1\nline 2"}, "in.dest": {"erp"}, "in.count": {"x"}}
	if resp, part := b.Do(t, "POST", run, form, true); resp.StatusCode != 400 || !strings.Contains(part.Text(), "Count must be a number") {
		t.Fatalf("bad number: got %d %q", resp.StatusCode, part.Text())
	}
	form.Set("in.count", "3,5")
	if resp, part := b.Do(t, "POST", run, form, true); resp.StatusCode != 400 || !strings.Contains(part.Text(), `"Who" is required`) {
		t.Fatalf("missing required: got %d %q", resp.StatusCode, part.Text())
	}
	form.Set("in.who", "Ann")
	form.Set("in.notify", "true")
	resp, part := b.Do(t, "POST", run, form, true)
	overlay := part.Find(`[data-testid=job-overlay]`)
	if resp.StatusCode != 200 || overlay.Length() != 1 {
		t.Fatalf("run: got %d %q, want the foreground overlay", resp.StatusCode, part.Text())
	}
	jobs := webtest.ListOf(e.MustCall(t, "GET", "/v1/jobs?spaceId="+spaceID, webtest.Secret, nil))
	var job map[string]any
	for _, j := range jobs {
		if j.(map[string]any)["operation"] == "submitAction" {
			job = j.(map[string]any)
		}
	}
	in := job["input"].(map[string]any)
	if in["count"] != 3.5 || in["notify"] != true || in["dest"] != "erp" || in["note"] != "line 1\nline 2" || in["who"] != "Ann" {
		t.Fatalf("got job input %v, want the form's values typed", in)
	}
	jobID := job["id"].(string)

	// An agent completes it; the panel shows the outcome and its next step, and the bars refresh.
	e.MustCall(t, "POST", "/v1/jobs/"+jobID+"/ack", webtest.Secret, map[string]any{"info": "working", "progress": 40})
	_, part = b.Do(t, "GET", "/space/"+spaceID+"/jobs/"+jobID+"/panel?mode=foreground", nil, true)
	if got := part.Find(`progress`).AttrOr("value", ""); got != "40" {
		t.Errorf("progress: got %q, want 40", got)
	}
	e.MustCall(t, "POST", "/v1/jobs/"+jobID+"/complete", webtest.Secret, map[string]any{"outcome": map[string]any{
		"message": "Sent 1 record", "next": map[string]any{"type": "id", "id": sheet, "label": "See the records"}}})
	resp, part = b.Do(t, "GET", "/space/"+spaceID+"/jobs/"+jobID+"/panel?mode=foreground", nil, true)
	next := part.Find(`[data-testid=job-next] a`)
	if resp.Header.Get("HX-Trigger") != "sl-job-done" || part.Find(`[data-testid=job-outcome]`).Text() != "Sent 1 record" ||
		next.AttrOr("href", "") != "/space/"+spaceID+"/sheet/"+sheet || next.Text() != "See the records" {
		t.Fatalf("outcome: got trigger %q, %q, next %q → %q", resp.Header.Get("HX-Trigger"), part.Text(), next.Text(), next.AttrOr("href", ""))
	}

	// A toolbarBlocking action running on the workbook disables the others; a failed job with
	// a retry next runs again.
	e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, map[string]any{"targetId": wb, "label": "Sync", "operation": "sync", "mode": "toolbarBlocking"})
	resp, part = b.Do(t, "POST", run, url.Values{"target": {wb}, "operation": {"sync"}}, true)
	if resp.StatusCode != 200 || part.Find(`[data-testid=job-toast]`).Length() != 1 {
		t.Fatalf("blocking run: got %d %q, want a toast", resp.StatusCode, part.Text())
	}
	_, doc = b.Do(t, "GET", bar, nil, true)
	if got := doc.Find(`[data-operation=submitAction]`).AttrOr("title", ""); !strings.Contains(got, "Fix errors first") && !strings.Contains(got, "Waiting for workbook:sync") {
		t.Errorf("while sync runs: got %q, want the submit button blocked", got)
	}
	if _, disabled := doc.Find(`[data-operation=submitAction]`).Attr("disabled"); !disabled {
		t.Error("submit is not disabled while a toolbarBlocking job runs")
	}
	syncJob := part.Find(`[data-testid=job-toast]`).AttrOr("id", "")[len("panel-"):]
	e.MustCall(t, "POST", "/v1/jobs/"+syncJob+"/fail", webtest.Secret, map[string]any{"outcome": map[string]any{"message": "CRM offline", "next": map[string]any{"type": "retry", "label": "Retry sync"}}})
	_, part = b.Do(t, "GET", "/space/"+spaceID+"/jobs/"+syncJob+"/panel?mode=toolbarBlocking", nil, true)
	retry := part.Find(`[data-testid=job-next] button`)
	if retry.Text() != "Retry sync" || !strings.Contains(part.Text(), "CRM offline") {
		t.Fatalf("failed job: got %q", part.Text())
	}
	resp, _ = b.Do(t, "POST", retry.AttrOr("hx-post", ""), url.Values{"mode": {"toolbarBlocking"}}, true)
	if st := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+syncJob, webtest.Secret, nil))["status"]; resp.StatusCode != 200 || st != "ready" {
		t.Errorf("retry: got %d and status %v, want the job ready again", resp.StatusCode, st)
	}
	// An archived space runs no actions.
	e.MustCall(t, "POST", "/v1/spaces/"+spaceID+"/archive", webtest.Secret, nil)
	if resp, _ := b.Do(t, "POST", run, url.Values{"target": {wb}, "operation": {"sync"}}, true); resp.StatusCode != 400 {
		t.Errorf("archived: got %d, want 400", resp.StatusCode)
	}
}

func TestFieldMountedActions(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "field actions"})
	spaceID := sp["id"].(string)
	_, sheet := e.MustCreateSheet(t, spaceID)
	e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, map[string]any{"targetId": sheet, "label": "Verify e-mails", "operation": "verify",
		"mount": map[string]any{"type": "field", "keys": []any{"email"}}})
	e.MustCall(t, "POST", "/v1/actions?spaceId="+spaceID, webtest.Secret, map[string]any{"targetId": sheet, "label": "Export", "operation": "export"})
	b := webtest.LoggedIn(t, e)
	_, toolbar := b.Do(t, "GET", "/space/"+spaceID+"/actions?target="+sheet, nil, true)
	if got := toolbar.Find(`[data-testid=action-button]`).Text(); !strings.Contains(got, "Export") || strings.Contains(got, "Verify") {
		t.Errorf("toolbar: %q, want only the sheet action", got)
	}
	_, email := b.Do(t, "GET", "/space/"+spaceID+"/actions?target="+sheet+"&field=email", nil, true)
	_, name := b.Do(t, "GET", "/space/"+spaceID+"/actions?target="+sheet+"&field=name", nil, true)
	if !strings.Contains(email.Text(), "Verify e-mails") || strings.Contains(name.Text(), "Verify") {
		t.Errorf("column menus: email %q, name %q", email.Text(), name.Text())
	}
	_, doc := b.Do(t, "GET", "/space/"+spaceID+"/sheet/"+sheet, nil, false)
	if doc.Find(`[data-testid=field-action-slot]`).Length() != 2 {
		t.Error("the column menus have no action slot")
	}
}

// A submit no agent takes does not spin forever: after a while its panel says no agent is
// listening and offers to cancel, which cancels the job.
func TestJobWithoutAgentCanBeCanceled(t *testing.T) {
	e := webtest.NewAPI(t)
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "no agent"})["id"].(string)
	wb, _ := e.MustCreateSheet(t, sp)
	e.MustCall(t, "PATCH", "/v1/workbooks/"+wb, webtest.Secret, map[string]any{"actions": []any{map[string]any{"operation": "submitActionFg", "label": "Send to CRM", "mode": "foreground"}}})
	job := webtest.DataOf(e.MustCall(t, "POST", "/v1/jobs", webtest.Secret, map[string]any{"type": "workbook", "operation": "submitActionFg", "source": wb,
		"trigger": "immediate", "mode": "foreground"}))
	b := webtest.LoggedIn(t, e)
	panel := "/space/" + sp + "/jobs/" + job["id"].(string) + "/panel"
	if _, doc := b.Do(t, "GET", panel, nil, true); doc.Find(`[data-testid=job-no-agent]`).Length() != 0 {
		t.Fatal("the panel says no agent is listening at once")
	}
	e.Now = e.Now.Add(11 * time.Second)
	_, doc := b.Do(t, "GET", panel, nil, true)
	if !strings.Contains(doc.Find(`[data-testid=job-no-agent]`).Text(), "No agent is listening") || doc.Find(`[data-testid=job-cancel]`).Length() != 1 ||
		!strings.Contains(doc.Text(), "Send to CRM") {
		t.Fatalf("after 11 s: %q", doc.Text())
	}
	if strings.Contains(doc.Text(), "workbook:submitActionFg") {
		t.Error("the panel shows the job's internal name")
	}
	if resp, _ := b.Do(t, "POST", "/space/"+sp+"/jobs/"+job["id"].(string)+"/cancel", url.Values{}, true); resp.StatusCode != 200 {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	if got := webtest.DataOf(e.MustCall(t, "GET", "/v1/jobs/"+job["id"].(string), webtest.Secret, nil))["status"]; got != "canceled" {
		t.Fatalf("the job is %v, want canceled", got)
	}
}
