package ui

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/views"
)

// reviewSample is how many of the file's rows the Review step checks against the sheet.
const reviewSample = 200

// emptyMarkers are the values exports write for "no value"; those a file holds are offered
// as "treat as empty" in the wizard.
var emptyMarkers = []string{"NA", "N/A", "n/a", "na", "#N/A", "-", "--", ".", "?", "null", "NULL", "None", "none", "nil"}

// markersIn lists the empty markers that occur in recs.
func markersIn(recs []*recordset.Record) []string {
	found := map[string]bool{}
	for _, r := range recs {
		for _, c := range r.Cells {
			found[strings.TrimSpace(ingest.CellText(c.Value))] = true
		}
	}
	var out []string
	for _, m := range emptyMarkers {
		if found[m] {
			out = append(out, m)
		}
	}
	return out
}

// emptyList reads the wizard's "treat as empty" box: values separated by commas.
func emptyList(raw string) []string {
	var out []string
	for _, v := range strings.Split(raw, ",") {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// Review handles POST /space/:spaceId/import/:fileId/review: before anything is written,
// what the import will do — rows, columns imported, added and dropped, required fields no
// column fills — and a dry run of the mapping over the file's first rows with the errors it
// would leave.
func (h *Imports) Review(c *fiber.Ctx) error {
	ic, dst, rules, err := h.posted(c)
	if err != nil {
		return err
	}
	p := views.ImportReviewProps{SpaceID: ic.space.ID, FileID: ic.file.ID, DestName: dst.Name, Empty: emptyList(c.FormValue("empty"))}
	p.Unmapped = strings.Join(unmappedRequired(dst, rules), ", ")
	if counts, err := h.store.GetRecordCounts(c.Context(), ic.u.AccountID, ic.src.ID); err == nil {
		p.Rows = counts.Total
	}
	args := c.Request().PostArgs()
	srcs, dests := args.PeekMulti("src"), args.PeekMulti("dest")
	for i := range srcs {
		sf := ic.src.Config.FieldByKey(string(srcs[i]))
		header := cmp.Or(sf.Label, sf.Key)
		switch dk := string(dests[i]); dk {
		case "":
			p.Dropped = append(p.Dropped, header)
		case customDest:
			p.Added = append(p.Added, header)
		default:
			df := dst.Config.FieldByKey(dk)
			p.Imported = append(p.Imported, header+" → "+cmp.Or(df.Label, df.Key))
		}
	}
	if err := h.dryRun(c, ic, dst, rules, &p); err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.ImportReview(p))
}

// dryRun maps the file's first rows in memory as the map job will and checks them against
// the sheet's types, required fields and options (unique values and references need the
// sheet's data and are checked on import).
func (h *Imports) dryRun(c *fiber.Ctx, ic *importCtx, dst *model.Sheet, rules []*model.MappingRule, p *views.ImportReviewProps) error {
	recs, _, err := h.store.GetRecords(c.Context(), ic.u.AccountID, ic.src.ID, recordset.RecordQuery{Page: model.Page{Size: reviewSample, Number: 1}}, false)
	if err != nil {
		return err
	}
	schema, err := records.Compile(&dst.Config)
	if err != nil {
		return err
	}
	type assign struct {
		SourceField      string `json:"sourceField"`
		DestinationField string `json:"destinationField"`
		Format           string `json:"format"`
	}
	from := map[string]string{} // destination key → source key
	formats := map[string]string{}
	enums := map[string]map[string]string{}
	for _, r := range rules {
		switch r.Type {
		case "assign":
			var a assign
			if json.Unmarshal(r.Config, &a) == nil {
				from[a.DestinationField] = a.SourceField
				if a.Format != "" {
					formats[a.DestinationField] = a.Format
				}
			}
		case "enum":
			var e struct {
				DestinationField string            `json:"destinationField"`
				Mapping          map[string]string `json:"mapping"`
			}
			if json.Unmarshal(r.Config, &e) == nil {
				enums[e.DestinationField] = e.Mapping
			}
		}
	}
	if len(formats) > 0 {
		schema = schema.WithFormats(formats)
	}
	empty := map[string]bool{}
	for _, v := range p.Empty {
		empty[v] = true
	}
	type problem struct {
		field, message string
	}
	tally := map[problem]int{}
	var order []problem
	for _, r := range recs {
		byKey := make(map[string]json.RawMessage, len(r.Cells))
		for _, cell := range r.Cells {
			byKey[cell.Key] = cell.Value
		}
		row := make(records.Row, len(schema.Rules))
		for i, rule := range schema.Rules {
			v, ok := byKey[from[rule.Key]]
			if !ok {
				continue
			}
			text := strings.TrimSpace(ingest.CellText(v))
			if empty[text] {
				continue
			}
			if opt, ok := enums[rule.Key][text]; ok {
				if opt == "" {
					continue // mapped to no value
				}
				v, _ = json.Marshal(opt)
			}
			row[i] = v
		}
		cells := schema.Check(row)
		bad := false
		for i, msgs := range cells {
			for _, m := range msgs {
				if m.Type != records.LevelError {
					continue
				}
				bad = true
				f := dst.Config.FieldByKey(schema.Rules[i].Key)
				k := problem{cmp.Or(f.Label, f.Key), localMessage(c.Context(), m.Message)}
				if tally[k] == 0 {
					order = append(order, k)
				}
				tally[k]++
			}
		}
		if bad {
			p.SampleErrors++
		}
	}
	p.Sample = len(recs)
	slices.SortStableFunc(order, func(a, b problem) int { return tally[b] - tally[a] })
	for _, k := range order[:min(len(order), 8)] {
		p.Problems = append(p.Problems, views.ImportProblem{Field: k.field, Message: k.message, Count: tally[k]})
	}
	if p.Sample > 0 && p.Rows > int64(p.Sample) {
		p.Estimate = int64(float64(p.SampleErrors) / float64(p.Sample) * float64(p.Rows))
	}
	return nil
}

// bestFit is the destination the file's columns fit best (the most columns the engine would
// map on its own, then the highest confidence), among the first few sheets of the space; ""
// when none takes a column.
func (h *Imports) bestFit(c *fiber.Ctx, ic *importCtx, dests []views.ImportDest) string {
	best, bestN, bestConf := "", 0, 0.0
	for _, d := range dests[:min(len(dests), 12)] {
		dst, err := h.destination(c, ic, d.ID)
		if err != nil {
			continue
		}
		_, plan, err := h.suggest.SuggestSheet(c.Context(), ic.u.AccountID, ic.space.EnvironmentID, ic.u.historyOwner(), ic.src, dst)
		if err != nil {
			continue
		}
		n, conf := 0, 0.0
		for _, sg := range plan.Columns {
			if sg.Destination != "" && sg.AutoApply {
				n++
				conf += sg.Confidence
			}
		}
		if n > bestN || (n == bestN && n > 0 && conf > bestConf) {
			best, bestN, bestConf = d.ID, n, conf
		}
	}
	return best
}
