package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/web/webtest"

	"github.com/sluice/sluice/model"
)

// G: changing a password needs the current one, refuses short and common passwords, and ends
// every other session, JWT and personal access token of the user; this browser stays in.
func TestChangePasswordEndsEverythingElse(t *testing.T) {
	e := webtest.NewAPI(t)
	jwt := webtest.JwtFor(t, e)
	pat := webtest.DataOf(e.MustCall(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": "ci"}))["token"].(string)
	other := webtest.LoggedIn(t, e)
	b := webtest.LoggedIn(t, e)
	if _, doc := b.Do(t, "GET", "/", nil, false); doc.Find(`a[href="/account/password"][data-testid=user-email]`).Length() != 1 {
		t.Fatal("the header does not link the user's e-mail to the password page")
	}
	b.Do(t, "GET", "/account/password", nil, false)
	change := func(current, pw string) (int, string) {
		resp, doc := b.Do(t, "POST", "/account/password", url.Values{"current": {current}, "password": {pw}, "confirm": {pw}, "_csrf": {b.Csrf}}, false)
		msg := doc.Find(`[data-testid=password-error]`).Text() + doc.Find(`[data-testid=password-notice]`).Text()
		return resp.StatusCode, msg
	}
	for _, c := range []struct{ current, pw, want string }{
		{"wrong one!", "a brand new passphrase", "not right"},
		{webtest.Password, "short", "at least 10"},
		{webtest.Password, "password123", "too common"},
		{webtest.Password, "Qwertyuiop", "too common"},
		{webtest.Password, "aaaaaaaaaaaa", "too common"},
	} {
		if st, msg := change(c.current, c.pw); st != http.StatusBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("change(%q, %q): %d %q, want 400 %q", c.current, c.pw, st, msg, c.want)
		}
	}
	if st, msg := change(webtest.Password, "a brand new passphrase"); st != http.StatusOK || !strings.Contains(msg, "was changed") {
		t.Fatalf("change: %d %q", st, msg)
	}
	for name, tok := range map[string]string{"JWT": jwt, "PAT": pat} {
		if st, _ := e.Request(t, "GET", "/v1/spaces", tok); st != http.StatusUnauthorized {
			t.Errorf("the %s from before the change: %d, want 401", name, st)
		}
	}
	if resp, _ := other.Do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the other session: %d, want a redirect to the login", resp.StatusCode)
	}
	if resp, _ := b.Do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusOK {
		t.Errorf("this browser after the change: %d", resp.StatusCode)
	}
	if st, _ := e.Call(t, "POST", "/v1/auth", "", map[string]any{"email": webtest.Email, "password": "a brand new passphrase"}); st != http.StatusOK {
		t.Errorf("sign in with the new password: %d", st)
	}
}

// G: a forgotten password is reset by a mailed one-hour, single-use link; the page answers
// the same for unknown e-mails (and mails nothing then).
func TestPasswordResetByMail(t *testing.T) {
	e := webtest.NewAPI(t)
	jwt := webtest.JwtFor(t, e)
	b := webtest.LoggedOut(t, e)
	if _, doc := b.Do(t, "GET", "/login", nil, false); doc.Find(`a[href="/password/forgot"]`).Length() != 1 {
		t.Fatal("the login page has no link to reset a password")
	}
	forgot := func(email string) (int, string) {
		b.Do(t, "GET", "/password/forgot", nil, false)
		resp, doc := b.Do(t, "POST", "/password/forgot", url.Values{"email": {email}, "_csrf": {b.Csrf}}, false)
		return resp.StatusCode, doc.Find(`[data-testid=password-notice]`).Text()
	}
	st1, msg1 := forgot("nobody@example.com")
	st2, msg2 := forgot(webtest.Email)
	if st1 != http.StatusOK || st1 != st2 || msg1 != msg2 || msg1 == "" {
		t.Fatalf("unknown %d %q vs known %d %q: the answers must be the same", st1, msg1, st2, msg2)
	}
	mails, err := e.DB.ListMail(t.Context(), e.Account, model.Page{Size: 50, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	var link string
	for _, m := range mails {
		if strings.Contains(m.To, "nobody@") {
			t.Errorf("a mail went to an unknown address")
		}
		if m.To == webtest.Email {
			link = webtest.ResetLink.FindString(m.HTML)
		}
	}
	if link == "" {
		t.Fatal("no reset mail")
	}
	b.Do(t, "GET", link, nil, false)
	if resp, doc := b.Do(t, "POST", link, url.Values{"password": {"password123"}, "confirm": {"password123"}, "_csrf": {b.Csrf}}, false); resp.StatusCode != http.StatusBadRequest || !strings.Contains(doc.Text(), "too common") {
		t.Errorf("a common password: %d", resp.StatusCode)
	}
	resp, doc := b.Do(t, "POST", link, url.Values{"password": {"reset to this one"}, "confirm": {"reset to this one"}, "_csrf": {b.Csrf}}, false)
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid=login-notice]`).Length() != 1 {
		t.Fatalf("reset: %d", resp.StatusCode)
	}
	if st, _ := e.Request(t, "GET", "/v1/spaces", jwt); st != http.StatusUnauthorized {
		t.Errorf("a JWT from before the reset: %d", st)
	}
	if st, _ := e.Call(t, "POST", "/v1/auth", "", map[string]any{"email": webtest.Email, "password": "reset to this one"}); st != http.StatusOK {
		t.Errorf("the new password: %d", st)
	}
	if resp, _ := b.Do(t, "POST", link, url.Values{"password": {"and again this one"}, "confirm": {"and again this one"}, "_csrf": {b.Csrf}}, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the link used twice: %d, want 404", resp.StatusCode)
	}
	// A link older than an hour is refused.
	forgot(webtest.Email)
	mails, _ = e.DB.ListMail(t.Context(), e.Account, model.Page{Size: 50, Number: 1})
	late := webtest.ResetLink.FindString(mails[0].HTML)
	if late == "" || late == link {
		t.Fatalf("no second link: %q", late)
	}
	e.Now = e.Now.Add(61 * time.Minute)
	if resp, _ := b.Do(t, "GET", late, nil, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a link after an hour: %d, want 404", resp.StatusCode)
	}
}
