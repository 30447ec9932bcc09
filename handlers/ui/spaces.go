package ui

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// environment picks the requested environment of the user's account, or the first one.
func (h *Handler) environment(c *fiber.Ctx, u SessionUser, id string) (*model.Environment, []*model.Environment, error) {
	envs, _, err := h.store.ListEnvironments(c.Context(), u.AccountID, u.EnvironmentID, model.Page{Size: 1000, Number: 1})
	if err != nil {
		return nil, nil, err
	}
	if len(envs) == 0 {
		return nil, nil, errs.NotFoundf("env", "The account has no environment")
	}
	for _, e := range envs {
		if e.ID == id {
			return e, envs, nil
		}
	}
	if id != "" {
		return nil, nil, errs.NotFoundf("env", "Environment not found")
	}
	return envs[0], envs, nil
}

// Spaces handles GET /: the spaces of one environment.
func (h *Handler) Spaces(c *fiber.Ctx) error {
	u := userOf(c)
	if u.GuestSpace != "" {
		return c.Redirect("/space/"+u.GuestSpace, fiber.StatusSeeOther)
	}
	env, envs, err := h.environment(c, u, c.Query("env"))
	if err != nil {
		return err
	}
	p := views.SpacesProps{EnvID: env.ID, Namespaces: env.Namespaces, ShowArchived: c.Query("archived") == "1"}
	for _, e := range envs {
		p.Envs = append(p.Envs, views.EnvOption{ID: e.ID, Name: e.Name})
	}
	spaces, _, err := h.store.ListSpaces(c.Context(), store.SpaceFilter{AccountID: u.AccountID, EnvironmentID: env.ID, Archived: p.ShowArchived,
		SortField: "createdAt", SortDesc: true, Page: model.Page{Size: 500, Number: 1}})
	if err != nil {
		return err
	}
	for _, s := range spaces {
		p.Rows = append(p.Rows, rowOf(s))
	}
	return Render(c, fiber.StatusOK, views.Spaces(p))
}

// CreateSpace handles POST /space; htmx gets the new row, a plain form post a redirect.
func (h *Handler) CreateSpace(c *fiber.Ctx) error {
	u := userOf(c)
	if err := staffOnly(u); err != nil {
		return err
	}
	env, _, err := h.environment(c, u, c.FormValue("env"))
	if err != nil {
		return err
	}
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" {
		return errs.Invalidf("name", "Give the space a name.").WithMsg("spaces.name_required", nil)
	}
	if len(name) > 200 {
		return errs.Invalidf("name", "A space name has at most 200 characters.")
	}
	ns := c.FormValue("namespace")
	if err := api.CheckNamespace(env, ns); err != nil {
		return err
	}
	// A space made in the dashboard is built by the environment's listeners, as Flatfile's are,
	// when it has any: without an agent a configure job would only wait and fail.
	agents, _, err := h.store.ListAgents(c.Context(), store.AgentFilter{AccountID: u.AccountID, EnvironmentID: env.ID, Page: model.Page{Size: 1, Number: 1}})
	if err != nil {
		return err
	}
	s := &model.Space{AccountID: u.AccountID, EnvironmentID: env.ID, Name: name, Namespace: ns, CreatedByUserID: u.UserID, CreatedByUserName: u.Email,
		AutoConfigure: len(agents) > 0}
	if err := h.store.CreateSpace(c.Context(), s, u.UserID); err != nil {
		return err
	}
	if !IsHTMX(c) {
		return c.Redirect("/?env="+env.ID, fiber.StatusSeeOther)
	}
	return Render(c, fiber.StatusOK, views.SpaceRowView(rowOf(s)))
}

// Archive handles POST /space/:spaceId/archive.
func (h *Handler) Archive(c *fiber.Ctx) error { return h.setArchived(c, true) }

// Unarchive handles POST /space/:spaceId/unarchive.
func (h *Handler) Unarchive(c *fiber.Ctx) error { return h.setArchived(c, false) }

func (h *Handler) setArchived(c *fiber.Ctx, archived bool) error {
	u := userOf(c)
	if err := staffOnly(u); err != nil {
		return err
	}
	s, err := h.store.SetSpaceArchived(c.Context(), u.AccountID, c.Params("spaceId"), archived, u.UserID)
	if err != nil {
		return err
	}
	if !IsHTMX(c) {
		return c.Redirect("/space/"+s.ID, fiber.StatusSeeOther)
	}
	return Render(c, fiber.StatusOK, views.SpaceRowView(rowOf(s)))
}

