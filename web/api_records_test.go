package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// mustCreateRecordSheet makes a workbook and sheet in SQL (their API lives elsewhere) in a
// new space of the test environment.
func (e *apiEnv) mustCreateRecordSheet(t testing.TB, fields string) (spaceID, sheetID string) {
	t.Helper()
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "records", "environmentId": e.envID})
	spaceID = sp["id"].(string)
	wb, sh := "us_wb_"+spaceID[6:], "us_sh_"+spaceID[6:]
	if err := e.db.ExecForTest(t.Context(), `INSERT INTO workbooks (id, account_id, environment_id, space_id, name, created_at, updated_at)
		SELECT ?, account_id, environment_id, id, 'W', 0, 0 FROM spaces WHERE id = ?`, wb, spaceID); err != nil {
		t.Fatal(err)
	}
	cfg := `{"name":"Contacts","slug":"contacts","fields":` + fields + `}`
	if err := e.db.ExecForTest(t.Context(), `INSERT INTO sheets (id, workbook_id, name, slug, config, created_at, updated_at) VALUES (?, ?, 'Contacts', 'contacts', ?, 0, 0)`,
		sh, wb, cfg); err != nil {
		t.Fatal(err)
	}
	return spaceID, sh
}

const contactFields = `[
	{"key":"name","type":"string","label":"Full Name","constraints":[{"type":"required"}]},
	{"key":"email","type":"string","constraints":[{"type":"unique"}]},
	{"key":"age","type":"number"},
	{"key":"a.b","type":"string"}
]`

func recordsOf(t testing.TB, m map[string]any) []map[string]any {
	t.Helper()
	list, _ := dataOf(m)["records"].([]any)
	out := make([]map[string]any, len(list))
	for i, r := range list {
		out[i] = r.(map[string]any)
	}
	return out
}

func cellValue(r map[string]any, key string) any {
	c, _ := r["values"].(map[string]any)[key].(map[string]any)
	if c == nil {
		return nil
	}
	return c["value"]
}

