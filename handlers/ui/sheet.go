package ui

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/formats"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/markup"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// The sheet grid: a page of records with the schema's columns; tabs, search, an FFQL filter,
// per-column error filter, filter by value and sort; saved views; add and delete rows; find
// and replace; clear a column; inline editing with an editor per field type.

// Page sizes of the grid.
const (
	gridPage    = 50
	gridPageMax = 500
	// gridColumns is how many columns a page shows at once: a sheet of 2,000 fields is read
	// in windows (?cols=<first>) so that no page grows past a few MB (issue 13).
	gridColumns = 40
	lookupLimit = 200   // reference look-up options offered
	valueMenu   = 12    // values offered by a column's filter-by-value menu
	countCap    = 10000 // a filtered grid counts its matches up to this many ("10,000+")
)

// sheetCtx is what every grid request loads.
type sheetCtx struct {
	u     SessionUser
	space *model.Space
	sheet *model.Sheet
	wb    *model.Workbook
	lang  string // the page's language, for dates
	ctx   context.Context
}

func (h *Handler) loadSheet(c *fiber.Ctx) (*sheetCtx, error) {
	u, sp, err := spaceOf(c, h.store)
	if err != nil {
		return nil, err
	}
	sheet, w, err := h.store.GetSheet(c.Context(), u.AccountID, c.Params("sheetId"))
	if err != nil || w.SpaceID != sp.ID {
		return nil, errs.NotFoundf("sheetId", "Sheet not found")
	}
	return &sheetCtx{u: u, space: sp, sheet: sheet, wb: w, lang: views.Lang(c.Context()), ctx: c.Context()}, nil
}

func (sc *sheetCtx) base() string { return "/space/" + sc.space.ID + "/sheet/" + sc.sheet.ID }

// readonly says why the sheet takes no edits, or "".
func (sc *sheetCtx) readonly(ctx context.Context) string {
	switch {
	case sc.u.ClipSheet != "" && !sc.u.ClipEdit:
		return views.T(ctx, "grid.readonly_sheet")
	case sc.space.ArchivedAt != nil:
		return views.T(ctx, "space.archived_notice")
	case sc.sheet.LockedAt != nil:
		return views.T(ctx, "grid.locked")
	case sc.sheet.Config.Readonly:
		return views.T(ctx, "grid.readonly_sheet")
	}
	return ""
}

// gridParams are the grid's query parameters.
type gridParams struct {
	filter, search, q, field, sort, dir, hide string
	page, size, cols                          int
}

func readGridParams(c *fiber.Ctx) gridParams {
	p := gridParams{filter: c.Query("filter", "all"), search: c.Query("search"), q: strings.TrimSpace(c.Query("q")), field: c.Query("field"),
		sort: c.Query("sort"), dir: c.Query("dir"), hide: c.Query("hide")}
	if p.filter != "valid" && p.filter != "error" {
		p.filter = "all"
	}
	if p.dir != "desc" {
		p.dir = "asc"
	}
	if p.page, _ = strconv.Atoi(c.Query("page", "1")); p.page < 1 {
		p.page = 1
	}
	if p.size, _ = strconv.Atoi(c.Query("size")); p.size < 1 || p.size > gridPageMax {
		p.size = gridPage
	}
	if p.cols, _ = strconv.Atoi(c.Query("cols")); p.cols < 0 {
		p.cols = 0
	}
	return p
}

func (p gridParams) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"filter": p.filter, "search": p.search, "q": p.q, "field": p.field, "sort": p.sort, "dir": p.dir, "hide": p.hide} {
		if s != "" && !(k == "filter" && s == "all") && !(k == "dir" && (s == "asc" || p.sort == "")) {
			v.Set(k, s)
		}
	}
	if p.size != gridPage {
		v.Set("size", strconv.Itoa(p.size))
	}
	if p.cols > 0 {
		v.Set("cols", strconv.Itoa(p.cols))
	}
	return v
}

