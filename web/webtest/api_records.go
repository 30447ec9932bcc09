package webtest

import (
	"testing"
)

// MustCreateRecordSheet makes a workbook and sheet in SQL (their API lives elsewhere) in a
// new space of the test environment.
func (e *Env) MustCreateRecordSheet(t testing.TB, fields string) (spaceID, sheetID string) {
	t.Helper()
	sp := e.MustCreateSpace(t, Secret, map[string]any{"name": "records", "environmentId": e.EnvID})
	spaceID = sp["id"].(string)
	wb, sh := "us_wb_"+spaceID[6:], "us_sh_"+spaceID[6:]
	if err := e.DB.ExecForTest(t.Context(), `INSERT INTO workbooks (id, account_id, environment_id, space_id, name, created_at, updated_at)
		SELECT ?, account_id, environment_id, id, 'W', 0, 0 FROM spaces WHERE id = ?`, wb, spaceID); err != nil {
		t.Fatal(err)
	}
	cfg := `{"name":"Contacts","slug":"contacts","fields":` + fields + `}`
	if err := e.DB.ExecForTest(t.Context(), `INSERT INTO sheets (id, workbook_id, name, slug, config, created_at, updated_at) VALUES (?, ?, 'Contacts', 'contacts', ?, 0, 0)`,
		sh, wb, cfg); err != nil {
		t.Fatal(err)
	}
	return spaceID, sh
}

const ContactFields = `[
	{"key":"name","type":"string","label":"Full Name","constraints":[{"type":"required"}]},
	{"key":"email","type":"string","constraints":[{"type":"unique"}]},
	{"key":"age","type":"number"},
	{"key":"a.b","type":"string"}
]`

func RecordsOf(t testing.TB, m map[string]any) []map[string]any {
	t.Helper()
	list, _ := DataOf(m)["records"].([]any)
	out := make([]map[string]any, len(list))
	for i, r := range list {
		out[i] = r.(map[string]any)
	}
	return out
}

func CellValue(r map[string]any, key string) any {
	c, _ := r["values"].(map[string]any)[key].(map[string]any)
	if c == nil {
		return nil
	}
	return c["value"]
}