func TestRecordsAPI(t *testing.T) {
	e := newAPI(t)
	_, sh := e.mustCreateRecordSheet(t, contactFields)
	base := "/v1/sheets/" + sh
	ins := e.mustCall(t, "POST", base+"/records", testSecret, []map[string]any{
		{"name": map[string]any{"value": "Ann"}, "email": map[string]any{"value": "x@y"}, "age": map[string]any{"value": "41"}},
		{"name": map[string]any{"value": "Bob"}, "email": map[string]any{"value": "x@y"}, "a.b": map[string]any{"value": "dot"}},
		{"email": map[string]any{"value": "c@y"}},
	})
	created := recordsOf(t, ins)
	if len(created) != 3 || !strings.HasPrefix(created[0]["id"].(string), "us_rc_") || dataOf(ins)["versionId"] == nil {
		t.Fatalf("got %v, want 3 records with us_rc_ ids and a versionId", ins)
	}
	if cellValue(created[0], "age") != 41.0 {
		t.Errorf("got age %v, want the number 41", cellValue(created[0], "age"))
	}

	t.Run("get keeps order, root keys as Flatfile", func(t *testing.T) {
		got := recordsOf(t, e.mustCall(t, "GET", base+"/records", testSecret, nil))
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
		got := recordsOf(t, e.mustCall(t, "GET", base+"/records?filter=error&includeMessages=true", testSecret, nil))
		if len(got) != 3 {
			t.Fatalf("got %d, want 3 (two duplicates and a missing name)", len(got))
		}
		msgs := got[0]["values"].(map[string]any)["email"].(map[string]any)["messages"].([]any)
		if len(msgs) != 1 || msgs[0].(map[string]any)["source"] != "unique-constraint" {
			t.Errorf("got %v, want a unique-constraint message", msgs)
		}
	})
	t.Run("q by label and malformed q", func(t *testing.T) {
		got := recordsOf(t, e.mustCall(t, "GET", base+"/records?q="+url.QueryEscape(`"Full Name" eq Bob or a.b eq dot`), testSecret, nil))
		if len(got) != 1 || got[0]["id"] != created[1]["id"] {
			t.Errorf("got %v, want Bob", got)
		}
		status, out := e.call(t, "GET", base+"/records?q="+url.QueryEscape(`name eq`), testSecret, nil)
		if status != http.StatusBadRequest || errorKey(t, out) != "q" {
			t.Errorf("got %d %v, want 400 on q", status, out)
		}
	})
	t.Run("searchValue", func(t *testing.T) {
		got := recordsOf(t, e.mustCall(t, "GET", base+"/records?searchValue=ANN", testSecret, nil))
		if len(got) != 1 {
			t.Errorf("got %d, want 1", len(got))
		}
		got = recordsOf(t, e.mustCall(t, "GET", base+"/records?searchField=name&searchValue="+url.QueryEscape(`""`), testSecret, nil))
		if len(got) != 1 || got[0]["id"] != created[2]["id"] {
			t.Errorf("got %v, want the record without a name", got)
		}
	})
	t.Run("counts", func(t *testing.T) {
		c := dataOf(e.mustCall(t, "GET", base+"/counts", testSecret, nil))["counts"].(map[string]any)
		if c["total"] != 3.0 || c["error"] != 3.0 || c["errorsByField"].(map[string]any)["email"] != 2.0 {
			t.Errorf("got %v, want total 3, error 3, 2 on email", c)
		}
	})
	t.Run("update clears the twin", func(t *testing.T) {
		out := e.mustCall(t, "PUT", base+"/records", testSecret, []map[string]any{{"id": created[1]["id"], "values": map[string]any{"email": map[string]any{"value": "b@y"}}}})
		if v, _ := dataOf(out)["versionId"].(string); !strings.HasPrefix(v, "us_vr_") {
			t.Fatalf("got %v, want a versionId", out)
		}
		c := dataOf(e.mustCall(t, "GET", base+"/counts", testSecret, nil))["counts"].(map[string]any)
		if c["valid"] != 2.0 {
			t.Errorf("got %v, want 2 valid", c)
		}
	})
	t.Run("unknown field names the key", func(t *testing.T) {
		status, out := e.call(t, "POST", base+"/records", testSecret, []map[string]any{{"nope": map[string]any{"value": 1}}})
		if status != http.StatusBadRequest || errorKey(t, out) != "nope" {
			t.Errorf("got %d %v, want 400 naming nope", status, out)
		}
	})
	t.Run("find and replace", func(t *testing.T) {
		out := e.mustCall(t, "PUT", base+"/find-replace", testSecret, map[string]any{"fieldKey": "name", "find": "bo", "replace": "Ro"})
		if dataOf(out)["versionId"] == nil {
			t.Fatalf("got %v, want versionId", out)
		}
		got := recordsOf(t, e.mustCall(t, "GET", base+"/records?ids="+created[1]["id"].(string), testSecret, nil))
		if cellValue(got[0], "name") != "Rob" {
			t.Errorf("got %v, want Rob", cellValue(got[0], "name"))
		}
	})
	t.Run("clear column", func(t *testing.T) {
		e.mustCall(t, "POST", base+"/fields/"+url.PathEscape("a.b")+"/clear", testSecret, nil)
		got := recordsOf(t, e.mustCall(t, "GET", base+"/records?q="+url.QueryEscape(`a.b ne ""`), testSecret, nil))
		if len(got) != 0 {
			t.Errorf("got %d records with a.b, want none", len(got))
		}
		snaps := listOf(e.mustCall(t, "GET", "/v1/snapshots?sheetId="+sh, testSecret, nil))
		if len(snaps) != 1 || snaps[0].(map[string]any)["label"] != "a.b" {
			t.Errorf("got %v, want a snapshot labelled a.b", snaps)
		}
	})
	t.Run("delete by ids and by filter", func(t *testing.T) {
		e.mustCall(t, "DELETE", base+"/records?ids="+created[0]["id"].(string), testSecret, nil)
		e.mustCall(t, "DELETE", base+"/records?filter=error", testSecret, nil)
		got := recordsOf(t, e.mustCall(t, "GET", base+"/records", testSecret, nil))
		if len(got) != 1 || got[0]["id"] != created[1]["id"] {
			t.Errorf("got %v, want only the second record", got)
		}
		status, _ := e.call(t, "DELETE", base+"/records", testSecret, nil)
		if status != http.StatusBadRequest {
			t.Errorf("got %d, want 400 without ids or filter", status)
		}
	})
	t.Run("events", func(t *testing.T) {
		topics := strings.Join(e.topics(t, ""), " ")
		for _, want := range []string{"records:created", "records:updated", "records:deleted", "sheet:counts-updated", "snapshot:created", "commit:created"} {
			if !strings.Contains(topics, want) {
				t.Errorf("got topics %s, want %s", topics, want)
			}
		}
	})
}

