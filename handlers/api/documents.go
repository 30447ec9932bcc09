package api

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// DocumentStore is what the document handlers need.
type DocumentStore interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	CreateDocument(ctx context.Context, d *model.Document, actor string) error
	GetDocument(ctx context.Context, spaceID, id string) (*model.Document, error)
	ListDocuments(ctx context.Context, spaceID string) ([]*model.Document, error)
	UpdateDocument(ctx context.Context, d *model.Document, actor string) error
	DeleteDocument(ctx context.Context, d *model.Document, actor string) error
}

// Documents serves /v1/spaces/:spaceId/documents.
type Documents struct{ store DocumentStore }

// NewDocuments returns the document handlers.
func NewDocuments(s DocumentStore) *Documents { return &Documents{store: s} }

type documentJSON struct {
	ID            string          `json:"id"`
	Title         string          `json:"title"`
	Body          string          `json:"body"`
	Treatments    []string        `json:"treatments"`
	Actions       json.RawMessage `json:"actions"`
	SpaceID       string          `json:"spaceId"`
	EnvironmentID string          `json:"environmentId"`
	CreatedAt     Time            `json:"createdAt"`
	UpdatedAt     Time            `json:"updatedAt"`
}

func toDocumentJSON(d *model.Document) documentJSON {
	return documentJSON{ID: d.ID, Title: d.Title, Body: d.Body, Treatments: nonEmptyList(d.Treatments), Actions: d.Actions, SpaceID: d.SpaceID,
		EnvironmentID: d.EnvironmentID, CreatedAt: Time(d.CreatedAt), UpdatedAt: Time(d.UpdatedAt)}
}

type documentIn struct {
	Title      *string         `json:"title"`
	Body       *string         `json:"body"`
	Treatments []string        `json:"treatments"`
	Actions    json.RawMessage `json:"actions"`
}

func (in *documentIn) validate() error {
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		return errs.Invalidf("title", "title cannot be empty")
	}
	return rawArray("actions", in.Actions)
}

func (h *Documents) space(c *fiber.Ctx) (*auth.Principal, *model.Space, error) {
	p := PrincipalOf(c)
	sp, err := spaceContent(c, h.store, verbOf(c), c.Params("spaceId"))
	return p, sp, err
}

// List handles GET /v1/spaces/:spaceId/documents.
func (h *Documents) List(c *fiber.Ctx) error {
	_, sp, err := h.space(c)
	if err != nil {
		return err
	}
	docs, err := h.store.ListDocuments(ctxOf(c), sp.ID)
	if err != nil {
		return err
	}
	out := make([]documentJSON, 0, len(docs))
	for _, d := range docs {
		out = append(out, toDocumentJSON(d))
	}
	return data(c, out)
}

// Create handles POST /v1/spaces/:spaceId/documents: title and body (Markdown or HTML) required.
func (h *Documents) Create(c *fiber.Ctx) error {
	p, sp, err := h.space(c)
	if err != nil {
		return err
	}
	var in documentIn
	if err := bind(c, &in); err != nil {
		return err
	}
	d, err := in.build(sp)
	if err != nil {
		return err
	}
	if err := h.store.CreateDocument(ctxOf(c), d, p.ActorID); err != nil {
		return err
	}
	return data(c, toDocumentJSON(d))
}

// build checks a new document's input and makes it for space sp.
func (in *documentIn) build(sp *model.Space) (*model.Document, error) {
	if in.Title == nil {
		return nil, errs.Invalidf("title", "title is required")
	}
	if in.Body == nil {
		return nil, errs.Invalidf("body", "body is required")
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	return &model.Document{AccountID: sp.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, Title: *in.Title, Body: *in.Body,
		Treatments: in.Treatments, Actions: in.Actions}, nil
}

func (h *Documents) document(c *fiber.Ctx) (*auth.Principal, *model.Document, error) {
	p, sp, err := h.space(c)
	if err != nil {
		return nil, nil, err
	}
	d, err := h.store.GetDocument(ctxOf(c), sp.ID, c.Params("documentId"))
	return p, d, err
}

// Get handles GET /v1/spaces/:spaceId/documents/:documentId.
func (h *Documents) Get(c *fiber.Ctx) error {
	_, d, err := h.document(c)
	if err != nil {
		return err
	}
	return data(c, toDocumentJSON(d))
}

// Update handles PATCH /v1/spaces/:spaceId/documents/:documentId.
func (h *Documents) Update(c *fiber.Ctx) error {
	p, d, err := h.document(c)
	if err != nil {
		return err
	}
	var in documentIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	if in.Title != nil {
		d.Title = *in.Title
	}
	if in.Body != nil {
		d.Body = *in.Body
	}
	if in.Treatments != nil {
		d.Treatments = in.Treatments
	}
	if len(in.Actions) > 0 {
		d.Actions = in.Actions
	}
	if err := h.store.UpdateDocument(ctxOf(c), d, p.ActorID); err != nil {
		return err
	}
	return data(c, toDocumentJSON(d))
}

// Delete handles DELETE /v1/spaces/:spaceId/documents/:documentId.
func (h *Documents) Delete(c *fiber.Ctx) error {
	p, d, err := h.document(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteDocument(ctxOf(c), d, p.ActorID); err != nil {
		return err
	}
	return success(c)
}
