package webtest

import (
	"net/url"

	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sluice/sluice/auth"
)

// AuthzWorld is two spaces of one environment with one of everything in each, a guest of
// space A, and a token of every kind.
type AuthzWorld struct {
	Ids    map[string]map[string]string // space label ("A", "B") → route parameter → id
	Tokens map[string]string            // token kind → token
}

func BuildAuthzWorld(t *testing.T, e *Env) *AuthzWorld {
	t.Helper()
	w := &AuthzWorld{Ids: map[string]map[string]string{}, Tokens: map[string]string{"secret key": Secret, "publishable key": Public}}
	for _, label := range []string{"A", "B"} {
		sp := e.MustCreateSpace(t, Secret, map[string]any{"name": "space " + label})
		id := map[string]string{"spaceId": sp["id"].(string), "environmentId": e.EnvID}
		wb := e.MustCreateWorkbook(t, map[string]any{"name": "W" + label, "spaceId": id["spaceId"], "sheets": []any{map[string]any{"name": "S", "slug": "s",
			"fields": []any{map[string]any{"key": "email", "type": "string"}}}}})
		id["workbookId"] = wb["id"].(string)
		id["sheetId"] = wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
		id["fieldKey"] = "email"
		ins := e.MustCall(t, "POST", "/v1/sheets/"+id["sheetId"]+"/records", Secret, []any{map[string]any{"email": map[string]any{"value": label + "@x.io"}}})
		id["commitId"] = DataOf(ins)["versionId"].(string)
		id["documentId"] = DataOf(e.MustCall(t, "POST", "/v1/spaces/"+id["spaceId"]+"/documents", Secret, map[string]any{"title": "Doc " + label, "body": "# hi"}))["id"].(string)
		id["actionId"] = DataOf(e.MustCall(t, "POST", "/v1/actions?spaceId="+id["spaceId"], Secret, map[string]any{"targetId": id["workbookId"], "label": "Go", "operation": "go"}))["id"].(string)
		id["jobId"] = DataOf(e.MustCall(t, "POST", "/v1/jobs", Secret, map[string]any{"type": "workbook", "operation": "custom", "source": id["workbookId"]}))["id"].(string)
		id["viewId"] = DataOf(e.MustCall(t, "POST", "/v1/views", Secret, map[string]any{"sheetId": id["sheetId"], "name": "mine", "config": map[string]any{"filter": "error"}}))["id"].(string)
		id["snapshotId"] = DataOf(e.MustCall(t, "POST", "/v1/snapshots", Secret, map[string]any{"sheetId": id["sheetId"]}))["id"].(string)
		id["dataClipId"] = e.MustCallRaw(t, "POST", "/v1/data-clips", map[string]any{"name": "clip " + label, "sourceSheetId": id["sheetId"]})["id"].(string)
		id["fileId"] = e.UploadNoWait(t, id["spaceId"], label+".csv", "email\n"+label+"@y.io\n")
		evs := ListOf(e.MustCall(t, "GET", "/v1/events?spaceId="+id["spaceId"]+"&topic=records:created", Secret, nil))
		id["eventId"] = evs[0].(map[string]any)["id"].(string)
		w.Ids[label] = id
	}
	g := ListOf(e.MustCall(t, "POST", "/v1/guests", Secret, []any{map[string]any{"environmentId": e.EnvID, "email": "g@partner.io", "name": "G",
		"spaces": []any{map[string]any{"id": w.Ids["A"]["spaceId"]}}}}))[0].(map[string]any)
	w.Ids["A"]["guestId"] = g["id"].(string)
	w.Tokens["guest of A"] = DataOf(e.MustCall(t, "GET", "/v1/guests/"+g["id"].(string)+"/token?spaceId="+w.Ids["A"]["spaceId"], Secret, nil))["token"].(string)
	clip := e.MustCallRaw(t, "POST", "/v1/data-clips", map[string]any{"name": "public A", "sourceSheetId": w.Ids["A"]["sheetId"], "sharedLinkAccess": "public"})
	w.Tokens["clip link of A"], w.Ids["A"]["clipSheetId"] = clip["accessToken"].(string), clip["clipSheetId"].(string)
	w.Tokens["admin JWT"] = JwtFor(t, e)
	w.Tokens["user PAT"] = DataOf(e.MustCall(t, "POST", "/v1/auth/personal-access-tokens", w.Tokens["admin JWT"], map[string]any{"name": "matrix"}))["token"].(string)
	return w
}

// MustCallRaw is MustCall for answers without the data envelope.
func (e *Env) MustCallRaw(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	status, out := e.CallAny(t, method, path, Secret, body)
	m, ok := out.(map[string]any)
	if status != http.StatusOK || !ok {
		t.Fatalf("%s %s: got %d %v", method, path, status, out)
	}
	return m
}

// UploadNoWait sends a file over the API and returns its id without waiting for extraction.
func (e *Env) UploadNoWait(t *testing.T, spaceID, name, content string) string {
	t.Helper()
	return e.UploadWith(t, Secret, spaceID, name, content)
}