// Sheet handles GET /space/:spaceId/sheet/:sheetId with the grid's parameters (filter,
// search, q, field, sort, dir, page, size, hide) or view=<saved view id>.
func (h *Handler) Sheet(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if id := c.Query("view"); id != "" {
		return h.applyView(c, sc, id)
	}
	gp := readGridParams(c)
	p := views.SheetProps{SpaceID: sc.space.ID, SpaceName: sc.space.Name, SheetID: sc.sheet.ID, Name: sc.sheet.Name, WorkbookID: sc.wb.ID,
		Filter: gp.filter, Search: gp.search, Q: gp.q, Field: gp.field, Sort: gp.sort, Desc: gp.dir == "desc", Page: gp.page, Size: gp.size,
		Query: gp.values(), Readonly: sc.readonly(c.Context()), Notice: gridNotice(c), Description: sc.sheet.Config.Description, Clip: sc.u.ClipSheet != ""}
	p.CanEditSchema = sc.u.ClipSheet == "" && sc.space.ArchivedAt == nil && auth.Can(sc.u.Principal(), auth.Manage, place.Sheet(sc.wb, sc.sheet.ID)) == nil
	if c.Locals(views.KeyEmbed) != nil {
		p.Embedded = embedConfig(sc.space).Toolbar != "full"
		p.CanEditSchema = p.CanEditSchema && !p.Embedded
	}
	if b, err := h.store.BlockingJob(c.Context(), sc.wb.ID); err == nil && b != nil {
		p.Blocked = jobName(c.Context(), b)
	}
	if st, err := h.store.UndoState(c.Context(), sc.sheet.ID, sc.u.UserID); err == nil {
		p.CanUndo, p.CanRedo = st.CanUndo, st.CanRedo
	}
	if w, err := h.store.GetColumnWidths(c.Context(), sc.u.UserID, sc.sheet.ID); err == nil && len(w) > 0 {
		b, _ := json.Marshal(w)
		p.ColumnWidths = string(b)
	}
	counts, err := h.store.GetRecordCounts(c.Context(), sc.u.AccountID, sc.sheet.ID)
	if err != nil {
		return err
	}
	p.Total, p.Valid, p.Errors = counts.Total, counts.Valid, counts.Error
	hidden := map[string]bool{}
	for _, k := range strings.Split(gp.hide, ",") {
		hidden[k] = k != ""
	}
	var fields []model.Field
	for _, f := range sc.sheet.Config.Fields {
		if hidden[f.Key] {
			p.Hidden++
			continue
		}
		fields = append(fields, f)
	}
	fields = columnWindow(&p, fields, gp.cols)
	for _, f := range fields {
		col := views.GridColumn{Key: f.Key, Label: cmp.Or(f.Label, f.Key), Type: f.Type, Description: f.Description,
			DescriptionHTML: markup.HTML(f.Description),
			Required:        f.HasConstraint("required"), Unique: f.HasConstraint("unique"), Readonly: f.Readonly, Errors: counts.ErrorsByField[f.Key]}
		if f.Type == model.FieldEnum || f.Type == model.FieldEnumList {
			for _, o := range schema.SortedOptions(&f) {
				col.Options = append(col.Options, views.ImportOption{Value: schema.OptionValue(o), Label: schema.OptionLabel(o)})
			}
		}
		p.Columns = append(p.Columns, col)
	}
	q := store.RecordQuery{SearchValue: gp.search, Q: gp.q, SortField: gp.sort, SortDesc: gp.dir == "desc", Page: model.Page{Size: gp.size, Number: gp.page},
		CountCap: countCap}
	if gp.filter != "all" {
		q.Filter = gp.filter
	}
	if gp.field != "" {
		if sc.sheet.Config.FieldByKey(gp.field) == nil {
			return errs.Invalidf("field", "The sheet has no field %q", gp.field)
		}
		q.Filter, q.FilterField, p.Filter = "error", gp.field, "error"
	}
	recs, matching, err := h.store.GetRecords(c.Context(), sc.u.AccountID, sc.sheet.ID, q, true)
	if err != nil {
		if e := (*errs.Error)(nil); errors.As(err, &e) && e.Code == errs.Invalid {
			p.QError = e.Message // a malformed filter is shown beside the filter box
			recs, matching = nil, 0
		} else {
			return err
		}
	}
	p.Matching, p.MoreThan = matching, matching > countCap
	if p.MoreThan {
		p.Matching = countCap
		// Not counted to the end: offer the next page while this one is full.
		p.Pages = gp.page
		if len(recs) == gp.size {
			p.Pages++
		}
	} else if p.Pages = int((matching + int64(gp.size) - 1) / int64(gp.size)); p.Pages == 0 {
		p.Pages = 1
	}
	editable := p.Readonly == ""
	sources, err := h.sourceRows(sc, recs)
	if err != nil {
		return err
	}
	for i, r := range recs {
		row := gridRow(sc, fields, r, (gp.page-1)*gp.size+i+1, editable)
		row.Source = sources[r.ID]
		p.Rows = append(p.Rows, row)
	}
	if c.Query("partial") == "rows" {
		// The rows come with the counts around them (tabs, column badges) for grid.js.
		b, _ := json.Marshal(countsChange(sc.sheet.Config, counts))
		c.Set("X-Sluice-Counts", string(b))
		return Render(c, fiber.StatusOK, views.GridRows(p))
	}
	if err := h.sheetViews(c, sc, &p); err != nil {
		return err
	}
	if p.Sidebar, err = h.sidebar(c, sc.u, sc.space, sc.sheet.ID); err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.SheetPage(p))
}

