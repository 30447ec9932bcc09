package web_test

import (
	"net/url"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/sluice/sluice/auth"
)

// authzWorld is two spaces of one environment with one of everything in each, a guest of
// space A, and a token of every kind.
type authzWorld struct {
	ids    map[string]map[string]string // space label ("A", "B") → route parameter → id
	tokens map[string]string            // token kind → token
}

func buildAuthzWorld(t *testing.T, e *apiEnv) *authzWorld {
	t.Helper()
	w := &authzWorld{ids: map[string]map[string]string{}, tokens: map[string]string{"secret key": testSecret, "publishable key": testPublic}}
	for _, label := range []string{"A", "B"} {
		sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "space " + label})
		id := map[string]string{"spaceId": sp["id"].(string), "environmentId": e.envID}
		wb := e.mustCreateWorkbook(t, map[string]any{"name": "W" + label, "spaceId": id["spaceId"], "sheets": []any{map[string]any{"name": "S", "slug": "s",
			"fields": []any{map[string]any{"key": "email", "type": "string"}}}}})
		id["workbookId"] = wb["id"].(string)
		id["sheetId"] = wb["sheets"].([]any)[0].(map[string]any)["id"].(string)
		id["fieldKey"] = "email"
		ins := e.mustCall(t, "POST", "/v1/sheets/"+id["sheetId"]+"/records", testSecret, []any{map[string]any{"email": map[string]any{"value": label + "@x.io"}}})
		id["commitId"] = dataOf(ins)["versionId"].(string)
		id["documentId"] = dataOf(e.mustCall(t, "POST", "/v1/spaces/"+id["spaceId"]+"/documents", testSecret, map[string]any{"title": "Doc " + label, "body": "# hi"}))["id"].(string)
		id["actionId"] = dataOf(e.mustCall(t, "POST", "/v1/actions?spaceId="+id["spaceId"], testSecret, map[string]any{"targetId": id["workbookId"], "label": "Go", "operation": "go"}))["id"].(string)
		id["jobId"] = dataOf(e.mustCall(t, "POST", "/v1/jobs", testSecret, map[string]any{"type": "workbook", "operation": "custom", "source": id["workbookId"]}))["id"].(string)
		id["viewId"] = dataOf(e.mustCall(t, "POST", "/v1/views", testSecret, map[string]any{"sheetId": id["sheetId"], "name": "mine", "config": map[string]any{"filter": "error"}}))["id"].(string)
		id["snapshotId"] = dataOf(e.mustCall(t, "POST", "/v1/snapshots", testSecret, map[string]any{"sheetId": id["sheetId"]}))["id"].(string)
		id["dataClipId"] = e.mustCallRaw(t, "POST", "/v1/data-clips", map[string]any{"name": "clip " + label, "sourceSheetId": id["sheetId"]})["id"].(string)
		id["fileId"] = e.uploadNoWait(t, id["spaceId"], label+".csv", "email\n"+label+"@y.io\n")
		evs := listOf(e.mustCall(t, "GET", "/v1/events?spaceId="+id["spaceId"]+"&topic=records:created", testSecret, nil))
		id["eventId"] = evs[0].(map[string]any)["id"].(string)
		w.ids[label] = id
	}
	g := listOf(e.mustCall(t, "POST", "/v1/guests", testSecret, []any{map[string]any{"environmentId": e.envID, "email": "g@partner.io", "name": "G",
		"spaces": []any{map[string]any{"id": w.ids["A"]["spaceId"]}}}}))[0].(map[string]any)
	w.ids["A"]["guestId"] = g["id"].(string)
	w.tokens["guest of A"] = dataOf(e.mustCall(t, "GET", "/v1/guests/"+g["id"].(string)+"/token?spaceId="+w.ids["A"]["spaceId"], testSecret, nil))["token"].(string)
	clip := e.mustCallRaw(t, "POST", "/v1/data-clips", map[string]any{"name": "public A", "sourceSheetId": w.ids["A"]["sheetId"], "sharedLinkAccess": "public"})
	w.tokens["clip link of A"], w.ids["A"]["clipSheetId"] = clip["accessToken"].(string), clip["clipSheetId"].(string)
	w.tokens["admin JWT"] = jwtFor(t, e)
	w.tokens["user PAT"] = dataOf(e.mustCall(t, "POST", "/v1/auth/personal-access-tokens", w.tokens["admin JWT"], map[string]any{"name": "matrix"}))["token"].(string)
	return w
}

