package ui

import (
	"context"
	"encoding/json"
	"testing"
)

// An outcome's next never sends the user to another site as if it were Sluice's own page.
func TestOutcomeNextStaysLocal(t *testing.T) {
	for _, tt := range []struct {
		next     string
		url      string
		external bool
	}{
		{`{"type":"id","id":"us_sh_1","path":"//evil.example/phish"}`, "/space/us_sp_1/sheet/us_sh_1", false},
		{`{"type":"id","id":"us_sh_1","path":"/\\evil.example"}`, "/space/us_sp_1/sheet/us_sh_1", false},
		{`{"type":"id","id":"us_sh_1","path":"/space/us_sp_1/files"}`, "/space/us_sp_1/files", false},
		{`{"type":"url","url":"//evil.example"}`, "", false},
		{`{"type":"url","url":"https://docs.example/x"}`, "https://docs.example/x", true},
		{`{"type":"url","url":"javascript:alert(1)"}`, "", false},
	} {
		n := outcomeNext(context.Background(), "us_sp_1", json.RawMessage(tt.next))
		got, ext := "", false
		if n != nil {
			got, ext = n.URL, n.External
		}
		if got != tt.url || ext != tt.external {
			t.Errorf("%s: got %q (external %v), want %q (external %v)", tt.next, got, ext, tt.url, tt.external)
		}
	}
}

// Embedded visitors of one publishable key keep their mapping choices per space; a guest and
// a user keep theirs as themselves.
func TestHistoryOwnerOfSessions(t *testing.T) {
	for _, tt := range []struct {
		u    SessionUser
		want string
	}{
		{SessionUser{UserID: "us_key_pk", AccountID: "a", GuestSpace: "us_sp_1", Visitor: true}, "us_sp_1"},
		{SessionUser{UserID: "us_key_pk", AccountID: "a", GuestSpace: "us_sp_2", Visitor: true}, "us_sp_2"},
		{SessionUser{UserID: "us_g_1", AccountID: "a", GuestSpace: "us_sp_1"}, "us_g_1"},
		{SessionUser{UserID: "us_usr_1", AccountID: "a"}, "us_usr_1"},
	} {
		if got := tt.u.historyOwner(); got != tt.want {
			t.Errorf("%+v: history of %q, want %q", tt.u, got, tt.want)
		}
	}
}
