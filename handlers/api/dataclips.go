package api

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
)

// DataClipStore is what the data clip handlers need.
type DataClipStore interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error)
	CreateWorkbook(ctx context.Context, w *model.Workbook, actor string) error
	SaveDataClip(ctx context.Context, d *store.DataClip, collaboratorsChanged bool, actor string) error
	GetDataClip(ctx context.Context, accountID, id string) (*store.DataClip, error)
	ListDataClips(ctx context.Context, f store.DataClipFilter) ([]*store.DataClip, error)
	DeleteDataClip(ctx context.Context, d *store.DataClip, actor string) error
	GetRecords(ctx context.Context, accountID, sheetID string, q store.RecordQuery, withTotal bool) ([]*store.Record, int64, error)
	InsertRecords(ctx context.Context, sheetID string, in []store.RecordIn, opt store.WriteOptions) (*store.WriteResult, error)
	CreateGuests(ctx context.Context, gs []*store.Guest, actor string) error
	GetGuest(ctx context.Context, accountID, id string) (*store.Guest, error)
	RemoveGuest(ctx context.Context, g *store.Guest, spaceID, actor string) error
}

// DataClips serves /v1/data-clips: records of a sheet copied into a clip sheet of their own
// (a workbook in the same space) for collaborators. A restricted clip's guestLinkUrl is the
// clip sheet's own address, for people who sign in; a public one is a guest link with an
// access token that lasts as long as the clip is public, kept (not regenerated) on updates.
type DataClips struct {
	store   DataClipStore
	tokens  *auth.Tokens
	baseURL string
}

// NewDataClips returns the data clip handlers.
func NewDataClips(s DataClipStore, t *auth.Tokens, baseURL string) *DataClips {
	return &DataClips{store: s, tokens: t, baseURL: strings.TrimRight(baseURL, "/")}
}

// publicLinkTTL is how long a public clip's token is valid: in effect for good; making the
// clip restricted or deleting it removes its guest, which revokes the token at once.
const publicLinkTTL = 10 * 365 * 24 * time.Hour

var clipStatuses = []string{"active", "merged", "archived"}

type dataClipJSON struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Description      string `json:"description,omitempty"`
	SourceSheetID    string `json:"sourceSheetId"`
	ClipSheetID      string `json:"clipSheetId"`
	WorkbookID       string `json:"workbookId"`
	Status           string `json:"status"`
	CreatedBy        string `json:"createdBy"`
	MergedAt         *Time  `json:"mergedAt,omitempty"`
	UpdatedAt        Time   `json:"updatedAt"`
	CreatedAt        Time   `json:"createdAt"`
	GuestLinkURL     string `json:"guestLinkUrl,omitempty"`
	AccessToken      string `json:"accessToken,omitempty"`
	SharedLinkAccess string `json:"sharedLinkAccess,omitempty"`
}

func (h *DataClips) toJSON(d *store.DataClip) dataClipJSON {
	out := dataClipJSON{ID: d.ID, Name: d.Name, Description: d.Description, SourceSheetID: d.SourceSheetID, ClipSheetID: d.ClipSheetID,
		WorkbookID: d.WorkbookID, Status: d.Status, CreatedBy: d.CreatedBy, MergedAt: wireTime(d.MergedAt), UpdatedAt: Time(d.UpdatedAt),
		CreatedAt: Time(d.CreatedAt), SharedLinkAccess: d.SharedLinkAccess}
	sheetURL := h.baseURL + "/space/" + d.SpaceID + "/sheet/" + d.ClipSheetID
	if d.SharedLinkAccess == "public" && d.AccessToken != "" {
		out.GuestLinkURL, out.AccessToken = h.baseURL+"/space/"+d.SpaceID+"?token="+d.AccessToken, d.AccessToken
	} else {
		out.GuestLinkURL = sheetURL
	}
	return out
}

type dataClipIn struct {
	Name             *string   `json:"name"`
	Description      *string   `json:"description"`
	SourceSheetID    string    `json:"sourceSheetId"`
	Status           *string   `json:"status"`
	Collaborators    *[]string `json:"collaborators"`
	SharedLinkAccess *string   `json:"sharedLinkAccess"`
}

