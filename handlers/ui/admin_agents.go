package ui

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/views"
)

// AgentAdminStore is what the agents and apps pages read and write (part of AdminStore).
type AgentAdminStore interface {
	ListAgents(ctx context.Context, f store.AgentFilter) ([]*model.Agent, int, error)
	GetAgent(ctx context.Context, accountID, id string) (*model.Agent, error)
	ListAgentVersions(ctx context.Context, agentID string) ([]*model.AgentVersion, error)
	RevertAgent(ctx context.Context, accountID, agentID, versionID, actor string) (*model.AgentVersion, error)
	ListDeliveries(ctx context.Context, f store.DeliveryFilter) ([]*model.Delivery, int, error)
	ListApps(ctx context.Context, accountID string) ([]*store.App, error)
	GetApp(ctx context.Context, accountID, id string) (*store.App, error)
	CreateSpace(ctx context.Context, s *model.Space, actor string) error
	CreateWorkbook(ctx context.Context, w *model.Workbook, actor string) error
}

// Agents handles GET /admin/agents: each agent with its versions (revert) and its latest
// webhook deliveries (the logs).
func (h *Admin) Agents(c *fiber.Ctx) error {
	u, sh, env, err := h.page(c, "agents")
	if err != nil {
		return err
	}
	as := h.store
	list, _, err := as.ListAgents(c.Context(), store.AgentFilter{AccountID: u.AccountID, EnvironmentID: env.ID, Page: model.Page{Size: 100, Number: 1}})
	if err != nil {
		return err
	}
	p := views.AdminAgentsProps{Shell: sh}
	for _, a := range list {
		row := views.AdminAgent{ID: a.ID, Slug: cmp.Or(a.Config.Slug, a.ID), Topics: strings.Join(a.Config.Topics, ", "), Version: a.Version, URL: a.Config.URL}
		vs, err := as.ListAgentVersions(c.Context(), a.ID)
		if err != nil {
			return err
		}
		for _, v := range vs {
			row.Versions = append(row.Versions, views.AdminOption{Value: v.ID, Label: "v" + strconv.Itoa(v.Version) + " · " + v.CreatedAt.UTC().Format("2006-01-02 15:04")})
		}
		ds, _, err := as.ListDeliveries(c.Context(), store.DeliveryFilter{AccountID: u.AccountID, AgentID: a.ID, Page: model.Page{Size: 10, Number: 1}})
		if err != nil {
			return err
		}
		for _, d := range ds {
			row.Logs = append(row.Logs, views.AdminDelivery{Topic: d.Topic, Status: d.Status, HTTP: d.LastStatus, Attempts: d.Attempts, Error: d.LastError})
		}
		p.Rows = append(p.Rows, row)
	}
	return Render(c, fiber.StatusOK, views.AdminAgentsPage(p))
}

// RevertAgent handles POST /admin/agents/:agentId/revert (version): the agent runs that
// version's code again, as a new version.
func (h *Admin) RevertAgent(c *fiber.Ctx) error {
	u, err := h.admin(c)
	if err != nil {
		return err
	}
	as := h.store
	ag, err := as.GetAgent(c.Context(), u.AccountID, c.Params("agentId"))
	if err == nil {
		err = may(c, auth.Write, ag)
	}
	if err != nil {
		return err
	}
	if _, err := as.RevertAgent(c.Context(), u.AccountID, c.Params("agentId"), c.FormValue("version"), u.UserID); err != nil {
		return err
	}
	return hxRedirect(c, "/admin/agents?env="+c.FormValue("env"))
}