// mustCallRaw is mustCall for answers without the data envelope.
func (e *apiEnv) mustCallRaw(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	status, out := e.callAny(t, method, path, testSecret, body)
	m, ok := out.(map[string]any)
	if status != http.StatusOK || !ok {
		t.Fatalf("%s %s: got %d %v", method, path, status, out)
	}
	return m
}

// uploadNoWait sends a file over the API and returns its id without waiting for extraction.
func (e *apiEnv) uploadNoWait(t *testing.T, spaceID, name, content string) string {
	t.Helper()
	return e.uploadWith(t, testSecret, spaceID, name, content)
}

// uploadWith uploads with a given token; "" when the upload was refused.
func (e *apiEnv) uploadWith(t *testing.T, token, spaceID, name, content string) string {
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
	resp, err := e.app.Test(req, -1)
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

// fill puts ids into a route's parameters; ok is false when a parameter has no id there.
func fill(path string, ids map[string]string) (string, bool) {
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

// request sends one call with a bearer token and an empty JSON object as body.
func (e *apiEnv) request(t *testing.T, method, path, token string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.app.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// secondEnvironment makes environment 2 with the admin's JWT and returns its id and secret
// key, and the JWT of a user invited into it with that key.
func secondEnvironment(t *testing.T, e *apiEnv, adminJWT string) (envID, secret, userJWT string) {
	t.Helper()
	envID = dataOf(e.mustCall(t, "POST", "/v1/environments", adminJWT, map[string]any{"name": "Two", "isProd": false}))["id"].(string)
	for _, k := range listOf(e.mustCall(t, "GET", "/v1/auth/api-keys?environmentId="+envID, adminJWT, nil)) {
		if km := k.(map[string]any); km["type"] == "SECRET" {
			secret, _ = km["rawKey"].(string)
		}
	}
	if secret == "" {
		t.Fatal("environment 2 has no secret key")
	}
	e.mustCall(t, "POST", "/v1/users/invite", secret, map[string]any{"email": "two@example.com", "name": "Two"})
	link := lastInvite(t, e, "two@example.com")
	b := loggedOut(t, e)
	b.do(t, "GET", link, nil, false)
	if resp, _ := b.do(t, "POST", link, url.Values{"password": {"two's password"}, "confirm": {"two's password"}, "_csrf": {b.csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("accepting environment 2's invitation: %d", resp.StatusCode)
	}
	_, out := e.call(t, "POST", "/v1/auth", "", map[string]any{"email": "two@example.com", "password": "two's password"})
	userJWT, _ = out["accessToken"].(string)
	if userJWT == "" {
		t.Fatalf("environment 2's user cannot sign in: %v", out)
	}
	return envID, secret, userJWT
}

// refusedByDesign are the calls a class the area admits is still refused, by the handler:
// a personal access token may not mint another (TestPATsComeFromPasswordsAndMayExpire).
var refusedByDesign = map[string]bool{
	"POST /v1/auth/personal-access-tokens as user PAT": true,
}

// matrixKinds are the tokens of TestAuthorizationMatrix with their column of auth.Policy and
// whether they reach everything of environment 1 (full) or only a part (a space, another
// environment) that must never show space B.
var matrixKinds = []struct {
	name  string
	class auth.Class
	full  bool
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

// TestAuthorizationMatrix calls every /v1 route with every kind of token and checks the
// answer against the permission table (auth.Policy) and the route's area (its name in
// web/routes.go):
//   - a token whose class may not enter the area gets 401 or 403;
//   - a token that reaches all of environment 1 (its secret key, the token exchanged from it,
//     an account user's JWT and PAT) is never refused where the table lets it in;
//   - a token that reaches only a part (a guest of space A, the token of a space C made with
//     the publishable key, environment 2's secret key and the user that key invited) gets
//     401, 403 or 404 for every route that names something of space B (or an account user),
//     and no list it may read shows any of it.
func TestAuthorizationMatrix(t *testing.T) {
	e := newAPI(t)
	w := buildAuthzWorld(t, e)
	b := w.ids["B"]
	w.tokens["API token"] = func() string {
		_, out := e.call(t, "POST", "/v1/auth", "", map[string]any{"clientId": e.envID, "secret": testSecret})
		return out["accessToken"].(string)
	}()
	w.tokens["space token of C"] = dataOf(e.mustCall(t, "POST", "/v1/spaces", testPublic, map[string]any{"name": "C"}))["accessToken"].(string)
	_, w.tokens["environment 2 secret key"], w.tokens["environment 2 user"] = secondEnvironment(t, e, w.tokens["admin JWT"])
	b["userId"] = listOf(e.mustCall(t, "GET", "/v1/users?email="+url.QueryEscape(testEmail), w.tokens["admin JWT"], nil))[0].(map[string]any)["id"].(string)

	type route struct{ method, path, area string }
	var routes []route
	seen := map[string]bool{}
	for _, r := range e.app.GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/v1/") || r.Method == "HEAD" || r.Method == "OPTIONS" || r.Method == "CONNECT" || r.Method == "TRACE" {
			continue
		}
		key := r.Method + " " + r.Path
		if seen[key] {
			continue
		}
		seen[key] = true
		if r.Path == "/v1/auth" || r.Path == "/v1/internal/spaces/init" {
			continue // the token exchange and the embedded space init take no bearer token (embed_test.go)
		}
		if _, ok := auth.Policy[auth.Area(r.Name)]; !ok {
			t.Errorf("%s names no area of auth.Policy (got %q): register it with guarded in routes.go", key, r.Name)
			continue
		}
		routes = append(routes, route{r.Method, r.Path, r.Name})
	}
	sort.Slice(routes, func(i, j int) bool { return routes[i].path+routes[i].method < routes[j].path+routes[j].method })
	if len(routes) < 100 {
		t.Fatalf("found only %d /v1 routes; the route table is not what this test expects", len(routes))
	}
	checked := 0
	for _, r := range routes {
		concrete, ok := fill(r.path, b)
		if !ok {
			concrete, _ = fill(r.path, map[string]string{"programId": "us_mp_none", "appId": "us_app_none", "constraintId": "us_ctr_none",
				"agentId": "us_ag_none", "guestId": w.ids["A"]["guestId"], "mappingId": "us_mr_none", "instructionId": "us_ins_none",
				"secretId": "us_sec_none", "agentVersionId": "us_agv_none", "accessTokenId": "us_pat_none", "version": "1", "userId": b["userId"],
				"environmentId": e.envID, "spaceId": b["spaceId"], "sheetId": b["sheetId"], "workbookId": b["workbookId"], "jobId": b["jobId"],
				"eventId": b["eventId"], "fileId": b["fileId"], "documentId": b["documentId"], "actionId": b["actionId"], "viewId": b["viewId"],
				"snapshotId": b["snapshotId"], "commitId": b["commitId"], "dataClipId": b["dataClipId"], "fieldKey": "email"})
		}
		namesB := strings.Contains(r.path, ":")
		if strings.HasSuffix(r.path, "/stream") {
			continue // a live stream does not end; its authorization is tested in api_stream_test.go
		}
		for _, k := range matrixKinds {
			allowed := auth.Allows(auth.Area(r.area), k.class)
			if r.method == "DELETE" && allowed && k.full {
				continue // deleting B's things with a good token would change the world for later routes
			}
			status, body := e.request(t, r.method, concrete, w.tokens[k.name])
			checked++
			where := fmt.Sprintf("%s %s (%s) as %s", r.method, concrete, r.area, k.name)
			switch {
			case !allowed:
				if status != 401 && status != 403 {
					t.Errorf("%s: got %d, want 401/403 (the table keeps %s out): %.200s", where, status, k.class, body)
				}
			case k.full && refusedByDesign[r.method+" "+r.path+" as "+k.name]:
				if status != 403 {
					t.Errorf("%s: got %d, want 403", where, status)
				}
			case k.full:
				if status == 401 || status == 403 {
					t.Errorf("%s: got %d, want it allowed: %.200s", where, status, body)
				}
			case namesB && status != 401 && status != 403 && status != 404:
				t.Errorf("%s: got %d, want 401/403/404 (out of this token's reach): %.200s", where, status, body)
			case !namesB && status < 300 && r.method == "GET":
				for label, id := range b {
					if label == "userId" && r.path != "/v1/users" {
						continue // an account user's id may name the actor of an event of environment 2
					}
					if label != "environmentId" && label != "fieldKey" && strings.Contains(body, id) {
						t.Errorf("%s: the answer shows space B's %s %s", where, label, id)
					}
				}
			}
		}
	}
	t.Logf("%d routes, %d calls", len(routes), checked)

	// And the guest does reach what is in space A.
	a := w.ids["A"]
	for _, path := range []string{"/v1/spaces/" + a["spaceId"], "/v1/workbooks/" + a["workbookId"], "/v1/sheets/" + a["sheetId"],
		"/v1/sheets/" + a["sheetId"] + "/records", "/v1/files/" + a["fileId"], "/v1/jobs/" + a["jobId"], "/v1/events?spaceId=" + a["spaceId"],
		"/v1/spaces/" + a["spaceId"] + "/documents/" + a["documentId"], "/v1/views/" + a["viewId"], "/v1/commits/" + a["commitId"]} {
		if status, body := e.request(t, "GET", path, w.tokens["guest of A"]); status != http.StatusOK {
			t.Errorf("GET %s as guest of A: got %d, want 200: %.200s", path, status, body)
		}
	}
}

// resourceOfRoute is the resource policy's view of a route: the kind of resource its path
// names and the verb its method does to it (reading for GET; managing a space's settings,
// archive and delete, and a sheet's schema; writing the rest).
func resourceOfRoute(method, path string) (auth.Res, auth.Verb) {
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

// TestResourceMatrix derives, from the resource policy, what a guest of space A and a public
// clip link of A's sheet get on every route that names A's resources (and for the clip link,
// its clip sheet): a class the policy leaves out of the route's resource and verb is refused
// (401, 403 or 404), one it lets in is not refused. Routes the area table already keeps them
// out of are TestAuthorizationMatrix's; deletes the policy allows are not sent (they would
// change the world for the routes after them).
func TestResourceMatrix(t *testing.T) {
	e := newAPI(t)
	w := buildAuthzWorld(t, e)
	a := w.ids["A"]
	clipIDs := map[string]string{}
	for k, v := range a {
		clipIDs[k] = v
	}
	clipIDs["sheetId"] = a["clipSheetId"]
	checked := 0
	for _, r := range e.app.GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/v1/") || r.Name != string(auth.AreaSpaceData) || r.Method == "HEAD" || strings.HasSuffix(r.Path, "/stream") ||
			!strings.Contains(r.Path, ":") || r.Path == "/v1/internal/spaces/init" {
			continue
		}
		res, verb := resourceOfRoute(r.Method, r.Path)
		for _, k := range []struct {
			name  string
			class auth.Class
			ids   map[string]string
		}{{"guest of A", auth.ClassGuest, a}, {"clip link of A", auth.ClassClip, clipIDs}} {
			path, ok := fill(r.Path, k.ids)
			if !ok {
				continue
			}
			allowed := auth.Allowed(res, verb, k.class)
			if k.class == auth.ClassClip && (res != auth.ResSheet || verb == auth.Write) {
				allowed = false // a clip link reaches its clip sheet only, and this one is read-only
			}
			if allowed && r.Method == "DELETE" {
				continue
			}
			status, body := e.request(t, r.Method, path, w.tokens[k.name])
			checked++
			refusedNow := status == 401 || status == 403 || status == 404
			switch {
			case !allowed && !refusedNow:
				t.Errorf("%s %s as %s (%s %s): got %d, want it refused: %.200s", r.Method, path, k.name, verb, res, status, body)
			case allowed && (status == 401 || status == 403):
				t.Errorf("%s %s as %s (%s %s): got %d, want it allowed: %.200s", r.Method, path, k.name, verb, res, status, body)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d calls: the route table is not what this test expects", checked)
	}
	t.Logf("%d calls", checked)
}
