package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestRecordsAPI(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sh := e.MustCreateRecordSheet(t, webtest.ContactFields)
	base := "/v1/sheets/" + sh
	ins := e.MustCall(t, "POST", base+"/records", webtest.Secret, []map[string]any{
		{"name": map[string]any{"value": "Ann"}, "email": map[string]any{"value": "x@y"}, "age": map[string]any{"value": "41"}},
		{"name": map[string]any{"value": "Bob"}, "email": map[string]any{"value": "x@y"}, "a.b": map[string]any{"value": "dot"}},
		{"email": map[string]any{"value": "c@y"}},
	})
	created := webtest.RecordsOf(t, ins)
	if len(created) != 3 || !strings.HasPrefix(created[0]["id"].(string), "us_rc_") || webtest.DataOf(ins)["versionId"] == nil {
		t.Fatalf("got %v, want 3 records with us_rc_ ids and a versionId", ins)
	}
	if webtest.CellValue(created[0], "age") != 41.0 {
		t.Errorf("got age %v, want the number 41", webtest.CellValue(created[0], "age"))
	}

	t.Run("get keeps order, root keys as Flatfile", func(t *testing.T) {
		got := webtest.RecordsOf(t, e.MustCall(t, "GET", base+"/records", webtest.Secret, nil))
		for i, r := range got {
			if r["id"] != created[i]["id"] {
				t.Fatalf("record %d: got %v, want %v", i, r["id"], created[i]["id"])
			}
			var keys []string
			for k := range r {
				keys = append(keys, k)
			}
			if len(keys) != 5 {
				t.Errorf("got root keys %v, want id, values, valid, metadata, config", keys)
			}
		}
	})
	t.Run("filter error with messages", func(t *testing.T) {
		got := webtest.RecordsOf(t, e.MustCall(t, "GET", base+"/records?filter=error&includeMessages=true", webtest.Secret, nil))
		if len(got) != 3 {
			t.Fatalf("got %d, want 3 (two duplicates and a missing name)", len(got))
		}
		msgs := got[0]["values"].(map[string]any)["email"].(map[string]any)["messages"].([]any)
		if len(msgs) != 1 || msgs[0].(map[string]any)["source"] != "unique-constraint" {
			t.Errorf("got %v, want a unique-constraint message", msgs)
		}
	})
	t.Run("q by label and malformed q", func(t *testing.T) {
		got := webtest.RecordsOf(t, e.MustCall(t, "GET", base+"/records?q="+url.QueryEscape(`"Full Name" eq Bob or a.b eq dot`), webtest.Secret, nil))
		if len(got) != 1 || got[0]["id"] != created[1]["id"] {
			t.Errorf("got %v, want Bob", got)
		}
		status, out := e.Call(t, "GET", base+"/records?q="+url.QueryEscape(`name eq`), webtest.Secret, nil)
		if status != http.StatusBadRequest || webtest.ErrorKey(t, out) != "q" {
			t.Errorf("got %d %v, want 400 on q", status, out)
		}
	})
	t.Run("searchValue", func(t *testing.T) {
		got := webtest.RecordsOf(t, e.MustCall(t, "GET", base+"/records?searchValue=ANN", webtest.Secret, nil))
		if len(got) != 1 {
			t.Errorf("got %d, want 1", len(got))
		}
		got = webtest.RecordsOf(t, e.MustCall(t, "GET", base+"/records?searchField=name&searchValue="+url.QueryEscape(`""`), webtest.Secret, nil))
		if len(got) != 1 || got[0]["id"] != created[2]["id"] {
			t.Errorf("got %v, want the record without a name", got)
		}
	})
	t.Run("counts", func(t *testing.T) {
		c := webtest.DataOf(e.MustCall(t, "GET", base+"/counts", webtest.Secret, nil))["counts"].(map[string]any)
		if c["total"] != 3.0 || c["error"] != 3.0 || c["errorsByField"].(map[string]any)["email"] != 2.0 {
			t.Errorf("got %v, want total 3, error 3, 2 on email", c)
		}
	})
	t.Run("update clears the twin", func(t *testing.T) {
		out := e.MustCall(t, "PUT", base+"/records", webtest.Secret, []map[string]any{{"id": created[1]["id"], "values": map[string]any{"email": map[string]any{"value": "b@y"}}}})
		if v, _ := webtest.DataOf(out)["versionId"].(string); !strings.HasPrefix(v, "us_vr_") {
			t.Fatalf("got %v, want a versionId", out)
		}
		c := webtest.DataOf(e.MustCall(t, "GET", base+"/counts", webtest.Secret, nil))["counts"].(map[string]any)
		if c["valid"] != 2.0 {
			t.Errorf("got %v, want 2 valid", c)
		}
	})
	t.Run("unknown field names the key", func(t *testing.T) {
		status, out := e.Call(t, "POST", base+"/records", webtest.Secret, []map[string]any{{"nope": map[string]any{"value": 1}}})
		if status != http.StatusBadRequest || webtest.ErrorKey(t, out) != "nope" {
			t.Errorf("got %d %v, want 400 naming nope", status, out)
		}
	})
	t.Run("find and replace", func(t *testing.T) {
		out := e.MustCall(t, "PUT", base+"/find-replace", webtest.Secret, map[string]any{"fieldKey": "name", "find": "bo", "replace": "Ro"})
		if webtest.DataOf(out)["versionId"] == nil {
			t.Fatalf("got %v, want versionId", out)
		}
		got := webtest.RecordsOf(t, e.MustCall(t, "GET", base+"/records?ids="+created[1]["id"].(string), webtest.Secret, nil))
		if webtest.CellValue(got[0], "name") != "Rob" {
			t.Errorf("got %v, want Rob", webtest.CellValue(got[0], "name"))
		}
	})
	t.Run("clear column", func(t *testing.T) {
		e.MustCall(t, "POST", base+"/fields/"+url.PathEscape("a.b")+"/clear", webtest.Secret, nil)
		got := webtest.RecordsOf(t, e.MustCall(t, "GET", base+"/records?q="+url.QueryEscape(`a.b ne ""`), webtest.Secret, nil))
		if len(got) != 0 {
			t.Errorf("got %d records with a.b, want none", len(got))
		}
		snaps := webtest.ListOf(e.MustCall(t, "GET", "/v1/snapshots?sheetId="+sh, webtest.Secret, nil))
		if len(snaps) != 1 || snaps[0].(map[string]any)["label"] != "a.b" {
			t.Errorf("got %v, want a snapshot labelled a.b", snaps)
		}
	})
	t.Run("delete by ids and by filter", func(t *testing.T) {
		e.MustCall(t, "DELETE", base+"/records?ids="+created[0]["id"].(string), webtest.Secret, nil)
		e.MustCall(t, "DELETE", base+"/records?filter=error", webtest.Secret, nil)
		got := webtest.RecordsOf(t, e.MustCall(t, "GET", base+"/records", webtest.Secret, nil))
		if len(got) != 1 || got[0]["id"] != created[1]["id"] {
			t.Errorf("got %v, want only the second record", got)
		}
		status, _ := e.Call(t, "DELETE", base+"/records", webtest.Secret, nil)
		if status != http.StatusBadRequest {
			t.Errorf("got %d, want 400 without ids or filter", status)
		}
	})
	t.Run("events", func(t *testing.T) {
		topics := strings.Join(e.Topics(t, ""), " ")
		for _, want := range []string{"records:created", "records:updated", "records:deleted", "sheet:counts-updated", "snapshot:created", "commit:created"} {
			if !strings.Contains(topics, want) {
				t.Errorf("got topics %s, want %s", topics, want)
			}
		}
	})
}

