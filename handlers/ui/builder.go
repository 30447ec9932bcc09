package ui

import (
	"cmp"
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// maxBuilderFields bounds the rows one builder form may carry.
const maxBuilderFields = 500

// builder is one opening of the sheet builder: what it changes and whom for.
type builder struct {
	u     SessionUser
	space *model.Space
	wb    *model.Workbook // the workbook a sheet is added to or changed in (nil: a new workbook)
	sheet *model.Sheet    // the sheet changed (edit)
	mode  string
	base  string // the form's URL
	back  string
	caps  limits.Caps // how wide a sheet and how long a name may be
}

// NewWorkbook handles GET and POST /space/:spaceId/workbooks/new: a workbook with its first
// sheet, built field by field.
func (h *Handler) NewWorkbook(c *fiber.Ctx) error {
	u, sp, err := spaceOf(c, h.store)
	if err != nil {
		return err
	}
	if err := h.builderMay(c, u, sp, auth.Write, place.Content(sp.AccountID, sp.EnvironmentID, sp.ID)); err != nil {
		return err
	}
	b := &builder{u: u, space: sp, mode: "workbook", base: "/space/" + sp.ID + "/workbooks/new", back: "/space/" + sp.ID}
	return h.build(c, b)
}

// NewSheetIn handles GET and POST /space/:spaceId/workbook/:workbookId/sheets/new: another
// sheet of a workbook.
func (h *Handler) NewSheetIn(c *fiber.Ctx) error {
	u, sp, err := spaceOf(c, h.store)
	if err != nil {
		return err
	}
	wb, err := h.store.GetWorkbook(c.Context(), u.AccountID, c.Params("workbookId"))
	if err != nil || wb.SpaceID != sp.ID {
		return errs.NotFoundf("workbookId", "Workbook not found")
	}
	if err := h.builderMay(c, u, sp, auth.Write, place.Of(wb)); err != nil {
		return err
	}
	b := &builder{u: u, space: sp, wb: wb, mode: "sheet", base: "/space/" + sp.ID + "/workbook/" + wb.ID + "/sheets/new", back: "/space/" + sp.ID}
	return h.build(c, b)
}

// EditSheet handles GET and POST /space/:spaceId/sheet/:sheetId/schema: a sheet's fields
// and settings changed; its records are checked again on save.
func (h *Handler) EditSheet(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := h.builderMay(c, sc.u, sc.space, auth.Manage, place.Sheet(sc.wb, sc.sheet.ID)); err != nil {
		return err
	}
	b := &builder{u: sc.u, space: sc.space, wb: sc.wb, sheet: sc.sheet, mode: "edit", base: sc.base() + "/schema", back: sc.base()}
	return h.build(c, b)
}

// builderMay asks the resource policy, and refuses archived spaces: they take no changes.
func (h *Handler) builderMay(c *fiber.Ctx, u SessionUser, sp *model.Space, v auth.Verb, r auth.Resource) error {
	if err := auth.Can(u.Principal(), v, r); err != nil {
		return err
	}
	if sp.ArchivedAt != nil {
		return errs.E(errs.Forbidden, "spaceId", "This space is archived; unarchive it to change its sheets").WithMsg("space.archived_notice", nil)
	}
	return nil
}

// build shows the builder (GET), or applies the button that posted it: add or remove a
// field, refresh the JSON view, or save.
func (h *Handler) build(c *fiber.Ctx, b *builder) error {
	b.caps = h.store.Settings().Caps
	var p views.BuilderProps
	if c.Method() == fiber.MethodGet {
		p = b.initial()
	} else {
		p = readBuilder(c)
		op := c.FormValue("op")
		switch {
		case op == "add":
			p.Fields = append(p.Fields, views.BuilderField{Type: model.FieldString})
		case strings.HasPrefix(op, "remove:"):
			if i, err := strconv.Atoi(strings.TrimPrefix(op, "remove:")); err == nil && i >= 0 && i < len(p.Fields) {
				p.Fields = slices.Delete(p.Fields, i, i+1)
			}
		case op == "save":
			to, err := h.saveBuilder(c, b, p)
			if err != nil {
				return err
			}
			return hxRedirect(c, to)
		}
	}
	p.Mode, p.Action, p.Back, p.CanSetURL = b.mode, b.base, b.back, auth.Trusted(b.u.Principal())
	if b.wb != nil {
		for _, s := range b.wb.Sheets {
			p.RefSheets = append(p.RefSheets, views.SheetLink{ID: s.Slug, Name: s.Name})
		}
	}
	if b.sheet != nil {
		if counts, err := h.store.GetRecordCounts(c.Context(), b.u.AccountID, b.sheet.ID); err == nil {
			p.Records = counts.Total
		}
	}
	p.JSON = b.blueprint(c.Context(), p)
	if IsHTMX(c) && c.Method() == fiber.MethodPost {
		return Render(c, fiber.StatusOK, views.BuilderForm(p))
	}
	sb, err := h.sidebar(c, b.u, b.space, "")
	if err != nil {
		return err
	}
	p.Sidebar = sb
	return Render(c, fiber.StatusOK, views.BuilderPage(p))
}

// initial is the form as it opens: the sheet's fields, or one empty field and a Submit.
func (b *builder) initial() views.BuilderProps {
	if b.sheet == nil {
		return views.BuilderProps{Fields: []views.BuilderField{{Type: model.FieldString}}, Submit: true}
	}
	cfg := b.sheet.Config
	p := views.BuilderProps{SheetName: cfg.Name, Description: cfg.Description, Additional: cfg.AllowAdditionalFields}
	if t := cfg.MappingConfidenceThreshold; t != nil {
		p.Threshold = strconv.FormatFloat(*t, 'f', -1, 64)
	}
	var sets []string
	for _, k := range cfg.Constraints {
		if k.Type == "unique" && len(k.Fields) > 0 {
			sets = append(sets, strings.Join(k.Fields, ", "))
		}
	}
	p.UniqueSets = strings.Join(sets, "\n")
	for _, f := range cfg.Fields {
		p.Fields = append(p.Fields, rowOfField(f))
	}
	return p
}

// rowOfField is a stored field as a builder row.
func rowOfField(f model.Field) views.BuilderField {
	r := views.BuilderField{Orig: f.Key, Key: f.Key, Label: f.Label, Type: f.Type, Description: f.Description, Readonly: f.Readonly,
		Required: f.HasConstraint("required"), Unique: f.HasConstraint("unique")}
	if f.Config != nil {
		r.Ref, r.RefKey = f.Config.Ref, f.Config.Key
		var lines []string
		for _, o := range f.Config.Options {
			v := schema.OptionValue(o)
			if o.Label != "" && o.Label != v {
				v += " | " + o.Label
			}
			lines = append(lines, v)
		}
		r.Options = strings.Join(lines, "\n")
	}
	return r
}

// readBuilder reads the posted form.
func readBuilder(c *fiber.Ctx) views.BuilderProps {
	p := views.BuilderProps{WorkbookName: strings.TrimSpace(c.FormValue("workbook")), SheetName: strings.TrimSpace(c.FormValue("name")),
		Description: strings.TrimSpace(c.FormValue("description")), Additional: c.FormValue("additional") != "",
		Threshold: strings.TrimSpace(c.FormValue("threshold")), UniqueSets: strings.TrimSpace(c.FormValue("unique")),
		Submit: c.FormValue("submit") != "", SubmitURL: strings.TrimSpace(c.FormValue("submit_url"))}
	n, _ := strconv.Atoi(c.FormValue("n"))
	for i := range min(max(n, 0), maxBuilderFields) {
		s := strconv.Itoa(i)
		p.Fields = append(p.Fields, views.BuilderField{Orig: c.FormValue("orig" + s), Key: strings.TrimSpace(c.FormValue("key" + s)),
			Label: strings.TrimSpace(c.FormValue("label" + s)), Type: cmp.Or(c.FormValue("type"+s), model.FieldString),
			Description: strings.TrimSpace(c.FormValue("description" + s)), Options: c.FormValue("options" + s),
			Ref: c.FormValue("ref" + s), RefKey: strings.TrimSpace(c.FormValue("refkey" + s)),
			Required: c.FormValue("required"+s) != "", Unique: c.FormValue("unique"+s) != "", Readonly: c.FormValue("readonly"+s) != ""})
	}
	return p
}

var nonKey = regexp.MustCompile(`[^a-z0-9]+`)

// keyOf derives a field key from a label: "First name" → "first_name".
func keyOf(label string) string {
	return strings.Trim(nonKey.ReplaceAllString(strings.ToLower(label), "_"), "_")
}

// sheetConfig turns the form into a sheet config. What the form does not show of a field
// that already existed (metadata, appearance, alternative names, formats, constraint
// settings, option colours…) is kept as it was.
func (b *builder) sheetConfig(p views.BuilderProps) (model.SheetConfig, error) {
	var cfg model.SheetConfig
	if b.sheet != nil {
		cfg = b.sheet.Config
	}
	cfg.Name, cfg.Description, cfg.AllowAdditionalFields = p.SheetName, p.Description, p.Additional
	if cfg.Slug == "" {
		cfg.Slug = b.freeSlug(schema.Slugify(cmp.Or(p.SheetName, "sheet")))
	}
	cfg.MappingConfidenceThreshold = nil
	if p.Threshold != "" {
		t, err := strconv.ParseFloat(strings.ReplaceAll(p.Threshold, ",", "."), 64)
		if err != nil {
			return cfg, errs.Invalidf("threshold", "The confidence threshold is a number greater than 0 and at most 1").WithMsg("builder.threshold_invalid", nil)
		}
		cfg.MappingConfidenceThreshold = &t
	}
	old := map[string]model.Field{}
	for _, f := range cfg.Fields {
		old[f.Key] = f
	}
	cfg.Fields = nil
	for _, r := range p.Fields {
		if r.Key == "" && r.Label == "" {
			continue // an empty row is not a field
		}
		f, ok := old[r.Orig]
		if !ok {
			f = model.Field{}
		}
		f.Key, f.Label, f.Type, f.Description, f.Readonly = cmp.Or(r.Key, keyOf(r.Label)), r.Label, r.Type, r.Description, r.Readonly
		f.Constraints = withConstraint(withConstraint(f.Constraints, "required", r.Required), "unique", r.Unique)
		f.Config = fieldConfig(f.Config, r)
		cfg.Fields = append(cfg.Fields, f)
	}
	if len(cfg.Fields) == 0 {
		return cfg, errs.Invalidf("fields", "Add at least one field").WithMsg("builder.no_fields", nil)
	}
	cfg.Constraints = slices.DeleteFunc(cfg.Constraints, func(k model.SheetConstraint) bool { return k.Type == "unique" && len(k.Fields) > 0 })
	for _, line := range strings.Split(p.UniqueSets, "\n") {
		var keys []string
		for _, k := range strings.Split(line, ",") {
			if k = strings.TrimSpace(k); k != "" {
				keys = append(keys, k)
			}
		}
		if len(keys) > 0 {
			cfg.Constraints = append(cfg.Constraints, model.SheetConstraint{Type: "unique", Name: strings.Join(keys, "_"), Fields: keys, Strategy: "hash"})
		}
	}
	return cfg, schema.Sheet(&cfg, "sheet", b.caps)
}

// freeSlug is slug, or slug-2, slug-3… when the workbook already has a sheet of that slug.
func (b *builder) freeSlug(slug string) string {
	if b.wb == nil {
		return slug
	}
	return firstFree(slug, "-", func(s string) bool {
		return slices.ContainsFunc(b.wb.Sheets, func(sh *model.Sheet) bool { return sh.Slug == s })
	})
}

// firstFree is base, or base<sep>2, base<sep>3… the first that is not taken.
func firstFree(base, sep string, taken func(string) bool) string {
	out := base
	for n := 2; taken(out); n++ {
		out = base + sep + strconv.Itoa(n)
	}
	return out
}

// withConstraint adds or removes a field constraint of type typ; one that stays keeps its
// settings.
func withConstraint(cs []model.FieldConstraint, typ string, on bool) []model.FieldConstraint {
	has := slices.ContainsFunc(cs, func(c model.FieldConstraint) bool { return c.Type == typ })
	switch {
	case on && !has:
		return append(cs, model.FieldConstraint{Type: typ})
	case !on && has:
		return slices.DeleteFunc(slices.Clone(cs), func(c model.FieldConstraint) bool { return c.Type == typ })
	}
	return cs
}

// fieldConfig is a field's config after the form: its enum options (an option that existed
// keeps its description, colour and other settings) and what a reference points at.
func fieldConfig(cur *model.FieldConfig, r views.BuilderField) *model.FieldConfig {
	var fc model.FieldConfig
	if cur != nil {
		fc = *cur
	}
	fc.Options, fc.Ref, fc.Key = nil, "", ""
	switch r.Type {
	case model.FieldEnum, model.FieldEnumList:
		prev := map[string]model.EnumOption{}
		if cur != nil {
			for _, o := range cur.Options {
				prev[schema.OptionValue(o)] = o
			}
		}
		seen := map[string]bool{}
		for _, line := range strings.Split(r.Options, "\n") {
			v, label, _ := strings.Cut(line, "|")
			v, label = strings.TrimSpace(v), strings.TrimSpace(label)
			if v == "" || seen[v] {
				continue
			}
			seen[v] = true
			o, ok := prev[v]
			if !ok {
				raw, _ := json.Marshal(v)
				o = model.EnumOption{Value: raw}
			}
			o.Label = label
			fc.Options = append(fc.Options, o)
		}
	case model.FieldReference, model.FieldReferenceList:
		fc.Ref, fc.Key = r.Ref, r.RefKey
	}
	if fc.Options == nil && fc.Ref == "" && fc.Key == "" && fc.Format == nil && fc.SortBy == "" && !fc.AllowCustom &&
		fc.Relationship == "" && fc.Size == "" && fc.DecimalPlaces == nil && len(fc.Extra) == 0 {
		return nil
	}
	return &fc
}

// submitAction is the built-in Submit of a workbook made in the builder.
func submitAction(ctx context.Context) model.ActionConfig {
	yes := true
	return model.ActionConfig{Operation: ingest.SubmitOperation, Label: views.T(ctx, "builder.submit_label"), Mode: "foreground", Primary: &yes,
		Description: views.T(ctx, "builder.submit_description"), Constraints: []model.ActionConstraint{{Type: model.ConstraintHasData}}}
}

// blueprint is the workbook the form describes, as POST /v1/workbooks takes it, for the
// JSON view; a form that does not yet make a sheet shows why.
func (b *builder) blueprint(ctx context.Context, p views.BuilderProps) string {
	cfg, err := b.sheetConfig(p)
	if err != nil {
		return err.Error()
	}
	var out any = cfg
	if b.mode == "workbook" {
		wb := map[string]any{"name": cmp.Or(p.WorkbookName, cfg.Name), "sheets": []model.SheetConfig{cfg}}
		if p.Submit {
			wb["actions"] = []model.ActionConfig{submitAction(ctx)}
			if p.SubmitURL != "" {
				wb["settings"] = map[string]any{"submitUrl": p.SubmitURL}
			}
		}
		out = wb
	}
	js, _ := json.MarshalIndent(out, "", "  ")
	return string(js)
}

// saveBuilder writes what the form describes and returns the sheet page to go to.
func (h *Handler) saveBuilder(c *fiber.Ctx, b *builder, p views.BuilderProps) (string, error) {
	cfg, err := b.sheetConfig(p)
	if err != nil {
		return "", err
	}
	others := []*model.SheetConfig{&cfg}
	if b.wb != nil {
		for _, s := range b.wb.Sheets {
			if b.sheet == nil || s.ID != b.sheet.ID {
				others = append(others, &s.Config)
			}
		}
	}
	if err := schema.References(others); err != nil {
		return "", err
	}
	ctx, u := c.Context(), b.u
	switch b.mode {
	case "workbook":
		wb := &model.Workbook{AccountID: b.space.AccountID, EnvironmentID: b.space.EnvironmentID, SpaceID: b.space.ID,
			Name: cmp.Or(p.WorkbookName, cfg.Name), Sheets: []*model.Sheet{{Config: cfg}}}
		if p.Submit {
			if p.SubmitURL != "" {
				if !auth.Trusted(u.Principal()) {
					return "", errs.E(errs.Forbidden, "submit_url", "Only the environment's users choose where Submit sends")
				}
				if err := checkSubmitURL(p.SubmitURL); err != nil {
					return "", err
				}
				wb.Settings, _ = json.Marshal(map[string]any{"submitUrl": p.SubmitURL})
			}
			wb.Actions, _ = json.Marshal([]model.ActionConfig{submitAction(ctx)})
		}
		if err := h.store.CreateWorkbook(ctx, wb, u.UserID); err != nil {
			return "", err
		}
		return "/space/" + b.space.ID + "/sheet/" + wb.Sheets[0].ID, nil
	case "sheet":
		wb, err := h.store.UpdateWorkbook(ctx, u.AccountID, b.wb.ID, store.WorkbookUpdate{Sheets: []store.SheetUpdate{{Config: cfg}}}, u.UserID)
		if err != nil {
			return "", err
		}
		for _, s := range wb.Sheets {
			if s.Slug == cfg.Slug {
				return "/space/" + b.space.ID + "/sheet/" + s.ID, nil
			}
		}
		return "/space/" + b.space.ID, nil
	}
	// A field taken away leaves its values behind in a snapshot of the sheet as it was.
	var removed []string
	for _, f := range b.sheet.Config.Fields {
		if cfg.FieldByKey(f.Key) == nil {
			removed = append(removed, f.Key)
		}
	}
	if len(removed) > 0 {
		if counts, err := h.store.GetRecordCounts(ctx, u.AccountID, b.sheet.ID); err == nil && counts.Total > 0 {
			label := views.Tf(ctx, "builder.snapshot_label", map[string]any{"Fields": strings.Join(removed, ", ")})
			if _, err := h.store.CreateSnapshot(ctx, u.AccountID, b.sheet.ID, label, "", u.UserID); err != nil {
				return "", err
			}
		}
	}
	_, err = h.store.ChangeSheet(ctx, u.AccountID, b.sheet.ID, u.UserID, func(s *model.Sheet, _ *model.Workbook) (bool, error) {
		s.Config = cfg
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return b.back + "?notice=schema", nil
}

// checkSubmitURL refuses a Submit URL that is not an http(s) address. (Where it may point is
// checked when Submit sends, as webhooks are.)
func checkSubmitURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errs.Invalidf("submit_url", "The Submit URL must be an http or https address").WithMsg("builder.submit_url_invalid", nil)
	}
	return nil
}

// AddOption handles POST /space/:spaceId/sheet/:sheetId/options/:fieldKey: an enum column
// gains an option from its menu (a value the file had that the schema lacked), and the
// sheet's records are checked again.
func (h *Handler) AddOption(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := h.builderMay(c, sc.u, sc.space, auth.Manage, place.Sheet(sc.wb, sc.sheet.ID)); err != nil {
		return err
	}
	value, key := strings.TrimSpace(c.FormValue("value")), c.Params("fieldKey")
	if value == "" {
		return errs.Invalidf("value", "Type the option's value").WithMsg("builder.option_empty", nil)
	}
	_, err = h.store.ChangeSheet(c.Context(), sc.u.AccountID, sc.sheet.ID, sc.u.UserID, func(s *model.Sheet, _ *model.Workbook) (bool, error) {
		f := s.Config.FieldByKey(key)
		if f == nil || (f.Type != model.FieldEnum && f.Type != model.FieldEnumList) {
			return false, errs.NotFoundf("fieldKey", "The sheet has no enum field %q", key)
		}
		if f.Config == nil {
			f.Config = &model.FieldConfig{}
		}
		if slices.ContainsFunc(f.Config.Options, func(o model.EnumOption) bool { return schema.OptionValue(o) == value }) {
			return false, nil
		}
		raw, _ := json.Marshal(value)
		f.Config.Options = append(f.Config.Options, model.EnumOption{Value: raw})
		return true, schema.Sheet(&s.Config, "sheet", h.store.Settings().Caps)
	})
	if err != nil {
		return err
	}
	return hxRedirect(c, sc.base()+"?notice=schema")
}
