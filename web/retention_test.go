package web_test

import (
	"net/http"
	"testing"
	"time"
)

func TestRetentionPurgesOldSpacesAndKeepsEvents(t *testing.T) {
	e := newAPI(t)
	old := e.mustCreateSpace(t, testSecret, map[string]any{"name": "old"})
	wb := e.mustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": old["id"], "sheets": []any{map[string]any{"name": "S", "fields": []any{
		map[string]any{"key": "email", "type": "string", "constraints": []any{map[string]any{"type": "unique"}}}}}}})
	sheet := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.mustCall(t, "POST", "/v1/sheets/"+sheet+"/records", testSecret, []any{map[string]any{"email": map[string]any{"value": "a@x.io"}}, map[string]any{"email": map[string]any{"value": "a@x.io"}}})
	e.mustCall(t, "POST", "/v1/snapshots", testSecret, map[string]any{"sheetId": sheet})
	fileID := e.uploadNoWait(t, old["id"].(string), "a.csv", "email\nb@x.io\n")

	e.now = e.now.Add(200 * 24 * time.Hour)
	fresh := e.mustCreateSpace(t, testSecret, map[string]any{"name": "fresh"})
	e.now = e.now.Add(170 * 24 * time.Hour) // old is 370 days idle, fresh 170

	res, err := e.db.PurgeExpired(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spaces) != 1 || res.Spaces[0] != old["id"] || len(res.Files) != 1 || res.Files[0] != fileID {
		t.Fatalf("purged %+v, want the old space and its file", res)
	}
	if st, _ := e.call(t, "GET", "/v1/spaces/"+old["id"].(string), testSecret, nil); st != http.StatusNotFound {
		t.Errorf("the purged space: got %d, want 404", st)
	}
	for table, q := range map[string]string{
		"records":        `SELECT COUNT(*) FROM records WHERE rid >> 36 = (SELECT sk FROM record_sheets WHERE sheet_id = ?)`,
		"record_uniques": `SELECT COUNT(*) FROM record_uniques WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = (SELECT sk FROM record_sheets WHERE sheet_id = ?))`,
		"snapshots":      `SELECT COUNT(*) FROM snapshots WHERE sheet_id = ?`,
	} {
		if n, err := e.db.CountForTest(t.Context(), q, sheet); err != nil || n != 0 {
			t.Errorf("%s left: %d (%v)", table, n, err)
		}
	}
	e.mustCall(t, "GET", "/v1/spaces/"+fresh["id"].(string), testSecret, nil)
	topics := e.topics(t, "&spaceId="+old["id"].(string))
	hasCreated, hasExpired := false, false
	for _, tp := range topics {
		hasCreated = hasCreated || tp == "records:created"
		hasExpired = hasExpired || tp == "space:expired"
	}
	if !hasCreated || !hasExpired {
		t.Errorf("event trail %v: want the old events kept and space:expired added", topics)
	}

	// An environment's retentionDays shortens the period.
	jwt := jwtFor(t, e)
	e.mustCall(t, "PATCH", "/v1/environments/"+e.envID, jwt, map[string]any{"metadata": map[string]any{"retentionDays": 30}})
	if res, err := e.db.PurgeExpired(t.Context()); err != nil || len(res.Spaces) != 1 || res.Spaces[0] != fresh["id"] {
		t.Errorf("with retentionDays 30: purged %+v %v, want the 170-day-idle space", res, err)
	}
}
