package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/netguard"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// AgentStore is what the agent handlers need.
type AgentStore interface {
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	DeployAgent(ctx context.Context, a *model.Agent, actor string) (bool, error)
	GetAgent(ctx context.Context, accountID, id string) (*model.Agent, error)
	ListAgents(ctx context.Context, f store.AgentFilter) ([]*model.Agent, int, error)
	DeleteAgent(ctx context.Context, accountID, id, actor string) error
	ListAgentVersions(ctx context.Context, agentID string) ([]*model.AgentVersion, error)
	RevertAgent(ctx context.Context, accountID, agentID, versionID, actor string) (*model.AgentVersion, error)
	ListDeliveries(ctx context.Context, f store.DeliveryFilter) ([]*model.Delivery, int, error)
	DeliveryForEvent(ctx context.Context, accountID, eventID string) (*model.Delivery, error)
	EventContexts(ctx context.Context, ids []string) (map[string]json.RawMessage, error)
}

// Agents serves /v1/agents. Sluice stores and versions agent source but never runs it; an
// agent with a webhook URL receives its events as signed POSTs (package events).
type Agents struct {
	store        AgentStore
	allowPrivate bool // SLUICE_ALLOW_PRIVATE_WEBHOOKS
}

// NewAgents returns the agent handlers.
func NewAgents(s AgentStore, allowPrivate bool) *Agents {
	return &Agents{store: s, allowPrivate: allowPrivate}
}

type agentJSON struct {
	model.AgentConfig
	ID            string `json:"id"`
	AccountID     string `json:"accountId"`
	EnvironmentID string `json:"environmentId"`
	Version       int    `json:"version"`
	CreatedAt     Time   `json:"createdAt"`
	UpdatedAt     Time   `json:"updatedAt"`
}

func toAgentJSON(a *model.Agent) agentJSON {
	cfg := a.Config
	if cfg.Topics == nil {
		cfg.Topics = []string{}
	}
	return agentJSON{AgentConfig: cfg, ID: a.ID, AccountID: a.AccountID, EnvironmentID: a.EnvironmentID, Version: a.Version,
		CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt)}
}

// agentVersionJSON is Flatfile's AgentVersion; its agent id is snake_case on the wire.
type agentVersionJSON struct {
	model.AgentConfig
	ID        string `json:"id"`
	AgentID   string `json:"agent_id"`
	Version   int    `json:"version"`
	Origin    int    `json:"origin"`
	CreatedAt Time   `json:"createdAt"`
	UpdatedAt Time   `json:"updatedAt"`
}

func toAgentVersionJSON(v *model.AgentVersion) agentVersionJSON {
	return agentVersionJSON{AgentConfig: v.Config, ID: v.ID, AgentID: v.AgentID, Version: v.Version, Origin: v.Origin,
		CreatedAt: Time(v.CreatedAt), UpdatedAt: Time(v.CreatedAt)}
}

// scope checks the principal may manage agents and returns the environment to act in.
func (h *Agents) scope(c *fiber.Ctx) (*auth.Principal, string, error) {
	envID, _, err := listScope(c, auth.ResEnvConfig, c.Query("environmentId"), "")
	return PrincipalOf(c), envID, err
}

// Create handles POST /v1/agents?environmentId=: a new agent, or a new version of the agent
// with the same slug (as `flatfile deploy` replaces its agent).
func (h *Agents) Create(c *fiber.Ctx) error {
	p, envID, err := h.scope(c)
	if err != nil {
		return err
	}
	if envID == "" {
		return errs.Invalidf("environmentId", "Query parameter environmentId is required")
	}
	if _, err := h.store.GetEnvironment(ctxOf(c), p.AccountID, envID); err != nil {
		return err
	}
	var cfg model.AgentConfig
	if err := bind(c, &cfg); err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			e.Key = strings.TrimPrefix(e.Key, "AgentConfig.")
		}
		return err
	}
	if err := checkAgent(&cfg, h.allowPrivate); err != nil {
		return err
	}
	a := &model.Agent{AccountID: p.AccountID, EnvironmentID: envID, Config: cfg}
	if _, err := h.store.DeployAgent(ctxOf(c), a, p.ActorID); err != nil {
		return err
	}
	return data(c, toAgentJSON(a))
}

