package api

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset"
)

// Wire types of the record endpoints: records are written straight into a buffer, since a
// page holds up to 10,000 of them.

// recordWriter renders records in Flatfile's shape: root keys id, values, valid, metadata,
// config (record-level messages only with includeMessages), cells with value, valid,
// messages (always: Flatfile's record-hook counts a record whose cells lack them as
// modified) and updatedAt. With keys (the sheet's fields), every field has a cell, an empty
// one {value: null, valid: true, messages: []}: record-hook refuses record.set() on a field
// the record does not have.
type recordWriter struct {
	messages bool
	fields   map[string]bool
	keys     []string
}

func (w recordWriter) send(c *fiber.Ctx, recs []*recordset.Record, counts *recordset.Counts, versionID string) error {
	return w.write(c, recs, counts, versionID, true)
}

// sendBare answers RecordsResponseData itself, without the data envelope (as Flatfile's
// add-records of data clips does).
func (w recordWriter) sendBare(c *fiber.Ctx, recs []*recordset.Record, versionID string) error {
	return w.write(c, recs, nil, versionID, false)
}

func (w recordWriter) write(c *fiber.Ctx, recs []*recordset.Record, counts *recordset.Counts, versionID string, envelope bool) error {
	return sendJSON(c, w.encode(recs, counts, versionID, envelope))
}

// sendJSON answers body, JSON already encoded (application/json, as c.JSON does).
func sendJSON(c *fiber.Ctx, body []byte) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(body)
}

// encode is the answer write sends.
func (w recordWriter) encode(recs []*recordset.Record, counts *recordset.Counts, versionID string, envelope bool) []byte {
	var b bytes.Buffer
	b.Grow(256 * (len(recs) + 1))
	if envelope {
		b.WriteString(`{"data":`)
	}
	b.WriteString(`{"records":[`)
	for i, r := range recs {
		if i > 0 {
			b.WriteByte(',')
		}
		w.record(&b, r)
	}
	b.WriteByte(']')
	if counts != nil {
		b.WriteString(`,"counts":`)
		cj, _ := json.Marshal(toCountsJSON(counts, false))
		b.Write(cj)
	}
	if versionID != "" {
		b.WriteString(`,"versionId":`)
		b.Write(records.Quote(versionID))
		b.WriteString(`,"commitId":`)
		b.Write(records.Quote(versionID))
	}
	b.WriteString(`,"success":true}`)
	if envelope {
		b.WriteByte('}')
	}
	return b.Bytes()
}

