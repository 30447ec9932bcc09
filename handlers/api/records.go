package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/limits"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// RecordStore is what the record handlers need.
type RecordStore interface {
	Settings() sqldb.Settings // the caps on names, widths and request sizes
	RecordSheetScope(ctx context.Context, accountID, sheetID string) (*recordset.SheetScope, error)
	GetRecords(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery, withTotal bool) ([]*recordset.Record, int64, error)
	GetRecordCounts(ctx context.Context, accountID, sheetID string) (*recordset.Counts, error)
	CountRecords(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery) (*recordset.Counts, error)
	InsertRecords(ctx context.Context, sheetID string, in []recordset.RecordIn, opt recordset.WriteOptions) (*recordset.WriteResult, error)
	UpdateRecords(ctx context.Context, sheetID string, in []recordset.RecordIn, opt recordset.WriteOptions) (*recordset.WriteResult, error)
	DeleteRecords(ctx context.Context, sheetID string, ids []string, opt recordset.WriteOptions) (*recordset.WriteResult, error)
	DeleteWhere(ctx context.Context, sheetID string, q recordset.RecordQuery, opt recordset.WriteOptions) (*recordset.BulkResult, error)
	FindAndReplace(ctx context.Context, sheetID string, q recordset.RecordQuery, fr recordset.FindReplace, opt recordset.WriteOptions) (*recordset.BulkResult, error)
	BulkUpdate(ctx context.Context, sheetID string, q recordset.RecordQuery, cells map[string]recordset.CellIn, opt recordset.WriteOptions) (*recordset.BulkResult, error)
	ClearColumn(ctx context.Context, sheetID, fieldKey string, opt recordset.WriteOptions) (*recordset.BulkResult, error)
	GetEvent(ctx context.Context, accountID, id string) (*model.Event, error)
	CellValuesPage(ctx context.Context, accountID, sheetID, key string, q recordset.RecordQuery, p recordset.CellsPage) ([]recordset.CellCount, error)
}

// Records serves /v1/sheets/:sheetId/records and the sheet's counts, find-replace,
// bulk-update and clear-column endpoints.
type Records struct{ store RecordStore }

// NewRecords returns the record handlers.
func NewRecords(s RecordStore) *Records { return &Records{store: s} }

// maxIDs is the most record ids a request may name, as Flatfile documents.
const maxIDs = 100

// sheet loads the path's sheet and checks the principal reaches its space; sheets out of
// reach are not found.
func (h *Records) sheet(c *fiber.Ctx) (*auth.Principal, *recordset.SheetScope, error) {
	sc, err := sheetScope(c, h.store, verbOf(c), c.Params("sheetId"))
	return PrincipalOf(c), sc, err
}

// writeOptions builds the store options of a write request. The SDK always sends
// X-Disable-Hooks: true; X-Force-Hooks: true runs hooks anyway.
func writeOptions(c *fiber.Ctx, p *auth.Principal) recordset.WriteOptions {
	disable := strings.EqualFold(c.Get("X-Disable-Hooks"), "true") && !strings.EqualFold(c.Get("X-Force-Hooks"), "true")
	return recordset.WriteOptions{Actor: p.ActorID, AccountID: p.AccountID, DisableHooks: disable}
}

