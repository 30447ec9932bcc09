package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/sqldb"
)

// EmbedStore is what the embedded importer's space init needs.
type EmbedStore interface {
	Settings() sqldb.Settings // the caps on names, widths and request sizes
	SpaceStore
	KeyByRaw(ctx context.Context, raw string) (*model.APIKey, error)
	CreateWorkbook(ctx context.Context, w *model.Workbook, actor string) error
	CreateDocument(ctx context.Context, d *model.Document, actor string) error
}

// Embed serves the browser SDKs' entry point.
type Embed struct {
	store   EmbedStore
	spaces  *Spaces
	baseURL string
}

// NewEmbed returns the embed handlers; baseURL is Sluice's public URL ("" for the request's).
func NewEmbed(s EmbedStore, t *auth.Tokens, baseURL string) *Embed {
	return &Embed{store: s, spaces: NewSpaces(s, t), baseURL: strings.TrimRight(baseURL, "/")}
}

// initIn is the SDKs' init body: the space, and optionally its workbook and document.
type initIn struct {
	Space           *spaceIn    `json:"space"`
	Workbook        *workbookIn `json:"workbook"`
	Document        *documentIn `json:"document"`
	ExternalActorID *string     `json:"externalActorId"`
}

// Init handles POST /v1/internal/spaces/init?publishableKey=pk_…: the body is JSON sent as
// text/plain (so a browser sends it without a preflight). It creates the space, its workbook
// and document, and answers {data: {space: {…, accessToken, guestLink}, workbook, document}};
// the access token reaches that space only. Everything is checked before anything is created,
// and a failure after the space was created removes it again.
func (h *Embed) Init(c *fiber.Ctx) error {
	pk := c.Query("publishableKey")
	if pk == "" {
		return errs.E(errs.Unauthorized, "publishableKey", "The publishableKey query parameter is required")
	}
	k, err := h.store.KeyByRaw(ctxOf(c), pk)
	if errs.Is(err, errs.NotFound) || (err == nil && k.Type != model.KeyPublishable) {
		return errs.E(errs.Unauthorized, "publishableKey", "Invalid or rotated publishable key")
	}
	if err != nil {
		return err
	}
	p := &auth.Principal{Kind: auth.PublishableKey, AccountID: k.AccountID, EnvironmentID: k.EnvironmentID, ActorID: k.ID}
	var in initIn
	dec := json.NewDecoder(bytes.NewReader(c.Body()))
	if err := dec.Decode(&in); err != nil {
		if err == io.EOF {
			return errs.Invalidf("body", "The body must be a JSON object with a space")
		}
		return jsonError(err)
	}
	if in.Space == nil {
		return errs.Invalidf("space", "space is required")
	}
	if in.Space.Name == nil || strings.TrimSpace(*in.Space.Name) == "" {
		name := "Embedded Space"
		in.Space.Name = &name
	}
	sp, err := h.spaces.newSpace(ctxOf(c), p, in.Space)
	if err != nil {
		return err
	}
	// Check the workbook and document against a space that does not exist yet.
	var wb *model.Workbook
	if in.Workbook != nil {
		if in.Workbook.Name == nil || strings.TrimSpace(*in.Workbook.Name) == "" {
			return errs.Invalidf("workbook.name", "workbook.name is required")
		}
		if wb, err = in.Workbook.build(p, sp, h.store.Settings().Caps); err != nil {
			return err
		}
	}
	var doc *model.Document
	if in.Document != nil {
		if doc, err = in.Document.build(sp); err != nil {
			return err
		}
	}
	if err := h.store.CreateSpace(ctxOf(c), sp, p.ActorID); err != nil {
		return err
	}
	undo := func(cause error) error {
		_ = h.store.DeleteSpace(context.WithoutCancel(ctxOf(c)), sp.AccountID, sp.ID, p.ActorID)
		return cause
	}
	out := fiber.Map{}
	if wb != nil {
		wb.SpaceID = sp.ID
		if err := h.store.CreateWorkbook(ctxOf(c), wb, p.ActorID); err != nil {
			return undo(err)
		}
		out["workbook"] = toWorkbookJSON(wb, true)
	}
	if doc != nil {
		doc.SpaceID = sp.ID
		if err := h.store.CreateDocument(ctxOf(c), doc, p.ActorID); err != nil {
			return undo(err)
		}
		out["document"] = toDocumentJSON(doc)
	}
	s, err := h.spaces.withToken(c, p, sp)
	if err != nil {
		return undo(err)
	}
	base := h.baseURL
	if base == "" {
		base = c.BaseURL()
	}
	s.GuestLink = base + "/space/" + sp.ID + "?" + url.Values{"token": {s.AccessToken}}.Encode()
	out["space"] = s
	return data(c, out)
}
