package ui

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/views"
)

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
	vals, err := h.store.TopCellValues(c.Context(), sc.u.AccountID, sc.sheet.ID, key, recordset.RecordQuery{}, n)
	if err != nil {
		return err
	}
	if errorsOnly {
		vals = slices.DeleteFunc(vals, func(v recordset.CellCount) bool { return v.Error == 0 })
		slices.SortStableFunc(vals, func(a, b recordset.CellCount) int { return cmp.Compare(b.Error, a.Error) })
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
			q := recordset.RecordQuery{Page: model.Page{Size: lookupLimit, Number: 1}}
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