// checkAgent validates an AgentConfig and settles its webhook URL: `url`, or
// `options.webhookUrl`, or `templateOptions.url` of the webhook-egress template (the typed
// client strips unknown top-level keys, so the last two let it set one).
func checkAgent(c *model.AgentConfig, allowPrivate bool) error {
	if c.Compiler != "" && c.Compiler != "js" {
		return errs.Invalidf("compiler", "compiler must be js, got %q", c.Compiler)
	}
	for _, t := range c.Topics {
		if strings.TrimSpace(t) == "" {
			return errs.Invalidf("topics", "topics must not hold empty strings")
		}
	}
	for key, raw := range map[string]json.RawMessage{"options": c.Options, "templateOptions": c.TemplateOptions, "packageVersions": c.PackageVersions, "commitInfo": c.CommitInfo} {
		if err := rawObject(key, raw); err != nil {
			return err
		}
	}
	key := "url"
	if c.URL == "" {
		var o struct {
			WebhookURL string `json:"webhookUrl"`
		}
		_ = json.Unmarshal(c.Options, &o)
		c.URL, key = o.WebhookURL, "options.webhookUrl"
	}
	if c.URL == "" {
		var t struct {
			Template string `json:"template"`
			URL      string `json:"url"`
		}
		_ = json.Unmarshal(c.TemplateOptions, &t)
		if t.Template == "webhook-egress" || c.Template == "webhook-egress" {
			c.URL, key = t.URL, "templateOptions.url"
		}
	}
	if c.URL == "" {
		return nil
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errs.Invalidf(key, "%s must be an absolute http or https URL, got %q", key, c.URL)
	}
	if !allowPrivate {
		if err := netguard.CheckURL(u); err != nil {
			return errs.Invalidf(key, "%s may not point into a private network: %v (set SLUICE_ALLOW_PRIVATE_WEBHOOKS=1 to allow)", key, err)
		}
	}
	return nil
}

// List handles GET /v1/agents?environmentId=&search=&isSystem=&pageSize=&pageNumber=.
func (h *Agents) List(c *fiber.Ctx) error {
	p, envID, err := h.scope(c)
	if err != nil {
		return err
	}
	f := store.AgentFilter{AccountID: p.AccountID, EnvironmentID: envID, Search: c.Query("search")}
	if f.IsSystem, err = queryBool(c, "isSystem"); err != nil {
		return err
	}
	if f.Page, err = page(c, 20, 1000); err != nil {
		return err
	}
	list, total, err := h.store.ListAgents(ctxOf(c), f)
	if err != nil {
		return err
	}
	out := make([]agentJSON, 0, len(list))
	for _, a := range list {
		out = append(out, toAgentJSON(a))
	}
	return c.JSON(fiber.Map{"data": out, "pagination": model.NewPagination(f.Page, total)})
}

// agent loads the path's agent; agents out of reach are not found.
func (h *Agents) agent(c *fiber.Ctx) (*auth.Principal, *model.Agent, error) {
	p, envID, err := h.scope(c)
	if err != nil {
		return nil, nil, err
	}
	a, err := inReach(c, verbOf(c), h.store.GetAgent, c.Params("agentId"))
	if err != nil {
		return nil, nil, err
	}
	if envID != "" && envID != a.EnvironmentID {
		return nil, nil, errs.NotFoundf("agentId", "Agent not found")
	}
	return p, a, nil
}

// Get handles GET /v1/agents/:agentId.
func (h *Agents) Get(c *fiber.Ctx) error {
	_, a, err := h.agent(c)
	if err != nil {
		return err
	}
	return data(c, toAgentJSON(a))
}