// columnWindow keeps the gridColumns visible fields from the first, rounded down to a window
// start (past the end: the last window), and fills the page's column navigation.
func columnWindow(p *views.SheetProps, fields []model.Field, first int) []model.Field {
	p.ColTotal, p.ColWindow = len(fields), gridColumns
	if len(fields) <= gridColumns {
		return fields
	}
	if first >= len(fields) {
		first = len(fields) - 1
	}
	first -= first % gridColumns
	p.ColStart = first
	for i, f := range fields {
		p.ColLabels = append(p.ColLabels, views.ColumnJump{Start: i - i%gridColumns, Label: cmp.Or(f.Label, f.Key)})
	}
	return fields[first:min(first+gridColumns, len(fields))]
}

// gridNotice turns ?notice=kind:n into the page's confirmation line.
func gridNotice(c *fiber.Ctx) string {
	kind, n, _ := strings.Cut(c.Query("notice"), ":")
	count, _ := strconv.Atoi(n)
	ids := map[string]string{"replaced": "grid.notice_replaced", "cleared": "grid.notice_cleared", "deleted": "grid.notice_deleted", "added": "grid.notice_added", "set": "grid.notice_set", "schema": "grid.notice_schema"}
	if id, ok := ids[kind]; ok {
		return views.Tn(c.Context(), id, int64(count), "")
	}
	return ""
}

// sourceRows says, for the records that came from a file, which file and row: "people.csv,
// row 12" by record id (a view's position says nothing about the file).
func (h *Handler) sourceRows(sc *sheetCtx, recs []*store.Record) (map[string]string, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	runs, err := h.store.SourceLines(sc.ctx, sc.u.AccountID, sc.sheet.ID, ids...)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	names := map[string]string{}
	out := make(map[string]string, len(recs))
	for _, id := range ids {
		file, row := runs.Of(id)
		if row == 0 {
			continue
		}
		name, ok := names[file]
		if !ok {
			if f, err := h.store.GetFile(sc.ctx, sc.u.AccountID, file); err == nil && f.SpaceID == sc.space.ID {
				name = f.Name
			}
			names[file] = name
		}
		if name == "" {
			out[id] = views.Tf(sc.ctx, "grid.source_row", map[string]any{"Row": views.Count(sc.ctx, int64(row))})
		} else {
			out[id] = views.Tf(sc.ctx, "grid.source_file_row", map[string]any{"File": name, "Row": views.Count(sc.ctx, int64(row))})
		}
	}
	return out, nil
}

// gridRow builds one record's row.
func gridRow(sc *sheetCtx, fields []model.Field, r *store.Record, n int, editable bool) views.GridRow {
	row := views.GridRow{Number: n, ID: r.ID, Valid: r.Valid}
	for _, m := range r.Messages {
		row.Messages = append(row.Messages, localMessage(sc.ctx, m.Message))
	}
	cfg := recordReadonly(r.Config)
	byKey := make(map[string]store.Cell, len(r.Cells))
	for _, cell := range r.Cells {
		byKey[cell.Key] = cell
	}
	for _, f := range fields {
		gc := gridCell(sc.ctx, sc.space.ID, sc.sheet.ID, r.ID, f.Key, byKey[f.Key])
		gc.Readonly = !editable || f.Readonly || cfg.all || cfg.fields[f.Key]
		gc.Label = enumLabel(&f, gc.Value)
		switch f.Type {
		case model.FieldDate:
			gc.Label, _ = formats.Display(sc.lang, gc.Value)
		case model.FieldNumber:
			if shown := views.Decimal(sc.ctx, gc.Value); shown != gc.Value {
				gc.Label, gc.Number = shown, true
			}
		}
		row.Cells = append(row.Cells, gc)
	}
	return row
}

// readonlyConfig is what a record's config makes read-only.
type readonlyConfig struct {
	all    bool
	fields map[string]bool
}

func recordReadonly(raw json.RawMessage) readonlyConfig {
	var cfg struct {
		Readonly bool `json:"readonly"`
		Fields   map[string]struct {
			Readonly bool `json:"readonly"`
		} `json:"fields"`
	}
	out := readonlyConfig{fields: map[string]bool{}}
	if len(raw) == 0 || json.Unmarshal(raw, &cfg) != nil {
		return out
	}
	out.all = cfg.Readonly
	for k, f := range cfg.Fields {
		out.fields[k] = f.Readonly
	}
	return out
}