func TestRecordHookWriteBackCompletesCommit(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sh := e.MustCreateRecordSheet(t, webtest.ContactFields)
	ins := e.MustCall(t, "POST", "/v1/sheets/"+sh+"/records", webtest.Secret, []map[string]any{{"name": map[string]any{"value": "A"}}})
	commit := webtest.DataOf(ins)["commitId"].(string)
	id := webtest.RecordsOf(t, ins)[0]["id"].(string)
	var dataURL string
	for _, ev := range webtest.ListOf(e.MustCall(t, "GET", "/v1/events?pageSize=1000&includeAcknowledged=true&topic=commit:created", webtest.Secret, nil)) {
		if ev.(map[string]any)["context"].(map[string]any)["commitId"] == commit {
			dataURL = ev.(map[string]any)["dataUrl"].(string)
		}
	}
	if dataURL == "" {
		t.Fatalf("got no commit:created with a dataUrl for %s", commit)
	}
	got := webtest.RecordsOf(t, e.MustCall(t, "GET", "/"+dataURL, webtest.Secret, nil))
	if len(got) != 1 || got[0]["id"] != id {
		t.Fatalf("got %v from the dataUrl, want the inserted record", got)
	}
	e.MustCall(t, "POST", "/v1/sheets/"+sh+"/records", webtest.Secret, []map[string]any{{"name": map[string]any{"value": "other write"}}})
	var eventID string
	for _, ev := range webtest.ListOf(e.MustCall(t, "GET", "/v1/events?pageSize=1000&includeAcknowledged=true&topic=commit:created", webtest.Secret, nil)) {
		if ev.(map[string]any)["context"].(map[string]any)["commitId"] == commit {
			eventID = ev.(map[string]any)["id"].(string)
		}
	}
	if got := webtest.RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sh+"/records?for="+eventID, webtest.Secret, nil)); len(got) != 1 || got[0]["id"] != id {
		t.Fatalf("got %v for the event, want only the event's record", got)
	}
	e.MustCall(t, "PUT", "/"+dataURL, webtest.Secret, []map[string]any{{"id": id, "values": map[string]any{"name": map[string]any{"value": "B",
		"messages": []map[string]any{{"type": "info", "message": "hook was here", "source": "custom-logic"}}}}}})
	completed := false
	for _, ev := range webtest.ListOf(e.MustCall(t, "GET", "/v1/events?pageSize=1000&includeAcknowledged=true&topic=commit:completed", webtest.Secret, nil)) {
		completed = completed || ev.(map[string]any)["context"].(map[string]any)["commitId"] == commit
	}
	if !completed {
		t.Errorf("got no commit:completed for %s after the write-back", commit)
	}
}

