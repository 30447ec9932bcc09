package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

const workbookColumns = `w.id, w.account_id, w.environment_id, w.space_id, w.name, w.namespace, w.labels, w.treatments, w.metadata, w.settings, w.actions, w.created_at, w.updated_at`

func scanWorkbook(s sqldb.Scanner) (*model.Workbook, error) {
	var w model.Workbook
	var labels, treatments, meta, settings, actions string
	var c, u int64
	err := s.Scan(&w.ID, &w.AccountID, &w.EnvironmentID, &w.SpaceID, &w.Name, &w.Namespace, &labels, &treatments, &meta, &settings, &actions, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("workbookId", "Workbook not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan workbook")
	}
	w.Labels, w.Treatments = sqldb.StringList(labels), sqldb.StringList(treatments)
	w.Metadata, w.Settings, w.Actions = sqldb.RawOr(meta, "{}"), sqldb.RawOr(settings, "{}"), sqldb.RawOr(actions, "[]")
	w.CreatedAt, w.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &w, nil
}

func workbookContext(w *model.Workbook, actor string) model.EventContext {
	c := model.EventContext{AccountID: w.AccountID, EnvironmentID: w.EnvironmentID, SpaceID: w.SpaceID, WorkbookID: w.ID, ActorID: actor}
	if w.Namespace != "" {
		c.Namespaces = []string{w.Namespace}
	}
	return c
}

// CreateWorkbook stores w with its sheets (ids and times filled), emits workbook:created and
// sheet:created, and moves the space's lastActivityAt. The space must be live.
func (db *DB) CreateWorkbook(ctx context.Context, w *model.Workbook, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM spaces WHERE id = ? AND deleted_at IS NULL`, w.SpaceID).Scan(&n); err != nil || n == 0 {
			return errs.NotFoundf("spaceId", "Space not found")
		}
		w.ID = sqldb.NewID(sqldb.PrefixWorkbook)
		w.CreatedAt, w.UpdatedAt = tx.Now(), tx.Now()
		fillWorkbookDefaults(w)
		if _, err := tx.Exec(`INSERT INTO workbooks (id, account_id, environment_id, space_id, name, namespace, labels, treatments, metadata, settings, actions, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, w.ID, w.AccountID, w.EnvironmentID, w.SpaceID, w.Name, w.Namespace,
			sqldb.JSONText(w.Labels), sqldb.JSONText(w.Treatments), string(w.Metadata), string(w.Settings), string(w.Actions), sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now())); err != nil {
			return errs.Wrap(err, "insert workbook")
		}
		for i, s := range w.Sheets {
			if err := tx.insertSheet(w, s, i, actor); err != nil {
				return err
			}
		}
		if _, err := tx.Emit("workbook:created", workbookContext(w, actor), map[string]any{"workbookId": w.ID, "spaceId": w.SpaceID,
			"name": w.Name, "namespace": w.Namespace, "sheetCount": len(w.Sheets)}); err != nil {
			return err
		}
		return tx.TouchSpace(w.SpaceID)
	})
}

func fillWorkbookDefaults(w *model.Workbook) {
	if w.Labels == nil {
		w.Labels = []string{}
	}
	if w.Treatments == nil {
		w.Treatments = []string{}
	}
	for _, r := range []*json.RawMessage{&w.Metadata, &w.Settings} {
		if len(*r) == 0 || string(*r) == "null" {
			*r = json.RawMessage("{}")
		}
	}
	if len(w.Actions) == 0 || string(w.Actions) == "null" {
		w.Actions = json.RawMessage("[]")
	}
}