// gridCell builds a grid cell from a stored one: its text, its messages and their level.
func gridCell(ctx context.Context, spaceID, sheetID, recordID, key string, cell store.Cell) views.GridCell {
	gc := views.GridCell{SpaceID: spaceID, SheetID: sheetID, RecordID: recordID, Key: key, Value: ingest.CellText(cell.Value), Layer: cell.Layer}
	var msgs []string
	for _, m := range cell.Messages {
		switch {
		case m.Type == records.LevelError:
			gc.Level = "error"
		case (m.Type == records.LevelWarn || m.Type == "warning") && gc.Level != "error": // Flatfile writes "warn"
			gc.Level = "warning"
		case gc.Level == "":
			gc.Level = "info"
		}
		msgs = append(msgs, localMessage(ctx, m.Message))
	}
	gc.Error = gc.Level == "error"
	gc.Message = strings.Join(msgs, "\n")
	return gc
}

// ColumnValues handles GET /space/:spaceId/sheet/:sheetId/values/:fieldKey with the grid's
// parameters: a column's filter-by-value menu, the field's most frequent values across the
// whole sheet with their exact counts (the store keeps the list until the sheet's next
// write). The menu loads it when it opens.
func (h *Handler) ColumnValues(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	key := c.Params("fieldKey")
	gp := readGridParams(c)
	// On the Errors tab the menu lists the values of records in error, most errors first:
	// the offending values, even where they are rare.
	errorsOnly := gp.filter == "error" || gp.field != ""
	n := valueMenu
	if errorsOnly {
		n = valueMenu * 20
	}
	vals, err := h.store.TopCellValues(c.Context(), sc.u.AccountID, sc.sheet.ID, key, store.RecordQuery{}, n)
	if err != nil {
		return err
	}
	if errorsOnly {
		vals = slices.DeleteFunc(vals, func(v store.CellCount) bool { return v.Error == 0 })
		slices.SortStableFunc(vals, func(a, b store.CellCount) int { return cmp.Compare(b.Error, a.Error) })
		vals = vals[:min(len(vals), valueMenu)]
	}
	p := views.SheetProps{SpaceID: sc.space.ID, SheetID: sc.sheet.ID, Query: gp.values()}
	f := sc.sheet.Config.FieldByKey(key)
	out := make([]views.ValueCount, len(vals))
	for i, v := range vals {
		out[i] = views.ValueCount{Value: ingest.CellText(v.Value), Count: v.Total}
		if errorsOnly {
			out[i].Count = v.Error
		}
		if f != nil {
			out[i].Label = enumLabel(f, out[i].Value)
		}
	}
	return Render(c, fiber.StatusOK, views.ColumnValues(p, key, out))
}

// sheetViews lists the sheet's saved views: the user's own (My Views) and everyone's.
func (h *Handler) sheetViews(c *fiber.Ctx, sc *sheetCtx, p *views.SheetProps) error {
	list, _, err := h.store.ListViews(c.Context(), sc.sheet.ID, "", model.Page{Size: 100, Number: 1})
	if err != nil {
		return err
	}
	for _, v := range list {
		item := views.ViewItem{ID: v.ID, Name: v.Name, Mine: v.CreatedBy == sc.u.UserID}
		p.Views = append(p.Views, item)
	}
	return nil
}

// viewConfig is what a saved view keeps: the grid's query parameters.
type viewConfig struct {
	Filter      string `json:"filter,omitempty"`
	FilterField string `json:"filterField,omitempty"`
	SearchValue string `json:"searchValue,omitempty"`
	Q           string `json:"q,omitempty"`
	SortField   string `json:"sortField,omitempty"`
	SortDir     string `json:"sortDirection,omitempty"`
	// ColumnWidths are the widths of the person who saved the view, which opening it sets.
	ColumnWidths store.ColumnWidths `json:"columnWidths,omitempty"`
}

// applyView redirects to the grid with a saved view's parameters.
func (h *Handler) applyView(c *fiber.Ctx, sc *sheetCtx, id string) error {
	v, err := h.store.GetView(c.Context(), sc.u.AccountID, id)
	if err != nil || v.SheetID != sc.sheet.ID {
		return errs.NotFoundf("view", "View not found")
	}
	var cfg viewConfig
	_ = json.Unmarshal(v.Config, &cfg)
	if len(cfg.ColumnWidths) > 0 {
		if err := h.store.SaveColumnWidths(c.Context(), sc.u.UserID, sc.sheet.ID, cfg.ColumnWidths); err != nil {
			return err
		}
	}
	gp := gridParams{filter: cfg.Filter, field: cfg.FilterField, search: cfg.SearchValue, q: cfg.Q, sort: cfg.SortField, dir: cfg.SortDir, size: gridPage}
	return c.Redirect(sc.base()+"?"+gp.values().Encode(), fiber.StatusSeeOther)
}

