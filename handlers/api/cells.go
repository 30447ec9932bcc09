package api

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store/recordset"
)

// Cells handles GET /v1/sheets/:sheetId/cells (Flatfile's getCellValues): the distinct
// values of fieldKey (every field when it is absent) among the records the filter, filterField,
// searchValue and q select, exactly over the whole sheet, as {data: {fieldKey: [cell…]}}.
// distinct must be true. The values come most frequent first; sortField=fieldKey orders them
// by value (sortDirection). pageSize and pageNumber page each field's list (1,000 a page
// when pageNumber is given).
func (h *Records) Cells(c *fiber.Ctx) error {
	p, sc, err := h.sheet(c)
	if err != nil {
		return err
	}
	distinct, err := queryBool(c, "distinct")
	if err != nil {
		return err
	}
	if distinct == nil || !*distinct {
		return errs.Invalidf("distinct", "distinct must be true: Sluice returns distinct values only")
	}
	counts, err := queryBool(c, "includeCounts")
	if err != nil {
		return err
	}
	q, err := recordQuery(c)
	if err != nil {
		return err
	}
	sortField := q.SortField
	q.SortField, q.SortDesc = "", false
	desc, err := sortDesc(c)
	if err != nil {
		return err
	}
	pg, err := page(c, 1000, 10000)
	if err != nil {
		return err
	}
	paged := c.Query("pageNumber") != "" || c.Query("pageSize") != ""
	keys := []string{c.Query("fieldKey")}
	if keys[0] == "" {
		keys = keys[:0]
		for _, f := range sc.Config.Fields {
			keys = append(keys, f.Key)
		}
	}
	if sortField != "" && (len(keys) != 1 || sortField != keys[0]) {
		return errs.Invalidf("sortField", "Distinct values sort by their own field (fieldKey) or by count (no sortField)")
	}
	withCounts := counts != nil && *counts
	fields := make(map[string][]recordset.CellCount, len(keys))
	for _, key := range keys {
		part := recordset.CellsPage{ByValue: sortField != "", Desc: desc}
		if paged {
			part.Offset, part.Limit = pg.Offset(), pg.Size
		}
		vals, err := h.store.CellValuesPage(ctxOf(c), p.AccountID, sc.SheetID, key, q, part)
		if err != nil {
			return err
		}
		fields[key] = vals
	}
	size := 32
	for k, vals := range fields {
		size += len(k) + 8
		for _, v := range vals {
			size += len(v.Value) + 80
		}
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(appendCells(make([]byte, 0, size), fields, withCounts))
}

// appendCells writes {"data": {fieldKey: [cell…]}} (fields in key order), each cell
// Flatfile's CellValueWithCounts: the value, valid when no record holding it has an error,
// and withCounts how many records hold it. Written directly: a field with a value per
// record has a million of them (0.4 s through encoding/json).
func appendCells(b []byte, fields map[string][]recordset.CellCount, withCounts bool) []byte {
	b = append(b, `{"data":{`...)
	for i, key := range slices.Sorted(maps.Keys(fields)) {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(key)
		b = append(append(b, k...), ":["...)
		for j, v := range fields[key] {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"value":`...)
			if len(v.Value) > 0 && (v.Value[0] == '[' || v.Value[0] == '{') {
				var buf bytes.Buffer
				if json.Compact(&buf, v.Value) == nil {
					b = append(b, buf.Bytes()...)
				} else {
					b = append(b, v.Value...)
				}
			} else {
				b = append(b, v.Value...)
			}
			b = append(b, `,"valid":`...)
			b = strconv.AppendBool(b, v.Error == 0)
			if withCounts {
				b = append(b, `,"counts":{"total":`...)
				b = strconv.AppendInt(b, v.Total, 10)
				b = append(b, `,"valid":`...)
				b = strconv.AppendInt(b, v.Valid, 10)
				b = append(b, `,"error":`...)
				b = strconv.AppendInt(b, v.Error, 10)
				b = append(b, '}')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, "}}"...)
}