// Create handles POST /v1/data-clips {name, sourceSheetId, description?, collaborators?,
// sharedLinkAccess?}: the answer is the bare DataClip, as Flatfile's.
func (h *DataClips) Create(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var in dataClipIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return errs.Invalidf("name", "A data clip needs a name")
	}
	if in.SourceSheetID == "" {
		return errs.Invalidf("sourceSheetId", "sourceSheetId is required")
	}
	src, w, err := h.store.GetSheet(c.Context(), p.AccountID, in.SourceSheetID)
	if err != nil {
		return err
	}
	sp, err := reachSpace(c.Context(), h.store, p, w.SpaceID)
	if err != nil {
		return errs.NotFoundf("sourceSheetId", "Sheet not found")
	}
	d := &store.DataClip{AccountID: p.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, SourceSheetID: src.ID,
		Name: strings.TrimSpace(*in.Name), Status: "active", SharedLinkAccess: "restricted", Collaborators: []string{}}
	if err := in.apply(d); err != nil {
		return err
	}
	// The clip sheet: the source's schema in a workbook of its own, labelled as a clip.
	cfg := src.Config
	cfg.Name, cfg.Slug = d.Name, schema.Slugify(d.Name)
	if err := schema.Sheet(&cfg, "sourceSheetId"); err != nil {
		return err
	}
	clip := &model.Workbook{AccountID: p.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, Name: "Clip: " + d.Name,
		Labels: []string{"data-clip"}, Sheets: []*model.Sheet{{Config: cfg}}}
	if err := h.store.CreateWorkbook(c.Context(), clip, p.ActorID); err != nil {
		return err
	}
	d.WorkbookID, d.ClipSheetID = clip.ID, clip.Sheets[0].ID
	if err := h.share(c.Context(), d, p.ActorID); err != nil {
		return err
	}
	if err := h.store.SaveDataClip(c.Context(), d, len(d.Collaborators) > 0, p.ActorID); err != nil {
		return err
	}
	return c.JSON(h.toJSON(d))
}

// apply merges the optional fields of a request into a clip.
func (in *dataClipIn) apply(d *store.DataClip) error {
	if in.Description != nil {
		d.Description = *in.Description
	}
	if in.Status != nil {
		if !slices.Contains(clipStatuses, *in.Status) {
			return errs.Invalidf("status", "status must be one of %s", strings.Join(clipStatuses, ", "))
		}
		d.Status = *in.Status
	}
	if in.Collaborators != nil {
		d.Collaborators = *in.Collaborators
	}
	if in.SharedLinkAccess != nil {
		switch *in.SharedLinkAccess {
		case "public", "restricted":
			d.SharedLinkAccess = *in.SharedLinkAccess
		case "unrestricted":
			d.SharedLinkAccess = "public"
		default:
			return errs.Invalidf("sharedLinkAccess", "sharedLinkAccess must be public or restricted")
		}
	}
	return nil
}

// share gives a public clip its guest and token (once: later updates keep them) and takes
// them from a restricted one.
func (h *DataClips) share(ctx context.Context, d *store.DataClip, actor string) error {
	if d.SharedLinkAccess != "public" {
		return h.unshare(ctx, d, actor)
	}
	if d.AccessToken != "" {
		return nil
	}
	g := &store.Guest{AccountID: d.AccountID, EnvironmentID: d.EnvironmentID, Name: "Data clip: " + d.Name,
		Email: fmt.Sprintf("data-clip+%s@guests.sluice.invalid", strings.ToLower(d.ClipSheetID)), Spaces: []string{d.SpaceID}}
	if err := h.store.CreateGuests(ctx, []*store.Guest{g}, actor); err != nil {
		return err
	}
	tok, _, err := h.tokens.IssueFor(&auth.Principal{Kind: auth.GuestToken, AccountID: d.AccountID, EnvironmentID: d.EnvironmentID, SpaceID: d.SpaceID,
		Email: g.Email, ActorID: g.ID}, publicLinkTTL)
	if err != nil {
		return err
	}
	d.GuestID, d.AccessToken = g.ID, tok
	return nil
}

func (h *DataClips) unshare(ctx context.Context, d *store.DataClip, actor string) error {
	if d.GuestID != "" {
		if g, err := h.store.GetGuest(ctx, d.AccountID, d.GuestID); err == nil {
			if err := h.store.RemoveGuest(ctx, g, "", actor); err != nil {
				return err
			}
		}
	}
	d.GuestID, d.AccessToken = "", ""
	return nil
}

func (h *DataClips) clip(c *fiber.Ctx) (*auth.Principal, *store.DataClip, error) {
	p := PrincipalOf(c)
	d, err := h.store.GetDataClip(c.Context(), p.AccountID, c.Params("dataClipId"))
	if err != nil {
		return nil, nil, err
	}
	if _, err := reachSpace(c.Context(), h.store, p, d.SpaceID); err != nil {
		return nil, nil, errs.NotFoundf("dataClipId", "Data clip not found")
	}
	return p, d, nil
}