// SaveView handles POST …/views (name, and the grid's parameters): the current filter,
// search and sort become a saved view of the sheet.
func (h *Handler) SaveView(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" {
		return errs.Invalidf("name", "Give the view a name").WithMsg("grid.view_name_required", nil)
	}
	cfg := viewConfig{Filter: c.FormValue("filter"), FilterField: c.FormValue("field"), SearchValue: c.FormValue("search"), Q: c.FormValue("q"),
		SortField: c.FormValue("sort"), SortDir: c.FormValue("dir")}
	if cfg.Filter == "all" {
		cfg.Filter = ""
	}
	if cfg.ColumnWidths, err = h.store.GetColumnWidths(c.Context(), sc.u.UserID, sc.sheet.ID); err != nil {
		return err
	}
	raw, _ := json.Marshal(cfg)
	v := &store.View{AccountID: sc.u.AccountID, SheetID: sc.sheet.ID, Name: name, Config: raw, CreatedBy: sc.u.UserID}
	if err := h.store.SaveView(c.Context(), v); err != nil {
		return err
	}
	return hxRedirect(c, sc.base()+"?view="+v.ID)
}

// DeleteView handles POST …/views/:viewId/delete.
func (h *Handler) DeleteView(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	v, err := h.store.GetView(c.Context(), sc.u.AccountID, c.Params("viewId"))
	if err != nil || v.SheetID != sc.sheet.ID {
		return errs.NotFoundf("viewId", "View not found")
	}
	if err := h.store.DeleteView(c.Context(), sc.u.AccountID, v.ID); err != nil {
		return err
	}
	return hxRedirect(c, sc.base())
}

// hxRedirect sends htmx (or a plain form post) on to a page.
func hxRedirect(c *fiber.Ctx, to string) error {
	if IsHTMX(c) {
		c.Set("HX-Redirect", to)
		return c.SendStatus(fiber.StatusNoContent)
	}
	return c.Redirect(to, fiber.StatusSeeOther)
}

// writeOpts are the write options of a person's edit in the grid; undo, when not empty,
// notes the edit in their undo history as this kind of change.
func (sc *sheetCtx) writeOpts(undo string) store.WriteOptions {
	return store.WriteOptions{Actor: sc.u.UserID, AccountID: sc.u.AccountID, Undo: undo}
}

// checkWritable refuses edits of an archived space, a locked or read-only sheet.
func (sc *sheetCtx) checkWritable(ctx context.Context) error {
	if why := sc.readonly(ctx); why != "" {
		return errs.E(errs.Forbidden, "sheetId", "%s", why)
	}
	return nil
}

// AddRow handles POST …/rows: an empty record is appended (manual entry stays possible while
// a toolbarBlocking job runs) and the grid opens on the page that shows it.
func (h *Handler) AddRow(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := sc.checkWritable(c.Context()); err != nil {
		return err
	}
	if _, err := h.store.InsertRecords(c.Context(), sc.sheet.ID, []store.RecordIn{{Values: map[string]store.CellIn{}}}, sc.writeOpts("add")); err != nil {
		return err
	}
	counts, err := h.store.GetRecordCounts(c.Context(), sc.u.AccountID, sc.sheet.ID)
	if err != nil {
		return err
	}
	last := (counts.Total + gridPage - 1) / gridPage
	return hxRedirect(c, sc.base()+"?page="+strconv.FormatInt(max(last, 1), 10)+"&notice=added:1")
}

// toolbarAllowed refuses bulk edits on a locked or read-only sheet and while a
// toolbarBlocking job of the workbook runs.
func (h *Handler) toolbarAllowed(c *fiber.Ctx, sc *sheetCtx) error {
	if err := sc.checkWritable(c.Context()); err != nil {
		return err
	}
	if b, err := h.store.BlockingJob(c.Context(), sc.wb.ID); err != nil {
		return err
	} else if b != nil {
		return errs.E(errs.Conflict, "sheetId", "The toolbar is blocked while %s runs", b.Name()).WithMsg("grid.blocked", map[string]any{"Job": jobName(c.Context(), b)})
	}
	return nil
}

