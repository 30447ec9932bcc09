package webtest

import (
	"testing"
)

// ResWorld is two spaces of environment 1 with a sheet and a record each, and environment 2.
type ResWorld struct {
	SpaceA, SheetA, WbA string
	SpaceB, SheetB, WbB string
	Visitor             string // the token of a space made with the publishable key (space V)
	SpaceV, SheetV      string
	Env2, Sk2, User2    string
}

func NewResWorld(t *testing.T, e *Env) *ResWorld {
	t.Helper()
	w := &ResWorld{}
	mk := func(name string) (string, string, string) {
		sp := e.MustCreateSpace(t, Secret, map[string]any{"name": name})["id"].(string)
		wb := e.MustCreateWorkbook(t, map[string]any{"name": "W" + name, "spaceId": sp, "sheets": []any{map[string]any{"name": "S", "slug": "s",
			"fields": []any{map[string]any{"key": "email", "type": "string"}}}}})
		sh := wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
		e.MustCall(t, "POST", "/v1/sheets/"+sh+"/records", Secret, []any{map[string]any{"email": map[string]any{"value": name + "@victim.io"}}})
		return sp, wb["id"].(string), sh
	}
	w.SpaceA, w.WbA, w.SheetA = mk("A")
	w.SpaceB, w.WbB, w.SheetB = mk("B")
	v := DataOf(e.MustCall(t, "POST", "/v1/spaces", Public, map[string]any{"name": "visitor"}))
	w.Visitor, w.SpaceV = v["accessToken"].(string), v["id"].(string)
	wb := DataOf(e.MustCall(t, "POST", "/v1/workbooks", w.Visitor, map[string]any{"name": "mine", "spaceId": w.SpaceV, "sheets": []any{map[string]any{"name": "S", "slug": "s",
		"fields": []any{map[string]any{"key": "email", "type": "string"}}}}}))
	w.SheetV = wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
	w.Env2, w.Sk2, w.User2 = SecondEnvironment(t, e, JwtFor(t, e))
	return w
}

func (e *Env) RecordCount(t *testing.T, sheetID string) int {
	t.Helper()
	return len(RecordsOf(t, e.MustCall(t, "GET", "/v1/sheets/"+sheetID+"/records", Secret, nil)))
}

func (e *Env) GuestToken(t *testing.T, spaceID, email string) (guestID, token string) {
	t.Helper()
	g := ListOf(e.MustCall(t, "POST", "/v1/guests", Secret, []any{map[string]any{"environmentId": e.EnvID, "email": email, "name": "G",
		"spaces": []any{map[string]any{"id": spaceID}}}}))[0].(map[string]any)
	tok := DataOf(e.MustCall(t, "GET", "/v1/guests/"+g["id"].(string)+"/token?spaceId="+spaceID, Secret, nil))["token"].(string)
	return g["id"].(string), tok
}

// UploadAs sends a file with a given token and returns its id.
func (e *Env) UploadAs(t *testing.T, token, spaceID, name, content string) string {
	t.Helper()
	id := e.UploadWith(t, token, spaceID, name, content)
	if id == "" {
		t.Fatal("upload failed")
	}
	return id
}