// Delete handles DELETE /v1/agents/:agentId; its pending webhook deliveries are dropped.
func (h *Agents) Delete(c *fiber.Ctx) error {
	p, a, err := h.agent(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteAgent(ctxOf(c), p.AccountID, a.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Versions handles GET /v1/agents/:agentId/versions.
func (h *Agents) Versions(c *fiber.Ctx) error {
	_, a, err := h.agent(c)
	if err != nil {
		return err
	}
	list, err := h.store.ListAgentVersions(ctxOf(c), a.ID)
	if err != nil {
		return err
	}
	out := make([]agentVersionJSON, 0, len(list))
	for _, v := range list {
		out = append(out, toAgentVersionJSON(v))
	}
	return data(c, out)
}

// Revert handles GET /v1/agents/:agentId/versions/:agentVersionId/revert (a GET, as in
// Flatfile's API): the version's config becomes the agent's newest version, answered.
func (h *Agents) Revert(c *fiber.Ctx) error {
	p, a, err := h.agent(c)
	if err != nil {
		return err
	}
	v, err := h.store.RevertAgent(ctxOf(c), p.AccountID, a.ID, c.Params("agentVersionId"), p.ActorID)
	if err != nil {
		return err
	}
	return data(c, toAgentVersionJSON(v))
}

// deliveryLog is the log line of a delivery.
func deliveryLog(d *model.Delivery) string {
	tries := fmt.Sprintf("%d attempt", d.Attempts)
	if d.Attempts != 1 {
		tries += "s"
	}
	switch d.Status {
	case model.DeliveryDelivered:
		return fmt.Sprintf("Delivered %s to %s: HTTP %d after %s", d.Topic, d.URL, d.LastStatus, tries)
	case model.DeliveryFailed:
		return fmt.Sprintf("Gave up delivering %s to %s after %s: %s", d.Topic, d.URL, tries, d.LastError)
	}
	next := ""
	if d.NextAttemptAt != nil {
		next = "; next attempt at " + d.NextAttemptAt.UTC().Format(time.RFC3339)
	}
	if d.Attempts == 0 {
		return "Pending delivery of " + d.Topic + " to " + d.URL + next
	}
	return fmt.Sprintf("Retrying %s to %s after %s (%s)%s", d.Topic, d.URL, tries, d.LastError, next)
}

// logJSON carries the fields of Flatfile's AgentLog, DetailedAgentLog and Execution at once,
// plus the delivery's status, attempts and next attempt.
type logJSON struct {
	ID            string          `json:"id,omitempty"`
	AgentID       string          `json:"agentId,omitempty"`
	EventID       string          `json:"eventId"`
	SpaceID       string          `json:"spaceId,omitempty"`
	Success       bool            `json:"success"`
	Topic         string          `json:"topic"`
	Context       json.RawMessage `json:"context,omitempty"`
	Log           string          `json:"log,omitempty"`
	Duration      int64           `json:"duration"`
	Status        string          `json:"status"`
	Attempts      int             `json:"attempts"`
	NextAttemptAt *Time           `json:"nextAttemptAt,omitempty"`
	CreatedAt     Time            `json:"createdAt"`
	CompletedAt   Time            `json:"completedAt"`
}

func toLogJSON(d *model.Delivery, ctx json.RawMessage, detailed bool) logJSON {
	out := logJSON{EventID: d.EventID, SpaceID: d.SpaceID, Success: d.Status == model.DeliveryDelivered, Topic: d.Topic,
		Duration: d.Duration.Milliseconds(), Status: d.Status, Attempts: d.Attempts, NextAttemptAt: wireTime(d.NextAttemptAt),
		CreatedAt: Time(d.CreatedAt), CompletedAt: Time(d.CreatedAt), Log: deliveryLog(d), Context: ctx}
	if d.CompletedAt != nil {
		out.CompletedAt = Time(*d.CompletedAt)
	}
	if !detailed {
		out.ID, out.AgentID = d.ID, d.AgentID
	}
	return out
}

// logs lists deliveries as log entries with the events' contexts.
func (h *Agents) logs(c *fiber.Ctx, f store.DeliveryFilter, detailed bool) error {
	var err error
	if f.Page, err = page(c, 20, 1000); err != nil {
		return err
	}
	if f.Success, err = queryBool(c, "success"); err != nil {
		return err
	}
	list, total, err := h.store.ListDeliveries(ctxOf(c), f)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(list))
	for _, d := range list {
		ids = append(ids, d.EventID)
	}
	ctxs, err := h.store.EventContexts(ctxOf(c), ids)
	if err != nil {
		return err
	}
	out := make([]logJSON, 0, len(list))
	for _, d := range list {
		out = append(out, toLogJSON(d, ctxs[d.EventID], detailed))
	}
	return c.JSON(fiber.Map{"data": out, "pagination": model.NewPagination(f.Page, total)})
}

// AgentLogs handles GET /v1/agents/:agentId/logs: the agent's webhook deliveries.
func (h *Agents) AgentLogs(c *fiber.Ctx) error {
	p, a, err := h.agent(c)
	if err != nil {
		return err
	}
	return h.logs(c, store.DeliveryFilter{AccountID: p.AccountID, AgentID: a.ID}, false)
}

// EnvironmentLogs handles GET /v1/agents/logs?environmentId=&spaceId=&success=.
func (h *Agents) EnvironmentLogs(c *fiber.Ctx) error {
	p, envID, err := h.scope(c)
	if err != nil {
		return err
	}
	return h.logs(c, store.DeliveryFilter{AccountID: p.AccountID, EnvironmentID: envID, SpaceID: c.Query("spaceId")}, true)
}

// Executions handles GET /v1/agents/executions?environmentId=&agentId=&spaceId=&success=.
func (h *Agents) Executions(c *fiber.Ctx) error {
	p, envID, err := h.scope(c)
	if err != nil {
		return err
	}
	return h.logs(c, store.DeliveryFilter{AccountID: p.AccountID, EnvironmentID: envID, SpaceID: c.Query("spaceId"), AgentID: c.Query("agentId")}, false)
}

// EventLog handles GET /v1/agents/log/:eventId: the delivery of one event.
func (h *Agents) EventLog(c *fiber.Ctx) error {
	p, envID, err := h.scope(c)
	if err != nil {
		return err
	}
	d, err := h.store.DeliveryForEvent(ctxOf(c), p.AccountID, c.Params("eventId"))
	if err != nil {
		return err
	}
	if may(c, auth.Read, place.EnvConfig(d.AccountID, d.EnvironmentID)) != nil || (envID != "" && envID != d.EnvironmentID) {
		return errs.NotFoundf("eventId", "No agent log for this event")
	}
	ctxs, err := h.store.EventContexts(ctxOf(c), []string{d.EventID})
	if err != nil {
		return err
	}
	return data(c, toLogJSON(d, ctxs[d.EventID], true))
}