// FindReplace handles POST …/find-replace (column, find, replace, and the grid's filters):
// the records the grid shows are searched, 10,000 per version.
func (h *Handler) FindReplace(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if err := h.toolbarAllowed(c, sc); err != nil {
		return err
	}
	key := c.FormValue("column")
	if sc.sheet.Config.FieldByKey(key) == nil {
		return errs.Invalidf("column", "Choose a column").WithMsg("grid.choose_column", nil)
	}
	find, _ := json.Marshal(c.FormValue("find"))
	var replace json.RawMessage
	replace, _ = json.Marshal(c.FormValue("replace"))
	q, err := gridScope(c, sc)
	if err != nil {
		return err
	}
	res, err := h.store.FindAndReplace(c.Context(), sc.sheet.ID, q, store.FindReplace{FieldKey: key, Find: find, Replace: replace, ExcludeReadOnly: true}, sc.writeOpts("replace"))
	if err != nil {
		return err
	}
	return hxRedirect(c, sc.gridBack(c, "replaced:"+strconv.Itoa(res.Count)))
}

// findCountCap is how many matching records the find & replace dialog counts.
const findCountCap = 10_000

// FindCount handles GET …/find-replace/count (column, find, the grid's scope): how many
// records Replace all would change, said before the user presses it.
func (h *Handler) FindCount(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	key := c.Query("column")
	if sc.sheet.Config.FieldByKey(key) == nil {
		return c.SendString("")
	}
	find, _ := json.Marshal(c.Query("find"))
	q, err := gridScope(c, sc)
	if err != nil {
		return err
	}
	n, more, err := h.store.CountMatches(c.Context(), sc.u.AccountID, sc.sheet.ID, q, store.FindReplace{FieldKey: key, Find: find, ExcludeReadOnly: true}, findCountCap)
	if err != nil {
		return err
	}
	count := views.Count(c.Context(), int64(n))
	if more {
		count += "+"
	}
	return Render(c, fiber.StatusOK, views.FindCount(views.Tn(c.Context(), "grid.find_count", int64(n), count)))
}

// ClearColumn handles POST …/clear/:fieldKey: the spec's messages for read-only columns and
// sheets come from the store, which also snapshots the sheet first.
func (h *Handler) ClearColumn(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	if b, err := h.store.BlockingJob(c.Context(), sc.wb.ID); err != nil {
		return err
	} else if b != nil {
		return errs.E(errs.Conflict, "sheetId", "The toolbar is blocked while %s runs", b.Name()).WithMsg("grid.blocked", map[string]any{"Job": jobName(c.Context(), b)})
	}
	key, _ := url.PathUnescape(c.Params("fieldKey"))
	res, err := h.store.ClearColumn(c.Context(), sc.sheet.ID, key, sc.writeOpts("clear"))
	if err != nil {
		return err
	}
	return hxRedirect(c, sc.base()+"?notice=cleared:"+strconv.Itoa(res.Count))
}

// cell loads one cell of a record of a sheet of the space.
func (h *Handler) cell(c *fiber.Ctx) (*sheetCtx, views.GridCell, error) {
	sc, row, err := h.cellRow(c)
	if err != nil {
		return nil, views.GridCell{}, err
	}
	return sc, row.Cells[0], nil
}

// cellRow is the record of the route's cell as a grid row holding that one cell.
func (h *Handler) cellRow(c *fiber.Ctx) (*sheetCtx, views.GridRow, error) {
	sc, err := h.loadSheet(c)
	if err != nil {
		return nil, views.GridRow{}, err
	}
	key, _ := url.PathUnescape(c.Params("fieldKey"))
	f := sc.sheet.Config.FieldByKey(key)
	if f == nil {
		return nil, views.GridRow{}, errs.NotFoundf("fieldKey", "Sheet has no field %q", key)
	}
	recs, _, err := h.store.GetRecords(c.Context(), sc.u.AccountID, sc.sheet.ID, store.RecordQuery{IDs: []string{c.Params("recordId")}, Page: model.Page{Size: 1, Number: 1}}, false)
	if err != nil {
		return nil, views.GridRow{}, err
	}
	if len(recs) == 0 {
		return nil, views.GridRow{}, errs.NotFoundf("recordId", "Record not found")
	}
	return sc, gridRow(sc, []model.Field{*f}, recs[0], 0, sc.readonly(c.Context()) == ""), nil
}

// Cell handles GET …/cell/:recordId/:fieldKey: the cell as shown (Escape while editing).
func (h *Handler) Cell(c *fiber.Ctx) error {
	_, gc, err := h.cell(c)
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.GridCellView(gc))
}

