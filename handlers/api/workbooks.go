package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
)

// WorkbookStore is what the workbook handlers need.
type WorkbookStore interface {
	Settings() sqldb.Settings // the caps on names, widths and request sizes
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	CreateWorkbook(ctx context.Context, w *model.Workbook, actor string) error
	GetWorkbook(ctx context.Context, accountID, id string) (*model.Workbook, error)
	ListWorkbooks(ctx context.Context, f store.WorkbookFilter) ([]*model.Workbook, error)
	UpdateWorkbook(ctx context.Context, accountID, id string, up store.WorkbookUpdate, actor string) (*model.Workbook, error)
	DeleteWorkbook(ctx context.Context, accountID, id, actor string) error
	RebuildWorkbook(ctx context.Context, accountID, id, actor string, check func(*model.SheetConfig) error) error
	ListCommits(ctx context.Context, column, id string, completed *bool) ([]*model.Commit, error)
}

// Workbooks serves /v1/workbooks.
type Workbooks struct{ store WorkbookStore }

// NewWorkbooks returns the workbook handlers.
func NewWorkbooks(s WorkbookStore) *Workbooks { return &Workbooks{store: s} }

// treatmentExtracted is the workbook treatment of workbooks extracted from a file; the spec
// calls it ExtractedFromSource, the client sends EXTRACTED_FROM_SOURCE. Both are accepted and
// the client's form is stored.
const treatmentExtracted = "EXTRACTED_FROM_SOURCE"

func normTreatment(t string) string {
	switch strings.ToLower(strings.ReplaceAll(t, "_", "")) {
	case "extractedfromsource":
		return treatmentExtracted
	case "smalldata":
		return "SMALL_DATA"
	}
	return t
}

type workbookJSON struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	SpaceID       string          `json:"spaceId"`
	EnvironmentID string          `json:"environmentId"`
	Namespace     string          `json:"namespace,omitempty"`
	Labels        []string        `json:"labels"`
	Treatments    []string        `json:"treatments"`
	Metadata      json.RawMessage `json:"metadata"`
	Settings      json.RawMessage `json:"settings"`
	Actions       json.RawMessage `json:"actions"`
	Sheets        []sheetJSON     `json:"sheets,omitempty"`
	CreatedAt     Time            `json:"createdAt"`
	UpdatedAt     Time            `json:"updatedAt"`
}

func toWorkbookJSON(w *model.Workbook, withSheets bool) workbookJSON {
	out := workbookJSON{ID: w.ID, Name: w.Name, SpaceID: w.SpaceID, EnvironmentID: w.EnvironmentID, Namespace: w.Namespace,
		Labels: nonEmptyList(w.Labels), Treatments: nonEmptyList(w.Treatments), Metadata: w.Metadata, Settings: w.Settings,
		Actions: w.Actions, CreatedAt: Time(w.CreatedAt), UpdatedAt: Time(w.UpdatedAt)}
	if withSheets {
		out.Sheets = make([]sheetJSON, 0, len(w.Sheets))
		for _, s := range w.Sheets {
			out.Sheets = append(out.Sheets, toSheetJSON(s, nil))
		}
	}
	return out
}

type workbookIn struct {
	Name          *string             `json:"name"`
	SpaceID       string              `json:"spaceId"`
	EnvironmentID string              `json:"environmentId"`
	Namespace     *string             `json:"namespace"`
	Labels        []string            `json:"labels"`
	Treatments    []string            `json:"treatments"`
	Metadata      json.RawMessage     `json:"metadata"`
	Settings      json.RawMessage     `json:"settings"`
	Actions       json.RawMessage     `json:"actions"`
	Sheets        []sheetConfigUpdate `json:"sheets"`
}

// sheetConfigUpdate is a SheetConfig, or on update a SheetConfigOrUpdate that may carry the
// id of an existing sheet.
type sheetConfigUpdate struct {
	model.SheetConfig
	ID string `json:"id"`
}

