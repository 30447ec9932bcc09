package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

const spaceColumns = `s.id, s.account_id, s.environment_id, s.name, s.app_id, s.namespace, s.is_app_template, s.metadata, s.settings, s.actions,
	s.access, s.labels, s.guest_authentication, s.auto_configure, s.primary_workbook_id, s.translations_path, s.language_override,
	s.display_order, s.created_by, s.created_by_name, s.archived_at, s.last_activity_at, s.created_at, s.updated_at,
	(SELECT COUNT(*) FROM workbooks w WHERE w.space_id = s.id AND w.deleted_at IS NULL),
	(SELECT COUNT(*) FROM files f WHERE f.space_id = s.id AND f.deleted_at IS NULL)`

func scanSpace(sc sqldb.Scanner) (*model.Space, error) {
	var s model.Space
	var tmpl, auto int
	var meta, settings, actions, access, labels, ga string
	var order sql.NullInt64
	var archived, activity sql.NullInt64
	var c, u int64
	err := sc.Scan(&s.ID, &s.AccountID, &s.EnvironmentID, &s.Name, &s.AppID, &s.Namespace, &tmpl, &meta, &settings, &actions,
		&access, &labels, &ga, &auto, &s.PrimaryWorkbookID, &s.TranslationsPath, &s.LanguageOverride,
		&order, &s.CreatedByUserID, &s.CreatedByUserName, &archived, &activity, &c, &u, &s.WorkbooksCount, &s.FilesCount)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("spaceId", "Space not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan space")
	}
	s.IsAppTemplate, s.AutoConfigure = tmpl == 1, auto == 1
	s.Metadata, s.Settings, s.Actions = sqldb.RawOr(meta, "{}"), sqldb.RawOr(settings, "{}"), sqldb.RawOr(actions, "[]")
	s.Access, s.Labels, s.GuestAuthentication = sqldb.StringList(access), sqldb.StringList(labels), sqldb.StringList(ga)
	if order.Valid {
		v := int(order.Int64)
		s.DisplayOrder = &v
	}
	s.ArchivedAt, s.LastActivityAt = sqldb.FromNullMillis(archived), sqldb.FromNullMillis(activity)
	s.CreatedAt, s.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &s, nil
}

