package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// DataClipStore is what the data clip handlers need.
type DataClipStore interface {
	Settings() sqldb.Settings // the caps on names, widths and request sizes
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	GetSheet(ctx context.Context, accountID, id string) (*model.Sheet, *model.Workbook, error)
	CreateWorkbook(ctx context.Context, w *model.Workbook, actor string) error
	SaveDataClip(ctx context.Context, d *store.DataClip, collaboratorsChanged bool, actor string) error
	GetDataClip(ctx context.Context, accountID, id string) (*store.DataClip, error)
	ListDataClips(ctx context.Context, f store.DataClipFilter) ([]*store.DataClip, error)
	DeleteDataClip(ctx context.Context, d *store.DataClip, actor string) error
	GetRecords(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery, withTotal bool) ([]*recordset.Record, int64, error)
	InsertRecords(ctx context.Context, sheetID string, in []recordset.RecordIn, opt recordset.WriteOptions) (*recordset.WriteResult, error)
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
	sealer  *auth.Sealer
	baseURL string
	// LinkTTL is how long a public link lasts (SLUICE_CLIP_LINK_TTL, 30 days by default);
	// renewSharedLink issues a new one and ends the old. Making the clip restricted or
	// deleting it ends the link at once.
	LinkTTL time.Duration
}

// DefaultClipLinkTTL is a public clip link's lifetime unless configured.
const DefaultClipLinkTTL = 30 * 24 * time.Hour

// NewDataClips returns the data clip handlers; sealer keeps links' tokens unreadable at rest.
func NewDataClips(s DataClipStore, t *auth.Tokens, sealer *auth.Sealer, baseURL string) *DataClips {
	return &DataClips{store: s, tokens: t, sealer: sealer, baseURL: strings.TrimRight(baseURL, "/"), LinkTTL: DefaultClipLinkTTL}
}

// sealedPrefix marks a stored link token sealed with the master key. A stored token without
// it was written by a version whose clip links reached the whole space: it is not honoured.
const sealedPrefix = "sealed:"

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
	SharedLink       string `json:"sharedLink,omitempty"` // the spec's name of sharedLinkAccess
	SharedLinkEdit   bool   `json:"sharedLinkEdit"`
	LinkExpiresAt    *Time  `json:"sharedLinkExpiresAt,omitempty"`
}

func (h *DataClips) toJSON(d *store.DataClip) dataClipJSON {
	out := dataClipJSON{ID: d.ID, Name: d.Name, Description: d.Description, SourceSheetID: d.SourceSheetID, ClipSheetID: d.ClipSheetID,
		WorkbookID: d.WorkbookID, Status: d.Status, CreatedBy: d.CreatedBy, MergedAt: wireTime(d.MergedAt), UpdatedAt: Time(d.UpdatedAt),
		CreatedAt: Time(d.CreatedAt), SharedLinkAccess: d.SharedLinkAccess, SharedLink: d.SharedLinkAccess}
	sheetURL := h.baseURL + "/space/" + d.SpaceID + "/sheet/" + d.ClipSheetID
	out.GuestLinkURL = sheetURL
	if tok := h.linkToken(d); d.SharedLinkAccess == "public" && tok != "" {
		out.GuestLinkURL, out.AccessToken = sheetURL+"?token="+tok, tok
		if p, exp, err := h.tokens.ParseExpiry(tok); err == nil {
			out.SharedLinkEdit, out.LinkExpiresAt = p.ClipEdit, wireTime(&exp)
		}
	}
	return out
}

// linkToken opens a clip's stored link token; "" when it has none or an old, unsealed one.
func (h *DataClips) linkToken(d *store.DataClip) string {
	raw, ok := strings.CutPrefix(d.AccessToken, sealedPrefix)
	if !ok || h.sealer == nil {
		return ""
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return ""
	}
	tok, err := h.sealer.Open(b)
	if err != nil {
		return ""
	}
	return string(tok)
}