func TestRecordHookWriteBackCompletesCommit(t *testing.T) {
	e := newAPI(t)
	_, sh := e.mustCreateRecordSheet(t, contactFields)
	ins := e.mustCall(t, "POST", "/v1/sheets/"+sh+"/records", testSecret, []map[string]any{{"name": map[string]any{"value": "A"}}})
	commit := dataOf(ins)["commitId"].(string)
	id := recordsOf(t, ins)[0]["id"].(string)
	var dataURL string
	for _, ev := range listOf(e.mustCall(t, "GET", "/v1/events?pageSize=1000&includeAcknowledged=true&topic=commit:created", testSecret, nil)) {
		if ev.(map[string]any)["context"].(map[string]any)["commitId"] == commit {
			dataURL = ev.(map[string]any)["dataUrl"].(string)
		}
	}
	if dataURL == "" {
		t.Fatalf("got no commit:created with a dataUrl for %s", commit)
	}
	got := recordsOf(t, e.mustCall(t, "GET", "/"+dataURL, testSecret, nil))
	if len(got) != 1 || got[0]["id"] != id {
		t.Fatalf("got %v from the dataUrl, want the inserted record", got)
	}
	e.mustCall(t, "POST", "/v1/sheets/"+sh+"/records", testSecret, []map[string]any{{"name": map[string]any{"value": "other write"}}})
	var eventID string
	for _, ev := range listOf(e.mustCall(t, "GET", "/v1/events?pageSize=1000&includeAcknowledged=true&topic=commit:created", testSecret, nil)) {
		if ev.(map[string]any)["context"].(map[string]any)["commitId"] == commit {
			eventID = ev.(map[string]any)["id"].(string)
		}
	}
	if got := recordsOf(t, e.mustCall(t, "GET", "/v1/sheets/"+sh+"/records?for="+eventID, testSecret, nil)); len(got) != 1 || got[0]["id"] != id {
		t.Fatalf("got %v for the event, want only the event's record", got)
	}
	e.mustCall(t, "PUT", "/"+dataURL, testSecret, []map[string]any{{"id": id, "values": map[string]any{"name": map[string]any{"value": "B",
		"messages": []map[string]any{{"type": "info", "message": "hook was here", "source": "custom-logic"}}}}}})
	completed := false
	for _, ev := range listOf(e.mustCall(t, "GET", "/v1/events?pageSize=1000&includeAcknowledged=true&topic=commit:completed", testSecret, nil)) {
		completed = completed || ev.(map[string]any)["context"].(map[string]any)["commitId"] == commit
	}
	if !completed {
		t.Errorf("got no commit:completed for %s after the write-back", commit)
	}
}

func TestRecordsAPIAccess(t *testing.T) {
	e := newAPI(t)
	_, sh := e.mustCreateRecordSheet(t, contactFields)
	status, out := e.call(t, "GET", "/v1/sheets/us_sh_missing0/records", testSecret, nil)
	if status != http.StatusNotFound || errorKey(t, out) != "sheetId" {
		t.Errorf("got %d %v, want 404 sheetId", status, out)
	}
	other := e.mustCreateSpace(t, testSecret, map[string]any{"name": "other", "environmentId": e.envID})
	status, _ = e.call(t, "GET", "/v1/sheets/"+sh+"/records", other["accessToken"].(string), nil)
	if status != http.StatusNotFound {
		t.Errorf("got %d, want another space's token kept out", status)
	}
	status, _ = e.call(t, "GET", "/v1/sheets/"+sh+"/records", testPublic, nil)
	if status != http.StatusForbidden {
		t.Errorf("got %d, want 403 for a publishable key", status)
	}
}

func TestSnapshotsAPI(t *testing.T) {
	e := newAPI(t)
	_, sh := e.mustCreateRecordSheet(t, contactFields)
	base := "/v1/sheets/" + sh
	ids := []string{}
	for _, r := range recordsOf(t, e.mustCall(t, "POST", base+"/records", testSecret, []map[string]any{
		{"name": map[string]any{"value": "A"}}, {"name": map[string]any{"value": "B"}}})) {
		ids = append(ids, r["id"].(string))
	}
	snap := dataOf(e.mustCall(t, "POST", "/v1/snapshots", testSecret, map[string]any{"sheetId": sh, "label": "v1"}))
	id := snap["id"].(string)
	if !strings.HasPrefix(id, "us_ss_") || snap["createdBy"] == "" {
		t.Fatalf("got %v, want a us_ss_ snapshot with createdBy", snap)
	}
	e.mustCall(t, "PUT", base+"/records", testSecret, []map[string]any{{"id": ids[0], "values": map[string]any{"name": map[string]any{"value": "AA"}}}})
	e.mustCall(t, "DELETE", base+"/records?ids="+ids[1], testSecret, nil)
	got := dataOf(e.mustCall(t, "GET", "/v1/snapshots/"+id+"?includeSummary=true", testSecret, nil))
	sum := got["summary"].(map[string]any)
	if sum["updatedSince"].(map[string]any)["total"] != 1.0 || sum["deletedSince"].(map[string]any)["total"] != 1.0 {
		t.Errorf("got summary %v, want one updated and one deleted", sum)
	}
	diff := listOf(e.mustCall(t, "GET", "/v1/snapshots/"+id+"/records?changeType=updatedSince", testSecret, nil))
	if len(diff) != 1 {
		t.Fatalf("got %v, want one updated record", diff)
	}
	name := diff[0].(map[string]any)["values"].(map[string]any)["name"].(map[string]any)
	if name["value"] != "AA" || name["snapshotValue"] != "A" {
		t.Errorf("got %v, want value AA and snapshotValue A", name)
	}
	e.mustCall(t, "POST", "/v1/snapshots/"+id+"/restore", testSecret, nil)
	recs := recordsOf(t, e.mustCall(t, "GET", base+"/records", testSecret, nil))
	if len(recs) != 2 || cellValue(recs[0], "name") != "A" || recs[1]["id"] != ids[1] {
		t.Errorf("got %v, want both records back as they were", recs)
	}
	e.mustCall(t, "DELETE", "/v1/snapshots/"+id, testSecret, nil)
	status, _ := e.call(t, "GET", "/v1/snapshots/"+id, testSecret, nil)
	if status != http.StatusNotFound {
		t.Errorf("got %d, want 404 after delete", status)
	}
}
