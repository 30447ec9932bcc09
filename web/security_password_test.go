package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sluice/sluice/model"
)

// G: changing a password needs the current one, refuses short and common passwords, and ends
// every other session, JWT and personal access token of the user; this browser stays in.
func TestChangePasswordEndsEverythingElse(t *testing.T) {
	e := newAPI(t)
	jwt := jwtFor(t, e)
	pat := dataOf(e.mustCall(t, "POST", "/v1/auth/personal-access-tokens", jwt, map[string]any{"name": "ci"}))["token"].(string)
	other := loggedIn(t, e)
	b := loggedIn(t, e)
	if _, doc := b.do(t, "GET", "/", nil, false); doc.Find(`a[href="/account/password"][data-testid=user-email]`).Length() != 1 {
		t.Fatal("the header does not link the user's e-mail to the password page")
	}
	b.do(t, "GET", "/account/password", nil, false)
	change := func(current, pw string) (int, string) {
		resp, doc := b.do(t, "POST", "/account/password", url.Values{"current": {current}, "password": {pw}, "confirm": {pw}, "_csrf": {b.csrf}}, false)
		msg := doc.Find(`[data-testid=password-error]`).Text() + doc.Find(`[data-testid=password-notice]`).Text()
		return resp.StatusCode, msg
	}
	for _, c := range []struct{ current, pw, want string }{
		{"wrong one!", "a brand new passphrase", "not right"},
		{testPassword, "short", "at least 10"},
		{testPassword, "password123", "too common"},
		{testPassword, "Qwertyuiop", "too common"},
		{testPassword, "aaaaaaaaaaaa", "too common"},
	} {
		if st, msg := change(c.current, c.pw); st != http.StatusBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("change(%q, %q): %d %q, want 400 %q", c.current, c.pw, st, msg, c.want)
		}
	}
	if st, msg := change(testPassword, "a brand new passphrase"); st != http.StatusOK || !strings.Contains(msg, "was changed") {
		t.Fatalf("change: %d %q", st, msg)
	}
	for name, tok := range map[string]string{"JWT": jwt, "PAT": pat} {
		if st, _ := e.request(t, "GET", "/v1/spaces", tok); st != http.StatusUnauthorized {
			t.Errorf("the %s from before the change: %d, want 401", name, st)
		}
	}
	if resp, _ := other.do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the other session: %d, want a redirect to the login", resp.StatusCode)
	}
	if resp, _ := b.do(t, "GET", "/", nil, false); resp.StatusCode != http.StatusOK {
		t.Errorf("this browser after the change: %d", resp.StatusCode)
	}
	if st, _ := e.call(t, "POST", "/v1/auth", "", map[string]any{"email": testEmail, "password": "a brand new passphrase"}); st != http.StatusOK {
		t.Errorf("sign in with the new password: %d", st)
	}
}

var resetLink = regexp.MustCompile(`/password/reset/(pwr_[A-Za-z0-9]+)`)

// G: a forgotten password is reset by a mailed one-hour, single-use link; the page answers
// the same for unknown e-mails (and mails nothing then).
func TestPasswordResetByMail(t *testing.T) {
	e := newAPI(t)
	jwt := jwtFor(t, e)
	b := loggedOut(t, e)
	if _, doc := b.do(t, "GET", "/login", nil, false); doc.Find(`a[href="/password/forgot"]`).Length() != 1 {
		t.Fatal("the login page has no link to reset a password")
	}
	forgot := func(email string) (int, string) {
		b.do(t, "GET", "/password/forgot", nil, false)
		resp, doc := b.do(t, "POST", "/password/forgot", url.Values{"email": {email}, "_csrf": {b.csrf}}, false)
		return resp.StatusCode, doc.Find(`[data-testid=password-notice]`).Text()
	}
	st1, msg1 := forgot("nobody@example.com")
	st2, msg2 := forgot(testEmail)
	if st1 != http.StatusOK || st1 != st2 || msg1 != msg2 || msg1 == "" {
		t.Fatalf("unknown %d %q vs known %d %q: the answers must be the same", st1, msg1, st2, msg2)
	}
	mails, err := e.db.ListMail(t.Context(), e.account, model.Page{Size: 50, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	var link string
	for _, m := range mails {
		if strings.Contains(m.To, "nobody@") {
			t.Errorf("a mail went to an unknown address")
		}
		if m.To == testEmail {
			link = resetLink.FindString(m.HTML)
		}
	}
	if link == "" {
		t.Fatal("no reset mail")
	}
	b.do(t, "GET", link, nil, false)
	if resp, doc := b.do(t, "POST", link, url.Values{"password": {"password123"}, "confirm": {"password123"}, "_csrf": {b.csrf}}, false); resp.StatusCode != http.StatusBadRequest || !strings.Contains(doc.Text(), "too common") {
		t.Errorf("a common password: %d", resp.StatusCode)
	}
	resp, doc := b.do(t, "POST", link, url.Values{"password": {"reset to this one"}, "confirm": {"reset to this one"}, "_csrf": {b.csrf}}, false)
	if resp.StatusCode != http.StatusOK || doc.Find(`[data-testid=login-notice]`).Length() != 1 {
		t.Fatalf("reset: %d", resp.StatusCode)
	}
	if st, _ := e.request(t, "GET", "/v1/spaces", jwt); st != http.StatusUnauthorized {
		t.Errorf("a JWT from before the reset: %d", st)
	}
	if st, _ := e.call(t, "POST", "/v1/auth", "", map[string]any{"email": testEmail, "password": "reset to this one"}); st != http.StatusOK {
		t.Errorf("the new password: %d", st)
	}
	if resp, _ := b.do(t, "POST", link, url.Values{"password": {"and again this one"}, "confirm": {"and again this one"}, "_csrf": {b.csrf}}, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the link used twice: %d, want 404", resp.StatusCode)
	}
	// A link older than an hour is refused.
	forgot(testEmail)
	mails, _ = e.db.ListMail(t.Context(), e.account, model.Page{Size: 50, Number: 1})
	late := resetLink.FindString(mails[0].HTML)
	if late == "" || late == link {
		t.Fatalf("no second link: %q", late)
	}
	e.now = e.now.Add(61 * time.Minute)
	if resp, _ := b.do(t, "GET", late, nil, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a link after an hour: %d, want 404", resp.StatusCode)
	}
}
