package ui

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/formats"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
	"github.com/sluice/sluice/views"
)

// The import wizard: an extracted file's sheet is mapped onto a sheet of the space. The page
// shows the file's first rows, the engine's suggestion for every column with its confidence
// and reasons, and the enum value mapping of enum destinations; running it stores the choices
// as an accepted mapping program (history for the next suggestion) and starts a map job
// driven by that program, whose progress the page follows until it lands on the sheet.

// ImportStore is what the wizard reads and writes.
type ImportStore interface {
	Settings() sqldb.Settings // the caps on names and widths
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetFile(ctx context.Context, accountID, id string) (*model.File, error)
	ListWorkbooks(ctx context.Context, f store.WorkbookFilter) ([]*model.Workbook, error)
	GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error)
	GetRecords(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery, withTotal bool) ([]*recordset.Record, int64, error)
	GetRecordCounts(ctx context.Context, accountID, sheetID string) (*recordset.Counts, error)
	CreateProgram(ctx context.Context, p *model.MappingProgram, actor string, keys store.RuleKeys) error
	GetJob(ctx context.Context, accountID, id string) (*model.Job, error)
	ColumnFormats(ctx context.Context, sheetID string) (map[string]*formats.Column, error)
	TopCellValues(ctx context.Context, accountID, sheetID, key string, q recordset.RecordQuery, n int) ([]recordset.CellCount, error)
	MappingFormats(ctx context.Context, envID, actor string, keys []string) (map[string]map[string]string, error)
	CreateWorkbook(ctx context.Context, w *model.Workbook, actor string) error
}

// Suggester runs the suggestion engine over sheets.
type Suggester interface {
	SuggestSheet(ctx context.Context, accountID, envID, actor string, src, dst *model.Sheet) ([]mapping.Column, mapping.Plan, error)
	DistinctValues(ctx context.Context, accountID, sheetID, key string, limit int) ([]string, error)
}

// JobStarter creates jobs the way the API does.
type JobStarter interface {
	Prepare(ctx context.Context, j *model.Job) error
	Create(ctx context.Context, j *model.Job, actor string) error
}

// Imports serves the import wizard and job progress.
type Imports struct {
	store   ImportStore
	suggest Suggester
	jobs    JobStarter
}

// NewImports returns the wizard's handlers.
func NewImports(s ImportStore, sg Suggester, j JobStarter) *Imports {
	return &Imports{store: s, suggest: sg, jobs: j}
}

// previewRows is how many of the file's rows the wizard shows; enumValues how many distinct
// values of a column it offers to map.
const (
	previewRows = 5
	enumValues  = 500
	customDest  = "+custom"
)

// importCtx is what every wizard request loads: the space, the file and its sheet.
type importCtx struct {
	u     SessionUser
	space *model.Space
	file  *model.File
	src   *model.Sheet
}

func (h *Imports) load(c *fiber.Ctx) (*importCtx, error) {
	ic, err := h.file(c)
	if err != nil {
		return nil, err
	}
	return ic, h.source(c, ic)
}

// file loads the request's space and :fileId, which must belong to it.
func (h *Imports) file(c *fiber.Ctx) (*importCtx, error) {
	u, sp, err := spaceOf(c, h.store)
	if err != nil {
		return nil, err
	}
	f, err := h.store.GetFile(c.Context(), u.AccountID, c.Params("fileId"))
	if err != nil || f.SpaceID != sp.ID {
		return nil, errs.NotFoundf("fileId", "File not found")
	}
	return &importCtx{u: u, space: sp, file: f}, nil
}

// source loads the sheet extraction read the file into; a file not read yet has none.
func (h *Imports) source(c *fiber.Ctx, ic *importCtx) error {
	f := ic.file
	if f.SheetID == "" {
		return errs.Invalidf("fileId", "%s has not been read yet: wait until its extraction completes", f.Name).WithMsg("map.not_extracted", map[string]any{"Name": f.Name})
	}
	var err error
	ic.src, _, err = h.store.GetSheet(c.Context(), ic.u.AccountID, f.SheetID)
	return err
}