type dataClipIn struct {
	Name             *string   `json:"name"`
	Description      *string   `json:"description"`
	SourceSheetID    string    `json:"sourceSheetId"`
	Status           *string   `json:"status"`
	Collaborators    *[]string `json:"collaborators"`
	SharedLinkAccess *string   `json:"sharedLinkAccess"`
	SharedLink       *string   `json:"sharedLink"`      // the spec's name for sharedLinkAccess
	SharedLinkEdit   *bool     `json:"sharedLinkEdit"`  // the public link may change the clip's records
	RenewSharedLink  bool      `json:"renewSharedLink"` // a new link (the old one ends)
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
	src, w, err := h.store.GetSheet(ctxOf(c), p.AccountID, in.SourceSheetID)
	if err != nil {
		return err
	}
	if err := may(c, auth.Read, place.Sheet(w, src.ID)); err != nil {
		return err
	}
	if err := may(c, auth.Write, place.Of(w)); err != nil {
		return err
	}
	sp, err := spaceOf(c, h.store, auth.Read, w.SpaceID)
	if err != nil {
		return err
	}
	d := &store.DataClip{AccountID: p.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, SourceSheetID: src.ID,
		Name: strings.TrimSpace(*in.Name), Status: "active", SharedLinkAccess: "restricted", Collaborators: []string{}}
	if err := in.apply(d); err != nil {
		return err
	}
	if err := mayShare(p, d); err != nil {
		return err
	}
	// The clip sheet: the source's schema in a workbook of its own, labelled as a clip.
	cfg := src.Config
	cfg.Name, cfg.Slug = d.Name, schema.Slugify(d.Name)
	if err := schema.Sheet(&cfg, "sourceSheetId", h.store.Settings().Caps); err != nil {
		return err
	}
	clip := &model.Workbook{AccountID: p.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, Name: "Clip: " + d.Name,
		Labels: []string{"data-clip"}, Sheets: []*model.Sheet{{Config: cfg}}}
	if err := h.store.CreateWorkbook(ctxOf(c), clip, p.ActorID); err != nil {
		return err
	}
	d.WorkbookID, d.ClipSheetID = clip.ID, clip.Sheets[0].ID
	if err := h.share(ctxOf(c), d, &in, p.ActorID); err != nil {
		return err
	}
	if err := h.store.SaveDataClip(ctxOf(c), d, len(d.Collaborators) > 0, p.ActorID); err != nil {
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
	if in.SharedLinkAccess == nil {
		in.SharedLinkAccess = in.SharedLink
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

// mayShare refuses a public clip from a credential anyone can hold: a link for anyone on the
// web is the environment's to give, not a visitor's. It is asked before anything is written.
func mayShare(p *auth.Principal, d *store.DataClip) error {
	if d.SharedLinkAccess == "public" && !auth.Trusted(p) {
		return forbidden("A %s may not share a data clip publicly", auth.ClassOf(p))
	}
	return nil
}

// share gives a public clip its guest and link (once: later updates keep them, unless they
// ask for a new link or change whether it may edit) and takes them from a restricted one.
// The link is a clip token: the clip sheet only, read-only unless sharedLinkEdit.
func (h *DataClips) share(ctx context.Context, d *store.DataClip, in *dataClipIn, actor string) error {
	if d.SharedLinkAccess != "public" {
		return h.unshare(ctx, d, actor)
	}
	tok := h.linkToken(d)
	edit := in.SharedLinkEdit != nil && *in.SharedLinkEdit
	if tok != "" {
		cur, _, err := h.tokens.ParseExpiry(tok)
		if in.SharedLinkEdit == nil && err == nil {
			edit = cur.ClipEdit
		}
		if err == nil && !in.RenewSharedLink && edit == cur.ClipEdit {
			return nil
		}
	}
	if err := h.unshare(ctx, d, actor); err != nil { // the old link ends with its guest
		return err
	}
	g := &store.Guest{AccountID: d.AccountID, EnvironmentID: d.EnvironmentID, Name: "Data clip: " + d.Name,
		Email: fmt.Sprintf("data-clip+%s@guests.sluice.invalid", strings.ToLower(d.ClipSheetID)), Spaces: []string{d.SpaceID}}
	if err := h.store.CreateGuests(ctx, []*store.Guest{g}, actor); err != nil {
		return err
	}
	tok, _, err := h.tokens.IssueFor(&auth.Principal{Kind: auth.ClipToken, AccountID: d.AccountID, EnvironmentID: d.EnvironmentID, SpaceID: d.SpaceID,
		SheetID: d.ClipSheetID, ClipEdit: edit, Email: g.Email, ActorID: g.ID}, h.LinkTTL)
	if err != nil {
		return err
	}
	d.GuestID, d.AccessToken = g.ID, sealedPrefix+base64.StdEncoding.EncodeToString(h.sealer.Seal([]byte(tok)))
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
	d, err := inReach(c, verbOf(c), h.store.GetDataClip, c.Params("dataClipId"))
	return PrincipalOf(c), d, err
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
	f := store.DataClipFilter{AccountID: p.AccountID, SheetID: c.Query("sheetId"), Status: c.Query("status")}
	var err error
	if f.EnvironmentID, f.SpaceID, err = listScope(c, auth.ResContent, "", c.Query("spaceId")); err != nil {
		return err
	}
	if f.SpaceID != "" {
		if _, err := spaceOf(c, h.store, auth.Read, f.SpaceID); err != nil {
			return err
		}
	}
	list, err := h.store.ListDataClips(ctxOf(c), f)
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
	if err := mayShare(p, d); err != nil {
		return err
	}
	if d.Status == "merged" && !wasMerged {
		now := time.Now().UTC()
		d.MergedAt = &now
	}
	if err := h.share(ctxOf(c), d, &in, p.ActorID); err != nil {
		return err
	}
	if err := h.store.SaveDataClip(ctxOf(c), d, !slices.Equal(before, d.Collaborators), p.ActorID); err != nil {
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
	if err := h.unshare(ctxOf(c), d, p.ActorID); err != nil {
		return err
	}
	if err := h.store.DeleteDataClip(ctxOf(c), d, p.ActorID); err != nil {
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
	recs, _, err := h.store.GetRecords(ctxOf(c), p.AccountID, d.SourceSheetID, recordset.RecordQuery{IDs: in.RecordIDs, Page: model.Page{Size: len(in.RecordIDs), Number: 1}}, false)
	if err != nil {
		return err
	}
	found := map[string]bool{}
	copies := make([]recordset.RecordIn, 0, len(recs))
	for _, r := range recs {
		found[r.ID] = true
		rin := recordset.RecordIn{Values: map[string]recordset.CellIn{}}
		for _, cell := range r.Cells {
			if cell.Value != nil {
				rin.Values[cell.Key] = recordset.CellIn{Value: cell.Value, HasValue: true}
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
	res, err := h.store.InsertRecords(ctxOf(c), d.ClipSheetID, copies, recordset.WriteOptions{Actor: p.ActorID, AccountID: p.AccountID})
	if err != nil {
		return err
	}
	return recordWriter{}.sendBare(c, res.Records, res.VersionID)
}