func (w recordWriter) record(b *bytes.Buffer, r *recordset.Record) {
	b.WriteString(`{"id":`)
	b.Write(records.Quote(r.ID))
	b.WriteString(`,"values":{`)
	at, _ := Time(r.UpdatedAt).MarshalJSON()
	first := true
	writeCell := func(cell *recordset.Cell) {
		if w.fields != nil && !w.fields[cell.Key] {
			return
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(records.Quote(cell.Key))
		b.WriteString(`:{"value":`)
		if cell.Value == nil {
			b.WriteString("null")
		} else {
			b.Write(cell.Value)
		}
		b.WriteString(`,"valid":`)
		b.WriteString(strconv.FormatBool(cell.Valid))
		b.WriteString(`,"messages":`)
		writeMessages(b, cell.Messages)
		if cell.Layer != "" {
			b.WriteString(`,"layer":`)
			b.Write(records.Quote(cell.Layer))
		}
		b.WriteString(`,"updatedAt":`)
		b.Write(at)
		b.WriteByte('}')
	}
	if w.keys == nil {
		for i := range r.Cells {
			writeCell(&r.Cells[i])
		}
	} else {
		// The store lists the cells that hold a value or a message, in field order.
		j := 0
		for _, k := range w.keys {
			if j < len(r.Cells) && r.Cells[j].Key == k {
				writeCell(&r.Cells[j])
				j++
				continue
			}
			writeCell(&recordset.Cell{Key: k, Valid: true})
		}
		for ; j < len(r.Cells); j++ {
			writeCell(&r.Cells[j])
		}
	}
	b.WriteString(`},"valid":`)
	b.WriteString(strconv.FormatBool(r.Valid))
	if w.messages && len(r.Messages) > 0 {
		b.WriteString(`,"messages":`)
		writeMessages(b, r.Messages)
	}
	b.WriteString(`,"metadata":`)
	writeObject(b, r.Metadata)
	b.WriteString(`,"config":`)
	writeObject(b, r.Config)
	b.WriteByte('}')
}

func writeMessages(b *bytes.Buffer, ms []records.Message) {
	if len(ms) == 0 {
		b.WriteString("[]")
		return
	}
	j, _ := json.Marshal(ms)
	b.Write(j)
}

func writeObject(b *bytes.Buffer, raw json.RawMessage) {
	if len(raw) == 0 {
		b.WriteString("{}")
		return
	}
	b.Write(raw)
}

// countsJSON is RecordCounts on the wire.
type countsJSON struct {
	Total         int64                     `json:"total"`
	Valid         int64                     `json:"valid"`
	Error         int64                     `json:"error"`
	ErrorsByField map[string]int64          `json:"errorsByField"`
	ByField       map[string]fieldCountJSON `json:"byField,omitempty"`
}

type fieldCountJSON struct {
	Total int64 `json:"total"`
	Valid int64 `json:"valid"`
	Error int64 `json:"error"`
	Empty int64 `json:"empty"`
}

func toCountsJSON(c *recordset.Counts, byField bool) countsJSON {
	out := countsJSON{Total: c.Total, Valid: c.Valid, Error: c.Error, ErrorsByField: c.ErrorsByField}
	if out.ErrorsByField == nil {
		out.ErrorsByField = map[string]int64{}
	}
	if byField {
		out.ByField = map[string]fieldCountJSON{}
		for k, empty := range c.EmptyByField {
			e := c.ErrorsByField[k]
			out.ByField[k] = fieldCountJSON{Total: c.Total, Valid: c.Total - e, Error: e, Empty: empty}
		}
	}
	return out
}

// cellJSON is a CellValue in a request; it remembers which keys were present.
type cellJSON struct{ recordset.CellIn }

// UnmarshalJSON reads {"value": …, "messages": […], …}.
func (cj *cellJSON) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return errs.Invalidf("values", "A cell must be an object like {\"value\": …}")
	}
	if v, ok := m["value"]; ok {
		cj.Value, cj.HasValue = v, true
	}
	if l, ok := m["layer"]; ok {
		cj.HasLayer = true
		if string(l) != "null" && json.Unmarshal(l, &cj.Layer) != nil {
			return errs.Invalidf("layer", "A cell's layer must be a string")
		}
		if len(cj.Layer) > 255 {
			return errs.Invalidf("layer", "A layer name has at most 255 characters")
		}
	}
	if ms, ok := m["messages"]; ok {
		cj.HasMessages = true
		if string(ms) != "null" {
			if err := json.Unmarshal(ms, &cj.Messages); err != nil {
				return errs.Invalidf("messages", "messages must be an array of {type, message, source?, path?}")
			}
		}
	}
	return nil
}

// recordJSON is a Record_ (update) or RecordData (insert, values only) in a request.
type recordJSON struct {
	ID       string              `json:"id"`
	Values   map[string]cellJSON `json:"values"`
	Messages *[]records.Message  `json:"messages"`
	Metadata json.RawMessage     `json:"metadata"`
	Config   json.RawMessage     `json:"config"`
}

func (r *recordJSON) toIn(i int) (recordset.RecordIn, error) {
	in := recordset.RecordIn{ID: r.ID, Values: make(map[string]recordset.CellIn, len(r.Values))}
	for k, v := range r.Values {
		in.Values[k] = v.CellIn
	}
	if r.Messages != nil {
		in.Messages, in.HasMessages = *r.Messages, true
	}
	for key, raw := range map[string]json.RawMessage{"metadata": r.Metadata, "config": r.Config} {
		if err := rawObject(key, raw); err != nil {
			return in, errs.Invalidf(key, "Record %d: %s must be an object", i, key)
		}
	}
	if len(r.Metadata) > 0 && string(r.Metadata) != "null" {
		in.Metadata = r.Metadata
	}
	if len(r.Config) > 0 && string(r.Config) != "null" {
		var cfg struct {
			Readonly          *bool                      `json:"readonly"`
			Fields            map[string]json.RawMessage `json:"fields"`
			MarkedForDeletion *bool                      `json:"markedForDeletion"`
		}
		if err := json.Unmarshal(r.Config, &cfg); err != nil {
			return in, errs.Invalidf("config", "Record %d: config must be {readonly?, fields?: {key: {readonly?}}, markedForDeletion?}", i)
		}
		in.Config = r.Config
	}
	return in, nil
}