// EditCell handles GET …/cell/:recordId/:fieldKey/edit: the cell's editor, by field type:
// a select for enums (in config.sortBy order) and booleans, a look-up for references, a
// text area that keeps line breaks for strings.
func (h *Handler) EditCell(c *fiber.Ctx) error {
	sc, gc, err := h.cell(c)
	if err != nil {
		return err
	}
	if gc.Readonly {
		return errs.E(errs.Forbidden, "fieldKey", "This cell is read-only").WithMsg("grid.cell_readonly", nil)
	}
	f := sc.sheet.Config.FieldByKey(gc.Key)
	ed := views.CellEditor{Cell: gc, Type: f.Type}
	switch f.Type {
	case model.FieldEnum:
		ed.Options = enumOptions(f)
	case model.FieldBoolean:
		ed.Options = []views.ImportOption{{Value: "true", Label: views.T(c.Context(), "grid.yes")}, {Value: "false", Label: views.T(c.Context(), "grid.no")}}
	case model.FieldReference:
		if ed.Options, err = h.lookup(c, sc, f, ""); err != nil {
			return err
		}
		ed.Lookup = true
	}
	return Render(c, fiber.StatusOK, views.GridCellEdit(ed))
}

// Lookup handles GET /space/:spaceId/sheet/:sheetId/cell/:recordId/:fieldKey/lookup?value=…:
// the options of a reference cell's look-up whose key contains the text typed so far.
func (h *Handler) Lookup(c *fiber.Ctx) error {
	sc, gc, err := h.cell(c)
	if err != nil {
		return err
	}
	f := sc.sheet.Config.FieldByKey(gc.Key)
	if f.Type != model.FieldReference {
		return errs.Invalidf("fieldKey", "%s is not a reference field", gc.Key)
	}
	opts, err := h.lookup(c, sc, f, strings.TrimSpace(c.Query("value")))
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.LookupOptions(opts))
}

// enumOptions lists an enum field's options in its config.sortBy order (label by default).
func enumOptions(f *model.Field) []views.ImportOption {
	if f.Config == nil {
		return nil
	}
	opts := slicesClone(f.Config.Options)
	switch f.Config.SortBy {
	case "value":
		sort.SliceStable(opts, func(i, j int) bool { return ingest.CellText(opts[i].Value) < ingest.CellText(opts[j].Value) })
	case "ordinal":
		sort.SliceStable(opts, func(i, j int) bool { return ordinal(opts[i]) < ordinal(opts[j]) })
	default:
		sort.SliceStable(opts, func(i, j int) bool {
			return strings.ToLower(cmp.Or(opts[i].Label, ingest.CellText(opts[i].Value))) < strings.ToLower(cmp.Or(opts[j].Label, ingest.CellText(opts[j].Value)))
		})
	}
	out := make([]views.ImportOption, len(opts))
	for i, o := range opts {
		v := ingest.CellText(o.Value)
		out[i] = views.ImportOption{Value: v, Label: cmp.Or(o.Label, v)}
	}
	return out
}

// enumLabel is the label of an enum field's option with value v; "" when f is not an enum,
// v is not one of its options or the option has no label.
func enumLabel(f *model.Field, v string) string {
	if f.Type != "enum" || f.Config == nil || v == "" {
		return ""
	}
	for _, o := range f.Config.Options {
		if ingest.CellText(o.Value) == v {
			return o.Label
		}
	}
	return ""
}

func slicesClone(o []model.EnumOption) []model.EnumOption {
	return append([]model.EnumOption(nil), o...)
}

func ordinal(o model.EnumOption) int {
	if o.Ordinal == nil {
		return 1 << 30
	}
	return *o.Ordinal
}

// lookup offers the values of a reference field's target (config.ref, a sheet slug of the
// workbook, and config.key, its field).
func (h *Handler) lookup(c *fiber.Ctx, sc *sheetCtx, f *model.Field, search string) ([]views.ImportOption, error) {
	if f.Config == nil || f.Config.Ref == "" {
		return nil, nil
	}
	wbs, err := h.store.ListWorkbooks(c.Context(), store.WorkbookFilter{AccountID: sc.u.AccountID, SpaceID: sc.space.ID, IncludeSheets: true})
	if err != nil {
		return nil, err
	}
	for _, w := range wbs {
		if w.ID != sc.wb.ID {
			continue
		}
		for _, target := range w.Sheets {
			if target.Slug != f.Config.Ref && target.Config.Slug != f.Config.Ref {
				continue
			}
			q := store.RecordQuery{Page: model.Page{Size: lookupLimit, Number: 1}}
			if search != "" {
				q.SearchField, q.SearchValue = f.Config.Key, search
			}
			recs, _, err := h.store.GetRecords(c.Context(), sc.u.AccountID, target.ID, q, false)
			if err != nil {
				return nil, err
			}
			var out []views.ImportOption
			for _, r := range recs {
				for _, cell := range r.Cells {
					if cell.Key == f.Config.Key {
						v := ingest.CellText(cell.Value)
						out = append(out, views.ImportOption{Value: v, Label: v})
					}
				}
			}
			return out, nil
		}
	}
	return nil, nil
}

