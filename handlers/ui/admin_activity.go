package ui

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/sqldb"
	"github.com/sluice/sluice/views"
)

// actorName resolves an actor id to a person's name or e-mail.
func (h *Admin) actorName(ctx context.Context, accountID, id string, cache map[string]string) string {
	if id == "" {
		return ""
	}
	if n, ok := cache[id]; ok {
		return n
	}
	name := id
	switch {
	case strings.HasPrefix(id, sqldb.PrefixUser):
		if u, err := h.store.GetUser(ctx, id); err == nil {
			name = cmp.Or(u.Name, u.Email)
		}
	case strings.HasPrefix(id, "us_g_"):
		if g, err := h.store.GetGuest(ctx, accountID, id); err == nil {
			name = cmp.Or(g.Name, g.Email) + " (guest)"
		}
	}
	cache[id] = name
	return name
}

// Events handles GET /admin/events (topic, space, actor): the newest events, polled live.
func (h *Admin) Events(c *fiber.Ctx) error {
	u, sh, env, err := h.page(c, "events")
	if err != nil {
		return err
	}
	f := store.EventFilter{AccountID: u.AccountID, EnvironmentID: env.ID, Topic: c.Query("topic"), SpaceID: c.Query("space"), ActorID: c.Query("actor"),
		IncludeAcknowledged: true, Newest: true, Page: model.Page{Size: 100, Number: 1}}
	evs, err := h.store.ListEvents(c.Context(), f)
	if err != nil {
		return err
	}
	p := views.AdminEventsProps{Shell: sh, Topic: f.Topic, Space: f.SpaceID, Actor: f.ActorID}
	names := map[string]string{}
	for _, ev := range evs {
		payload := string(ev.Payload)
		if len(payload) > 160 {
			payload = payload[:160] + "…"
		}
		p.Rows = append(p.Rows, views.AdminEvent{ID: ev.ID, Topic: ev.Topic, Domain: ev.Domain, Space: ev.Context.SpaceID, Sheet: ev.Context.SheetID,
			Actor: h.actorName(c.Context(), u.AccountID, ev.Context.ActorID, names), ActorID: ev.Context.ActorID, At: ev.CreatedAt.UTC().Format("15:04:05"),
			Payload: payload})
	}
	if IsHTMX(c) && c.Query("partial") == "1" {
		return Render(c, fiber.StatusOK, views.AdminEventRows(p))
	}
	return Render(c, fiber.StatusOK, views.AdminEventsPage(p))
}

// Audit handles GET /admin/audit?actor=&area=&q=&days=: the audit trail of administrative
// changes, newest first; for account users only (an environment's user sees nothing of the
// account's trail).
func (h *Admin) Audit(c *fiber.Ctx) error {
	u, sh, _, err := h.page(c, "audit")
	if err != nil {
		return err
	}
	if u.EnvironmentID != "" {
		return errs.E(errs.Forbidden, "audit", "The audit trail is for account users")
	}
	f := store.AuditFilter{AccountID: u.AccountID, ActorID: c.Query("actor"), Area: c.Query("area"), Search: c.Query("q"), Page: model.Page{Size: 200, Number: 1}}
	p := views.AdminAuditProps{Shell: sh, Actor: f.ActorID, Area: f.Area, Search: f.Search, Days: c.Query("days")}
	if n, err := strconv.Atoi(p.Days); err == nil && n > 0 {
		since := time.Now().Add(-time.Duration(n) * 24 * time.Hour)
		f.Since = &since
	}
	list, err := h.store.ListAudit(c.Context(), f)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, a := range list {
		p.Rows = append(p.Rows, views.AdminAuditRow{At: a.CreatedAt.UTC().Format("2006-01-02 15:04:05"), Actor: h.actorName(c.Context(), u.AccountID, a.ActorID, names),
			ActorID: a.ActorID, Kind: a.ActorKind, Addr: a.ClientAddr, Area: a.Area, Action: a.Action, Target: a.Target, Status: a.Status, Details: a.Details})
	}
	return Render(c, fiber.StatusOK, views.AdminAuditPage(p))
}

// Jobs handles GET /admin/jobs: the newest jobs with their status and progress, polled live.
func (h *Admin) Jobs(c *fiber.Ctx) error {
	u, sh, env, err := h.page(c, "jobs")
	if err != nil {
		return err
	}
	list, total, err := h.store.ListJobs(c.Context(), store.JobFilter{AccountID: u.AccountID, EnvironmentID: env.ID, SortDesc: true, Page: model.Page{Size: 100, Number: 1}})
	if err != nil {
		return err
	}
	spaces, _, err := h.store.ListSpaces(c.Context(), store.SpaceFilter{AccountID: u.AccountID, EnvironmentID: env.ID, Archived: true, Page: model.Page{Size: 500, Number: 1}})
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, s := range spaces {
		names[s.ID] = s.Name
	}
	p := views.AdminJobsProps{Shell: sh, Total: total}
	for _, j := range list {
		var out struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(j.Outcome, &out)
		p.Rows = append(p.Rows, views.AdminJob{ID: j.ID, Name: jobName(c.Context(), j), Raw: j.Name(), Status: j.Status, Progress: int(j.Progress),
			Info: cmp.Or(jobMessage(c.Context(), out.Message), sdkText(c.Context(), j.Info)), Space: j.SpaceID, SpaceName: cmp.Or(names[j.SpaceID], j.SpaceID), Finished: j.Finished(),
			Created: j.CreatedAt.UTC().Format("2006-01-02 15:04:05")})
	}
	if IsHTMX(c) && c.Query("partial") == "1" {
		return Render(c, fiber.StatusOK, views.AdminJobRows(p))
	}
	return Render(c, fiber.StatusOK, views.AdminJobsPage(p))
}
