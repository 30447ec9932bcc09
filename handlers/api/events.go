package api

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
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

// reachable reports whether the principal may see event e.
func reachable(p *auth.Principal, e *model.Event) bool {
	if !p.ReachesEnvironment(e.Context.EnvironmentID) {
		return false
	}
	return p.SpaceID == "" || p.SpaceID == e.Context.SpaceID
}

// List handles GET /v1/events; events come in ascending creation order.
func (h *Events) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	f := store.EventFilter{AccountID: p.AccountID, SpaceID: c.Query("spaceId"), Domain: c.Query("domain"), Topic: c.Query("topic")}
	var err error
	if f.EnvironmentID, err = environmentScope(p, c.Query("environmentId")); err != nil {
		return err
	}
	if p.SpaceID != "" {
		if f.SpaceID != "" && f.SpaceID != p.SpaceID {
			return forbidden("This token cannot reach space %s", f.SpaceID)
		}
		f.SpaceID = p.SpaceID
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
	evs, err := h.store.ListEvents(c.Context(), f)
	if err != nil {
		return err
	}
	out := make([]eventJSON, 0, len(evs))
	for _, e := range evs {
		out = append(out, toEventJSON(e))
	}
	return data(c, out)
}

func (h *Events) event(c *fiber.Ctx) (*auth.Principal, *model.Event, error) {
	p := PrincipalOf(c)
	e, err := h.store.GetEvent(c.Context(), p.AccountID, c.Params("eventId"))
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
	if err := h.store.AckEvent(c.Context(), p.AccountID, e.ID, p.ActorID); err != nil {
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
	ctx := in.Context
	ctx.AccountID = p.AccountID
	envID, err := environmentScope(p, ctx.EnvironmentID)
	if err != nil {
		return err
	}
	if envID == "" {
		return errs.Invalidf("context.environmentId", "context.environmentId is required")
	}
	if _, err := h.store.GetEnvironment(c.Context(), p.AccountID, envID); err != nil {
		return err
	}
	ctx.EnvironmentID = envID
	if p.SpaceID != "" {
		ctx.SpaceID = p.SpaceID
	}
	if ctx.SpaceID != "" {
		s, err := h.store.GetSpace(c.Context(), p.AccountID, ctx.SpaceID)
		if err != nil || s.EnvironmentID != envID {
			return errs.NotFoundf("context.spaceId", "Space not found")
		}
	}
	ctx.ActorID = p.ActorID
	ev := &model.Event{Topic: in.Topic, Domain: in.Domain, Context: ctx, Payload: in.Payload, DataURL: in.DataURL, CallbackURL: in.CallbackURL, Namespaces: in.Namespaces}
	if err := h.store.CreateEvent(c.Context(), ev); err != nil {
		return err
	}
	return data(c, toEventJSON(ev))
}