// UploadWith uploads with a given token; "" when the upload was refused.
func (e *Env) UploadWith(t *testing.T, token, spaceID, name, content string) string {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("spaceId", spaceID)
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write([]byte(content))
	_ = mw.Close()
	req := httptest.NewRequest("POST", "/v1/files", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.App.Test(req, -1)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	if resp.StatusCode != 200 {
		return ""
	}
	var out struct{ Data struct{ ID string } }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return out.Data.ID
}

// Fill puts ids into a route's parameters; ok is false when a parameter has no id there.
func Fill(path string, ids map[string]string) (string, bool) {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if !strings.HasPrefix(p, ":") {
			continue
		}
		v, ok := ids[strings.TrimSuffix(p[1:], "?")]
		if !ok {
			return "", false
		}
		parts[i] = v
	}
	return strings.Join(parts, "/"), true
}

// Request sends one call with a bearer token and an empty JSON object as body.
func (e *Env) Request(t *testing.T, method, path, token string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.App.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// SecondEnvironment makes environment 2 with the admin's JWT and returns its id and secret
// key, and the JWT of a user invited into it with that key.
func SecondEnvironment(t *testing.T, e *Env, adminJWT string) (envID, secret, userJWT string) {
	t.Helper()
	envID = DataOf(e.MustCall(t, "POST", "/v1/environments", adminJWT, map[string]any{"name": "Two", "isProd": false}))["id"].(string)
	for _, k := range ListOf(e.MustCall(t, "GET", "/v1/auth/api-keys?environmentId="+envID, adminJWT, nil)) {
		if km := k.(map[string]any); km["type"] == "SECRET" {
			secret, _ = km["rawKey"].(string)
		}
	}
	if secret == "" {
		t.Fatal("environment 2 has no secret key")
	}
	e.MustCall(t, "POST", "/v1/users/invite", secret, map[string]any{"email": "two@example.com", "name": "Two"})
	link := LastInvite(t, e, "two@example.com")
	b := LoggedOut(t, e)
	b.Do(t, "GET", link, nil, false)
	if resp, _ := b.Do(t, "POST", link, url.Values{"password": {"two's password"}, "confirm": {"two's password"}, "_csrf": {b.Csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("accepting environment 2's invitation: %d", resp.StatusCode)
	}
	_, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"email": "two@example.com", "password": "two's password"})
	userJWT, _ = out["accessToken"].(string)
	if userJWT == "" {
		t.Fatalf("environment 2's user cannot sign in: %v", out)
	}
	return envID, secret, userJWT
}

// RefusedByDesign are the calls a class the area admits is still refused, by the handler:
// a personal access token may not mint another (TestPATsComeFromPasswordsAndMayExpire).
var RefusedByDesign = map[string]bool{
	"POST /v1/auth/personal-access-tokens as user PAT": true,
}

// MatrixKinds are the tokens of TestAuthorizationMatrix with their column of auth.Policy and
// whether they reach everything of environment 1 (full) or only a part (a space, another
// environment) that must never show space B.
var MatrixKinds = []struct {
	Name  string
	Class auth.Class
	Full  bool
}{
	{"secret key", auth.ClassSecretKey, true},
	{"API token", auth.ClassSecretKey, true},
	{"publishable key", auth.ClassPublishable, false},
	{"space token of C", auth.ClassSpace, false},
	{"admin JWT", auth.ClassAccountUser, true},
	{"user PAT", auth.ClassAccountUser, true},
	{"guest of A", auth.ClassGuest, false},
	{"clip link of A", auth.ClassClip, false},
	{"environment 2 secret key", auth.ClassSecretKey, false},
	{"environment 2 user", auth.ClassEnvUser, false},
}

// ResourceOfRoute is the resource policy's view of a route: the kind of resource its path
// names and the verb its method does to it (reading for GET; managing a space's settings,
// archive and delete, and a sheet's schema; writing the rest).
func ResourceOfRoute(method, path string) (auth.Res, auth.Verb) {
	verb := auth.Write
	if method == "GET" {
		verb = auth.Read
	}
	switch {
	case strings.HasPrefix(path, "/v1/spaces/:spaceId/documents"):
		return auth.ResContent, verb
	case path == "/v1/spaces/:spaceId" || strings.HasSuffix(path, "/archive") || strings.HasSuffix(path, "/unarchive"):
		if verb == auth.Write {
			verb = auth.Manage
		}
		return auth.ResSpace, verb
	case strings.HasPrefix(path, "/v1/instructions/sheet/"), strings.HasPrefix(path, "/v1/sheets/:sheetId/records"), strings.HasPrefix(path, "/v1/sheets/:sheetId/cells"),
		strings.HasPrefix(path, "/v1/sheets/:sheetId/counts"), strings.HasPrefix(path, "/v1/sheets/:sheetId/download"), strings.HasPrefix(path, "/v1/sheets/:sheetId/find-replace"),
		strings.HasSuffix(path, "/clear"), strings.HasPrefix(path, "/v1/sheets/:sheetId/commits"):
		return auth.ResSheet, verb
	case strings.HasPrefix(path, "/v1/sheets/:sheetId"):
		if verb == auth.Write {
			verb = auth.Manage
		}
		return auth.ResSheet, verb
	case strings.HasPrefix(path, "/v1/mapping/"), path == "/v1/mapping" && method != "DELETE", strings.HasPrefix(path, "/v1/instructions"),
		strings.HasPrefix(path, "/v1/secrets"), strings.HasPrefix(path, "/v1/agents"), strings.HasPrefix(path, "/v1/guests"):
		return auth.ResEnvConfig, verb
	case path == "/v1/mapping":
		return auth.ResHistory, verb
	case strings.HasPrefix(path, "/v1/apps"):
		return auth.ResApp, verb
	}
	return auth.ResContent, verb
}
