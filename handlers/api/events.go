package api

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// EventStore is what the event handlers need.
type EventStore interface {
	ListEvents(ctx context.Context, f store.EventFilter) ([]*model.Event, error)
	GetEvent(ctx context.Context, accountID, id string) (*model.Event, error)
	AckEvent(ctx context.Context, accountID, id, actor string) error
	CreateEvent(ctx context.Context, ev *model.Event) error
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
	ResolveResource(ctx context.Context, accountID, key, id string) (*store.Resource, error)
	GetJob(ctx context.Context, accountID, id string) (*model.Job, error)
}

// Events serves /v1/events.
type Events struct{ store EventStore }

// NewEvents returns the event handlers.
func NewEvents(s EventStore) *Events { return &Events{store: s} }

type eventJSON struct {
	ID             string             `json:"id"`
	Topic          string             `json:"topic"`
	Domain         string             `json:"domain"`
	Context        model.EventContext `json:"context"`
	Payload        json.RawMessage    `json:"payload"`
	DataURL        string             `json:"dataUrl"`
	CallbackURL    string             `json:"callbackUrl"`
	Namespaces     []string           `json:"namespaces"`
	CreatedAt      Time               `json:"createdAt"`
	AcknowledgedAt *Time              `json:"acknowledgedAt"`
	AcknowledgedBy string             `json:"acknowledgedBy,omitempty"`
}

func toEventJSON(e *model.Event) eventJSON {
	return eventJSON{ID: e.ID, Topic: e.Topic, Domain: e.Domain, Context: e.Context, Payload: e.Payload, DataURL: e.DataURL,
		CallbackURL: e.CallbackURL, Namespaces: nonEmptyList(e.Namespaces), CreatedAt: Time(e.CreatedAt),
		AcknowledgedAt: wireTime(e.AcknowledgedAt), AcknowledgedBy: e.AcknowledgedBy}
}

// EventBody renders an event as the JSON object GET /v1/events/:id answers in data; webhook
// deliveries send it as their body and the event stream as its data lines.
func EventBody(e *model.Event) ([]byte, error) { return json.Marshal(toEventJSON(e)) }

// reachable reports whether the principal may see event e: the policy's answer, and for
// guests and other untrusted callers not the events that name people (guests added and
// removed carry their e-mails).
func reachable(p *auth.Principal, e *model.Event) bool {
	if auth.Can(p, auth.Read, place.Of(e)) != nil {
		return false
	}
	return auth.Trusted(p) || !strings.HasPrefix(e.Topic, "space:guest")
}

// systemDomains are the event domains Sluice itself emits on: only the environment's own
// credentials (which agents act with) may post events on them.
var systemDomains = []string{"action", "agent", "commit", "cron", "data-clip", "document", "environment", "file", "job", "layer",
	"program", "records", "secret", "sheet", "snapshot", "space", "user", "workbook"}

// SystemTopic reports whether topic is one Sluice's own events use ("job:ready").
func SystemTopic(topic string) bool {
	d, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(topic)), ":")
	return slices.Contains(systemDomains, d)
}

// List handles GET /v1/events; events come in ascending creation order.
func (h *Events) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	f := store.EventFilter{AccountID: p.AccountID, Domain: c.Query("domain"), Topic: c.Query("topic")}
	var err error
	if f.EnvironmentID, f.SpaceID, err = listScope(c, auth.ResContent, c.Query("environmentId"), c.Query("spaceId")); err != nil {
		return err
	}
	if f.Page, err = page(c, 10, 1000); err != nil {
		return err
	}
	if f.Since, err = queryTime(c, "since"); err != nil {
		return err
	}
	inc, err := queryBool(c, "includeAcknowledged")
	if err != nil {
		return err
	}
	f.IncludeAcknowledged = inc != nil && *inc
	evs, err := h.store.ListEvents(ctxOf(c), f)
	if err != nil {
		return err
	}
	out := make([]eventJSON, 0, len(evs))
	for _, e := range evs {
		if reachable(p, e) {
			out = append(out, toEventJSON(e))
		}
	}
	return data(c, out)
}

func (h *Events) event(c *fiber.Ctx) (*auth.Principal, *model.Event, error) {
	p := PrincipalOf(c)
	e, err := inReach(c, auth.Read, h.store.GetEvent, c.Params("eventId"))
	if err != nil {
		return nil, nil, err
	}
	if !reachable(p, e) {
		return nil, nil, errs.NotFoundf("eventId", "Event not found")
	}
	return p, e, nil
}

