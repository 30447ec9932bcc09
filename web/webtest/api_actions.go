package webtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// MustCreateSheet inserts a workbook with one sheet (email required) in SQL: the workbooks
// API is built elsewhere.
func (e *Env) MustCreateSheet(t *testing.T, spaceID string) (workbookID, sheetID string) {
	t.Helper()
	ctx := t.Context()
	workbookID, sheetID = sqldb.NewID(sqldb.PrefixWorkbook), sqldb.NewID(sqldb.PrefixSheet)
	acc := DataOf(e.MustCall(t, "GET", "/v1/accounts/current", Secret, nil))["id"]
	if err := e.DB.ExecForTest(ctx, `INSERT INTO workbooks (id, account_id, environment_id, space_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, 'W', 0, 0)`,
		workbookID, acc, e.EnvID, spaceID); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(model.SheetConfig{Name: "Contacts", Slug: "contacts", Fields: []model.Field{
		{Key: "email", Type: "string", Constraints: []model.FieldConstraint{{Type: "required"}}}, {Key: "name", Type: "string"}}})
	if err := e.DB.ExecForTest(ctx, `INSERT INTO sheets (id, workbook_id, name, slug, config, created_at, updated_at) VALUES (?, ?, 'Contacts', 'contacts', ?, 0, 0)`,
		sheetID, workbookID, string(cfg)); err != nil {
		t.Fatal(err)
	}
	return workbookID, sheetID
}

func (e *Env) MustInsertRecords(t *testing.T, sheetID string, emails ...string) {
	t.Helper()
	var in []recordset.RecordIn
	for _, m := range emails {
		v, _ := json.Marshal(m)
		in = append(in, recordset.RecordIn{Values: map[string]recordset.CellIn{"email": {Value: v, HasValue: true}}})
	}
	if _, err := e.DB.InsertRecords(t.Context(), sheetID, in, recordset.WriteOptions{Actor: "us_usr_test"}); err != nil {
		t.Fatal(err)
	}
}

// CallAny is call for answers of any JSON kind (bare arrays included).
func (e *Env) CallAny(t *testing.T, method, path, token string, body any) (int, any) {
	t.Helper()
	buf, _ := json.Marshal(body)
	req := httptest.NewRequest(method, path, bytes.NewReader(buf))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.App.Test(req, -1)
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

// CallArray is call for endpoints whose answer is a bare JSON array.
func (e *Env) CallArray(t *testing.T, method, path string, body any) []any {
	t.Helper()
	status, out := e.CallAny(t, method, path, Secret, body)
	list, ok := out.([]any)
	if status != http.StatusOK || !ok {
		t.Fatalf("%s %s: got %d %v, want 200 and a bare array", method, path, status, out)
	}
	return list
}

var FullAction = map[string]any{
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

func WithTarget(a map[string]any, target string) map[string]any {
	out := map[string]any{"targetId": target}
	for k, v := range a {
		out[k] = v
	}
	return out
}
