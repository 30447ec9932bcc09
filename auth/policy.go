package auth

import (
	"strings"

	"github.com/sluice/sluice/errs"
)

// Area is a group of routes that one permission covers. Every /v1 route names its area in
// web/routes.go; Allow decides, from the table below, which credentials may enter it. Inside
// an area the handlers still narrow by scope: a key or an environment user reaches its own
// environment, a space token or guest its own space.
type Area string

// The areas, from the widest audience to the narrowest.
const (
	AreaSpaceCreate   Area = "spaces:create"       // POST /v1/spaces
	AreaSpaceData     Area = "space"               // everything inside a space: workbooks, sheets, records, files, jobs, events…
	AreaEnvironment   Area = "environment"         // read and change one's environment; its keys
	AreaEnvManage     Area = "environments:manage" // create and delete environments
	AreaAccountRead   Area = "account:read"        // GET /v1/accounts/current
	AreaAccountManage Area = "account:manage"      // change the account; the outbox of invitation mail; the audit trail
	AreaPATs          Area = "pats"                // personal access tokens: a person's own
	AreaUsers         Area = "users"               // list, invite, change and remove users (a key: its environment's only)
	AreaEnvConfig     Area = "environment:config"  // secrets, guests, agents, apps
	AreaDataClips     Area = "data-clips"          // shared views of a space's records (not for guests)
)

// Class is the kind of credential as the permission table sees it.
type Class string

// The columns of the permission table.
const (
	ClassSecretKey   Class = "secret key" // an environment's sk_, or a token exchanged from it
	ClassPublishable Class = "publishable key"
	ClassSpace       Class = "space token"  // handed out with a space created by a key or user
	ClassAccountUser Class = "account user" // an account user's JWT, dashboard session or PAT
	ClassEnvUser     Class = "environment user"
	ClassGuest       Class = "guest"
	ClassClip        Class = "clip link" // a public data clip's link: its clip sheet only
)

// Classes is the table's column order.
var Classes = []Class{ClassSecretKey, ClassPublishable, ClassSpace, ClassAccountUser, ClassEnvUser, ClassGuest, ClassClip}

// Areas is the table's row order.
var Areas = []Area{AreaSpaceCreate, AreaSpaceData, AreaDataClips, AreaEnvironment, AreaEnvConfig, AreaUsers, AreaPATs, AreaAccountRead, AreaAccountManage, AreaEnvManage}

// Policy is the permission table: which classes may enter which area. It is printed in the
// docs/operations.md ("Security") and every route × class is tested against it.
var Policy = map[Area][]Class{
	AreaSpaceCreate:   {ClassSecretKey, ClassPublishable, ClassAccountUser, ClassEnvUser},
	AreaSpaceData:     {ClassSecretKey, ClassSpace, ClassAccountUser, ClassEnvUser, ClassGuest, ClassClip},
	AreaDataClips:     {ClassSecretKey, ClassSpace, ClassAccountUser, ClassEnvUser},
	AreaEnvironment:   {ClassSecretKey, ClassAccountUser, ClassEnvUser},
	AreaEnvConfig:     {ClassSecretKey, ClassAccountUser, ClassEnvUser},
	AreaUsers:         {ClassSecretKey, ClassAccountUser, ClassEnvUser},
	AreaPATs:          {ClassAccountUser, ClassEnvUser},
	AreaAccountRead:   {ClassSecretKey, ClassAccountUser, ClassEnvUser},
	AreaAccountManage: {ClassAccountUser},
	AreaEnvManage:     {ClassAccountUser},
}

// ClassOf places a principal in the table.
func ClassOf(p *Principal) Class {
	switch p.Kind {
	case SecretKey, APIToken:
		return ClassSecretKey
	case PublishableKey:
		return ClassPublishable
	case SpaceToken:
		return ClassSpace
	case GuestToken:
		return ClassGuest
	case ClipToken:
		return ClassClip
	case UserToken, PersonalToken:
		if p.SpaceID != "" {
			return ClassSpace
		}
		if p.EnvironmentID != "" {
			return ClassEnvUser
		}
		return ClassAccountUser
	}
	return ""
}

// Allows reports whether class c may enter area a.
func Allows(a Area, c Class) bool {
	for _, x := range Policy[a] {
		if x == c {
			return true
		}
	}
	return false
}

// Allow is the one permission check: nil when p may enter area a, else a forbidden error
// that says who may.
func Allow(p *Principal, a Area) error {
	c := ClassOf(p)
	if Allows(a, c) {
		return nil
	}
	return errs.E(errs.Forbidden, "Authorization", "A %s may not do this (%s is for: %s)", c, a, who(a))
}

func who(a Area) string { return joinClasses(Policy[a]) }

// joinClasses names classes for a message: "secret key, guest"; "nobody" for none.
func joinClasses(cs []Class) string {
	if len(cs) == 0 {
		return "nobody"
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// areaNotes says in words what each area covers, for the table in docs/operations.md.
var areaNotes = map[Area]string{
	AreaSpaceCreate:   "`POST /v1/spaces`",
	AreaSpaceData:     "everything inside a space: spaces, workbooks, sheets, records, files, jobs, actions, events, documents, views, snapshots, commits, mapping, instructions",
	AreaDataClips:     "data clips",
	AreaEnvironment:   "read and change the environment; `GET /v1/auth/api-keys`",
	AreaEnvConfig:     "secrets, guests and guest invitations, agents, apps",
	AreaUsers:         "`/v1/users` (a key or environment user: only the users of its environment)",
	AreaPATs:          "`/v1/auth/personal-access-tokens` (one's own)",
	AreaAccountRead:   "`GET /v1/accounts/current`",
	AreaAccountManage: "`PATCH /v1/accounts/current`, `GET /v1/outbox` (invitation links), the audit trail",
	AreaEnvManage:     "`POST /v1/environments`, `DELETE /v1/environments/:id`",
}

// PolicyMarkdown renders the permission table as docs/operations.md shows it.
func PolicyMarkdown() string {
	var b strings.Builder
	tableHead(&b, "Area", "Routes")
	for _, a := range Areas {
		b.WriteString("| `" + string(a) + "` | " + areaNotes[a] + " |")
		tableMarks(&b, func(c Class) bool { return Allows(a, c) })
	}
	return b.String()
}

// tableHead writes a permission table's head: two columns, then one per class.
func tableHead(b *strings.Builder, first, second string) {
	b.WriteString("| " + first + " | " + second + " |")
	for _, c := range Classes {
		b.WriteString(" " + string(c) + " |")
	}
	b.WriteString("\n|---|---|")
	for range Classes {
		b.WriteString(":-:|")
	}
	b.WriteString("\n")
}

// tableMarks ends a row with a mark per class: ✓ where allowed.
func tableMarks(b *strings.Builder, allowed func(Class) bool) {
	for _, c := range Classes {
		mark := "—"
		if allowed(c) {
			mark = "✓"
		}
		b.WriteString(" " + mark + " |")
	}
	b.WriteString("\n")
}