// destination loads the sheet the file goes into; it must be a sheet of the space that is
// not itself a file's sheet.
func (h *Imports) destination(c *fiber.Ctx, ic *importCtx, id string) (*model.Sheet, error) {
	dst, w, err := h.store.GetSheet(c.Context(), ic.u.AccountID, id)
	if err != nil || w.SpaceID != ic.space.ID || isFileWorkbook(w) {
		return nil, errs.NotFoundf("to", "Sheet not found in this space")
	}
	if dst.Config.Readonly {
		return nil, errs.Invalidf("to", "%s is read-only", dst.Name)
	}
	return dst, nil
}

func isFileWorkbook(w *model.Workbook) bool {
	for _, l := range w.Labels {
		if l == "file" {
			return true
		}
	}
	return false
}

// Page handles GET /space/:spaceId/import/:fileId?to=<sheet id>.
func (h *Imports) Page(c *fiber.Ctx) error {
	ic, err := h.file(c)
	if err != nil {
		return err
	}
	if c.Query("wait") == "1" || stillReading(ic.file) {
		return h.unread(c, ic)
	}
	if err := h.source(c, ic); err != nil {
		return err
	}
	p := views.ImportProps{SpaceID: ic.space.ID, SpaceName: ic.space.Name, FileID: ic.file.ID, FileName: ic.file.Name, Archived: ic.space.ArchivedAt != nil}
	if p.Preview, err = h.preview(c, ic); err != nil {
		return err
	}
	wbs, err := h.store.ListWorkbooks(c.Context(), store.WorkbookFilter{AccountID: ic.u.AccountID, SpaceID: ic.space.ID, IncludeSheets: true})
	if err != nil {
		return err
	}
	for _, w := range wbs {
		if isFileWorkbook(w) {
			continue
		}
		for _, sh := range w.Sheets {
			if !sh.Config.Readonly {
				p.Destinations = append(p.Destinations, views.ImportDest{ID: sh.ID, Label: w.Name + " / " + sh.Name})
			}
		}
	}
	p.To = c.Query("to")
	switch {
	case p.To == "" && len(p.Destinations) == 1:
		p.To = p.Destinations[0].ID
	case p.To == "" && len(p.Destinations) > 1:
		p.To = h.bestFit(c, ic, p.Destinations)
	}
	if sample, _, err := h.store.GetRecords(c.Context(), ic.u.AccountID, ic.src.ID, recordset.RecordQuery{Page: model.Page{Size: reviewSample, Number: 1}}, false); err == nil {
		p.Empty = strings.Join(markersIn(sample), ", ")
	}
	if p.To != "" {
		dst, err := h.destination(c, ic, p.To)
		if err != nil {
			return err
		}
		if err := h.suggestColumns(c, ic, dst, &p); err != nil {
			return err
		}
	}
	return Render(c, fiber.StatusOK, views.ImportPage(p))
}

// stillReading reports whether a file's extraction has not finished: its sheet may exist
// (its columns are known) while its rows are still being written, and the wizard's sample,
// value lists and empty markers need them all.
func stillReading(f *model.File) bool {
	switch f.Status {
	case model.FileStatusPartial, model.FileStatusAnalyzing, model.FileStatusAnalyzed:
		return true
	}
	return f.SheetID == ""
}

// unread answers for a file that has not been read yet (just uploaded from a sheet): a page
// that waits for its extraction and shows the wizard when it is done, or why it failed. The
// page polls with htmx (?wait=1); the poll answers 204 until there is news, then reloads the
// page.
func (h *Imports) unread(c *fiber.Ctx, ic *importCtx) error {
	sp, f := ic.space, ic.file
	failed := f.Status == model.FileStatusFailed
	if c.Query("wait") == "1" {
		if !stillReading(f) || failed {
			c.Set("HX-Refresh", "true")
		}
		return c.SendStatus(fiber.StatusNoContent)
	}
	return Render(c, fiber.StatusOK, views.ImportWaiting(views.ImportWaitingProps{SpaceID: sp.ID, SpaceName: sp.Name, FileName: f.Name,
		Poll: "/space/" + sp.ID + "/import/" + f.ID + "?wait=1&to=" + url.QueryEscape(c.Query("to")), Failed: failed, Note: f.Description}))
}

