package webtest

import (
	"net/url"
	"os"
	"testing"
	"time"
)

// FieldDef is a sheet field as POST /v1/workbooks takes it.
func FieldDef(key, label, typ string) map[string]any {
	return map[string]any{"key": key, "label": label, "type": typ}
}

// WaitJob polls a job until it is complete or failed.
func (e *Env) WaitJob(t *testing.T, id string) map[string]any {
	t.Helper()
	return e.WaitSettled(t, "/v1/jobs/"+id, 600)
}

// WaitSettled polls an API resource (a job or a file) every 25 ms, at most tries times,
// until its status is complete or failed, and returns it.
func (e *Env) WaitSettled(t *testing.T, path string, tries int) map[string]any {
	t.Helper()
	for range tries {
		r := DataOf(e.MustCall(t, "GET", path, Secret, nil))
		if r["status"] == "complete" || r["status"] == "failed" {
			return r
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s did not finish", path)
	return nil
}

// ImportFile uploads a file from testdata/formats and maps it onto a new sheet of fields
// with the engine's suggestions, as an API client would; it returns the destination sheet.
func (e *Env) ImportFile(t *testing.T, name string, fields []any) (sheetID string, plan map[string]any) {
	t.Helper()
	body, err := os.ReadFile("testdata/formats/" + name)
	if err != nil {
		t.Fatal(err)
	}
	spaceID := e.MustCreateSpace(t, Secret, map[string]any{"name": name})["id"].(string)
	f := e.MustUpload(t, spaceID, name, string(body))
	if f["status"] != "complete" {
		t.Fatalf("%s: extraction %v: %v", name, f["status"], f["description"])
	}
	wb := e.MustCreateWorkbook(t, map[string]any{"name": "Dest", "spaceId": spaceID, "sheets": []any{map[string]any{"name": "Dest", "fields": fields}}})
	sheetID = wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	j := e.MustCreateJob(t, map[string]any{"type": "workbook", "operation": "map", "source": f["workbookId"], "destination": wb["id"], "trigger": "manual",
		"config": map[string]any{"sourceSheetId": f["sheetId"], "destinationSheetId": sheetID}})
	plan = DataOf(e.MustCall(t, "GET", "/v1/jobs/"+j["id"].(string)+"/plan", Secret, nil))["plan"].(map[string]any)
	e.MustCall(t, "POST", "/v1/jobs/"+j["id"].(string)+"/execute", Secret, nil)
	if done := e.WaitJob(t, j["id"].(string)); done["status"] != "complete" {
		t.Fatalf("%s: map job %v: %v", name, done["status"], done["outcome"])
	}
	return sheetID, plan
}

// EdgeMeta is the plan's metadata for the edge onto destination key.
func EdgeMeta(t *testing.T, plan map[string]any, key string) map[string]any {
	t.Helper()
	for _, e := range plan["fieldMapping"].([]any) {
		e := e.(map[string]any)
		if e["destinationField"].(map[string]any)["key"] == key {
			return e["metadata"].(map[string]any)
		}
	}
	t.Fatalf("no edge onto %s in %v", key, plan)
	return nil
}

func (e *Env) ErrorCount(t *testing.T, sheetID string) float64 {
	t.Helper()
	c := DataOf(e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/counts", Secret, nil))["counts"].(map[string]any)
	return c["error"].(float64)
}

func (e *Env) FindRecord(t *testing.T, sheetID, field, value string) map[string]any {
	t.Helper()
	recs := RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records?includeMessages=true&searchField="+field+"&searchValue="+url.QueryEscape(`"`+value+`"`), Secret, nil))
	if len(recs) != 1 {
		t.Fatalf("%s = %q: %d records", field, value, len(recs))
	}
	return recs[0]
}
