package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var inviteLink = regexp.MustCompile(`/invite/(inv_[A-Za-z0-9]+)`)

// lastInvite is the invitation link of the newest mail in the outbox.
func lastInvite(t *testing.T, e *apiEnv, to string) string {
	t.Helper()
	for _, m := range listOf(e.mustCall(t, "GET", "/v1/outbox", jwtFor(t, e), nil)) {
		mm := m.(map[string]any)
		if mm["to"] == to {
			if l := inviteLink.FindString(mm["html"].(string)); l != "" {
				return l
			}
		}
	}
	t.Fatalf("no invitation to %s in the outbox", to)
	return ""
}

func TestUsersAndInvitations(t *testing.T) {
	e := newAPI(t)
	u := dataOf(e.mustCall(t, "POST", "/v1/users/invite", testSecret, map[string]any{"email": "kim@example.com", "name": "Kim", "actorRoles": []any{}}))
	if !strings.HasPrefix(u["id"].(string), "us_usr_") || u["actorRoles"] == nil || u["idp"] != "sluice" {
		t.Fatalf("invite: %v", u)
	}
	id := u["id"].(string)
	if st, out := e.call(t, "POST", "/v1/users/invite", testSecret, map[string]any{"email": "kim@example.com", "name": "Kim"}); st != http.StatusConflict {
		t.Errorf("inviting the same e-mail again: %d %v", st, out)
	}
	first := lastInvite(t, e, "kim@example.com")
	// A new invitation replaces the previous one: the old link stops working.
	e.mustCall(t, "POST", "/v1/users/"+id+"/resend-invite", testSecret, nil)
	second := lastInvite(t, e, "kim@example.com")
	if first == second {
		t.Fatal("resending gave the same link")
	}
	b := loggedOut(t, e)
	if resp, doc := b.do(t, "POST", first, url.Values{"password": {"long enough pw"}, "confirm": {"long enough pw"}, "_csrf": {b.csrf}}, false); resp.StatusCode != 404 || doc.Find(`[data-testid=invite-error]`).Length() != 1 {
		t.Errorf("the replaced link: got %d", resp.StatusCode)
	}
	_, _ = b.do(t, "GET", second, nil, false)
	if resp, _ := b.do(t, "POST", second, url.Values{"password": {"short"}, "confirm": {"short"}, "_csrf": {b.csrf}}, false); resp.StatusCode != 400 {
		t.Errorf("a short password: got %d", resp.StatusCode)
	}
	resp, _ := b.do(t, "POST", second, url.Values{"password": {"kims password 1"}, "confirm": {"kims password 1"}, "_csrf": {b.csrf}}, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("accepting: got %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, doc := b.do(t, "GET", "/", nil, false); resp.StatusCode != 200 || !strings.Contains(doc.Find(`[data-testid=user-email]`).Text(), "kim@example.com") {
		t.Errorf("the accepted user's session: %d", resp.StatusCode)
	}
	if st, out := e.call(t, "POST", "/v1/users/"+id+"/resend-invite", testSecret, nil); st != http.StatusConflict || !strings.Contains(errorMessage(out), "already accepted") {
		t.Errorf("resend after accepting: %d %v", st, out)
	}
	// Accepted: Kim can log in with the password.
	k := loggedOut(t, e)
	if resp, _ := k.do(t, "POST", "/login", url.Values{"email": {"kim@example.com"}, "password": {"kims password 1"}, "_csrf": {k.csrf}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("login as the invited user: %d", resp.StatusCode)
	}

	list := listOf(e.mustCall(t, "GET", "/v1/users?search=kim", testSecret, nil))
	if len(list) != 1 {
		t.Fatalf("search: %v", list)
	}
	up := dataOf(e.mustCall(t, "PATCH", "/v1/users/"+id, testSecret, map[string]any{"name": "Kim Lee", "dashboard": 2}))
	if up["name"] != "Kim Lee" || up["dashboard"] != 2.0 {
		t.Errorf("update: %v", up)
	}
	e.mustCall(t, "DELETE", "/v1/users/"+id, testSecret, nil)
	if st, _ := e.call(t, "GET", "/v1/users/"+id, testSecret, nil); st != http.StatusNotFound {
		t.Errorf("deleted user: %d", st)
	}
	k.do(t, "GET", "/login", nil, false)
	if resp, _ := k.do(t, "POST", "/login", url.Values{"email": {"kim@example.com"}, "password": {"kims password 1"}, "_csrf": {k.csrf}}, false); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("login after deletion: %d", resp.StatusCode)
	}
	sp := e.mustCreateSpace(t, testSecret, map[string]any{"name": "x"})
	if st, _ := e.call(t, "GET", "/v1/users", sp["accessToken"].(string), nil); st != http.StatusForbidden {
		t.Errorf("a space token listing users: %d", st)
	}
}

func errorMessage(out map[string]any) string {
	errsList, _ := out["errors"].([]any)
	if len(errsList) == 0 {
		return ""
	}
	m, _ := errsList[0].(map[string]any)["message"].(string)
	return m
}
