package ui

import (
	"cmp"
	"context"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/model"
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