// Apps handles GET /admin/apps: the account's apps.
func (h *Admin) Apps(c *fiber.Ctx) error {
	u, sh, _, err := h.page(c, "apps")
	if err != nil {
		return err
	}
	as := h.store
	list, err := as.ListApps(c.Context(), u.AccountID)
	if err != nil {
		return err
	}
	p := views.AdminAppsProps{Shell: sh}
	for _, a := range list {
		p.Rows = append(p.Rows, views.AdminApp{ID: a.ID, Name: a.Name, Namespace: a.Namespace, Type: a.Type, Entity: a.EntityPlural, Created: a.CreatedAt.UTC().Format("2006-01-02")})
	}
	return Render(c, fiber.StatusOK, views.AdminAppsPage(p))
}

// AppTemplate handles POST /admin/apps/:appId/template: the app's template space in this
// environment, tagged isAppTemplate with the app's id and built from its blueprint (a
// workbook: {name, sheets, actions}); an app that has one already opens it.
func (h *Admin) AppTemplate(c *fiber.Ctx) error {
	u, _, env, err := h.page(c, "apps")
	if err != nil {
		return err
	}
	app, err := h.store.GetApp(c.Context(), u.AccountID, c.Params("appId"))
	if err == nil {
		err = may(c, auth.Write, app)
	}
	if err != nil {
		return err
	}
	yes := true
	have, _, err := h.store.ListSpaces(c.Context(), store.SpaceFilter{AccountID: u.AccountID, EnvironmentID: env.ID, AppID: &app.ID, IsAppTemplate: &yes,
		Page: model.Page{Size: 1, Number: 1}})
	if err != nil {
		return err
	}
	if len(have) > 0 {
		return c.Redirect("/space/"+have[0].ID, fiber.StatusSeeOther)
	}
	wb, err := blueprintWorkbook(app, h.store.Settings().Caps)
	if err != nil {
		return err
	}
	sp := &model.Space{AccountID: u.AccountID, EnvironmentID: env.ID, Name: views.Tf(c.Context(), "admin.app_template_name", map[string]any{"Name": app.Name}),
		Namespace: app.Namespace, AppID: app.ID, IsAppTemplate: true, CreatedByUserID: u.UserID, CreatedByUserName: u.Email}
	if err := h.store.CreateSpace(c.Context(), sp, u.UserID); err != nil {
		return err
	}
	if wb != nil {
		wb.AccountID, wb.EnvironmentID, wb.SpaceID = u.AccountID, env.ID, sp.ID
		if err := h.store.CreateWorkbook(c.Context(), wb, u.UserID); err != nil {
			return err
		}
	}
	return c.Redirect("/space/"+sp.ID, fiber.StatusSeeOther)
}

// blueprintWorkbook reads an app's blueprint as a workbook (nil when it has none).
func blueprintWorkbook(app *store.App, caps limits.Caps) (*model.Workbook, error) {
	if len(app.Blueprint) == 0 || string(app.Blueprint) == "null" || string(app.Blueprint) == "{}" {
		return nil, nil
	}
	var bp struct {
		Name    string              `json:"name"`
		Sheets  []model.SheetConfig `json:"sheets"`
		Actions json.RawMessage     `json:"actions"`
	}
	if err := json.Unmarshal(app.Blueprint, &bp); err != nil || len(bp.Sheets) == 0 {
		return nil, errs.Invalidf("blueprint", "The app's blueprint is not a workbook with sheets ({name, sheets: [...]})").WithMsg("admin.app_blueprint_invalid", nil)
	}
	wb := &model.Workbook{Name: cmp.Or(bp.Name, app.Name), Actions: bp.Actions}
	var cfgs []*model.SheetConfig
	for i := range bp.Sheets {
		cfg := bp.Sheets[i]
		if cfg.Slug == "" {
			cfg.Slug = schema.Slugify(cfg.Name)
		}
		if err := schema.Sheet(&cfg, fmt.Sprintf("blueprint.sheets[%d]", i), caps); err != nil {
			return nil, err
		}
		wb.Sheets = append(wb.Sheets, &model.Sheet{Config: cfg})
		cfgs = append(cfgs, &wb.Sheets[len(wb.Sheets)-1].Config)
	}
	return wb, schema.References(cfgs)
}
