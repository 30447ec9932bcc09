package api_test

import (
	"net/url"

	"github.com/sluice/sluice/web/webtest"

	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/sluice/sluice/auth"
)

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
	e := webtest.NewAPI(t)
	w := webtest.BuildAuthzWorld(t, e)
	b := w.Ids["B"]
	w.Tokens["API token"] = func() string {
		_, out := e.Call(t, "POST", "/v1/auth", "", map[string]any{"clientId": e.EnvID, "secret": webtest.Secret})
		return out["accessToken"].(string)
	}()
	w.Tokens["space token of C"] = webtest.DataOf(e.MustCall(t, "POST", "/v1/spaces", webtest.Public, map[string]any{"name": "C"}))["accessToken"].(string)
	_, w.Tokens["environment 2 secret key"], w.Tokens["environment 2 user"] = webtest.SecondEnvironment(t, e, w.Tokens["admin JWT"])
	b["userId"] = webtest.ListOf(e.MustCall(t, "GET", "/v1/users?email="+url.QueryEscape(webtest.Email), w.Tokens["admin JWT"], nil))[0].(map[string]any)["id"].(string)

	type route struct{ method, path, area string }
	var routes []route
	seen := map[string]bool{}
	for _, r := range e.App.GetRoutes(true) {
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
		concrete, ok := webtest.Fill(r.path, b)
		if !ok {
			concrete, _ = webtest.Fill(r.path, map[string]string{"programId": "us_mp_none", "appId": "us_app_none", "constraintId": "us_ctr_none",
				"agentId": "us_ag_none", "guestId": w.Ids["A"]["guestId"], "mappingId": "us_mr_none", "instructionId": "us_ins_none",
				"secretId": "us_sec_none", "agentVersionId": "us_agv_none", "accessTokenId": "us_pat_none", "version": "1", "userId": b["userId"],
				"environmentId": e.EnvID, "spaceId": b["spaceId"], "sheetId": b["sheetId"], "workbookId": b["workbookId"], "jobId": b["jobId"],
				"eventId": b["eventId"], "fileId": b["fileId"], "documentId": b["documentId"], "actionId": b["actionId"], "viewId": b["viewId"],
				"snapshotId": b["snapshotId"], "commitId": b["commitId"], "dataClipId": b["dataClipId"], "fieldKey": "email"})
		}
		namesB := strings.Contains(r.path, ":")
		if strings.HasSuffix(r.path, "/stream") {
			continue // a live stream does not end; its authorization is tested in api_stream_test.go
		}
		for _, k := range webtest.MatrixKinds {
			allowed := auth.Allows(auth.Area(r.area), k.Class)
			if r.method == "DELETE" && allowed && k.Full {
				continue // deleting B's things with a good token would change the world for later routes
			}
			status, body := e.Request(t, r.method, concrete, w.Tokens[k.Name])
			checked++
			where := fmt.Sprintf("%s %s (%s) as %s", r.method, concrete, r.area, k.Name)
			switch {
			case !allowed:
				if status != 401 && status != 403 {
					t.Errorf("%s: got %d, want 401/403 (the table keeps %s out): %.200s", where, status, k.Class, body)
				}
			case k.Full && webtest.RefusedByDesign[r.method+" "+r.path+" as "+k.Name]:
				if status != 403 {
					t.Errorf("%s: got %d, want 403", where, status)
				}
			case k.Full:
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
	a := w.Ids["A"]
	for _, path := range []string{"/v1/spaces/" + a["spaceId"], "/v1/workbooks/" + a["workbookId"], "/v1/sheets/" + a["sheetId"],
		"/v1/sheets/" + a["sheetId"] + "/records", "/v1/files/" + a["fileId"], "/v1/jobs/" + a["jobId"], "/v1/events?spaceId=" + a["spaceId"],
		"/v1/spaces/" + a["spaceId"] + "/documents/" + a["documentId"], "/v1/views/" + a["viewId"], "/v1/commits/" + a["commitId"]} {
		if status, body := e.Request(t, "GET", path, w.Tokens["guest of A"]); status != http.StatusOK {
			t.Errorf("GET %s as guest of A: got %d, want 200: %.200s", path, status, body)
		}
	}
}

// TestResourceMatrix derives, from the resource policy, what a guest of space A and a public
// clip link of A's sheet get on every route that names A's resources (and for the clip link,
// its clip sheet): a class the policy leaves out of the route's resource and verb is refused
// (401, 403 or 404), one it lets in is not refused. Routes the area table already keeps them
// out of are TestAuthorizationMatrix's; deletes the policy allows are not sent (they would
// change the world for the routes after them).
func TestResourceMatrix(t *testing.T) {
	e := webtest.NewAPI(t)
	w := webtest.BuildAuthzWorld(t, e)
	a := w.Ids["A"]
	clipIDs := map[string]string{}
	for k, v := range a {
		clipIDs[k] = v
	}
	clipIDs["sheetId"] = a["clipSheetId"]
	checked := 0
	for _, r := range e.App.GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/v1/") || r.Name != string(auth.AreaSpaceData) || r.Method == "HEAD" || strings.HasSuffix(r.Path, "/stream") ||
			!strings.Contains(r.Path, ":") || r.Path == "/v1/internal/spaces/init" {
			continue
		}
		res, verb := webtest.ResourceOfRoute(r.Method, r.Path)
		for _, k := range []struct {
			name  string
			class auth.Class
			ids   map[string]string
		}{{"guest of A", auth.ClassGuest, a}, {"clip link of A", auth.ClassClip, clipIDs}} {
			path, ok := webtest.Fill(r.Path, k.ids)
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
			status, body := e.Request(t, r.Method, path, w.Tokens[k.name])
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
