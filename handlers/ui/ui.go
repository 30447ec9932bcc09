// Package ui serves the dashboard pages: templ components rendered for full loads and htmx
// partials for interactions.
package ui

import (
	"context"
	"strings"
	"time"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// SessionUser is who a dashboard session belongs to. For a guest (opened through a guest
// link) UserID is the guest's id and GuestSpace the one space they may see.
type SessionUser struct {
	UserID     string
	AccountID  string
	Email      string
	GuestSpace string
	// Visitor marks an embedded importer's visitor (a space token made with the publishable
	// key or by a backend): every visitor acts as the key, so history is kept per space.
	Visitor bool
	// ClipSheet is set for a public data clip's link: that sheet alone, read-only unless
	// ClipEdit.
	ClipSheet string
	ClipEdit  bool
	// EnvironmentID is set for users invited with an environment's key: they see that
	// environment only.
	EnvironmentID string
	Since         time.Time // when the session was issued
}

// Principal is the session's principal for the resource policy (auth.Can): the user, with
// their environment, or a guest of one space.
func (u SessionUser) Principal() *auth.Principal {
	if u.ClipSheet != "" {
		return &auth.Principal{Kind: auth.ClipToken, AccountID: u.AccountID, EnvironmentID: u.EnvironmentID, SpaceID: u.GuestSpace, SheetID: u.ClipSheet,
			ClipEdit: u.ClipEdit, ActorID: u.UserID}
	}
	if u.GuestSpace != "" && u.Visitor {
		return &auth.Principal{Kind: auth.SpaceToken, AccountID: u.AccountID, EnvironmentID: u.EnvironmentID, SpaceID: u.GuestSpace, ActorID: u.UserID}
	}
	if u.GuestSpace != "" {
		return &auth.Principal{Kind: auth.GuestToken, AccountID: u.AccountID, EnvironmentID: u.EnvironmentID, SpaceID: u.GuestSpace, Email: u.Email, ActorID: u.UserID}
	}
	return &auth.Principal{Kind: auth.UserToken, AccountID: u.AccountID, EnvironmentID: u.EnvironmentID, UserID: u.UserID, Email: u.Email, ActorID: u.UserID}
}

// historyOwner is whose mapping history the user's choices are kept in (auth.HistoryOwner).
func (u SessionUser) historyOwner() string { return auth.HistoryOwner(u.Principal()) }

// may asks the resource policy whether the signed-in user may do v on a loaded thing: the
// one check every page and form makes on an id it was given.
func may(c *fiber.Ctx, v auth.Verb, thing any) error {
	return auth.Can(userOf(c).Principal(), v, place.Of(thing))
}

// guard keeps guests inside their space: other spaces do not exist for them.
func guard(u SessionUser, spaceID string) error {
	if u.GuestSpace != "" && u.GuestSpace != spaceID {
		return errs.NotFoundf("spaceId", "Space not found")
	}
	return nil
}

// spaceGetter is the one store method spaceOf needs.
type spaceGetter interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
}

// spaceOf loads the space of the request's :spaceId for the signed-in user (a guest only
// reaches their own space).
func spaceOf(c *fiber.Ctx, s spaceGetter) (SessionUser, *model.Space, error) {
	u := userOf(c)
	if err := guard(u, c.Params("spaceId")); err != nil {
		return u, nil, err
	}
	sp, err := s.GetSpace(c.Context(), u.AccountID, c.Params("spaceId"))
	return u, sp, err
}

// staffOnly refuses what guests may not do.
func staffOnly(u SessionUser) error {
	if u.GuestSpace != "" {
		return errs.E(errs.Forbidden, "guest", "Guests cannot do this")
	}
	return nil
}

// Sessions starts and ends dashboard sessions.
type Sessions interface {
	Start(c *fiber.Ctx, u SessionUser) error
	End(c *fiber.Ctx)
}