func TestRecordsAPIAccess(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sh := e.MustCreateRecordSheet(t, webtest.ContactFields)
	status, out := e.Call(t, "GET", "/v1/sheets/us_sh_missing0/records", webtest.Secret, nil)
	if status != http.StatusNotFound || webtest.ErrorKey(t, out) != "sheetId" {
		t.Errorf("got %d %v, want 404 sheetId", status, out)
	}
	other := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "other", "environmentId": e.EnvID})
	status, _ = e.Call(t, "GET", "/v1/sheets/"+sh+"/records", other["accessToken"].(string), nil)
	if status != http.StatusNotFound {
		t.Errorf("got %d, want another space's token kept out", status)
	}
	status, _ = e.Call(t, "GET", "/v1/sheets/"+sh+"/records", webtest.Public, nil)
	if status != http.StatusForbidden {
		t.Errorf("got %d, want 403 for a publishable key", status)
	}
}

func TestSnapshotsAPI(t *testing.T) {
	e := webtest.NewAPI(t)
	_, sh := e.MustCreateRecordSheet(t, webtest.ContactFields)
	base := "/v1/sheets/" + sh
	ids := []string{}
	for _, r := range webtest.RecordsOf(t, e.MustCall(t, "POST", base+"/records", webtest.Secret, []map[string]any{
		{"name": map[string]any{"value": "A"}}, {"name": map[string]any{"value": "B"}}})) {
		ids = append(ids, r["id"].(string))
	}
	snap := webtest.DataOf(e.MustCall(t, "POST", "/v1/snapshots", webtest.Secret, map[string]any{"sheetId": sh, "label": "v1"}))
	id := snap["id"].(string)
	if !strings.HasPrefix(id, "us_ss_") || snap["createdBy"] == "" {
		t.Fatalf("got %v, want a us_ss_ snapshot with createdBy", snap)
	}
	e.MustCall(t, "PUT", base+"/records", webtest.Secret, []map[string]any{{"id": ids[0], "values": map[string]any{"name": map[string]any{"value": "AA"}}}})
	e.MustCall(t, "DELETE", base+"/records?ids="+ids[1], webtest.Secret, nil)
	got := webtest.DataOf(e.MustCall(t, "GET", "/v1/snapshots/"+id+"?includeSummary=true", webtest.Secret, nil))
	sum := got["summary"].(map[string]any)
	if sum["updatedSince"].(map[string]any)["total"] != 1.0 || sum["deletedSince"].(map[string]any)["total"] != 1.0 {
		t.Errorf("got summary %v, want one updated and one deleted", sum)
	}
	diff := webtest.ListOf(e.MustCall(t, "GET", "/v1/snapshots/"+id+"/records?changeType=updatedSince", webtest.Secret, nil))
	if len(diff) != 1 {
		t.Fatalf("got %v, want one updated record", diff)
	}
	name := diff[0].(map[string]any)["values"].(map[string]any)["name"].(map[string]any)
	if name["value"] != "AA" || name["snapshotValue"] != "A" {
		t.Errorf("got %v, want value AA and snapshotValue A", name)
	}
	e.MustCall(t, "POST", "/v1/snapshots/"+id+"/restore", webtest.Secret, nil)
	recs := webtest.RecordsOf(t, e.MustCall(t, "GET", base+"/records", webtest.Secret, nil))
	if len(recs) != 2 || webtest.CellValue(recs[0], "name") != "A" || recs[1]["id"] != ids[1] {
		t.Errorf("got %v, want both records back as they were", recs)
	}
	e.MustCall(t, "DELETE", "/v1/snapshots/"+id, webtest.Secret, nil)
	status, _ := e.Call(t, "GET", "/v1/snapshots/"+id, webtest.Secret, nil)
	if status != http.StatusNotFound {
		t.Errorf("got %d, want 404 after delete", status)
	}
}
