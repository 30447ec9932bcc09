package api

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// SheetStore is what the sheet handlers need.
type SheetStore interface {
	Settings() sqldb.Settings // the caps on names, widths and request sizes
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error)
	ListSheets(ctx context.Context, accountID, workbookID string) ([]*model.Sheet, *model.Workbook, error)
	ChangeSheet(ctx context.Context, accountID, id, actor string, change func(s *model.Sheet, w *model.Workbook) (bool, error)) (*model.Sheet, error)
	DeleteSheet(ctx context.Context, accountID, id, actor string) error
	SetSheetLocked(ctx context.Context, accountID, id string, locked bool, actor string) error
	ListCommits(ctx context.Context, column, id string, completed *bool) ([]*model.Commit, error)
	GetRecordCounts(ctx context.Context, accountID, sheetID string) (*recordset.Counts, error)
}

// Sheets serves /v1/sheets.
type Sheets struct{ store SheetStore }

// NewSheets returns the sheet handlers.
func NewSheets(s SheetStore) *Sheets { return &Sheets{store: s} }

type sheetCountsJSON struct {
	Total         int64            `json:"total"`
	Valid         int64            `json:"valid"`
	Error         int64            `json:"error"`
	ErrorsByField map[string]int64 `json:"errorsByField,omitempty"`
}

type sheetJSON struct {
	ID           string            `json:"id"`
	WorkbookID   string            `json:"workbookId"`
	Name         string            `json:"name"`
	Slug         string            `json:"slug"`
	Config       model.SheetConfig `json:"config"`
	Metadata     json.RawMessage   `json:"metadata"`
	Namespace    string            `json:"namespace,omitempty"`
	LockedBy     string            `json:"lockedBy,omitempty"`
	LockedAt     *Time             `json:"lockedAt,omitempty"`
	RecordCounts *sheetCountsJSON  `json:"recordCounts,omitempty"`
	CreatedAt    Time              `json:"createdAt"`
	UpdatedAt    Time              `json:"updatedAt"`
}

func toSheetJSON(s *model.Sheet, counts *recordset.Counts) sheetJSON {
	out := sheetJSON{ID: s.ID, WorkbookID: s.WorkbookID, Name: s.Name, Slug: s.Slug, Config: s.Config, Metadata: s.Metadata,
		Namespace: s.Namespace, LockedBy: s.LockedBy, LockedAt: wireTime(s.LockedAt), CreatedAt: Time(s.CreatedAt), UpdatedAt: Time(s.UpdatedAt)}
	out.Config.Name, out.Config.Slug = s.Name, s.Slug
	if counts != nil {
		out.RecordCounts = &sheetCountsJSON{Total: counts.Total, Valid: counts.Valid, Error: counts.Error, ErrorsByField: counts.ErrorsByField}
	}
	return out
}

func (h *Sheets) sheet(c *fiber.Ctx, v auth.Verb) (*auth.Principal, *model.Sheet, *model.Workbook, error) {
	p := PrincipalOf(c)
	s, w, err := h.store.GetSheet(ctxOf(c), p.AccountID, c.Params("sheetId"))
	if err != nil {
		return nil, nil, nil, err
	}
	if err := may(c, v, place.Sheet(w, s.ID)); err != nil {
		return nil, nil, nil, err
	}
	return p, s, w, nil
}

// Get handles GET /v1/sheets/:sheetId; recordCounts come from the kept counts, not a scan.
func (h *Sheets) Get(c *fiber.Ctx) error {
	p, s, _, err := h.sheet(c, auth.Read)
	if err != nil {
		return err
	}
	counts, err := h.store.GetRecordCounts(ctxOf(c), p.AccountID, s.ID)
	if err != nil {
		return err
	}
	return data(c, toSheetJSON(s, counts))
}

// List handles GET /v1/sheets?workbookId=.
func (h *Sheets) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	id := c.Query("workbookId")
	if id == "" {
		return errs.Invalidf("workbookId", "workbookId is required")
	}
	sheets, w, err := h.store.ListSheets(ctxOf(c), p.AccountID, id)
	if err != nil {
		return err
	}
	if err := may(c, auth.Read, place.Of(w)); err != nil {
		return err
	}
	out := make([]sheetJSON, 0, len(sheets))
	for _, s := range sheets {
		out = append(out, toSheetJSON(s, nil))
	}
	return data(c, out)
}