// Get handles GET /v1/events/:eventId.
func (h *Events) Get(c *fiber.Ctx) error {
	_, e, err := h.event(c)
	if err != nil {
		return err
	}
	return data(c, toEventJSON(e))
}

// Ack handles POST /v1/events/:eventId/ack.
func (h *Events) Ack(c *fiber.Ctx) error {
	p, e, err := h.event(c)
	if err != nil {
		return err
	}
	if err := h.store.AckEvent(ctxOf(c), p.AccountID, e.ID, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// Create handles POST /v1/events: a client-made event (custom topics, e.g. from agents).
func (h *Events) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in struct {
		Topic       string             `json:"topic"`
		Domain      string             `json:"domain"`
		Payload     json.RawMessage    `json:"payload"`
		Context     model.EventContext `json:"context"`
		DataURL     string             `json:"dataUrl"`
		CallbackURL string             `json:"callbackUrl"`
		Namespaces  []string           `json:"namespaces"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(in.Topic) == "":
		return errs.Invalidf("topic", "topic is required")
	case strings.TrimSpace(in.Domain) == "":
		return errs.Invalidf("domain", "domain is required")
	}
	if err := rawObject("payload", in.Payload); err != nil {
		return err
	}
	if !auth.Trusted(p) && SystemTopic(in.Topic) {
		return forbidden("A %s may post custom topics only; %q is one of Sluice's own", auth.ClassOf(p), in.Topic)
	}
	ctx := in.Context
	ctx.AccountID = p.AccountID
	envID, err := environmentScope(p, ctx.EnvironmentID)
	if err != nil {
		return err
	}
	if envID == "" {
		return errs.Invalidf("context.environmentId", "context.environmentId is required")
	}
	if _, err := h.store.GetEnvironment(ctxOf(c), p.AccountID, envID); err != nil {
		return err
	}
	ctx.EnvironmentID = envID
	if p.SpaceID != "" {
		ctx.SpaceID = p.SpaceID
	}
	if ctx.SpaceID != "" {
		s, err := h.store.GetSpace(ctxOf(c), p.AccountID, ctx.SpaceID)
		if err != nil || s.EnvironmentID != envID {
			return errs.NotFoundf("context.spaceId", "Space not found")
		}
	}
	if err := h.checkContext(c, &ctx); err != nil {
		return err
	}
	if err := may(c, auth.Write, place.Content(ctx.AccountID, ctx.EnvironmentID, ctx.SpaceID)); err != nil {
		return err
	}
	ctx.ActorID = p.ActorID
	ev := &model.Event{Topic: in.Topic, Domain: in.Domain, Context: ctx, Payload: in.Payload, DataURL: in.DataURL, CallbackURL: in.CallbackURL, Namespaces: in.Namespaces}
	if err := h.store.CreateEvent(ctxOf(c), ev); err != nil {
		return err
	}
	return data(c, toEventJSON(ev))
}

// checkContext refuses an event context whose ids lie outside its environment and space: an
// agent acting on the event would otherwise work on another space's data.
func (h *Events) checkContext(c *fiber.Ctx, ctx *model.EventContext) error {
	p := PrincipalOf(c)
	ids := map[string]string{"context.workbookId": ctx.WorkbookID, "context.sheetId": ctx.SheetID, "context.fileId": ctx.FileID, "context.documentId": ctx.DocumentID}
	for key, id := range ids {
		if id == "" {
			continue
		}
		r, err := h.store.ResolveResource(ctxOf(c), p.AccountID, key, id)
		if err == nil && (r.Kind == "" || !r.In(ctx.EnvironmentID, ctx.SpaceID)) {
			err = errs.NotFoundf(key, "%s not found in the event's space", id)
		}
		if err != nil {
			return err
		}
		if ctx.SpaceID == "" {
			ctx.SpaceID = r.SpaceID
		}
	}
	if ctx.JobID != "" {
		j, err := h.store.GetJob(ctxOf(c), p.AccountID, ctx.JobID)
		if err == nil && (j.EnvironmentID != ctx.EnvironmentID || (ctx.SpaceID != "" && j.SpaceID != ctx.SpaceID)) {
			err = errs.NotFoundf("context.jobId", "%s not found in the event's space", ctx.JobID)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