// preview reads the file's first rows in its column order.
func (h *Imports) preview(c *fiber.Ctx, ic *importCtx) (views.ImportPreview, error) {
	var pv views.ImportPreview
	for _, f := range ic.src.Config.Fields {
		pv.Headers = append(pv.Headers, cmp.Or(f.Label, f.Key))
	}
	recs, total, err := h.store.GetRecords(c.Context(), ic.u.AccountID, ic.src.ID, recordset.RecordQuery{Page: model.Page{Size: previewRows, Number: 1}}, true)
	if err != nil {
		return pv, err
	}
	pv.Total = total
	for _, r := range recs {
		byKey := map[string]string{}
		for _, cell := range r.Cells {
			byKey[cell.Key] = ingest.CellText(cell.Value)
		}
		row := make([]string, len(ic.src.Config.Fields))
		for i, f := range ic.src.Config.Fields {
			row[i] = byKey[f.Key]
		}
		pv.Rows = append(pv.Rows, row)
	}
	return pv, nil
}

// suggestColumns fills the mapping table with the engine's suggestion per column.
func (h *Imports) suggestColumns(c *fiber.Ctx, ic *importCtx, dst *model.Sheet, p *views.ImportProps) error {
	cols, plan, err := h.suggest.SuggestSheet(c.Context(), ic.u.AccountID, ic.space.EnvironmentID, ic.u.historyOwner(), ic.src, dst)
	if err != nil {
		return err
	}
	formatOf, err := h.formatsOf(c, ic, dst)
	if err != nil {
		return err
	}
	p.DestName, p.AllowCustom, p.Threshold = dst.Name, dst.Config.AllowAdditionalFields, int(plan.Threshold*100+0.5)
	for _, f := range dst.Config.Fields {
		if !f.Readonly {
			p.Fields = append(p.Fields, views.ImportField{Key: f.Key, Label: cmp.Or(f.Label, f.Key), Type: f.Type, Required: f.HasConstraint("required")})
		}
	}
	for i, sg := range plan.Columns {
		sf := ic.src.Config.Fields[i]
		col := views.ImportColumn{Index: i, Key: sf.Key, Header: cols[i].Header, Samples: firstN(cols[i].Samples, 3), Reasons: reasonTexts(c.Context(), sg.Why)}
		switch {
		case sg.Destination != "" && sg.AutoApply:
			col.Dest = sg.Destination
		case sg.Destination != "":
			col.Suggested = sg.Destination // offered, not applied: below the sheet's threshold
		case dst.Config.AllowAdditionalFields:
			col.Dest = customDest
		}
		if sg.Destination != "" {
			col.Confidence = int(sg.Confidence*100 + 0.5)
		}
		if col.Dest != "" && col.Dest != customDest {
			if col.Enum, err = h.enumMap(c, ic, dst, sf.Key, col.Dest); err != nil {
				return err
			}
			col.Format = formatOf(sf, col.Dest)
		}
		p.Columns = append(p.Columns, col)
	}
	return h.fillRequired(c, ic, dst, p, formatOf)
}