// Update handles PATCH /v1/sheets/:sheetId (name, slug, metadata).
func (h *Sheets) Update(c *fiber.Ctx) error {
	p, s, _, err := h.sheet(c, auth.Manage)
	if err != nil {
		return err
	}
	var in struct {
		Name     *string         `json:"name"`
		Slug     *string         `json:"slug"`
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if err := rawObject("metadata", in.Metadata); err != nil {
		return err
	}
	s, err = h.store.ChangeSheet(ctxOf(c), p.AccountID, s.ID, p.ActorID, func(s *model.Sheet, _ *model.Workbook) (bool, error) {
		if in.Name != nil {
			s.Config.Name = *in.Name
		}
		if in.Slug != nil {
			s.Config.Slug = *in.Slug
		}
		if len(in.Metadata) > 0 {
			s.Metadata = in.Metadata
		}
		return false, schema.Sheet(&s.Config, "sheet", h.store.Settings().Caps)
	})
	if err != nil {
		return err
	}
	return data(c, toSheetJSON(s, nil))
}

// Delete handles DELETE /v1/sheets/:sheetId.
func (h *Sheets) Delete(c *fiber.Ctx) error {
	p, s, _, err := h.sheet(c, auth.Manage)
	if err != nil {
		return err
	}
	if err := h.store.DeleteSheet(ctxOf(c), p.AccountID, s.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Lock handles POST /v1/sheets/:sheetId/lock.
func (h *Sheets) Lock(c *fiber.Ctx) error { return h.setLocked(c, true) }

// Unlock handles POST /v1/sheets/:sheetId/unlock.
func (h *Sheets) Unlock(c *fiber.Ctx) error { return h.setLocked(c, false) }

func (h *Sheets) setLocked(c *fiber.Ctx, locked bool) error {
	p, s, _, err := h.sheet(c, auth.Manage)
	if err != nil {
		return err
	}
	if err := h.store.SetSheetLocked(ctxOf(c), p.AccountID, s.ID, locked, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// AddField handles POST /v1/sheets/:sheetId/fields?insertAtIndex=: body is a field (Property).
func (h *Sheets) AddField(c *fiber.Ctx) error {
	p, s, _, err := h.sheet(c, auth.Manage)
	if err != nil {
		return err
	}
	var f model.Field
	if err := bind(c, &f); err != nil {
		return err
	}
	at := -1
	if v := c.Query("insertAtIndex"); v != "" {
		if at, err = strconv.Atoi(v); err != nil || at < 0 {
			return errs.Invalidf("insertAtIndex", "insertAtIndex must be a whole number of at least 0")
		}
	}
	_, err = h.store.ChangeSheet(ctxOf(c), p.AccountID, s.ID, p.ActorID, func(s *model.Sheet, w *model.Workbook) (bool, error) {
		if at < 0 || at > len(s.Config.Fields) {
			at = len(s.Config.Fields)
		}
		fields := append([]model.Field{}, s.Config.Fields[:at]...)
		fields = append(fields, f)
		s.Config.Fields = append(fields, s.Config.Fields[at:]...)
		if err := schema.Sheet(&s.Config, "sheet", h.store.Settings().Caps); err != nil {
			return false, err
		}
		return true, referencesOf(w, s)
	})
	if err != nil {
		return err
	}
	added := f
	if err := schema.Field(&added, "field", h.store.Settings().Caps); err != nil {
		return err
	}
	return data(c, added)
}

// referencesOf checks the references of the workbook's sheets with s's new config.
func referencesOf(w *model.Workbook, s *model.Sheet) error {
	cfgs := make([]*model.SheetConfig, 0, len(w.Sheets))
	for _, other := range w.Sheets {
		if other.ID == s.ID {
			cfgs = append(cfgs, &s.Config)
		} else {
			cfgs = append(cfgs, &other.Config)
		}
	}
	return schema.References(cfgs)
}

// RemoveField handles DELETE /v1/sheets/:sheetId/fields/:fieldKey.
func (h *Sheets) RemoveField(c *fiber.Ctx) error {
	p, s, _, err := h.sheet(c, auth.Manage)
	if err != nil {
		return err
	}
	key := c.Params("fieldKey")
	_, err = h.store.ChangeSheet(ctxOf(c), p.AccountID, s.ID, p.ActorID, func(s *model.Sheet, w *model.Workbook) (bool, error) {
		kept := s.Config.Fields[:0:0]
		for _, f := range s.Config.Fields {
			if f.Key != key {
				kept = append(kept, f)
			}
		}
		if len(kept) == len(s.Config.Fields) {
			return false, errs.NotFoundf("fieldKey", "Sheet has no field %q", key)
		}
		for _, c := range s.Config.Constraints {
			for _, k := range c.Fields {
				if k == key {
					return false, errs.E(errs.Conflict, "fieldKey", "Field %q is part of constraint %q; remove the constraint first", key, c.Name)
				}
			}
		}
		s.Config.Fields = kept
		return true, referencesOf(w, s)
	})
	if err != nil {
		return err
	}
	return success(c)
}

// Commits handles GET /v1/sheets/:sheetId/commits?completed=.
func (h *Sheets) Commits(c *fiber.Ctx) error {
	_, s, _, err := h.sheet(c, auth.Read)
	if err != nil {
		return err
	}
	return listCommits(c, h.store, "sheet_id", s.ID)
}