// SaveCell handles POST …/cell/:recordId/:fieldKey: the new value is written like any update
// (validation, commit, hooks), as the signed-in user, as a grid edit noted for undo; an empty
// value empties the cell.
func (h *Handler) SaveCell(c *fiber.Ctx) error {
	sc, gc, err := h.cell(c)
	if err != nil {
		return err
	}
	if gc.Readonly {
		return errs.E(errs.Forbidden, "fieldKey", "This cell is read-only").WithMsg("grid.cell_readonly", nil)
	}
	value := json.RawMessage("null")
	if v := c.FormValue("value"); v != "" {
		value, _ = json.Marshal(strings.ReplaceAll(v, "\r\n", "\n"))
	}
	edit := store.GridEdit{Set: []store.GridRecord{{ID: gc.RecordID, Values: map[string]json.RawMessage{gc.Key: value}}}}
	if _, err := h.store.ApplyGridEdit(c.Context(), sc.sheet.ID, edit, sc.writeOpts("edit")); err != nil {
		return err
	}
	// The saved cell; what the save changed around it (the record's state, the tab counts,
	// every column's error count) goes in an event grid.js applies to the page.
	sc, row, err := h.cellRow(c)
	if err != nil {
		return err
	}
	counts, err := h.store.GetRecordCounts(c.Context(), sc.u.AccountID, sc.sheet.ID)
	if err != nil {
		return err
	}
	change := countsChange(sc.sheet.Config, counts)
	change["record"], change["valid"], change["refresh"] = row.ID, row.Valid, uniqueKey(sc.sheet.Config, row.Cells[0].Key)
	if st, err := h.store.UndoState(c.Context(), sc.sheet.ID, sc.u.UserID); err == nil {
		change["undo"] = st // grid-edit.js enables its buttons
	}
	saved, _ := json.Marshal(map[string]any{"sl-cell-saved": change})
	c.Set("HX-Trigger", string(saved))
	return Render(c, fiber.StatusOK, views.GridCellView(row.Cells[0]))
}

// countsChange is what grid.js shows around the rows: the tab counts and each column's
// error count.
func countsChange(cfg model.SheetConfig, counts *store.Counts) map[string]any {
	cols := map[string]int64{}
	for _, f := range cfg.Fields {
		cols[f.Key] = counts.ErrorsByField[f.Key]
	}
	return map[string]any{"counts": map[string]int64{"all": counts.Total, "valid": counts.Valid, "error": counts.Error}, "columnErrors": cols}
}

// uniqueKey reports whether a change of field key can change other records' state: the field
// is unique on its own or in a sheet's composite unique constraint (its twins gain or lose
// their duplicate error).
func uniqueKey(cfg model.SheetConfig, key string) bool {
	if f := cfg.FieldByKey(key); f != nil && f.HasConstraint("unique") {
		return true
	}
	for _, c := range cfg.Constraints {
		if c.Type == "unique" && slices.Contains(c.Fields, key) {
			return true
		}
	}
	return false
}

// Export handles GET …/export?format=csv|xlsx with the grid's filters: the records the grid
// shows, every page of them, as a download (the header row carries the field labels).
func (h *Handler) Export(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	gp := readGridParams(c)
	q, err := sc.scope(gp.filter, gp.search, gp.q, gp.field)
	if err != nil {
		return err
	}
	q.SortField, q.SortDesc = gp.sort, gp.dir == "desc"
	rr := h.store
	name := sc.sheet.Slug
	if name == "" {
		name = "sheet"
	}
	if c.Query("format") == "xlsx" {
		c.Set(fiber.HeaderContentType, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
		c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`.xlsx"`)
		return ingest.WriteXLSX(c.Context(), rr, sc.u.AccountID, []*model.Sheet{sc.sheet}, q, c.Response().BodyWriter())
	}
	// The query is checked before the first byte goes out (a bad one still gets its error),
	// then the file streams: a million rows need not sit in the response's memory first.
	if err := ingest.CheckReadable(c.Context(), rr, sc.u.AccountID, sc.sheet.ID, q); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`.csv"`)
	body := ingest.CSVBody(rr, sc.u.AccountID, sc.sheet, q, c.Query("keepFormulas") == "true")
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		_, _ = w.WriteString("\ufeff") // a byte order mark: Excel on Windows then reads the file as UTF-8
		body(w)
	})
	return nil
}
