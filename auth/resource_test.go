package auth_test

import (
	"testing"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
)

// TestCan checks the resource policy's two questions, class and scope, for each kind of
// principal against its own resource, another space's and another environment's.
func TestCan(t *testing.T) {
	const acc, env, env2, sp, sp2, sh, sh2 = "us_acc_1", "us_env_1", "us_env_2", "us_sp_1", "us_sp_2", "us_sh_1", "us_sh_2"
	principals := map[string]*auth.Principal{
		"secret key":   {Kind: auth.SecretKey, AccountID: acc, EnvironmentID: env, ActorID: "us_key_1"},
		"account user": {Kind: auth.UserToken, AccountID: acc, UserID: "us_usr_1", ActorID: "us_usr_1"},
		"space token":  {Kind: auth.SpaceToken, AccountID: acc, EnvironmentID: env, SpaceID: sp, ActorID: "us_key_pk"},
		"guest":        {Kind: auth.GuestToken, AccountID: acc, EnvironmentID: env, SpaceID: sp, ActorID: "us_g_1"},
		"clip link":    {Kind: auth.ClipToken, AccountID: acc, EnvironmentID: env, SpaceID: sp, SheetID: sh, ActorID: "us_g_2"},
		"clip editor":  {Kind: auth.ClipToken, AccountID: acc, EnvironmentID: env, SpaceID: sp, SheetID: sh, ClipEdit: true, ActorID: "us_g_3"},
	}
	space := auth.Resource{Kind: auth.ResSpace, AccountID: acc, EnvironmentID: env, SpaceID: sp}
	content := auth.Resource{Kind: auth.ResContent, AccountID: acc, EnvironmentID: env, SpaceID: sp}
	sheet := auth.Resource{Kind: auth.ResSheet, AccountID: acc, EnvironmentID: env, SpaceID: sp, SheetID: sh}
	otherSheet := auth.Resource{Kind: auth.ResSheet, AccountID: acc, EnvironmentID: env, SpaceID: sp, SheetID: sh2}
	otherSpace := auth.Resource{Kind: auth.ResContent, AccountID: acc, EnvironmentID: env, SpaceID: sp2}
	otherEnv := auth.Resource{Kind: auth.ResContent, AccountID: acc, EnvironmentID: env2, SpaceID: "us_sp_9"}
	config := auth.Resource{Kind: auth.ResEnvConfig, AccountID: acc, EnvironmentID: env}
	accountApp := auth.Resource{Kind: auth.ResApp, AccountID: acc}
	envApp := auth.Resource{Kind: auth.ResApp, AccountID: acc, EnvironmentID: env}
	otherAccount := auth.Resource{Kind: auth.ResContent, AccountID: "us_acc_2", EnvironmentID: env, SpaceID: sp}

	const ok, nf, fb = "", errs.NotFound, errs.Forbidden
	tests := []struct {
		who  string
		verb auth.Verb
		res  auth.Resource
		want errs.Code
	}{
		{"secret key", auth.Manage, space, ok},
		{"secret key", auth.Write, otherSpace, ok},
		{"secret key", auth.Read, otherEnv, nf},
		{"secret key", auth.Write, config, ok},
		{"secret key", auth.Write, accountApp, nf}, // apps for several environments are the account's
		{"secret key", auth.Write, envApp, ok},
		{"secret key", auth.Read, otherAccount, nf},
		{"account user", auth.Read, otherEnv, ok},
		{"account user", auth.Write, accountApp, ok},
		{"space token", auth.Manage, space, ok},
		{"space token", auth.Write, content, ok},
		{"space token", auth.Read, otherSpace, nf},
		{"space token", auth.Write, config, fb},
		{"space token", auth.Read, config, fb},
		{"guest", auth.Read, space, ok},
		{"guest", auth.Manage, space, fb},
		{"guest", auth.Write, sheet, ok},
		{"guest", auth.Write, content, ok},
		{"guest", auth.Read, otherSpace, nf},
		{"guest", auth.Write, config, fb},
		{"clip link", auth.Read, sheet, ok},
		{"clip link", auth.Write, sheet, fb},
		{"clip link", auth.Read, otherSheet, nf},
		{"clip link", auth.Read, content, fb},
		{"clip link", auth.Read, space, fb},
		{"clip editor", auth.Write, sheet, ok},
		{"clip editor", auth.Manage, sheet, fb},
	}
	for _, tt := range tests {
		err := auth.Can(principals[tt.who], tt.verb, tt.res)
		var got errs.Code
		if err != nil {
			got = errs.CodeOf(err)
		}
		if got != tt.want {
			t.Errorf("%s %s %s %+v: got %q (%v), want %q", tt.who, tt.verb, tt.res.Kind, tt.res, got, err, tt.want)
		}
	}
}

// A space token's mapping history is its space's: visitors of one publishable key do not
// share (or wipe) each other's.
func TestHistoryOwner(t *testing.T) {
	a := &auth.Principal{Kind: auth.SpaceToken, AccountID: "a", EnvironmentID: "e", SpaceID: "us_sp_1", ActorID: "us_key_pk"}
	b := &auth.Principal{Kind: auth.SpaceToken, AccountID: "a", EnvironmentID: "e", SpaceID: "us_sp_2", ActorID: "us_key_pk"}
	if auth.HistoryOwner(a) == auth.HistoryOwner(b) {
		t.Fatalf("two visitors of one key share mapping history %q", auth.HistoryOwner(a))
	}
	hist := auth.Resource{Kind: auth.ResHistory, AccountID: "a", EnvironmentID: "e", SpaceID: "us_sp_1", OwnerID: auth.HistoryOwner(a)}
	if err := auth.Can(b, auth.Write, hist); err == nil {
		t.Fatal("one visitor may change another's mapping history")
	}
	if err := auth.Can(a, auth.Write, hist); err != nil {
		t.Fatalf("a visitor may not change its own mapping history: %v", err)
	}
}
