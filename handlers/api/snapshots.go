package api

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
)

// SnapshotStore is what the snapshot handlers need.
type SnapshotStore interface {
	RecordSheetScope(ctx context.Context, accountID, sheetID string) (*recordset.SheetScope, error)
	CreateSnapshot(ctx context.Context, accountID, sheetID, label, threadID, actor string) (*recordset.Snapshot, error)
	ListSnapshots(ctx context.Context, accountID, sheetID, threadID string) ([]*recordset.Snapshot, error)
	GetSnapshot(ctx context.Context, accountID, id string, withSummary bool) (*recordset.Snapshot, error)
	DeleteSnapshot(ctx context.Context, accountID, id string) error
	RestoreSnapshot(ctx context.Context, accountID, id string, o recordset.RestoreOptions, opt recordset.WriteOptions) (*recordset.Snapshot, error)
	GetSnapshotRecords(ctx context.Context, accountID, id, changeType string, page model.Page) ([]*recordset.DiffRecord, error)
}

// Snapshots serves /v1/snapshots.
type Snapshots struct{ store SnapshotStore }

// NewSnapshots returns the snapshot handlers.
func NewSnapshots(s SnapshotStore) *Snapshots { return &Snapshots{store: s} }

type summarySectionJSON struct {
	Total   int64            `json:"total"`
	ByField map[string]int64 `json:"byField,omitempty"`
}

type snapshotSummaryJSON struct {
	CreatedSince summarySectionJSON `json:"createdSince"`
	UpdatedSince summarySectionJSON `json:"updatedSince"`
	DeletedSince summarySectionJSON `json:"deletedSince"`
	SchemaDiff   map[string]string  `json:"schemaDiff"`
	Config       model.SheetConfig  `json:"config"`
}

type snapshotJSON struct {
	ID        string               `json:"id"`
	SheetID   string               `json:"sheetId"`
	Label     string               `json:"label,omitempty"`
	ThreadID  string               `json:"threadId,omitempty"`
	Summary   *snapshotSummaryJSON `json:"summary,omitempty"`
	CreatedAt Time                 `json:"createdAt"`
	CreatedBy string               `json:"createdBy"`
}

func toSnapshotJSON(s *recordset.Snapshot) snapshotJSON {
	out := snapshotJSON{ID: s.ID, SheetID: s.SheetID, Label: s.Label, ThreadID: s.ThreadID, CreatedAt: Time(s.CreatedAt), CreatedBy: s.CreatedBy}
	if sum := s.Summary; sum != nil {
		sec := func(x recordset.SummarySection) summarySectionJSON {
			return summarySectionJSON{Total: x.Total, ByField: x.ByField}
		}
		out.Summary = &snapshotSummaryJSON{CreatedSince: sec(sum.CreatedSince), UpdatedSince: sec(sum.UpdatedSince), DeletedSince: sec(sum.DeletedSince),
			SchemaDiff: sum.SchemaDiff, Config: sum.Config}
	}
	return out
}

// reach checks the principal may touch sheetID's space; other sheets are not found.
func (h *Snapshots) reach(c *fiber.Ctx, sheetID, key string) error {
	_, err := sheetScope(c, h.store, verbOf(c), sheetID)
	if errs.Is(err, errs.NotFound) && key == "snapshotId" {
		return errs.NotFoundf(key, "Snapshot not found")
	}
	return err
}

// snapshot loads the path's snapshot after checking access to its sheet.
func (h *Snapshots) snapshot(c *fiber.Ctx, withSummary bool) (*recordset.Snapshot, error) {
	p := PrincipalOf(c)
	s, err := h.store.GetSnapshot(ctxOf(c), p.AccountID, c.Params("snapshotId"), false)
	if err != nil {
		return nil, err
	}
	if err := h.reach(c, s.SheetID, "snapshotId"); err != nil {
		return nil, err
	}
	if withSummary {
		return h.store.GetSnapshot(ctxOf(c), p.AccountID, s.ID, true)
	}
	return s, nil
}

