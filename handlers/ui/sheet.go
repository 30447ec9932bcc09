package ui

import (
	"cmp"
	"context"
	"encoding/json"
	"net/url"
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
	"github.com/sluice/sluice/store/recordset"
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
	// in windows (?cols=<first>) so that no page grows past a few MB.
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
	q := recordset.RecordQuery{SearchValue: gp.search, Q: gp.q, SortField: gp.sort, SortDesc: gp.dir == "desc", Page: model.Page{Size: gp.size, Number: gp.page},
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
	rowsOnly := c.Query("partial") == "rows"
	g, err := h.store.ReadGrid(c.Context(), store.GridQuery{AccountID: sc.u.AccountID, SpaceID: sc.space.ID, WorkbookID: sc.wb.ID, SheetID: sc.sheet.ID,
		UserID: sc.u.UserID, Records: q, RowsOnly: rowsOnly})
	if err != nil {
		return err
	}
	if g.Blocking != nil {
		p.Blocked = jobName(c.Context(), g.Blocking)
	}
	p.CanUndo, p.CanRedo = g.Undo.CanUndo, g.Undo.CanRedo
	if len(g.ColumnWidths) > 0 {
		b, _ := json.Marshal(g.ColumnWidths)
		p.ColumnWidths = string(b)
	}
	counts := g.Counts
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
	recs, matching := g.Records, g.Matching
	p.QError = g.QueryError
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
	for i, r := range recs {
		row := gridRow(sc, fields, r, (gp.page-1)*gp.size+i+1, editable)
		row.Source = sourceLabel(sc.ctx, g.Sources[r.ID])
		p.Rows = append(p.Rows, row)
	}
	if rowsOnly {
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

// sourceLabel says which file and row a record came from: "people.csv, row 12" (a view's
// position says nothing about the file); "" for a record typed in or written by the API.
func sourceLabel(ctx context.Context, src store.SourceRow) string {
	switch {
	case src.Row == 0:
		return ""
	case src.File == "":
		return views.Tf(ctx, "grid.source_row", map[string]any{"Row": views.Count(ctx, int64(src.Row))})
	}
	return views.Tf(ctx, "grid.source_file_row", map[string]any{"File": src.File, "Row": views.Count(ctx, int64(src.Row))})
}

// gridRow builds one record's row.
func gridRow(sc *sheetCtx, fields []model.Field, r *recordset.Record, n int, editable bool) views.GridRow {
	row := views.GridRow{Number: n, ID: r.ID, Valid: r.Valid}
	for _, m := range r.Messages {
		row.Messages = append(row.Messages, localMessage(sc.ctx, m.Message))
	}
	cfg := recordReadonly(r.Config)
	byKey := make(map[string]recordset.Cell, len(r.Cells))
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
func gridCell(ctx context.Context, spaceID, sheetID, recordID, key string, cell recordset.Cell) views.GridCell {
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
func (sc *sheetCtx) writeOpts(undo string) recordset.WriteOptions {
	return recordset.WriteOptions{Actor: sc.u.UserID, AccountID: sc.u.AccountID, Undo: undo}
}

// checkWritable refuses edits of an archived space, a locked or read-only sheet.
func (sc *sheetCtx) checkWritable(ctx context.Context) error {
	if why := sc.readonly(ctx); why != "" {
		return errs.E(errs.Forbidden, "sheetId", "%s", why)
	}
	return nil
}

// findCountCap is how many matching records the find & replace dialog counts.
const findCountCap = 10_000
