package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sluice/sluice/web/webtest"
)

func TestUsersAndInvitations(t *testing.T) {
	e := webtest.NewAPI(t)
	u := webtest.DataOf(e.MustCall(t, "POST", "/v1/users/invite", webtest.Secret, map[string]any{"email": "kim@example.com", "name": "Kim", "actorRoles": []any{}}))
	if !strings.HasPrefix(u["id"].(string), "us_usr_") || u["actorRoles"] == nil || u["idp"] != "sluice" {
		t.Fatalf("invite: %v", u)
	}
	id := u["id"].(string)
	if st, out := e.Call(t, "POST", "/v1/users/invite", webtest.Secret, map[string]any{"email": "kim@example.com", "name": "Kim"}); st != http.StatusConflict {
		t.Errorf("inviting the same e-mail again: %d %v", st, out)
	}
	first := webtest.LastInvite(t, e, "kim@example.com")
	// A new invitation replaces the previous one: the old link stops working.
	e.MustCall(t, "POST", "/v1/users/"+id+"/resend-invite", webtest.Secret, nil)
	second := webtest.LastInvite(t, e, "kim@example.com")
	if first == second {
		t.Fatal("resending gave the same link")
	}
	b := webtest.LoggedOut(t, e)
	if resp, doc := b.Do(t, "POST", first, url.Values{"password": {"long enough pw"}, "confirm": {"long enough pw"}, "_csrf": {b.Csrf}}, false); resp.StatusCode != 404 || doc.Find(`[data-testid=invite-error]`).Length() != 1 {
		t.Errorf("the replaced link: got %d", resp.StatusCode)
	}
	_, _ = b.Do(t, "GET", second, nil, false)
	if resp, _ := b.Do(t, "POST", second, url.Values{"password": {"short"}, "confirm": {"short"}, "_csrf": {b.Csrf}}, false); resp.StatusCode != 400 {
		t.Errorf("a short password: got %d", resp.StatusCode)
	}
	resp, _ := b.Do(t, "POST", second, url.Values{"password": {"kims password 1"}, "confirm": {"kims password 1"}, "_csrf": {b.Csrf}}, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("accepting: got %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, doc := b.Do(t, "GET", "/", nil, false); resp.StatusCode != 200 || !strings.Contains(doc.Find(`[data-testid=user-email]`).Text(), "kim@example.com") {
		t.Errorf("the accepted user's session: %d", resp.StatusCode)
	}
	if st, out := e.Call(t, "POST", "/v1/users/"+id+"/resend-invite", webtest.Secret, nil); st != http.StatusConflict || !strings.Contains(webtest.ErrorMessage(out), "already accepted") {
		t.Errorf("resend after accepting: %d %v", st, out)
	}
	// Accepted: Kim can log in with the password.
	k := webtest.LoggedOut(t, e)
	if resp, _ := k.Do(t, "POST", "/login", url.Values{"email": {"kim@example.com"}, "password": {"kims password 1"}, "_csrf": {k.Csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("login as the invited user: %d", resp.StatusCode)
	}

	list := webtest.ListOf(e.MustCall(t, "GET", "/v1/users?search=kim", webtest.Secret, nil))
	if len(list) != 1 {
		t.Fatalf("search: %v", list)
	}
	up := webtest.DataOf(e.MustCall(t, "PATCH", "/v1/users/"+id, webtest.Secret, map[string]any{"name": "Kim Lee", "dashboard": 2}))
	if up["name"] != "Kim Lee" || up["dashboard"] != 2.0 {
		t.Errorf("update: %v", up)
	}
	e.MustCall(t, "DELETE", "/v1/users/"+id, webtest.Secret, nil)
	if st, _ := e.Call(t, "GET", "/v1/users/"+id, webtest.Secret, nil); st != http.StatusNotFound {
		t.Errorf("deleted user: %d", st)
	}
	k.Do(t, "GET", "/login", nil, false)
	if resp, _ := k.Do(t, "POST", "/login", url.Values{"email": {"kim@example.com"}, "password": {"kims password 1"}, "_csrf": {k.Csrf}}, false); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("login after deletion: %d", resp.StatusCode)
	}
	sp := e.MustCreateSpace(t, webtest.Secret, map[string]any{"name": "x"})
	if st, _ := e.Call(t, "GET", "/v1/users", sp["accessToken"].(string), nil); st != http.StatusForbidden {
		t.Errorf("a space token listing users: %d", st)
	}
}
