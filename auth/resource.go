package auth

import (
	"slices"
	"strings"

	"github.com/sluice/sluice/errs"
)

// The second level of authorization. A route's area (Policy) decides who may knock; the
// resource policy below decides, for the one resource a request names, whether this principal
// may do this verb on it. Every id a request carries (path, query, body, a job's config) and
// every id a stored row names before a background job acts on it is checked here, through
// Can, and nowhere else.

// Verb is what a request does to a resource.
type Verb string

// The verbs.
const (
	Read   Verb = "read"
	Write  Verb = "write"  // create, change or delete what the resource holds
	Manage Verb = "manage" // the resource's own settings, archiving and deletion
)

// Verbs is the table's column order within a resource.
var Verbs = []Verb{Read, Write, Manage}

// Res is a kind of resource, as the resource policy sees it.
type Res string

// The resource kinds.
const (
	ResSpace     Res = "space"               // the space itself
	ResContent   Res = "space content"       // workbooks, files, jobs, events, documents, views, snapshots, actions, commits
	ResSheet     Res = "sheet"               // a sheet, its records and what is shown on it
	ResEnvConfig Res = "environment config"  // mapping programs, instructions, secrets, agents, guests, the environment
	ResHistory   Res = "own mapping history" // the mapping choices of one actor (or embedded visitor)
	ResApp       Res = "app"                 // an app and its constraints
)

// Resources is the table's row order.
var Resources = []Res{ResSpace, ResContent, ResSheet, ResEnvConfig, ResHistory, ResApp}

// Resource is one thing a request acts on, placed by its scope. Empty scope fields mean the
// resource lies above that level: an environment's mapping program has no space, an app for
// every environment no environment.
type Resource struct {
	Kind          Res
	AccountID     string
	EnvironmentID string
	SpaceID       string
	SheetID       string
	OwnerID       string // an actor's own resource (mapping history): only that actor reaches it
}

var (
	trusted   = []Class{ClassSecretKey, ClassAccountUser, ClassEnvUser}
	inSpace   = []Class{ClassSecretKey, ClassSpace, ClassAccountUser, ClassEnvUser, ClassGuest}
	spaceOwns = []Class{ClassSecretKey, ClassSpace, ClassAccountUser, ClassEnvUser}
	withClip  = []Class{ClassSecretKey, ClassSpace, ClassAccountUser, ClassEnvUser, ClassGuest, ClassClip}
)

// ResourcePolicy is the second-level table: for each kind of resource and verb, the classes
// of principal that may act, provided the resource lies within the principal's scope. It is
// printed in the docs/operations.md ("Security") and TestResourceMatrix is derived from it.
var ResourcePolicy = map[Res]map[Verb][]Class{
	ResSpace:     {Read: inSpace, Write: spaceOwns, Manage: spaceOwns},
	ResContent:   {Read: inSpace, Write: inSpace, Manage: inSpace},
	ResSheet:     {Read: withClip, Write: withClip, Manage: inSpace},
	ResEnvConfig: {Read: trusted, Write: trusted, Manage: trusted},
	ResHistory:   {Read: inSpace, Write: inSpace},
	ResApp:       {Read: trusted, Write: trusted, Manage: trusted},
}

// resourceNotes says what each row covers and the conditions a mark carries.
var resourceNotes = map[Res]string{
	ResSpace:     "the space: read it; `PATCH` its settings, theme, access, metadata; archive; delete",
	ResContent:   "workbooks, files, jobs, events, documents, views, snapshots, actions, commits of a space",
	ResSheet:     "a sheet and its records, counts, cells, downloads and instructions (a clip link: its clip sheet only; write only when the clip's `sharedLinkEdit` is true)",
	ResEnvConfig: "mapping programs, instructions (write), secrets, agents, guests, the environment's settings",
	ResHistory:   "the mapping choices one actor made (an embedded visitor's: its own space's)",
	ResApp:       "apps and their constraints (a key or environment user: apps limited to its one environment)",
}

// Allowed reports whether class c may do verb v on resources of kind r.
func Allowed(r Res, v Verb, c Class) bool {
	for _, x := range ResourcePolicy[r][v] {
		if x == c {
			return true
		}
	}
	return false
}

// Within reports whether resource r lies inside p's scope: its account, environment, space,
// clip sheet and, for an actor's own resource, the actor.
func Within(p *Principal, r Resource) bool {
	switch {
	case r.AccountID != p.AccountID:
		return false
	case p.EnvironmentID != "" && p.EnvironmentID != r.EnvironmentID:
		return false
	case p.SpaceID != "" && p.SpaceID != r.SpaceID:
		return false
	case p.SheetID != "" && p.SheetID != r.SheetID:
		return false
	case r.OwnerID != "" && r.OwnerID != HistoryOwner(p):
		return false
	}
	return true
}

// Can is the one resource check: nil when p may do v on r. A class that may never do v on
// this kind of resource is forbidden, with a message that says who may (that tells nothing of
// the resource); a resource outside p's scope is not found, so its existence does not leak.
func Can(p *Principal, v Verb, r Resource) error {
	if p == nil {
		return errs.E(errs.Unauthorized, "Authorization", "Missing bearer token")
	}
	c := ClassOf(p)
	if !Allowed(r.Kind, v, c) {
		return errs.E(errs.Forbidden, "Authorization", "A %s may not %s this %s (allowed: %s)", c, v, r.Kind, whoMay(r.Kind, v))
	}
	if !Within(p, r) {
		return errs.E(errs.NotFound, idKey(r.Kind), "%s not found", noun(r.Kind))
	}
	if c == ClassClip && v == Write && !p.ClipEdit {
		return errs.E(errs.Forbidden, "Authorization", "This data clip's link is read-only")
	}
	return nil
}

// Trusted reports whether p is one of the environment's own credentials (its secret key, its
// users): the classes every row of the table trusts, as against those anyone can hold.
func Trusted(p *Principal) bool { return slices.Contains(trusted, ClassOf(p)) }

// HistoryOwner is whose mapping history p reads and writes: a person's or key's own, and for
// a space token (an embedded visitor) that space's, so visitors of one publishable key do not
// share what they chose.
func HistoryOwner(p *Principal) string {
	if p.SpaceID != "" && p.Kind == SpaceToken {
		return p.SpaceID
	}
	return p.ActorID
}

func idKey(r Res) string {
	switch r {
	case ResSpace:
		return "spaceId"
	case ResSheet:
		return "sheetId"
	case ResApp:
		return "appId"
	}
	return "id"
}

func noun(r Res) string {
	switch r {
	case ResSpace:
		return "Space"
	case ResSheet:
		return "Sheet"
	case ResApp:
		return "App"
	case ResHistory:
		return "Mapping history"
	}
	return "Resource"
}

func whoMay(r Res, v Verb) string { return joinClasses(ResourcePolicy[r][v]) }

// ResourcePolicyMarkdown renders the resource table as docs/operations.md shows it.
func ResourcePolicyMarkdown() string {
	var b strings.Builder
	tableHead(&b, "Resource", "Verb")
	for _, r := range Resources {
		for _, v := range Verbs {
			if len(ResourcePolicy[r][v]) == 0 {
				continue
			}
			b.WriteString("| " + string(r) + " | " + string(v) + " |")
			tableMarks(&b, func(c Class) bool { return Allowed(r, v, c) })
		}
	}
	b.WriteString("\n")
	for _, r := range Resources {
		b.WriteString("- **" + string(r) + "**: " + resourceNotes[r] + "\n")
	}
	return b.String()
}