// Get handles GET /v1/data-clips/:dataClipId.
func (h *DataClips) Get(c *fiber.Ctx) error {
	_, d, err := h.clip(c)
	if err != nil {
		return err
	}
	return data(c, h.toJSON(d))
}

// List handles GET /v1/data-clips?spaceId=&sheetId=&status=: a list of {data: DataClip}.
func (h *DataClips) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	f := store.DataClipFilter{AccountID: p.AccountID, SpaceID: c.Query("spaceId"), SheetID: c.Query("sheetId"), Status: c.Query("status")}
	if f.SpaceID != "" {
		if _, err := reachSpace(c.Context(), h.store, p, f.SpaceID); err != nil {
			return err
		}
	} else if p.SpaceID != "" {
		f.SpaceID = p.SpaceID
	} else {
		f.EnvironmentID = p.EnvironmentID
	}
	list, err := h.store.ListDataClips(c.Context(), f)
	if err != nil {
		return err
	}
	out := make([]fiber.Map, len(list))
	for i, d := range list {
		out[i] = fiber.Map{"data": h.toJSON(d)}
	}
	return data(c, out)
}

// Update handles PATCH /v1/data-clips/:dataClipId {name, description?, status?,
// collaborators?, sharedLinkAccess?}.
func (h *DataClips) Update(c *fiber.Ctx) error {
	p, d, err := h.clip(c)
	if err != nil {
		return err
	}
	var in dataClipIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.Name != nil {
		if strings.TrimSpace(*in.Name) == "" {
			return errs.Invalidf("name", "A data clip needs a name")
		}
		d.Name = strings.TrimSpace(*in.Name)
	}
	before, wasMerged := slices.Clone(d.Collaborators), d.Status == "merged"
	if err := in.apply(d); err != nil {
		return err
	}
	if d.Status == "merged" && !wasMerged {
		now := time.Now().UTC()
		d.MergedAt = &now
	}
	if err := h.share(c.Context(), d, p.ActorID); err != nil {
		return err
	}
	if err := h.store.SaveDataClip(c.Context(), d, !slices.Equal(before, d.Collaborators), p.ActorID); err != nil {
		return err
	}
	return data(c, h.toJSON(d))
}

// Delete handles DELETE /v1/data-clips/:dataClipId: a public link stops working at once.
func (h *DataClips) Delete(c *fiber.Ctx) error {
	p, d, err := h.clip(c)
	if err != nil {
		return err
	}
	if err := h.unshare(c.Context(), d, p.ActorID); err != nil {
		return err
	}
	if err := h.store.DeleteDataClip(c.Context(), d, p.ActorID); err != nil {
		return err
	}
	return success(c)
}

// AddRecords handles POST /v1/data-clips/:dataClipId/add-records {recordIds}: the records of
// the source sheet are copied into the clip sheet (each remembers its source record in
// metadata.sourceRecordId); the answer is the bare RecordsResponseData of the copies.
func (h *DataClips) AddRecords(c *fiber.Ctx) error {
	p, d, err := h.clip(c)
	if err != nil {
		return err
	}
	var in struct {
		RecordIDs []string `json:"recordIds"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if len(in.RecordIDs) == 0 {
		return errs.Invalidf("recordIds", "recordIds must name at least one record of the source sheet")
	}
	if len(in.RecordIDs) > 10000 {
		return errs.Invalidf("recordIds", "At most 10,000 records at a time")
	}
	recs, _, err := h.store.GetRecords(c.Context(), p.AccountID, d.SourceSheetID, store.RecordQuery{IDs: in.RecordIDs, Page: model.Page{Size: len(in.RecordIDs), Number: 1}}, false)
	if err != nil {
		return err
	}
	found := map[string]bool{}
	copies := make([]store.RecordIn, 0, len(recs))
	for _, r := range recs {
		found[r.ID] = true
		rin := store.RecordIn{Values: map[string]store.CellIn{}}
		for _, cell := range r.Cells {
			if cell.Value != nil {
				rin.Values[cell.Key] = store.CellIn{Value: cell.Value, HasValue: true}
			}
		}
		rin.Metadata, _ = json.Marshal(map[string]string{"sourceRecordId": r.ID})
		copies = append(copies, rin)
	}
	for _, id := range in.RecordIDs {
		if !found[id] {
			return errs.NotFoundf("recordIds", "Record %s is not in the clip's source sheet", id)
		}
	}
	res, err := h.store.InsertRecords(c.Context(), d.ClipSheetID, copies, store.WriteOptions{Actor: p.ActorID, AccountID: p.AccountID})
	if err != nil {
		return err
	}
	return recordWriter{}.sendBare(c, res.Records, res.VersionID)
}
