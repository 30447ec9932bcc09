package ui

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/markup"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/views"
)

// configureWait is how long a new space waits for an agent to acknowledge its
// space:configure job before the page offers the empty-space dialog.
const configureWait = 10 * time.Second

// sidebar builds a space's sidebar; active is the sheet or document the page shows.
func (h *Handler) sidebar(c *fiber.Ctx, u SessionUser, sp *model.Space, active string) (views.SidebarProps, error) {
	p := views.SidebarProps{SpaceID: sp.ID, SpaceName: sp.Name, Archived: sp.ArchivedAt != nil, Info: rowOf(sp), Active: active, ShowInfo: true}
	env, err := h.store.GetEnvironment(c.Context(), u.AccountID, sp.EnvironmentID)
	if err != nil {
		return p, err
	}
	p.Environment = env.Name
	var meta struct {
		ShowSpaceInfo *bool `json:"showSpaceInfo"`
	}
	if json.Unmarshal(env.Metadata, &meta) == nil && meta.ShowSpaceInfo != nil && !*meta.ShowSpaceInfo {
		p.ShowInfo = false
	}
	if c.Locals(views.KeyEmbed) != nil {
		p.Hidden = embedConfig(sp).SidebarConfig.ShowSidebar != nil && !*embedConfig(sp).SidebarConfig.ShowSidebar
	}
	wbs, err := h.store.ListWorkbooks(c.Context(), store.WorkbookFilter{AccountID: u.AccountID, SpaceID: sp.ID, IncludeSheets: true})
	if err != nil {
		return p, err
	}
	if u.ClipSheet != "" {
		// A data clip's link shows its clip sheet and nothing else of the space.
		p.Clip, p.ShowInfo = true, false
		for _, w := range wbs {
			for _, s := range w.Sheets {
				if s.ID == u.ClipSheet {
					p.Workbooks = []views.WorkbookItem{{ID: w.ID, Name: w.Name, Sheets: []views.SheetLink{{ID: s.ID, Name: s.Name}}}}
				}
			}
		}
		return p, nil
	}
	for _, w := range wbs {
		if isFileWorkbook(w) {
			p.Files++
			continue
		}
		p.Workbooks = append(p.Workbooks, views.WorkbookItem{ID: w.ID, Name: w.Name, Sheets: sidebarOrder(w)})
	}
	docs, err := h.store.ListDocuments(c.Context(), sp.ID)
	if err != nil {
		return p, err
	}
	for _, d := range docs {
		if !slices.Contains(d.Treatments, "ephemeral") {
			p.Documents = append(p.Documents, views.DocumentItem{ID: d.ID, Title: d.Title})
		}
	}
	if p.EmptyDialog, err = h.unconfigured(c, u, sp, len(p.Workbooks) == 0); err != nil {
		return p, err
	}
	return p, nil
}

// sidebarOrder lists a workbook's sheets in its settings.sheetSidebarOrder (sheet ids or
// slugs), the others after them in their own order.
func sidebarOrder(w *model.Workbook) []views.SheetLink {
	var set struct {
		Order []string `json:"sheetSidebarOrder"`
	}
	_ = json.Unmarshal(w.Settings, &set)
	placed := map[string]bool{}
	var out []views.SheetLink
	for _, key := range set.Order {
		for _, s := range w.Sheets {
			if !placed[s.ID] && (s.ID == key || s.Slug == key) {
				placed[s.ID] = true
				out = append(out, views.SheetLink{ID: s.ID, Name: s.Name})
			}
		}
	}
	for _, s := range w.Sheets {
		if !placed[s.ID] {
			out = append(out, views.SheetLink{ID: s.ID, Name: s.Name})
		}
	}
	return out
}

// unconfigured reports whether an empty space's space:configure job was not acknowledged
// within configureWait of the space's creation (no agent set the space up).
func (h *Handler) unconfigured(c *fiber.Ctx, u SessionUser, sp *model.Space, empty bool) (bool, error) {
	if !empty || sp.ArchivedAt != nil || h.now().Sub(sp.CreatedAt) < configureWait {
		return false, nil
	}
	jobs, _, err := h.store.ListJobs(c.Context(), store.JobFilter{AccountID: u.AccountID, SpaceID: sp.ID, Page: model.Page{Size: 50, Number: 1}})
	if err != nil {
		return false, err
	}
	for _, j := range jobs {
		if j.Type == "space" && j.Operation == "configure" {
			switch j.Status {
			case model.JobExecuting, model.JobComplete:
				return false, nil // an agent took it
			}
			return true, nil
		}
	}
	return false, nil
}