// CreateSpace stores s (filling id and times), emits space:created and, when the space asks
// for it with autoConfigure, creates its space:configure job (ready at once, store/jobs.go).
func (db *DB) CreateSpace(ctx context.Context, s *model.Space, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		s.ID = sqldb.NewID(sqldb.PrefixSpace)
		s.CreatedAt, s.UpdatedAt = tx.Now(), tx.Now()
		act := sqldb.SecondOf(tx.Now())
		s.LastActivityAt = &act
		if s.GuestAuthentication == nil {
			s.GuestAuthentication = []string{"shared_link", "magic_link"}
		}
		if s.Access == nil {
			s.Access = []string{"*"}
		}
		if s.Labels == nil {
			s.Labels = []string{}
		}
		for _, r := range []*json.RawMessage{&s.Metadata, &s.Settings} {
			if len(*r) == 0 || string(*r) == "null" {
				*r = json.RawMessage("{}")
			}
		}
		if len(s.Actions) == 0 || string(s.Actions) == "null" {
			s.Actions = json.RawMessage("[]")
		}
		_, err := tx.Exec(`INSERT INTO spaces (id, account_id, environment_id, name, app_id, namespace, is_app_template, metadata, settings, actions,
			access, labels, guest_authentication, auto_configure, primary_workbook_id, translations_path, language_override, display_order,
			created_by, created_by_name, archived_at, last_activity_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.AccountID, s.EnvironmentID, s.Name, s.AppID, s.Namespace, sqldb.BoolInt(s.IsAppTemplate), string(s.Metadata), string(s.Settings), string(s.Actions),
			sqldb.JSONText(s.Access), sqldb.JSONText(s.Labels), sqldb.JSONText(s.GuestAuthentication), sqldb.BoolInt(s.AutoConfigure), s.PrimaryWorkbookID, s.TranslationsPath,
			s.LanguageOverride, s.DisplayOrder, s.CreatedByUserID, s.CreatedByUserName, sqldb.MillisPtr(s.ArchivedAt), sqldb.Millis(act), sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
		if err != nil {
			return errs.Wrap(err, "insert space")
		}
		_, err = tx.Emit("space:created", spaceContext(s, actor), map[string]any{"spaceId": s.ID, "environmentId": s.EnvironmentID, "name": s.Name, "appId": s.AppID})
		if err != nil {
			return err
		}
		if !s.AutoConfigure {
			return nil // as Flatfile: only a space created with autoConfigure gets a build job
		}
		return tx.insertSpaceConfigureJob(s, actor)
	})
}

func spaceContext(s *model.Space, actor string) model.EventContext {
	c := model.EventContext{AccountID: s.AccountID, EnvironmentID: s.EnvironmentID, SpaceID: s.ID, ActorID: actor, AppID: s.AppID}
	if s.Namespace != "" {
		c.Namespaces = []string{s.Namespace}
	}
	return c
}

// GetSpace returns a live space of the account. Errors: not_found.
func (db *DB) GetSpace(ctx context.Context, accountID, id string) (*model.Space, error) {
	return getSpace(ctx, db.Reader, accountID, id)
}

func getSpace(ctx context.Context, q sqldb.Querier, accountID, id string) (*model.Space, error) {
	return scanSpace(q.QueryRowContext(ctx, `SELECT `+spaceColumns+` FROM spaces s WHERE s.id = ? AND s.account_id = ? AND s.deleted_at IS NULL`, id, accountID))
}

// SpaceFilter selects spaces. Nil pointers mean "no filter".
type SpaceFilter struct {
	AccountID     string
	EnvironmentID string
	AppID         *string
	Namespace     *string // "" selects spaces without a namespace
	IsAppTemplate *bool
	Archived      bool // include archived spaces
	Search        string
	SortField     string
	SortDesc      bool
	Page          model.Page
}

var spaceSorts = map[string]string{
	"name": "s.name COLLATE NOCASE", "createdAt": "s.created_at", "lastActivityAt": "s.last_activity_at",
	"environmentId": "s.environment_id", "createdByUserName": "s.created_by_name",
	"workbooksCount": "(SELECT COUNT(*) FROM workbooks w WHERE w.space_id = s.id AND w.deleted_at IS NULL)",
	"filesCount":     "(SELECT COUNT(*) FROM files f WHERE f.space_id = s.id AND f.deleted_at IS NULL)",
}

// SpaceSortable reports whether field is a sort field ListSpaces understands.
func SpaceSortable(field string) bool { _, ok := spaceSorts[field]; return ok }

// ListSpaces returns one page of spaces and the number of spaces matching f.
func (db *DB) ListSpaces(ctx context.Context, f SpaceFilter) ([]*model.Space, int, error) {
	where := []string{"s.account_id = ?", "s.deleted_at IS NULL"}
	args := []any{f.AccountID}
	add := func(cond string, v ...any) { where = append(where, cond); args = append(args, v...) }
	if f.EnvironmentID != "" {
		add("s.environment_id = ?", f.EnvironmentID)
	}
	if f.AppID != nil {
		add("s.app_id = ?", *f.AppID)
	}
	if f.Namespace != nil {
		add("s.namespace = ?", *f.Namespace)
	}
	if f.IsAppTemplate != nil {
		add("s.is_app_template = ?", sqldb.BoolInt(*f.IsAppTemplate))
	}
	if !f.Archived {
		add("s.archived_at IS NULL")
	}
	if f.Search != "" {
		add(db.Reader.Dialect().Contains("lower(s.name)", "lower(?)"), f.Search)
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM spaces s WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, errs.Wrap(err, "count spaces")
	}
	order := "s.created_at DESC"
	if col, ok := spaceSorts[f.SortField]; ok {
		order = col + " ASC"
		if f.SortDesc {
			order = col + " DESC"
		}
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+spaceColumns+` FROM spaces s WHERE `+cond+` ORDER BY `+order+`, s.id LIMIT ? OFFSET ?`,
		append(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list spaces")
	}
	defer rows.Close()
	out := []*model.Space{}
	for rows.Next() {
		s, err := scanSpace(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, s)
	}
	return out, total, rows.Err()
}

// SpaceUpdate holds the changeable fields of a space; nil leaves a field as is. ArchivedAt set
// with a nil *time.Time unarchives.
type SpaceUpdate struct {
	Name                *string
	AppID               *string
	Namespace           *string
	IsAppTemplate       *bool
	Metadata            json.RawMessage
	Settings            json.RawMessage
	Actions             json.RawMessage
	Access              []string
	Labels              []string
	GuestAuthentication []string
	AutoConfigure       *bool
	PrimaryWorkbookID   *string
	TranslationsPath    *string
	LanguageOverride    *string
	DisplayOrder        *int
	ArchivedAt          **time.Time
}

// UpdateSpace applies up and emits space:updated, plus space:archived or space:unarchived
// when the archive state changes. check runs on the loaded space before anything is written.
// Errors: not_found, and whatever check returns.
func (db *DB) UpdateSpace(ctx context.Context, accountID, id string, up SpaceUpdate, actor string, check func(*model.Space) error) (*model.Space, error) {
	var s *model.Space
	err := db.Update(ctx, func(tx *Tx) error {
		var err error
		if s, err = getSpace(ctx, tx, accountID, id); err != nil {
			return err
		}
		if check != nil {
			if err := check(s); err != nil {
				return err
			}
		}
		wasArchived := s.ArchivedAt != nil
		applySpaceUpdate(s, up)
		s.UpdatedAt = tx.Now()
		if up.ArchivedAt != nil && *up.ArchivedAt != nil {
			t := (*up.ArchivedAt).UTC()
			s.ArchivedAt = &t
		}
		if err := tx.saveSpace(s); err != nil {
			return err
		}
		if _, err := tx.Emit("space:updated", spaceContext(s, actor), map[string]any{"spaceId": s.ID}); err != nil {
			return err
		}
		return tx.emitArchiveChange(s, wasArchived, actor)
	})
	return s, err
}

func applySpaceUpdate(s *model.Space, up SpaceUpdate) {
	setStr := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	setStr(&s.Name, up.Name)
	setStr(&s.AppID, up.AppID)
	setStr(&s.Namespace, up.Namespace)
	setStr(&s.PrimaryWorkbookID, up.PrimaryWorkbookID)
	setStr(&s.TranslationsPath, up.TranslationsPath)
	setStr(&s.LanguageOverride, up.LanguageOverride)
	if up.IsAppTemplate != nil {
		s.IsAppTemplate = *up.IsAppTemplate
	}
	if up.AutoConfigure != nil {
		s.AutoConfigure = *up.AutoConfigure
	}
	if len(up.Metadata) > 0 {
		s.Metadata = up.Metadata
	}
	if len(up.Settings) > 0 {
		s.Settings = up.Settings
	}
	if len(up.Actions) > 0 {
		s.Actions = up.Actions
	}
	if up.Access != nil {
		s.Access = up.Access
	}
	if up.Labels != nil {
		s.Labels = up.Labels
	}
	if up.GuestAuthentication != nil {
		s.GuestAuthentication = up.GuestAuthentication
	}
	if up.DisplayOrder != nil {
		s.DisplayOrder = up.DisplayOrder
	}
	if up.ArchivedAt != nil && *up.ArchivedAt == nil {
		s.ArchivedAt = nil
	}
}

func (tx *Tx) saveSpace(s *model.Space) error {
	_, err := tx.Exec(`UPDATE spaces SET name = ?, app_id = ?, namespace = ?, is_app_template = ?, metadata = ?, settings = ?, actions = ?,
		access = ?, labels = ?, guest_authentication = ?, auto_configure = ?, primary_workbook_id = ?, translations_path = ?,
		language_override = ?, display_order = ?, archived_at = ?, updated_at = ? WHERE id = ?`,
		s.Name, s.AppID, s.Namespace, sqldb.BoolInt(s.IsAppTemplate), string(s.Metadata), string(s.Settings), string(s.Actions),
		sqldb.JSONText(s.Access), sqldb.JSONText(s.Labels), sqldb.JSONText(s.GuestAuthentication), sqldb.BoolInt(s.AutoConfigure), s.PrimaryWorkbookID,
		s.TranslationsPath, s.LanguageOverride, s.DisplayOrder, sqldb.MillisPtr(s.ArchivedAt), sqldb.Millis(s.UpdatedAt), s.ID)
	if err != nil {
		return errs.Wrap(err, "update space")
	}
	return nil
}

func (tx *Tx) emitArchiveChange(s *model.Space, wasArchived bool, actor string) error {
	var topic string
	switch {
	case !wasArchived && s.ArchivedAt != nil:
		topic = "space:archived"
	case wasArchived && s.ArchivedAt == nil:
		topic = "space:unarchived"
	default:
		return nil
	}
	_, err := tx.Emit(topic, spaceContext(s, actor), map[string]any{"spaceId": s.ID})
	return err
}

// SetSpaceArchived archives (archived true) or unarchives a space. Doing it twice is not an
// error and emits nothing the second time. Errors: not_found.
func (db *DB) SetSpaceArchived(ctx context.Context, accountID, id string, archived bool, actor string) (*model.Space, error) {
	var s *model.Space
	err := db.Update(ctx, func(tx *Tx) error {
		var err error
		if s, err = getSpace(ctx, tx, accountID, id); err != nil {
			return err
		}
		was := s.ArchivedAt != nil
		if was == archived {
			return nil
		}
		s.ArchivedAt = nil
		if archived {
			t := tx.Now()
			s.ArchivedAt = &t
		}
		s.UpdatedAt = tx.Now()
		if err := tx.saveSpace(s); err != nil {
			return err
		}
		return tx.emitArchiveChange(s, was, actor)
	})
	return s, err
}

// DeleteSpace soft-deletes a space with its workbooks and sheets and emits space:deleted.
// Errors: not_found.
func (db *DB) DeleteSpace(ctx context.Context, accountID, id, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		s, err := getSpace(ctx, tx, accountID, id)
		if err != nil {
			return err
		}
		now := sqldb.Millis(tx.Now())
		for _, q := range []string{
			`UPDATE sheets SET deleted_at = ? WHERE deleted_at IS NULL AND workbook_id IN (SELECT id FROM workbooks WHERE space_id = ?)`,
			`UPDATE workbooks SET deleted_at = ? WHERE deleted_at IS NULL AND space_id = ?`,
			`UPDATE spaces SET deleted_at = ? WHERE id = ?`,
		} {
			if _, err := tx.Exec(q, now, id); err != nil {
				return errs.Wrap(err, "delete space")
			}
		}
		_, err = tx.Emit("space:deleted", spaceContext(s, actor), map[string]any{"spaceId": id})
		return err
	})
}
