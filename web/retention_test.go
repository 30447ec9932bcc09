package web_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"
)

func TestRetentionPurgesOldSpacesAndKeepsEvents(t *testing.T) {
	e := webtest.NewAPI(t)
	old := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "old"})
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "W", "spaceId": old["id"], "sheets": []any{map[string]any{"name": "S", "fields": []any{
		map[string]any{"key": "email", "type": "string", "constraints": []any{map[string]any{"type": "unique"}}}}}}})
	sheet := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	e.MustCall(t, "POST", "/v1/sheets/"+sheet+"/records", webtest.Secret, []any{map[string]any{"email": map[string]any{"value": "a@x.io"}}, map[string]any{"email": map[string]any{"value": "a@x.io"}}})
	e.MustCall(t, "POST", "/v1/snapshots", webtest.Secret, map[string]any{"sheetId": sheet})
	fileID := e.UploadNoWait(t, old["id"].(string), "a.csv", "email\nb@x.io\n")

	e.Now = e.Now.Add(200 * 24 * time.Hour)
	fresh := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "fresh"})
	e.Now = e.Now.Add(170 * 24 * time.Hour) // old is 370 days idle, fresh 170

	res, err := e.DB.PurgeExpired(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spaces) != 1 || res.Spaces[0] != old["id"] || len(res.Files) != 1 || res.Files[0] != fileID {
		t.Fatalf("purged %+v, want the old space and its file", res)
	}
	if st, _ := e.Call(t, "GET", "/v1/spaces/"+old["id"].(string), webtest.Secret, nil); st != http.StatusNotFound {
		t.Errorf("the purged space: got %d, want 404", st)
	}
	for table, q := range map[string]string{
		"records":        `SELECT COUNT(*) FROM records WHERE rid >> 36 = (SELECT sk FROM record_sheets WHERE sheet_id = ?)`,
		"record_uniques": `SELECT COUNT(*) FROM record_uniques WHERE uc IN (SELECT uc FROM unique_rules WHERE sk = (SELECT sk FROM record_sheets WHERE sheet_id = ?))`,
		"snapshots":      `SELECT COUNT(*) FROM snapshots WHERE sheet_id = ?`,
	} {
		if n, err := e.DB.CountForTest(t.Context(), q, sheet); err != nil || n != 0 {
			t.Errorf("%s left: %d (%v)", table, n, err)
		}
	}
	e.MustCall(t, "GET", "/v1/spaces/"+fresh["id"].(string), webtest.Secret, nil)
	topics := e.Topics(t, "&spaceId="+old["id"].(string))
	hasCreated, hasExpired := false, false
	for _, tp := range topics {
		hasCreated = hasCreated || tp == "records:created"
		hasExpired = hasExpired || tp == "space:expired"
	}
	if !hasCreated || !hasExpired {
		t.Errorf("event trail %v: want the old events kept and space:expired added", topics)
	}

	// An environment's retentionDays shortens the period.
	jwt := webtest.JwtFor(t, e)
	e.MustCall(t, "PATCH", "/v1/environments/"+e.EnvID, jwt, map[string]any{"metadata": map[string]any{"retentionDays": 30}})
	if res, err := e.DB.PurgeExpired(t.Context()); err != nil || len(res.Spaces) != 1 || res.Spaces[0] != fresh["id"] {
		t.Errorf("with retentionDays 30: purged %+v %v, want the 170-day-idle space", res, err)
	}
}
