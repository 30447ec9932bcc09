package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store"
)

// cellWithCounts is Flatfile's CellValueWithCounts: a distinct value of a field, valid when
// no record holding it has an error, and with includeCounts how many records hold it.
type cellWithCounts struct {
	Value  json.RawMessage `json:"value"`
	Valid  bool            `json:"valid"`
	Counts *cellCounts     `json:"counts,omitempty"`
}

type cellCounts struct {
	Total int64 `json:"total"`
	Valid int64 `json:"valid"`
	Error int64 `json:"error"`
}

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
	out := make(map[string][]cellWithCounts, len(keys))
	for _, key := range keys {
		var vals []store.CellCount
		if paged && sortField == "" {
			// A page of the most frequent values: a field with too many values to keep is
			// counted only that far.
			vals, err = h.store.TopCellValues(c.Context(), p.AccountID, sc.SheetID, key, q, pg.Offset()+pg.Size)
		} else {
			vals, err = h.store.CellValues(c.Context(), p.AccountID, sc.SheetID, key, q)
		}
		if err != nil {
			return err
		}
		if sortField != "" {
			if sortField != key {
				return errs.Invalidf("sortField", "Distinct values sort by their own field (%s) or by count (no sortField)", key)
			}
			vals = append([]store.CellCount(nil), vals...)
			sort.SliceStable(vals, func(i, j int) bool {
				if desc {
					return compareJSON(vals[j].Value, vals[i].Value) < 0
				}
				return compareJSON(vals[i].Value, vals[j].Value) < 0
			})
		}
		if paged {
			from := min(pg.Offset(), len(vals))
			vals = vals[from:min(from+pg.Size, len(vals))]
		}
		cells := make([]cellWithCounts, len(vals))
		for i, v := range vals {
			cells[i] = cellWithCounts{Value: v.Value, Valid: v.Error == 0}
			if counts != nil && *counts {
				cells[i].Counts = &cellCounts{Total: v.Total, Valid: v.Valid, Error: v.Error}
			}
		}
		out[key] = cells
	}
	return c.JSON(fiber.Map{"data": out})
}

// compareJSON orders JSON values: numbers by value, then text, then booleans, each among
// their kind (false before true).
func compareJSON(a, b json.RawMessage) int {
	ka, kb := jsonKind(a), jsonKind(b)
	if ka != kb {
		return ka - kb
	}
	switch ka {
	case 0:
		x, _ := strconv.ParseFloat(string(a), 64)
		y, _ := strconv.ParseFloat(string(b), 64)
		return cmp.Compare(x, y)
	case 1:
		var x, y string
		_ = json.Unmarshal(a, &x)
		_ = json.Unmarshal(b, &y)
		return cmp.Compare(x, y)
	}
	return bytes.Compare(a, b)
}

func jsonKind(v json.RawMessage) int {
	switch {
	case len(v) > 0 && v[0] == '"':
		return 1
	case bytes.Equal(v, []byte("true")) || bytes.Equal(v, []byte("false")):
		return 2
	}
	return 0
}