// fillRequired chooses, for a required field no column fills, the column the engine offered
// for it below the sheet's threshold: leaving it on "Don't import" would put every record in
// error, so the safer default is the best guess, which the Review step shows.
func (h *Imports) fillRequired(c *fiber.Ctx, ic *importCtx, dst *model.Sheet, p *views.ImportProps, formatOf func(model.Field, string) *views.ImportFormat) error {
	taken := map[string]bool{}
	for _, col := range p.Columns {
		taken[col.Dest] = true
	}
	for _, f := range dst.Config.Fields {
		if !f.HasConstraint("required") || f.Readonly || taken[f.Key] {
			continue
		}
		best := -1
		for i, col := range p.Columns {
			if col.Suggested == f.Key && (col.Dest == "" || col.Dest == customDest) && (best < 0 || col.Confidence > p.Columns[best].Confidence) {
				best = i
			}
		}
		if best < 0 {
			continue
		}
		col := &p.Columns[best]
		col.Dest, col.Suggested = f.Key, ""
		var err error
		if col.Enum, err = h.enumMap(c, ic, dst, col.Key, col.Dest); err != nil {
			return err
		}
		col.Format = formatOf(*ic.src.Config.FieldByKey(col.Key), col.Dest)
		taken[f.Key] = true
	}
	return nil
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// enumMap proposes an option for each distinct value of a source column mapped onto an enum
// field (the whole file's values, most frequent first, up to enumValues); values that name an
// option exactly are set apart. nil when the field is not an enum.
func (h *Imports) enumMap(c *fiber.Ctx, ic *importCtx, dst *model.Sheet, srcKey, destKey string) (*views.ImportEnum, error) {
	f := dst.Config.FieldByKey(destKey)
	if f == nil || f.Type != model.FieldEnum {
		return nil, nil
	}
	top, err := h.store.TopCellValues(c.Context(), ic.u.AccountID, ic.src.ID, srcKey, recordset.RecordQuery{}, enumValues+1)
	if err != nil {
		return nil, err
	}
	e := &views.ImportEnum{More: len(top) > enumValues}
	var vals []string
	count := map[string]int64{}
	for _, cc := range top[:min(len(top), enumValues)] {
		if v := ingest.CellText(cc.Value); v != "" {
			if _, dup := count[v]; !dup {
				vals = append(vals, v)
			}
			count[v] += cc.Total
		}
	}
	exact := map[string]string{} // an option's value and label → its value
	if f.Config != nil {
		for _, o := range f.Config.Options {
			v := ingest.CellText(o.Value)
			e.Options = append(e.Options, views.ImportOption{Value: v, Label: cmp.Or(o.Label, v)})
			exact[v] = v
			if o.Label != "" {
				exact[o.Label] = v
			}
		}
	}
	for _, sg := range mapping.SuggestEnum(vals, *f, mapping.History{}) {
		row := views.ImportEnumRow{Source: sg.Source, Option: sg.Option, Count: count[sg.Source]}
		if sg.Option != "" {
			row.Confidence = int(sg.Confidence*100 + 0.5)
		}
		if opt, ok := exact[sg.Source]; ok && opt == sg.Option {
			e.Exact = append(e.Exact, row)
			continue
		}
		e.Rows = append(e.Rows, row)
	}
	return e, nil
}

// Enum handles GET /space/:spaceId/import/:fileId/enum?to=&col=&dest=: the enum value table
// of one column, re-rendered when its destination changes.
func (h *Imports) Enum(c *fiber.Ctx) error {
	ic, err := h.load(c)
	if err != nil {
		return err
	}
	dst, err := h.destination(c, ic, c.Query("to"))
	if err != nil {
		return err
	}
	col := c.Query("col")
	if ic.src.Config.FieldByKey(col) == nil {
		return errs.NotFoundf("col", "Column not found")
	}
	e, err := h.enumMap(c, ic, dst, col, c.Query("dest"))
	if err != nil {
		return err
	}
	formatOf, err := h.formatsOf(c, ic, dst)
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.ImportColumnExtras(col, e, formatOf(*ic.src.Config.FieldByKey(col), c.Query("dest"))))
}

// formatsOf gives the wizard's format line of a source column mapped onto a destination
// field: the reading its values support and, where they leave it open, the reading last
// chosen for that header and field in the environment (the mapping history), preselected.
func (h *Imports) formatsOf(c *fiber.Ctx, ic *importCtx, dst *model.Sheet) (func(src model.Field, destKey string) *views.ImportFormat, error) {
	readings, err := h.store.ColumnFormats(c.Context(), ic.src.ID)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(ic.src.Config.Fields))
	for _, f := range ic.src.Config.Fields {
		keys = append(keys, mapping.Normalize(f.Key)) // as mapping.RuleKeys keeps a rule's source
	}
	remembered, err := h.store.MappingFormats(c.Context(), ic.space.EnvironmentID, ic.u.historyOwner(), keys)
	if err != nil {
		return nil, err
	}
	return func(src model.Field, destKey string) *views.ImportFormat {
		out := importFormat(readings[src.Key], dst.Config.FieldByKey(destKey))
		if out != nil && out.Ambiguous {
			if r := remembered[mapping.Normalize(src.Key)][destKey]; slices.Contains(out.Choices, r) {
				out.Remembered = r
			}
		}
		return out
	}, nil
}