// Space handles GET /space/:spaceId.
func (h *Handler) Space(c *fiber.Ctx) error {
	u, s, err := spaceOf(c, h.store)
	if err != nil {
		return err
	}
	env, err := h.store.GetEnvironment(c.Context(), u.AccountID, s.EnvironmentID)
	if err != nil {
		return err
	}
	meta, _ := json.MarshalIndent(json.RawMessage(s.Metadata), "", "  ")
	p := views.SpaceProps{Row: rowOf(s), Environment: env.Name, Metadata: string(meta)}
	wbs, err := h.store.ListWorkbooks(c.Context(), store.WorkbookFilter{AccountID: u.AccountID, SpaceID: s.ID, IncludeSheets: true})
	if err != nil {
		return err
	}
	// An embedded importer opens on its default page (sidebarConfig.defaultPage), else its
	// first sheet: the SDK's user came to import, not to read the space's details.
	if c.Locals(views.KeyEmbed) != nil {
		dp := embedConfig(s).SidebarConfig.DefaultPage
		switch {
		case dp.DocumentID != "":
			return c.Redirect("/space/"+s.ID+"/document/"+dp.DocumentID, fiber.StatusSeeOther)
		case dp.Workbook.SheetID != "":
			return c.Redirect("/space/"+s.ID+"/sheet/"+dp.Workbook.SheetID, fiber.StatusSeeOther)
		}
		for _, w := range wbs {
			if len(w.Sheets) > 0 {
				return c.Redirect("/space/"+s.ID+"/sheet/"+w.Sheets[0].ID, fiber.StatusSeeOther)
			}
		}
	}
	for _, w := range wbs {
		item := views.WorkbookItem{ID: w.ID, Name: w.Name}
		for _, sh := range w.Sheets {
			item.Sheets = append(item.Sheets, views.SheetLink{ID: sh.ID, Name: sh.Name})
		}
		p.Workbooks = append(p.Workbooks, item)
	}
	if p.Files, err = h.fileItems(c, u, s.ID); err != nil {
		return err
	}
	docs, err := h.store.ListDocuments(c.Context(), s.ID)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if !slices.Contains(d.Treatments, "ephemeral") {
			p.Documents = append(p.Documents, views.DocumentItem{ID: d.ID, Title: d.Title})
		}
	}
	if p.Sidebar, err = h.sidebar(c, u, s, ""); err != nil {
		return err
	}
	if p.Ephemeral, err = h.ephemeralDocument(c, p.Sidebar); err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.SpacePage(p))
}

// humanSize writes a byte count as B, KB, MB or GB.
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGT"[exp])
}

func (h *Handler) fileItems(c *fiber.Ctx, u SessionUser, spaceID string) ([]views.FileItem, error) {
	files, _, err := h.store.ListFiles(c.Context(), store.FileFilter{AccountID: u.AccountID, SpaceID: spaceID, Page: model.Page{Size: 100, Number: 1}})
	if err != nil {
		return nil, err
	}
	var out []views.FileItem
	for _, f := range files {
		out = append(out, views.FileItem{ID: f.ID, Name: f.Name, Status: f.Status, Note: f.Description, Size: humanSize(f.Size), Ready: f.SheetID != ""})
	}
	return out, nil
}

// Files handles GET /space/:spaceId/files: the files list partial, polled while extractions run.
func (h *Handler) Files(c *fiber.Ctx) error {
	u, s, err := spaceOf(c, h.store)
	if err != nil {
		return err
	}
	items, err := h.fileItems(c, u, s.ID)
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.FileListPartial(s.ID, items))
}

// Upload handles POST /space/:spaceId/files (htmx, multipart): the signed-in user uploads
// through the API's upload handler, acting as themselves; the answer is the files partial,
// or with ?to=<sheet> (the sheet's "Import a file") a redirect to the wizard for that sheet.
func (h *Handler) Upload(upload fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		u := userOf(c)
		if err := guard(u, c.Params("spaceId")); err != nil {
			return err
		}
		sp, err := h.store.GetSpace(c.Context(), u.AccountID, c.Params("spaceId"))
		if err != nil {
			return err
		}
		p := &auth.Principal{Kind: auth.UserToken, AccountID: u.AccountID, EnvironmentID: u.EnvironmentID, UserID: u.UserID, Email: u.Email, ActorID: u.UserID}
		if u.GuestSpace != "" {
			p = &auth.Principal{Kind: auth.GuestToken, AccountID: u.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, Email: u.Email, ActorID: u.UserID}
		}
		api.SetPrincipal(c, p)
		if err := upload(c); err != nil {
			return err
		}
		// From a sheet's toolbar (?to=<sheet>): on to the import wizard for that sheet, which
		// waits for the file to be read.
		if to := c.Query("to"); to != "" {
			var out struct{ Data struct{ ID string } }
			if json.Unmarshal(c.Response().Body(), &out) != nil || out.Data.ID == "" {
				return errs.E(errs.Internal, "file", "The upload did not answer with its file")
			}
			c.Response().ResetBody()
			c.Set("HX-Redirect", "/space/"+sp.ID+"/import/"+out.Data.ID+"?to="+url.QueryEscape(to))
			return c.SendStatus(fiber.StatusOK)
		}
		c.Response().ResetBody()
		return h.Files(c)
	}
}

// Download handles GET /space/:spaceId/files/:fileId/download: a file of the space (an
// export a job made, an upload) through the API's download, for the signed-in user; the
// dashboard sends no API key, so a job's download link leads here.
func (h *Handler) Download(download fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		u, sp, err := spaceOf(c, h.store)
		if err != nil {
			return err
		}
		f, err := h.store.GetFile(c.Context(), u.AccountID, c.Params("fileId"))
		if err != nil || f.SpaceID != sp.ID {
			return errs.NotFoundf("fileId", "File not found")
		}
		if err := may(c, auth.Read, f); err != nil {
			return err
		}
		api.SetPrincipal(c, u.Principal())
		return download(c)
	}
}