func (in *workbookIn) validate(p *auth.Principal, caps limits.Caps) error {
	if err := rawObject("metadata", in.Metadata); err != nil {
		return err
	}
	if err := rawObject("settings", in.Settings); err != nil {
		return err
	}
	if len(in.Settings) > 0 {
		var set struct {
			TrackChanges *bool    `json:"trackChanges"`
			Order        []string `json:"sheetSidebarOrder"`
			SubmitURL    *string  `json:"submitUrl"`
		}
		if err := json.Unmarshal(in.Settings, &set); err != nil {
			return errs.Invalidf("settings", "settings: trackChanges must be a boolean, sheetSidebarOrder an array of sheet ids and submitUrl a string")
		}
		if set.SubmitURL != nil && *set.SubmitURL != "" {
			// The built-in Submit signs what it sends with the environment's secret key: only
			// those trusted with the environment choose where it goes.
			if !auth.Trusted(p) {
				return errs.E(errs.Forbidden, "settings.submitUrl", "Only the environment's users and keys may set settings.submitUrl")
			}
			if u, err := url.Parse(*set.SubmitURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return errs.Invalidf("settings.submitUrl", "settings.submitUrl must be an http or https address")
			}
		}
	}
	if err := rawArray("actions", in.Actions); err != nil {
		return err
	}
	for i, t := range in.Treatments {
		in.Treatments[i] = normTreatment(t)
	}
	slugs := map[string]bool{}
	for i := range in.Sheets {
		cfg := &in.Sheets[i].SheetConfig
		if err := schema.Sheet(cfg, fmt.Sprintf("sheets[%d]", i), caps); err != nil {
			return err
		}
		if slugs[cfg.Slug] {
			return errs.Invalidf(fmt.Sprintf("sheets[%d].slug", i), "Two sheets of the workbook have the slug %q", cfg.Slug)
		}
		slugs[cfg.Slug] = true
	}
	return nil
}

// Create handles POST /v1/workbooks.
func (h *Workbooks) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in workbookIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return errs.Invalidf("name", "name is required")
	}
	if in.SpaceID == "" {
		return errs.Invalidf("spaceId", "spaceId is required")
	}
	sp, err := spaceOf(c, h.store, auth.Write, in.SpaceID)
	if err != nil {
		return err
	}
	w, err := in.build(p, sp, h.store.Settings().Caps)
	if err != nil {
		return err
	}
	if err := h.store.CreateWorkbook(ctxOf(c), w, p.ActorID); err != nil {
		return err
	}
	return data(c, toWorkbookJSON(w, true))
}

// build checks a new workbook's input and makes it for space sp.
func (in *workbookIn) build(p *auth.Principal, sp *model.Space, caps limits.Caps) (*model.Workbook, error) {
	if err := in.validate(p, caps); err != nil {
		return nil, err
	}
	if in.EnvironmentID != "" && in.EnvironmentID != sp.EnvironmentID {
		return nil, errs.Invalidf("environmentId", "environmentId does not match the space's environment")
	}
	w := &model.Workbook{AccountID: p.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, Name: *in.Name, Labels: in.Labels,
		Treatments: in.Treatments, Metadata: in.Metadata, Settings: in.Settings, Actions: in.Actions}
	if in.Namespace != nil {
		w.Namespace = *in.Namespace
	}
	cfgs := make([]*model.SheetConfig, 0, len(in.Sheets))
	for i := range in.Sheets {
		w.Sheets = append(w.Sheets, &model.Sheet{Config: in.Sheets[i].SheetConfig, Metadata: in.Sheets[i].Metadata})
		cfgs = append(cfgs, &w.Sheets[i].Config)
	}
	if err := schema.References(cfgs); err != nil {
		return nil, err
	}
	return w, nil
}

func (h *Workbooks) workbook(c *fiber.Ctx) (*auth.Principal, *model.Workbook, error) {
	w, err := inReach(c, verbOf(c), h.store.GetWorkbook, c.Params("workbookId"))
	return PrincipalOf(c), w, err
}

// Get handles GET /v1/workbooks/:workbookId.
func (h *Workbooks) Get(c *fiber.Ctx) error {
	_, w, err := h.workbook(c)
	if err != nil {
		return err
	}
	return data(c, toWorkbookJSON(w, true))
}

// List handles GET /v1/workbooks.
func (h *Workbooks) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	f := store.WorkbookFilter{AccountID: p.AccountID, EnvironmentID: p.EnvironmentID, Name: c.Query("name"),
		Namespace: c.Query("namespace"), Label: c.Query("label"), Treatment: normTreatment(c.Query("treatment")), IncludeSheets: true}
	var err error
	if _, f.SpaceID, err = listScope(c, auth.ResContent, "", c.Query("spaceId")); err != nil {
		return err
	}
	inc, err := queryBool(c, "includeSheets")
	if err != nil {
		return err
	}
	if inc != nil {
		f.IncludeSheets = *inc
	}
	list, err := h.store.ListWorkbooks(ctxOf(c), f)
	if err != nil {
		return err
	}
	out := make([]workbookJSON, 0, len(list))
	for _, w := range list {
		out = append(out, toWorkbookJSON(w, f.IncludeSheets))
	}
	return data(c, out)
}

