package ui

import (
	"bufio"

	"github.com/gofiber/fiber/v2"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/model"
)

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