func (tx *Tx) insertSheet(w *model.Workbook, s *model.Sheet, pos int, actor string) error {
	s.ID = sqldb.NewID(sqldb.PrefixSheet)
	s.WorkbookID = w.ID
	s.Name, s.Slug = s.Config.Name, s.Config.Slug
	s.Namespace = w.Namespace
	s.CreatedAt, s.UpdatedAt = tx.Now(), tx.Now()
	if len(s.Metadata) == 0 || string(s.Metadata) == "null" {
		s.Metadata = json.RawMessage("{}")
	}
	cfg, err := json.Marshal(s.Config)
	if err != nil {
		return errs.Wrap(err, "encode sheet config")
	}
	if _, err := tx.Exec(`INSERT INTO sheets (id, workbook_id, name, slug, config, metadata, namespace, position, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.WorkbookID, s.Name, s.Slug, string(cfg), string(s.Metadata), s.Namespace, pos, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now())); err != nil {
		return errs.Wrap(err, "insert sheet")
	}
	ctx := workbookContext(w, actor)
	ctx.SheetID, ctx.SheetSlug = s.ID, s.Slug
	_, err = tx.Emit("sheet:created", ctx, map[string]any{"sheetId": s.ID, "workbookId": w.ID, "name": s.Name, "slug": s.Slug, "fieldCount": len(s.Config.Fields)})
	return err
}

// getWorkbook loads a live workbook of a live space with its sheets in sidebar order.
func getWorkbook(ctx context.Context, q sqldb.Querier, accountID, id string) (*model.Workbook, error) {
	w, err := scanWorkbook(q.QueryRowContext(ctx, `SELECT `+workbookColumns+` FROM workbooks w JOIN spaces s ON s.id = w.space_id
		WHERE w.id = ? AND w.account_id = ? AND w.deleted_at IS NULL AND s.deleted_at IS NULL`, id, accountID))
	if err != nil {
		return nil, err
	}
	if w.Sheets, err = listSheets(ctx, q, w.ID); err != nil {
		return nil, err
	}
	orderSheets(w)
	return w, nil
}

// GetWorkbook returns a live workbook with its sheets. Errors: not_found.
func (db *DB) GetWorkbook(ctx context.Context, accountID, id string) (*model.Workbook, error) {
	return getWorkbook(ctx, db.Reader, accountID, id)
}

// orderSheets puts the sheets named by settings.sheetSidebarOrder (ids or slugs) first, in
// that order, and appends the rest in creation order.
func orderSheets(w *model.Workbook) {
	var set struct {
		Order []string `json:"sheetSidebarOrder"`
	}
	_ = json.Unmarshal(w.Settings, &set)
	if len(set.Order) == 0 {
		return
	}
	rank := map[string]int{}
	for i, k := range set.Order {
		if _, ok := rank[k]; !ok {
			rank[k] = i
		}
	}
	ordered := make([]*model.Sheet, 0, len(w.Sheets))
	var rest []*model.Sheet
	placed := make([]*model.Sheet, len(set.Order))
	for _, s := range w.Sheets {
		i, ok := rank[s.ID]
		if !ok {
			i, ok = rank[s.Slug]
		}
		if ok && placed[i] == nil {
			placed[i] = s
		} else {
			rest = append(rest, s)
		}
	}
	for _, s := range placed {
		if s != nil {
			ordered = append(ordered, s)
		}
	}
	w.Sheets = append(ordered, rest...)
}

// WorkbookFilter selects workbooks. Name, Namespace and Label starting with "-" negate.
type WorkbookFilter struct {
	AccountID     string
	EnvironmentID string
	SpaceID       string
	Name          string
	Namespace     string
	Label         string
	Treatment     string
	IncludeSheets bool
}

// ListWorkbooks returns the live workbooks of live spaces matching f, oldest first.
func (db *DB) ListWorkbooks(ctx context.Context, f WorkbookFilter) ([]*model.Workbook, error) {
	where := []string{"w.account_id = ?", "w.deleted_at IS NULL", "s.deleted_at IS NULL"}
	args := []any{f.AccountID}
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if f.EnvironmentID != "" {
		add("w.environment_id = ?", f.EnvironmentID)
	}
	if f.SpaceID != "" {
		add("w.space_id = ?", f.SpaceID)
	}
	negatable := func(col, v string) {
		if v == "" {
			return
		}
		if neg, ok := strings.CutPrefix(v, "-"); ok {
			add(col+" <> ?", neg)
		} else {
			add(col+" = ?", v)
		}
	}
	negatable("w.name", f.Name)
	negatable("w.namespace", f.Namespace)
	if f.Label != "" {
		label, neg := strings.CutPrefix(f.Label, "-")
		cond := "EXISTS (SELECT 1 FROM " + db.Reader.Dialect().JSONTexts("w.labels") + " WHERE value = ?)"
		if neg {
			cond = "NOT " + cond
		}
		add(cond, label)
	}
	if f.Treatment != "" {
		add("EXISTS (SELECT 1 FROM "+db.Reader.Dialect().JSONTexts("w.treatments")+" WHERE value = ?)", f.Treatment)
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+workbookColumns+` FROM workbooks w JOIN spaces s ON s.id = w.space_id WHERE `+
		strings.Join(where, " AND ")+` ORDER BY w.created_at, w.id`, args...)
	if err != nil {
		return nil, errs.Wrap(err, "list workbooks")
	}
	out := []*model.Workbook{}
	for rows.Next() {
		w, err := scanWorkbook(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, w)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "list workbooks")
	}
	if f.IncludeSheets {
		for _, w := range out {
			if w.Sheets, err = listSheets(ctx, db.Reader, w.ID); err != nil {
				return nil, err
			}
			orderSheets(w)
		}
	}
	return out, nil
}

// WorkbookUpdate holds the changeable parts of a workbook; nil leaves a part as is. Sheets
// are matched to existing ones by id or slug; the others are added.
type WorkbookUpdate struct {
	Name       *string
	Namespace  *string
	Labels     []string
	Treatments []string
	Metadata   json.RawMessage
	Settings   json.RawMessage
	Actions    json.RawMessage
	Sheets     []SheetUpdate
}

// SheetUpdate is one sheet of a workbook update: ID or Config.Slug names an existing sheet.
type SheetUpdate struct {
	ID       string
	Config   model.SheetConfig
	Metadata json.RawMessage
}

// UpdateWorkbook applies up, emits workbook:updated (never workbook:created) and
// sheet:created/sheet:updated, revalidates the records of sheets whose schema changed, and
// moves the space's lastActivityAt. Errors: not_found, invalid.
func (db *DB) UpdateWorkbook(ctx context.Context, accountID, id string, up WorkbookUpdate, actor string) (*model.Workbook, error) {
	var w *model.Workbook
	err := db.Update(ctx, func(tx *Tx) error {
		var err error
		if w, err = getWorkbook(ctx, tx, accountID, id); err != nil {
			return err
		}
		applyWorkbookUpdate(w, up)
		w.UpdatedAt = tx.Now()
		if _, err := tx.Exec(`UPDATE workbooks SET name = ?, namespace = ?, labels = ?, treatments = ?, metadata = ?, settings = ?, actions = ?, updated_at = ? WHERE id = ?`,
			w.Name, w.Namespace, sqldb.JSONText(w.Labels), sqldb.JSONText(w.Treatments), string(w.Metadata), string(w.Settings), string(w.Actions), sqldb.Millis(tx.Now()), w.ID); err != nil {
			return errs.Wrap(err, "update workbook")
		}
		for _, su := range up.Sheets {
			if err := tx.upsertSheet(w, su, actor); err != nil {
				return err
			}
		}
		if _, err := tx.Emit("workbook:updated", workbookContext(w, actor), map[string]any{"workbookId": w.ID, "spaceId": w.SpaceID, "name": w.Name}); err != nil {
			return err
		}
		if err := tx.TouchSpace(w.SpaceID); err != nil {
			return err
		}
		w, err = getWorkbook(ctx, tx, accountID, id)
		return err
	})
	return w, err
}

func applyWorkbookUpdate(w *model.Workbook, up WorkbookUpdate) {
	if up.Name != nil {
		w.Name = *up.Name
	}
	if up.Namespace != nil {
		w.Namespace = *up.Namespace
	}
	if up.Labels != nil {
		w.Labels = up.Labels
	}
	if up.Treatments != nil {
		w.Treatments = up.Treatments
	}
	if len(up.Metadata) > 0 {
		w.Metadata = up.Metadata
	}
	if len(up.Settings) > 0 {
		w.Settings = up.Settings
	}
	if len(up.Actions) > 0 {
		w.Actions = up.Actions
	}
}

func (tx *Tx) upsertSheet(w *model.Workbook, su SheetUpdate, actor string) error {
	var existing *model.Sheet
	for _, s := range w.Sheets {
		if (su.ID != "" && s.ID == su.ID) || (su.ID == "" && su.Config.Slug != "" && s.Slug == su.Config.Slug) {
			existing = s
		}
	}
	if existing == nil {
		if su.ID != "" {
			return errs.NotFoundf("sheets.id", "Sheet %s is not in this workbook", su.ID)
		}
		s := &model.Sheet{Config: su.Config, Metadata: su.Metadata}
		w.Sheets = append(w.Sheets, s)
		return tx.insertSheet(w, s, len(w.Sheets)-1, actor)
	}
	existing.Config = su.Config
	if len(su.Metadata) > 0 {
		existing.Metadata = su.Metadata
	}
	return tx.saveSheet(w, existing, actor, true)
}

// DeleteWorkbook soft-deletes a workbook with its sheets and emits workbook:deleted.
// Errors: not_found.
func (db *DB) DeleteWorkbook(ctx context.Context, accountID, id, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		w, err := getWorkbook(ctx, tx, accountID, id)
		if err != nil {
			return err
		}
		if err := tx.dropWorkbook(id); err != nil {
			return err
		}
		_, err = tx.Emit("workbook:deleted", workbookContext(w, actor), map[string]any{"workbookId": id, "spaceId": w.SpaceID})
		return err
	})
}

// dropWorkbook soft-deletes a workbook and its sheets (their records go out of reach).
func (tx *Tx) dropWorkbook(id string) error {
	if _, err := tx.Exec(`UPDATE sheets SET deleted_at = ? WHERE workbook_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id); err != nil {
		return errs.Wrap(err, "delete sheets")
	}
	if _, err := tx.Exec(`UPDATE workbooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id); err != nil {
		return errs.Wrap(err, "delete workbook")
	}
	return nil
}

// RebuildWorkbook re-checks every sheet's records against its schema and emits
// workbook:updated with rebuild true. check validates each sheet's config first.
// Errors: not_found, and what check returns.
func (db *DB) RebuildWorkbook(ctx context.Context, accountID, id, actor string, check func(*model.SheetConfig) error) error {
	return db.Update(ctx, func(tx *Tx) error {
		w, err := getWorkbook(ctx, tx, accountID, id)
		if err != nil {
			return err
		}
		for _, s := range w.Sheets {
			if err := check(&s.Config); err != nil {
				return err
			}
			if err := tx.RevalidateRecords(s.ID); err != nil {
				return err
			}
		}
		_, err = tx.Emit("workbook:updated", workbookContext(w, actor), map[string]any{"workbookId": id, "spaceId": w.SpaceID, "rebuild": true})
		return err
	})
}