// Update handles PATCH /v1/workbooks/:workbookId. Actions, settings and the like change
// without sending sheets; sheets sent are matched by id or slug, new ones are added.
func (h *Workbooks) Update(c *fiber.Ctx) error {
	p, w, err := h.workbook(c)
	if err != nil {
		return err
	}
	var in workbookIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Name != nil && strings.TrimSpace(*in.Name) == "" {
		return errs.Invalidf("name", "name cannot be empty")
	}
	if err := in.validate(p, h.store.Settings().Caps); err != nil {
		return err
	}
	up := store.WorkbookUpdate{Name: in.Name, Namespace: in.Namespace, Labels: in.Labels, Treatments: in.Treatments, Metadata: in.Metadata,
		Settings: in.Settings, Actions: in.Actions}
	if len(in.Sheets) > 0 {
		merged := map[string]*model.SheetConfig{}
		for _, s := range w.Sheets {
			cfg := s.Config
			merged[s.ID] = &cfg
		}
		for _, su := range in.Sheets {
			up.Sheets = append(up.Sheets, store.SheetUpdate{ID: su.ID, Config: su.SheetConfig, Metadata: su.Metadata})
			id := su.ID
			for _, s := range w.Sheets {
				if id == "" && s.Slug == su.Slug {
					id = s.ID
				}
			}
			cfg := su.SheetConfig
			if id == "" {
				id = "new:" + cfg.Slug
			}
			merged[id] = &cfg
		}
		all := make([]*model.SheetConfig, 0, len(merged))
		for _, cfg := range merged {
			all = append(all, cfg)
		}
		if err := schema.References(all); err != nil {
			return err
		}
	}
	w, err = h.store.UpdateWorkbook(ctxOf(c), p.AccountID, w.ID, up, p.ActorID)
	if err != nil {
		return err
	}
	return data(c, toWorkbookJSON(w, true))
}

// Delete handles DELETE /v1/workbooks/:workbookId.
func (h *Workbooks) Delete(c *fiber.Ctx) error {
	p, w, err := h.workbook(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteWorkbook(ctxOf(c), p.AccountID, w.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Rebuild handles POST /v1/workbooks/:workbookId/rebuild.
func (h *Workbooks) Rebuild(c *fiber.Ctx) error {
	p, w, err := h.workbook(c)
	if err != nil {
		return err
	}
	check := func(cfg *model.SheetConfig) error {
		return schema.Sheet(cfg, "sheets."+cfg.Slug, h.store.Settings().Caps)
	}
	if err := h.store.RebuildWorkbook(ctxOf(c), p.AccountID, w.ID, p.ActorID, check); err != nil {
		return err
	}
	return success(c)
}

// Commits handles GET /v1/workbooks/:workbookId/commits?completed=.
func (h *Workbooks) Commits(c *fiber.Ctx) error {
	_, w, err := h.workbook(c)
	if err != nil {
		return err
	}
	return listCommits(c, h.store, "workbook_id", w.ID)
}

type commitJSON struct {
	ID          string `json:"id"`
	SheetID     string `json:"sheetId"`
	CreatedBy   string `json:"createdBy"`
	CompletedBy string `json:"completedBy,omitempty"`
	CreatedAt   Time   `json:"createdAt"`
	CompletedAt *Time  `json:"completedAt,omitempty"`
}

func toCommitJSON(cm *model.Commit) commitJSON {
	return commitJSON{ID: cm.ID, SheetID: cm.SheetID, CreatedBy: cm.CreatedBy, CompletedBy: cm.CompletedBy, CreatedAt: Time(cm.CreatedAt), CompletedAt: wireTime(cm.CompletedAt)}
}

func listCommits(c *fiber.Ctx, s interface {
	ListCommits(ctx context.Context, column, id string, completed *bool) ([]*model.Commit, error)
}, column, id string) error {
	completed, err := queryBool(c, "completed")
	if err != nil {
		return err
	}
	list, err := s.ListCommits(ctxOf(c), column, id, completed)
	if err != nil {
		return err
	}
	out := make([]commitJSON, 0, len(list))
	for _, cm := range list {
		out = append(out, toCommitJSON(cm))
	}
	return data(c, out)
}