// importFormat is how the wizard shows a column's reading for a date or number field; nil
// for other fields or a column without counts.
func importFormat(col *formats.Column, f *model.Field) *views.ImportFormat {
	if col == nil || f == nil || (f.Type != model.FieldDate && f.Type != model.FieldNumber) {
		return nil
	}
	r, _ := col.For(f.Type)
	if r.Readable == 0 && r.Against == 0 {
		return nil // nothing in the column reads as this type: its errors will say so
	}
	out := &views.ImportFormat{Kind: r.Kind, Format: r.Format, Proof: r.Proof, Against: r.Against, Ambiguous: r.Ambiguous, Example: r.Example}
	if !r.Ambiguous && r.Example != "" {
		if v, ok := formats.Normalize(r.Example, f.Type, r.Format); ok && v != r.Example {
			out.Stored = v // 1.234,56 → 1234.56
		}
	}
	switch {
	case r.Kind == "number":
		out.Choices = []string{formats.Point, formats.Comma}
	case r.Format == formats.DMY || r.Format == formats.MDY:
		out.Choices = []string{formats.DMY, formats.MDY}
	}
	return out
}

// Run handles POST /space/:spaceId/import/:fileId: the chosen mapping becomes an accepted
// program and a map job; the answer is the job's progress panel.
func (h *Imports) Run(c *fiber.Ctx) error {
	ic, dst, rules, err := h.posted(c)
	if err != nil {
		return err
	}
	if ic.space.ArchivedAt != nil {
		return errs.Invalidf("spaceId", "This space is archived").WithMsg("space.archived_notice", nil)
	}
	if missing := unmappedRequired(dst, rules); len(missing) > 0 && c.FormValue("confirm_unmapped") != "1" {
		// Every record would be in error: say so before anything is written.
		return Render(c, fiber.StatusOK, views.ImportConfirmUnmapped(ic.space.ID, ic.file.ID, strings.Join(missing, ", ")))
	}
	now := c.Context().Time()
	for _, r := range rules {
		if r.Type == "assign" {
			r.AcceptedAt, r.AcceptedBy = &now, ic.u.historyOwner()
		}
	}
	prog := &model.MappingProgram{AccountID: ic.u.AccountID, EnvironmentID: ic.space.EnvironmentID, Source: ic.src.Config, Destination: dst.Config, Rules: rules}
	if err := h.store.CreateProgram(c.Context(), prog, ic.u.historyOwner(), mapping.RuleKeys); err != nil {
		return err
	}
	cfg, _ := json.Marshal(map[string]string{"sourceSheetId": ic.src.ID, "destinationSheetId": dst.ID})
	in, _ := json.Marshal(map[string]any{"programId": prog.ID, "keepRecordIds": false, "emptyValues": emptyList(c.FormValue("empty"))})
	j := &model.Job{AccountID: ic.u.AccountID, EnvironmentID: ic.space.EnvironmentID, Type: "workbook", Operation: ingest.MapOperation,
		Source: ic.file.WorkbookID, Destination: dst.WorkbookID, Config: cfg, Input: in, Trigger: "immediate", Mode: "foreground"}
	if err := h.jobs.Prepare(c.Context(), j); err != nil {
		return err
	}
	if err := h.jobs.Create(c.Context(), j, ic.u.UserID); err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.JobProgress(jobProgress(c.Context(), ic.space.ID, j)))
}