// queryList reads a repeatable query parameter (ids=a&ids=b); commas also separate values.
func queryList(c *fiber.Ctx, key string) []string {
	var out []string
	for _, v := range c.Context().QueryArgs().PeekMulti(key) {
		for _, s := range strings.Split(string(v), ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// recordQuery reads the filter parameters the records endpoints share.
func recordQuery(c *fiber.Ctx) (recordset.RecordQuery, error) {
	q := recordset.RecordQuery{Filter: c.Query("filter"), FilterField: c.Query("filterField"), SearchValue: c.Query("searchValue"),
		SearchField: c.Query("searchField"), Q: c.Query("q"), SortField: c.Query("sortField"), IDs: queryList(c, "ids")}
	if len(q.IDs) > maxIDs {
		return q, errs.Invalidf("ids", "At most %d ids may be given, got %d", maxIDs, len(q.IDs))
	}
	q.VersionID = cmp.Or(c.Query("commitId"), c.Query("versionId"))
	q.SinceVersionID = cmp.Or(c.Query("sinceCommitId"), c.Query("sinceVersionId"))
	var err error
	if q.SortDesc, err = sortDesc(c); err != nil {
		return q, err
	}
	ro, err := queryBool(c, "excludeReadOnly")
	if err != nil {
		return q, err
	}
	q.ExcludeReadOnly = ro != nil && *ro
	return q, nil
}

// Get handles GET /v1/sheets/:sheetId/records.
func (h *Records) Get(c *fiber.Ctx) error {
	p, sc, err := h.sheet(c)
	if err != nil {
		return err
	}
	q, err := recordQuery(c)
	if err != nil {
		return err
	}
	if err := h.forEvent(c, p, &q); err != nil {
		return err
	}
	if q.Page, err = page(c, 10000, 10000); err != nil {
		return err
	}
	flags := map[string]*bool{}
	for _, k := range []string{"includeCounts", "includeLength", "includeMessages", "includeLinks"} {
		if flags[k], err = queryBool(c, k); err != nil {
			return err
		}
	}
	on := func(k string) bool { return flags[k] != nil && *flags[k] }
	recs, total, err := h.store.GetRecords(ctxOf(c), p.AccountID, sc.SheetID, q, on("includeLength"))
	if err != nil {
		return err
	}
	var counts *recordset.Counts
	if on("includeCounts") {
		if counts, err = h.store.GetRecordCounts(ctxOf(c), p.AccountID, sc.SheetID); err != nil {
			return err
		}
	}
	if on("includeLength") {
		if counts == nil {
			counts = &recordset.Counts{}
		}
		counts.Total = total
	}
	w := recordWriter{messages: on("includeMessages"), fields: fieldSet(queryList(c, "fields")), keys: fieldKeys(sc.Config)}
	return w.send(c, recs, counts, "")
}

// forEvent applies `for=<event id>`: the records of the event's commit, as listeners ask.
func (h *Records) forEvent(c *fiber.Ctx, p *auth.Principal, q *recordset.RecordQuery) error {
	id := c.Query("for")
	if id == "" {
		return nil
	}
	ev, err := h.store.GetEvent(ctxOf(c), p.AccountID, id)
	if err == nil {
		err = may(c, auth.Read, place.Of(ev))
	}
	if err != nil {
		return errs.Invalidf("for", "Unknown event %q", id)
	}
	if q.VersionID == "" {
		q.VersionID = cmp.Or(ev.Context.CommitID, ev.Context.VersionID)
	}
	return nil
}

func fieldSet(keys []string) map[string]bool {
	if len(keys) == 0 {
		return nil
	}
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// Counts handles GET /v1/sheets/:sheetId/counts. Without filters the counts come from the
// counts kept on write; filters, search and q count by a scan.
func (h *Records) Counts(c *fiber.Ctx) error {
	p, sc, err := h.sheet(c)
	if err != nil {
		return err
	}
	q, err := recordQuery(c)
	if err != nil {
		return err
	}
	byField, err := queryBool(c, "byField")
	if err != nil {
		return err
	}
	var counts *recordset.Counts
	if q.Filter == "" && q.SearchValue == "" && q.Q == "" && len(q.IDs) == 0 && q.VersionID == "" && q.SinceVersionID == "" {
		counts, err = h.store.GetRecordCounts(ctxOf(c), p.AccountID, sc.SheetID)
	} else {
		counts, err = h.store.CountRecords(ctxOf(c), p.AccountID, sc.SheetID, q)
	}
	if err != nil {
		return err
	}
	return data(c, fiber.Map{"counts": toCountsJSON(counts, byField != nil && *byField), "success": true})
}

// Insert handles POST /v1/sheets/:sheetId/records: a JSON array of records, each an object
// of field key → {value}. The answer holds the new records in the order sent.
func (h *Records) Insert(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	var body []map[string]cellJSON
	if err := bindArray(c, &body, h.store.Settings().Caps); err != nil {
		if _, _, serr := h.sheet(c); serr != nil {
			return serr // a sheet out of reach is that, whatever the body
		}
		return err
	}
	in := make([]recordset.RecordIn, len(body))
	for i, rec := range body {
		in[i].Values = make(map[string]recordset.CellIn, len(rec))
		for k, v := range rec {
			in[i].Values[k] = v.CellIn
		}
	}
	// The policy is asked inside the write, on the sheet it loads (no query of its own).
	opt := writeOptions(c, p)
	opt.Allow = func(sc *recordset.SheetScope) error { return auth.Can(p, auth.Write, place.Of(sc)) }
	answer := writeAnswer{render: func(res *recordset.WriteResult) ([]byte, error) {
		return recordWriter{messages: true, keys: fieldKeys(res.Scope.Config)}.encode(res.Records, nil, res.VersionID, true), nil
	}}
	opt.Answer = answer.inWrite
	res, err := h.store.InsertRecords(ctxOf(c), c.Params("sheetId"), in, opt)
	if err != nil {
		return err
	}
	return answer.send(c, res)
}

// writeAnswer renders a write's 200 answer once: inside the write when the write keeps it
// with its request's Idempotency-Key (recordset.WriteOptions.Answer), after it otherwise.
type writeAnswer struct {
	render func(*recordset.WriteResult) ([]byte, error)
	body   []byte
}

func (a *writeAnswer) inWrite(res *recordset.WriteResult) ([]byte, error) {
	var err error
	a.body, err = a.render(res)
	return a.body, err
}

func (a *writeAnswer) send(c *fiber.Ctx, res *recordset.WriteResult) error {
	if a.body == nil {
		if _, err := a.inWrite(res); err != nil {
			return err
		}
	}
	return sendJSON(c, a.body)
}

// fieldKeys are the keys of a sheet's fields, in order.
func fieldKeys(cfg model.SheetConfig) []string {
	keys := make([]string, len(cfg.Fields))
	for i, f := range cfg.Fields {
		keys[i] = f.Key
	}
	return keys
}

// bindArray decodes a body that must be a JSON array of at most caps.Records records,
// element by element: a body of a million tiny records is refused at the cap, before it costs
// memory for more than the cap.
func bindArray[T any](c *fiber.Ctx, dst *[]T, caps limits.Caps) error {
	body := bytes.TrimSpace(c.Body())
	if len(body) == 0 || body[0] != '[' {
		return errs.Invalidf("body", "Request body must be a JSON array of records")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return jsonError(err)
	}
	out := make([]T, 0, min(64, caps.Records))
	for dec.More() {
		if len(out) == caps.Records {
			return errs.Invalidf("body", "%s", caps.TooManyRecords())
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return jsonError(err)
		}
		out = append(out, v)
	}
	if _, err := dec.Token(); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errs.Invalidf("body", "Request body must be a single JSON array")
	}
	*dst = out
	return nil
}

// Update handles PUT /v1/sheets/:sheetId/records: a JSON array of records with ids; only
// the cells sent change.
func (h *Records) Update(c *fiber.Ctx) error {
	p, sc, err := h.sheet(c)
	if err != nil {
		return err
	}
	var body []recordJSON
	if err := bindArray(c, &body, h.store.Settings().Caps); err != nil {
		return err
	}
	in := make([]recordset.RecordIn, len(body))
	for i := range body {
		if in[i], err = body[i].toIn(i); err != nil {
			return err
		}
	}
	opt := writeOptions(c, p)
	// A record hook writes back to its commit's dataUrl (…/records?commitId=…): that
	// answers the commit.
	opt.Completes = cmp.Or(c.Query("commitId"), c.Query("versionId"))
	answer := writeAnswer{render: func(res *recordset.WriteResult) ([]byte, error) {
		return json.Marshal(fiber.Map{"data": fiber.Map{"versionId": res.VersionID, "commitId": res.VersionID}})
	}}
	opt.Answer = answer.inWrite
	res, err := h.store.UpdateRecords(ctxOf(c), sc.SheetID, in, opt)
	if err != nil {
		return err
	}
	return answer.send(c, res)
}

// Delete handles DELETE /v1/sheets/:sheetId/records: by ids (at most 100), or, without ids,
// every record the filter, searchValue or q parameters select.
func (h *Records) Delete(c *fiber.Ctx) error {
	p, sc, err := h.sheet(c)
	if err != nil {
		return err
	}
	q, err := recordQuery(c)
	if err != nil {
		return err
	}
	opt := writeOptions(c, p)
	switch {
	case q.Filter != "" || q.SearchValue != "" || q.Q != "":
		_, err = h.store.DeleteWhere(ctxOf(c), sc.SheetID, q, opt)
	case len(q.IDs) > 0:
		_, err = h.store.DeleteRecords(ctxOf(c), sc.SheetID, q.IDs, opt)
	default:
		return errs.Invalidf("ids", "Name the records to delete with ids, or select them with filter, searchValue or q")
	}
	if err != nil {
		return err
	}
	return success(c)
}

// findReplaceIn is the find-replace body; excludeReadOnly, legacyReplace and actorId are
// also read from the query string (the typed client strips unknown body keys).
type findReplaceIn struct {
	Find            json.RawMessage `json:"find"`
	Replace         json.RawMessage `json:"replace"`
	FieldKey        string          `json:"fieldKey"`
	ExcludeReadOnly *bool           `json:"excludeReadOnly"`
	LegacyReplace   *bool           `json:"legacyReplace"`
	ActorID         string          `json:"actorId"`
	Options         *struct {
		ExcludeReadOnly *bool `json:"excludeReadOnly"`
	} `json:"options"`
}

// FindReplace handles PUT /v1/sheets/:sheetId/find-replace.
func (h *Records) FindReplace(c *fiber.Ctx) error {
	p, sc, err := h.sheet(c)
	if err != nil {
		return err
	}
	var in findReplaceIn
	if err := bind(c, &in); err != nil {
		return err
	}
	if in.FieldKey == "" {
		in.FieldKey = cmp.Or(c.Query("fieldKey"), c.Query("field"))
	}
	if in.FieldKey == "" {
		return errs.Invalidf("fieldKey", "fieldKey is required")
	}
	q, err := recordQuery(c)
	if err != nil {
		return err
	}
	fr := recordset.FindReplace{FieldKey: in.FieldKey, Find: in.Find, Replace: in.Replace}
	if in.Options != nil && in.Options.ExcludeReadOnly != nil {
		in.ExcludeReadOnly = in.Options.ExcludeReadOnly
	}
	for _, f := range []struct {
		body *bool
		key  string
		dst  *bool
	}{{in.ExcludeReadOnly, "excludeReadOnly", &fr.ExcludeReadOnly}, {in.LegacyReplace, "legacyReplace", &fr.LegacyReplace}} {
		v, err := queryBool(c, f.key)
		if err != nil {
			return err
		}
		if f.body != nil {
			v = f.body
		}
		*f.dst = v != nil && *v
	}
	// excludeReadOnly on the query of find-replace is an option, not a record filter.
	q.ExcludeReadOnly = false
	opt := writeOptions(c, p)
	if actor := cmp.Or(in.ActorID, c.Query("actorId")); actor != "" {
		opt.Actor = actor
	}
	res, err := h.store.FindAndReplace(ctxOf(c), sc.SheetID, q, fr, opt)
	if err != nil {
		return err
	}
	return data(c, fiber.Map{"versionId": res.VersionID, "commitId": res.VersionID})
}

// BulkUpdate handles PATCH /v1/sheets/:sheetId/records/bulk-update: {fieldUpdates: {key:
// {value}}} applied to every record the query parameters select.
func (h *Records) BulkUpdate(c *fiber.Ctx) error {
	p, sc, err := h.sheet(c)
	if err != nil {
		return err
	}
	var in struct {
		FieldUpdates map[string]cellJSON `json:"fieldUpdates"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if len(in.FieldUpdates) == 0 {
		return errs.Invalidf("fieldUpdates", "fieldUpdates must name at least one field")
	}
	q, err := recordQuery(c)
	if err != nil {
		return err
	}
	cells := make(map[string]recordset.CellIn, len(in.FieldUpdates))
	for k, v := range in.FieldUpdates {
		cells[k] = v.CellIn
	}
	opt := writeOptions(c, p)
	silent, err := queryBool(c, "silent")
	if err != nil {
		return err
	}
	opt.Silent = silent != nil && *silent
	res, err := h.store.BulkUpdate(ctxOf(c), sc.SheetID, q, cells, opt)
	if err != nil {
		return err
	}
	return data(c, fiber.Map{"versionId": res.VersionID, "commitId": res.VersionID})
}

// ClearColumn handles POST /v1/sheets/:sheetId/fields/:fieldKey/clear (a Sluice path; the
// interface does not name one): empties the field in every record after a snapshot
// labelled with the field key.
func (h *Records) ClearColumn(c *fiber.Ctx) error {
	p, sc, err := h.sheet(c)
	if err != nil {
		return err
	}
	key, err := url.PathUnescape(c.Params("fieldKey"))
	if err != nil {
		return errs.Invalidf("fieldKey", "Malformed field key in the path")
	}
	res, err := h.store.ClearColumn(ctxOf(c), sc.SheetID, key, writeOptions(c, p))
	if err != nil {
		return err
	}
	return data(c, fiber.Map{"versionId": res.VersionID, "commitId": res.VersionID, "count": res.Count})
}