// Store is what the pages read and write.
type Store interface {
	Settings() sqldb.Settings // the caps on names, widths and request sizes
	UserByEmail(ctx context.Context, email string) (*model.User, error)
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	ListEnvironments(ctx context.Context, accountID, envID string, p model.Page) ([]*model.Environment, int, error)
	ListSpaces(ctx context.Context, f store.SpaceFilter) ([]*model.Space, int, error)
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	CreateSpace(ctx context.Context, s *model.Space, actor string) error
	SetSpaceArchived(ctx context.Context, accountID, id string, archived bool, actor string) (*model.Space, error)
	ListWorkbooks(ctx context.Context, f store.WorkbookFilter) ([]*model.Workbook, error)
	ListFiles(ctx context.Context, f store.FileFilter) ([]*model.File, int, error)
	ListDocuments(ctx context.Context, spaceID string) ([]*model.Document, error)
	GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error)
	GetWorkbook(ctx context.Context, accountID, id string) (*model.Workbook, error)
	GetFile(ctx context.Context, accountID, id string) (*model.File, error)
	CreateWorkbook(ctx context.Context, w *model.Workbook, actor string) error
	UpdateWorkbook(ctx context.Context, accountID, id string, up store.WorkbookUpdate, actor string) (*model.Workbook, error)
	ChangeSheet(ctx context.Context, accountID, id, actor string, change func(s *model.Sheet, w *model.Workbook) (bool, error)) (*model.Sheet, error)
	CreateSnapshot(ctx context.Context, accountID, sheetID, label, threadID, actor string) (*recordset.Snapshot, error)
	GetRecordCounts(ctx context.Context, accountID, sheetID string) (*recordset.Counts, error)
	TopCellValues(ctx context.Context, accountID, sheetID, key string, q recordset.RecordQuery, n int) ([]recordset.CellCount, error)
	GetRecords(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery, withTotal bool) ([]*recordset.Record, int64, error)
	SourceLines(ctx context.Context, accountID, sheetID string, ids ...string) (recordset.LineRuns, error)
	UpdateRecords(ctx context.Context, sheetID string, in []recordset.RecordIn, opt recordset.WriteOptions) (*recordset.WriteResult, error)
	ApplyGridEdit(ctx context.Context, sheetID string, e recordset.GridEdit, opt recordset.WriteOptions) (*recordset.GridEditResult, error)
	InsertRecords(ctx context.Context, sheetID string, in []recordset.RecordIn, opt recordset.WriteOptions) (*recordset.WriteResult, error)
	DeleteRecords(ctx context.Context, sheetID string, ids []string, opt recordset.WriteOptions) (*recordset.WriteResult, error)
	FindAndReplace(ctx context.Context, sheetID string, q recordset.RecordQuery, fr recordset.FindReplace, opt recordset.WriteOptions) (*recordset.BulkResult, error)
	CountMatches(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery, fr recordset.FindReplace, max int) (int, bool, error)
	ClearColumn(ctx context.Context, sheetID, fieldKey string, opt recordset.WriteOptions) (*recordset.BulkResult, error)
	DeleteWhere(ctx context.Context, sheetID string, q recordset.RecordQuery, opt recordset.WriteOptions) (*recordset.BulkResult, error)
	BulkUpdate(ctx context.Context, sheetID string, q recordset.RecordQuery, cells map[string]recordset.CellIn, opt recordset.WriteOptions) (*recordset.BulkResult, error)
	GetColumnWidths(ctx context.Context, userID, sheetID string) (store.ColumnWidths, error)
	SaveColumnWidths(ctx context.Context, userID, sheetID string, w store.ColumnWidths) error
	Undo(ctx context.Context, sheetID string, opt recordset.WriteOptions) (*recordset.UndoResult, error)
	Redo(ctx context.Context, sheetID string, opt recordset.WriteOptions) (*recordset.UndoResult, error)
	UndoState(ctx context.Context, sheetID, actor string) (*recordset.UndoState, error)
	BlockingJob(ctx context.Context, workbookID string) (*model.Job, error)
	ReadGrid(ctx context.Context, q store.GridQuery) (*store.Grid, error)
	SaveView(ctx context.Context, v *store.View) error
	GetView(ctx context.Context, accountID, id string) (*store.View, error)
	ListViews(ctx context.Context, sheetID, createdBy string, p model.Page) ([]*store.View, int, error)
	DeleteView(ctx context.Context, accountID, id string) error
	GetDocument(ctx context.Context, spaceID, id string) (*model.Document, error)
	ListJobs(ctx context.Context, f store.JobFilter) ([]*model.Job, int, error)
	EachRecord(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery, fn func(*recordset.Record) error) error
	AcceptInvitation(ctx context.Context, raw, passwordHash string) (*model.User, error)
	InvitationLive(ctx context.Context, raw string) bool
	ListAgents(ctx context.Context, f store.AgentFilter) ([]*model.Agent, int, error)
}

// Handler serves the pages.
type Handler struct {
	store    Store
	sessions Sessions
	now      func() time.Time
	// Limiter throttles failed logins per e-mail and address.
	Limiter *auth.Limiter
}

// New returns the page handlers; now is the clock (the store's, so tests can move it).
func New(s Store, sess Sessions, now func() time.Time) *Handler {
	return &Handler{store: s, sessions: sess, now: now}
}

// UserKey is the request local holding the SessionUser.
const UserKey = "sluice.sessionUser"

// SetUser stores the session user of the request (the session middleware calls it).
func SetUser(c *fiber.Ctx, u SessionUser) {
	c.Locals(UserKey, u)
	c.Locals(views.KeyUser, u.Email)
	if u.GuestSpace == "" {
		c.Locals(views.KeyAdmin, "1")
	}
}

func userOf(c *fiber.Ctx) SessionUser {
	u, _ := c.Locals(UserKey).(SessionUser)
	return u
}

// Render writes a component: status, content type, Vary on HX-Request, then the HTML.
func Render(c *fiber.Ctx, status int, comp templ.Component) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Vary("HX-Request")
	return comp.Render(c.Context(), c.Response().BodyWriter())
}

// IsHTMX reports whether the request came from htmx.
func IsHTMX(c *fiber.Ctx) bool { return c.Get("HX-Request") == "true" }

func stamp(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func rowOf(s *model.Space) views.SpaceRow {
	created := s.CreatedAt
	return views.SpaceRow{ID: s.ID, Name: s.Name, Namespace: s.Namespace, Created: stamp(&created), LastActivity: stamp(s.LastActivityAt), Archived: s.ArchivedAt != nil}
}

// localPath reports whether u is a path on Sluice itself: "/…", but not "//host" or "/\\host",
// which browsers take for another site.
func localPath(u string) bool {
	return strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") && !strings.HasPrefix(u, "/\\")
}