// posted loads what a posted wizard form names: the file, the destination sheet (to) and
// the mapping rules the form chose.
func (h *Imports) posted(c *fiber.Ctx) (*importCtx, *model.Sheet, []*model.MappingRule, error) {
	ic, err := h.load(c)
	if err != nil {
		return nil, nil, nil, err
	}
	dst, err := h.destination(c, ic, c.FormValue("to"))
	if err != nil {
		return nil, nil, nil, err
	}
	readings, err := h.store.ColumnFormats(c.Context(), ic.src.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	rules, err := importRules(c, ic.src, dst, readings)
	return ic, dst, rules, err
}

// importRules reads the wizard's form: per source column (src, in order) its destination
// (dest: a field key, "" to ignore, or +custom), and per enum column the chosen option of
// each source value (ev:<col> and eo:<col>, in pairs).
func importRules(c *fiber.Ctx, src, dst *model.Sheet, readings map[string]*formats.Column) ([]*model.MappingRule, error) {
	args := c.Request().PostArgs()
	srcs, dests := args.PeekMulti("src"), args.PeekMulti("dest")
	if len(srcs) != len(dests) {
		return nil, errs.Invalidf("dest", "The mapping form is incomplete; reload the page")
	}
	var rules []*model.MappingRule
	used := map[string]string{}
	for i := range srcs {
		sk, dk := string(srcs[i]), string(dests[i])
		sf := src.Config.FieldByKey(sk)
		if sf == nil {
			return nil, errs.Invalidf("src", "The file has no column %q", sk)
		}
		header := cmp.Or(sf.Label, sf.Key)
		switch dk {
		case customDest:
			if !dst.Config.AllowAdditionalFields {
				return nil, errs.Invalidf("dest", "%s does not allow additional fields", dst.Name)
			}
			continue // an unmapped column becomes a custom field
		case "":
			rules = append(rules, &model.MappingRule{Name: "ignore " + header, Type: "ignore", Config: mustJSON(map[string]string{"sourceField": sk})})
			continue
		}
		df := dst.Config.FieldByKey(dk)
		if df == nil {
			return nil, errs.Invalidf("dest", "%s has no field %q", dst.Name, dk)
		}
		if other, taken := used[dk]; taken {
			return nil, errs.Invalidf("dest", "%s and %s both map onto %s; pick one", other, header, cmp.Or(df.Label, df.Key)).
				WithMsg("map.duplicate", map[string]any{"A": other, "B": header, "Field": cmp.Or(df.Label, df.Key)})
		}
		used[dk] = header
		cfg := map[string]string{"sourceField": sk, "destinationField": dk}
		if f := importFormat(readings[sk], df); f != nil {
			// The reading chosen (or confirmed) for the column goes with the rule, and so
			// with the mapping history.
			chosen := string(args.Peek("fmt:" + sk))
			switch {
			case chosen != "" && slices.Contains(f.Choices, chosen):
				cfg["format"] = chosen
			case f.Ambiguous && len(f.Choices) > 1:
				return nil, errs.Invalidf("fmt:"+sk, "Choose how to read %s before importing", header).
					WithMsg("map.format_confirm", map[string]any{"Column": header})
			case !f.Ambiguous:
				cfg["format"] = f.Format
			}
		}
		rules = append(rules, &model.MappingRule{Name: header + " → " + cmp.Or(df.Label, df.Key), Type: "assign", Config: mustJSON(cfg)})
		if df.Type == model.FieldEnum {
			if r := enumRule(args.PeekMulti("ev:"+sk), args.PeekMulti("eo:"+sk), dk); r != nil {
				rules = append(rules, r)
			}
		}
	}
	return rules, nil
}

// enumRule turns the value → option pairs chosen for one column into an enum rule.
func enumRule(vals, opts [][]byte, destKey string) *model.MappingRule {
	m := map[string]string{}
	for i := range vals {
		switch {
		case i >= len(opts) || len(opts[i]) == 0: // kept as it is
		case string(opts[i]) == views.EnumEmpty:
			m[string(vals[i])] = "" // imported as no value
		default:
			m[string(vals[i])] = string(opts[i])
		}
	}
	if len(m) == 0 {
		return nil
	}
	return &model.MappingRule{Name: "values of " + destKey, Type: "enum", Config: mustJSON(map[string]any{"destinationField": destKey, "mapping": m})}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// Progress handles GET /space/:spaceId/jobs/:jobId/progress: the job's progress panel,
// polled while it runs. A finished map job sends the browser on to its destination sheet,
// filtered to the records with errors when there are any.
func (h *Imports) Progress(c *fiber.Ctx) error {
	u, j, err := jobOf(c, h.store)
	if err != nil {
		return err
	}
	p := jobProgress(c.Context(), j.SpaceID, j)
	if j.Status == model.JobComplete && j.Operation == ingest.MapOperation && IsHTMX(c) {
		var cfg struct{ DestinationSheetID string }
		_ = json.Unmarshal(j.Config, &cfg)
		if cfg.DestinationSheetID != "" {
			to := "/space/" + j.SpaceID + "/sheet/" + cfg.DestinationSheetID
			if counts, err := h.store.GetRecordCounts(c.Context(), u.AccountID, cfg.DestinationSheetID); err == nil && counts.Error > 0 {
				to += "?filter=error"
			}
			c.Set("HX-Redirect", to)
		}
	}
	return Render(c, fiber.StatusOK, views.JobProgress(p))
}

// jobProgress is what the progress panel shows of a job.
func jobProgress(ctx context.Context, spaceID string, j *model.Job) views.JobProgressProps {
	p := views.JobProgressProps{SpaceID: spaceID, JobID: j.ID, Status: string(j.Status), Percent: int(j.Progress), Info: sdkText(ctx, j.Info),
		Done: j.Finished(), Failed: j.Status == model.JobFailed || j.Status == model.JobCanceled}
	if j.Status == model.JobComplete {
		p.Percent = 100
	}
	var out struct {
		Message string `json:"message"`
	}
	if len(j.Outcome) > 0 && json.Unmarshal(j.Outcome, &out) == nil {
		p.Message = jobMessage(ctx, out.Message)
	}
	p.Info = strings.TrimSpace(p.Info)
	return p
}

// NewSheet handles POST /space/:spaceId/import/:fileId/new-sheet ("Import as a new sheet"): a
// workbook named after the file with one sheet whose fields are the file's columns, each typed
// from its values (number, date or yes/no where every value reads so, else text); the wizard
// then opens on it.
func (h *Imports) NewSheet(c *fiber.Ctx) error {
	ic, err := h.load(c)
	if err != nil {
		return err
	}
	if err := auth.Can(ic.u.Principal(), auth.Write, place.Content(ic.space.AccountID, ic.space.EnvironmentID, ic.space.ID)); err != nil {
		return err
	}
	readings, err := h.store.ColumnFormats(c.Context(), ic.src.ID)
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(ic.file.Name, filepath.Ext(ic.file.Name))
	cfg := model.SheetConfig{Name: cmp.Or(strings.TrimSpace(name), "Imported"), AllowAdditionalFields: false}
	cfg.Slug = schema.Slugify(cfg.Name)
	taken := map[string]bool{}
	for i, f := range ic.src.Config.Fields {
		// Keys an API user can type: "E-Mail Adresse" → e_mail_adresse (the label keeps the header).
		key := firstFree(cmp.Or(keyOf(cmp.Or(f.Label, f.Key)), fmt.Sprintf("column_%d", i+1)), "_", func(k string) bool { return taken[k] })
		taken[key] = true
		cfg.Fields = append(cfg.Fields, model.Field{Key: key, Label: cmp.Or(f.Label, f.Key), Type: inferredType(readings[f.Key])})
	}
	if err := schema.Sheet(&cfg, "sheet", h.store.Settings().Caps); err != nil {
		return err
	}
	// A workbook made in the dashboard is submitted without code: the built-in Submit.
	actions, _ := json.Marshal([]model.ActionConfig{submitAction(c.Context())})
	wb := &model.Workbook{AccountID: ic.space.AccountID, EnvironmentID: ic.space.EnvironmentID, SpaceID: ic.space.ID, Name: cfg.Name,
		Sheets: []*model.Sheet{{Config: cfg}}, Actions: actions}
	if err := h.store.CreateWorkbook(c.Context(), wb, ic.u.UserID); err != nil {
		return err
	}
	return hxRedirect(c, "/space/"+ic.space.ID+"/import/"+ic.file.ID+"?to="+url.QueryEscape(wb.Sheets[0].ID))
}

// inferredType is the field type a column's values all read as: number, date or boolean when
// every value does and none is ambiguous (a yes/no column needs two values), else string.
func inferredType(col *formats.Column) string {
	if col == nil || col.Values == 0 {
		return model.FieldString
	}
	for _, t := range []string{model.FieldNumber, model.FieldDate, model.FieldBoolean} {
		// One lone "x" reads as yes: a yes/no column needs two values to say so.
		if r, _ := col.For(t); r.Readable == col.Values && r.Against == 0 && !r.Ambiguous && (t != model.FieldBoolean || col.Values > 1) {
			return t
		}
	}
	return model.FieldString
}

// unmappedRequired lists the labels of the destination's required fields no column is mapped
// onto.
func unmappedRequired(dst *model.Sheet, rules []*model.MappingRule) []string {
	mapped := map[string]bool{}
	for _, r := range rules {
		var cfg struct {
			DestinationField string `json:"destinationField"`
		}
		if r.Type == "assign" && json.Unmarshal(r.Config, &cfg) == nil {
			mapped[cfg.DestinationField] = true
		}
	}
	var out []string
	for _, f := range dst.Config.Fields {
		if f.HasConstraint("required") && !mapped[f.Key] {
			out = append(out, cmp.Or(f.Label, f.Key))
		}
	}
	return out
}