// Create handles POST /v1/snapshots {sheetId, label?, threadId?}.
func (h *Snapshots) Create(c *fiber.Ctx) error {
	var in struct {
		SheetID  string `json:"sheetId"`
		Label    string `json:"label"`
		ThreadID string `json:"threadId"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.SheetID == "" {
		return errs.Invalidf("sheetId", "sheetId is required")
	}
	if err := h.reach(c, in.SheetID, "sheetId"); err != nil {
		return err
	}
	p := PrincipalOf(c)
	s, err := h.store.CreateSnapshot(ctxOf(c), p.AccountID, in.SheetID, in.Label, in.ThreadID, p.ActorID)
	if err != nil {
		return err
	}
	return data(c, toSnapshotJSON(s))
}

// List handles GET /v1/snapshots?sheetId=&threadId=.
func (h *Snapshots) List(c *fiber.Ctx) error {
	sheetID := c.Query("sheetId")
	if sheetID == "" {
		return errs.Invalidf("sheetId", "sheetId is required")
	}
	if err := h.reach(c, sheetID, "sheetId"); err != nil {
		return err
	}
	list, err := h.store.ListSnapshots(ctxOf(c), PrincipalOf(c).AccountID, sheetID, c.Query("threadId"))
	if err != nil {
		return err
	}
	out := make([]snapshotJSON, len(list))
	for i, s := range list {
		out[i] = toSnapshotJSON(s)
	}
	return data(c, out)
}

// Get handles GET /v1/snapshots/:snapshotId?includeSummary=.
func (h *Snapshots) Get(c *fiber.Ctx) error {
	sum, err := queryBool(c, "includeSummary")
	if err != nil {
		return err
	}
	s, err := h.snapshot(c, sum != nil && *sum)
	if err != nil {
		return err
	}
	return data(c, toSnapshotJSON(s))
}

// Delete handles DELETE /v1/snapshots/:snapshotId.
func (h *Snapshots) Delete(c *fiber.Ctx) error {
	s, err := h.snapshot(c, false)
	if err != nil {
		return err
	}
	if err := h.store.DeleteSnapshot(ctxOf(c), PrincipalOf(c).AccountID, s.ID); err != nil {
		return err
	}
	return success(c)
}

// Restore handles POST /v1/snapshots/:snapshotId/restore with an optional body
// {created, updated, deleted} (all true when absent).
func (h *Snapshots) Restore(c *fiber.Ctx) error {
	s, err := h.snapshot(c, false)
	if err != nil {
		return err
	}
	o := recordset.RestoreOptions{Created: true, Updated: true, Deleted: true}
	if len(bytes.TrimSpace(c.Body())) > 0 {
		var in struct {
			Created, Updated, Deleted *bool
		}
		if err := bind(c, &in); err != nil {
			return err
		}
		for _, f := range []struct {
			v   *bool
			dst *bool
		}{{in.Created, &o.Created}, {in.Updated, &o.Updated}, {in.Deleted, &o.Deleted}} {
			if f.v != nil {
				*f.dst = *f.v
			}
		}
	}
	p := PrincipalOf(c)
	s, err = h.store.RestoreSnapshot(ctxOf(c), p.AccountID, s.ID, o, writeOptions(c, p))
	if err != nil {
		return err
	}
	return data(c, toSnapshotJSON(s))
}

// Records handles GET /v1/snapshots/:snapshotId/records?changeType=&pageSize=&pageNumber=:
// records changed since the snapshot, cells carrying snapshotValue where the snapshot had one.
func (h *Snapshots) Records(c *fiber.Ctx) error {
	s, err := h.snapshot(c, false)
	if err != nil {
		return err
	}
	pg, err := page(c, 10000, 10000)
	if err != nil {
		return err
	}
	diff, err := h.store.GetSnapshotRecords(ctxOf(c), PrincipalOf(c).AccountID, s.ID, c.Query("changeType"), pg)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString(`{"data":[`)
	w := recordWriter{messages: true}
	for i, d := range diff {
		if i > 0 {
			b.WriteByte(',')
		}
		w.diffRecord(&b, d)
	}
	b.WriteString(`]}`)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b.Bytes())
}

// diffRecord renders a DiffRecord: a record whose cells add snapshotValue.
func (w recordWriter) diffRecord(b *bytes.Buffer, d *recordset.DiffRecord) {
	var rec bytes.Buffer
	w.record(&rec, d.Record)
	if d.Change == recordset.CreatedSince || len(d.SnapshotValues) == 0 {
		b.Write(rec.Bytes())
		return
	}
	// Add snapshotValue to each cell, and cells the record no longer has.
	var m map[string]json.RawMessage
	_ = json.Unmarshal(rec.Bytes(), &m)
	var values map[string]map[string]json.RawMessage
	_ = json.Unmarshal(m["values"], &values)
	if values == nil {
		values = map[string]map[string]json.RawMessage{}
	}
	for k, v := range d.SnapshotValues {
		cell := values[k]
		if cell == nil {
			cell = map[string]json.RawMessage{"value": json.RawMessage("null")}
			values[k] = cell
		}
		cell["snapshotValue"] = v
	}
	m["values"], _ = json.Marshal(values)
	out, _ := json.Marshal(m)
	b.Write(out)
}