// Document handles GET /space/:spaceId/document/:documentId.
func (h *Handler) Document(c *fiber.Ctx) error {
	u, sp, err := spaceOf(c, h.store)
	if err != nil {
		return err
	}
	d, err := h.store.GetDocument(c.Context(), sp.ID, c.Params("documentId"))
	if err != nil {
		return err
	}
	sb, err := h.sidebar(c, u, sp, d.ID)
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.DocumentPage(documentProps(sb, d)))
}

func documentProps(sb views.SidebarProps, d *model.Document) views.DocumentProps {
	p := views.DocumentProps{Sidebar: sb, ID: d.ID, Title: d.Title}
	for _, part := range markup.Parts(d.Body) {
		dp := views.DocPart{HTML: part.HTML}
		if e := part.Embed; e != nil {
			dp.Embed = &views.DocEmbed{Name: e.Name, SheetID: e.SheetID, DefaultExpanded: e.DefaultExpanded}
		}
		p.Parts = append(p.Parts, dp)
	}
	return p
}

// embedRows is how many records an embedded sheet shows.
const embedRows = 20

// SheetEmbed handles GET /space/:spaceId/sheet/:sheetId/embed: a sheet's first records, read
// only, for documents that embed it.
func (h *Handler) SheetEmbed(c *fiber.Ctx) error {
	sc, err := h.loadSheet(c)
	if err != nil {
		return err
	}
	recs, total, err := h.store.GetRecords(c.Context(), sc.u.AccountID, sc.sheet.ID, recordset.RecordQuery{Page: model.Page{Size: embedRows, Number: 1}}, true)
	if err != nil {
		return err
	}
	p := views.SheetEmbedProps{SpaceID: sc.space.ID, SheetID: sc.sheet.ID, Name: sc.sheet.Name, Total: total}
	for _, f := range sc.sheet.Config.Fields {
		p.Columns = append(p.Columns, cmp.Or(f.Label, f.Key))
	}
	for _, r := range recs {
		byKey := map[string]string{}
		for _, cell := range r.Cells {
			byKey[cell.Key] = ingest.CellText(cell.Value)
		}
		row := make([]string, len(sc.sheet.Config.Fields))
		for i, f := range sc.sheet.Config.Fields {
			row[i] = byKey[f.Key]
		}
		p.Rows = append(p.Rows, row)
	}
	return Render(c, fiber.StatusOK, views.SheetEmbed(p))
}

// ephemeralDocument is the first document of a space treated as ephemeral, shown over the
// space page; nil when there is none.
func (h *Handler) ephemeralDocument(c *fiber.Ctx, sb views.SidebarProps) (*views.DocumentProps, error) {
	docs, err := h.store.ListDocuments(c.Context(), sb.SpaceID)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if slices.Contains(d.Treatments, "ephemeral") {
			p := documentProps(sb, d)
			return &p, nil
		}
	}
	return nil, nil
}

// embedMeta is what the browser SDKs put in an embedded space's metadata.
type embedMeta struct {
	Toolbar       string `json:"toolbar"` // "full": the embedded grid keeps every tool
	SidebarConfig struct {
		ShowSidebar *bool `json:"showSidebar"`
		DefaultPage struct {
			Workbook struct {
				WorkbookID string `json:"workbookId"`
				SheetID    string `json:"sheetId"`
			} `json:"workbook"`
			DocumentID string `json:"documentId"`
		} `json:"defaultPage"`
	} `json:"sidebarConfig"`
}

func embedConfig(sp *model.Space) embedMeta {
	var m embedMeta
	_ = json.Unmarshal(sp.Metadata, &m)
	return m
}

// whiteLabel is the white label an environment's or a space's metadata carries.
type whiteLabel struct {
	WhiteLabel *struct {
		Title    *string `json:"title"`
		HideLogo *bool   `json:"hideLogo"`
	} `json:"whiteLabel"`
}

// BrandOf is the white label of a space: the environment's metadata.whiteLabel {title,
// hideLogo}, each part overridden by the space's own metadata.whiteLabel (a host sets it when
// it makes the space).
func BrandOf(envMeta, spaceMeta json.RawMessage) views.BrandProps {
	var b views.BrandProps
	for _, raw := range []json.RawMessage{envMeta, spaceMeta} {
		var w whiteLabel
		if json.Unmarshal(raw, &w) != nil || w.WhiteLabel == nil {
			continue
		}
		if t := w.WhiteLabel.Title; t != nil {
			b.Title = strings.TrimSpace(*t)
		}
		if h := w.WhiteLabel.HideLogo; h != nil {
			b.HideLogo = *h
		}
	}
	if r := []rune(b.Title); len(r) > 80 {
		b.Title = string(r[:80])
	}
	return b
}
