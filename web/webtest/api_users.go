package webtest

import (
	"regexp"
	"testing"
)

var InviteLink = regexp.MustCompile(`/invite/(inv_[A-Za-z0-9]+)`)

// LastInvite is the invitation link of the newest mail in the outbox.
func LastInvite(t *testing.T, e *Env, to string) string {
	t.Helper()
	for _, m := range ListOf(e.MustCall(t, "GET", "/v1/outbox", JwtFor(t, e), nil)) {
		mm := m.(map[string]any)
		if mm["to"] == to {
			if l := InviteLink.FindString(mm["html"].(string)); l != "" {
				return l
			}
		}
	}
	t.Fatalf("no invitation to %s in the outbox", to)
	return ""
}

func ErrorMessage(out map[string]any) string {
	errsList, _ := out["errors"].([]any)
	if len(errsList) == 0 {
		return ""
	}
	m, _ := errsList[0].(map[string]any)["message"].(string)
	return m
}
