package ingest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/formats"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/mapping"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/store/sqldb"
)

// mapBatch is how many records each write transaction of a map job holds: larger than an
// upload's batches because the rows are already clean JSON.
const mapBatch = 10000

// MapOperation is the job operation that maps a source sheet into a destination sheet
// ("workbook:map" in job events, as Flatfile's automap plugin creates it).
const MapOperation = "map"

// Edge maps one source field onto one destination field.
type Edge struct {
	Source      model.Field
	Destination model.Field
	Confidence  float64
	Certainty   string // absolute, strong, moderate or weak
	Reasons     []string
	Apply       bool // used when the job runs: confident enough, or a program's rule
	// Format reads the source's text for a date or number destination (DMY, MDY, serial,
	// "." or ","): the program rule's choice, else the column's inferred reading when its
	// values decide it; "" accepts only values that need no choice.
	Format  string
	Reading *formats.Reading // what the source column's values say, when known
}

// Plan is how a map job will move values.
type Plan struct {
	Source, Destination      *model.Sheet
	Edges                    []Edge
	UnmappedSource           []model.Field
	UnmappedDestination      []model.Field
	ProgramID                string
	transforms               []transform
	destinationWorkbookSpace string
}

type mapConfig struct {
	SourceSheetID      string `json:"sourceSheetId"`
	DestinationSheetID string `json:"destinationSheetId"`
}

type mapInput struct {
	ProgramID     string `json:"programId"`
	Version       string `json:"version"`
	KeepRecordIDs bool   `json:"keepRecordIds"`
	// EmptyValues are texts read as no value (NA, N/A, -, …): the wizard's "treat as empty".
	EmptyValues []string `json:"emptyValues"`
}

func certainty(c float64) string {
	switch {
	case c >= 0.95:
		return "absolute"
	case c >= 0.8:
		return "strong"
	case c >= 0.6:
		return "moderate"
	}
	return "weak"
}

// sheetOf picks the sheet: the one named, else the first of the workbook.
func (s *Service) sheetOf(ctx context.Context, accountID, sheetID, workbookID, key string) (*model.Sheet, *model.Workbook, error) {
	if sheetID != "" {
		return s.DB.GetSheet(ctx, accountID, sheetID)
	}
	if workbookID == "" {
		return nil, nil, errs.Invalidf(key, "The map job needs config.%s or a %s workbook", key, key)
	}
	w, err := s.DB.GetWorkbook(ctx, accountID, workbookID)
	if err != nil {
		return nil, nil, err
	}
	if len(w.Sheets) == 0 {
		return nil, nil, errs.Invalidf(key, "Workbook %s has no sheets", workbookID)
	}
	return w.Sheets[0], w, nil
}

// PlanJob works out how a map job moves values: from the rules of input.programId when given,
// else from the suggestion engine (with the job creator's mapping history).
func (s *Service) PlanJob(ctx context.Context, j *model.Job) (*Plan, error) {
	if err := jobs.CheckScope(ctx, s.DB, j); err != nil { // the sheets it names are its space's
		return nil, err
	}
	var cfg mapConfig
	var in mapInput
	if len(j.Config) > 0 {
		_ = json.Unmarshal(j.Config, &cfg)
	}
	if len(j.Input) > 0 {
		_ = json.Unmarshal(j.Input, &in)
	}
	src, _, err := s.sheetOf(ctx, j.AccountID, cfg.SourceSheetID, j.Source, "sourceSheetId")
	if err != nil {
		return nil, err
	}
	dst, dw, err := s.sheetOf(ctx, j.AccountID, cfg.DestinationSheetID, j.Destination, "destinationSheetId")
	if err != nil {
		return nil, err
	}
	p := &Plan{Source: src, Destination: dst, ProgramID: in.ProgramID}
	if dw != nil {
		p.destinationWorkbookSpace = dw.SpaceID
	}
	used, mapped := map[string]bool{}, map[string]bool{}
	if in.ProgramID != "" {
		prog, err := s.DB.GetProgram(ctx, j.AccountID, in.ProgramID)
		if err != nil {
			return nil, err
		}
		if in.Version != "" {
			v, err := programVersion(in.Version)
			if err != nil {
				return nil, err
			}
			if prog.Rules, err = s.DB.ProgramRulesAt(ctx, prog.ID, v); err != nil {
				return nil, err
			}
		}
		if p.transforms, err = compileTransforms(prog.Rules, src, dst); err != nil {
			return nil, err
		}
		for _, r := range prog.Rules {
			var c struct{ SourceField, DestinationField string }
			if json.Unmarshal(r.Config, &c) != nil {
				continue
			}
			if r.Type == "ignore" && c.SourceField != "" {
				mapped[c.SourceField] = true // ignored on purpose: not added as a custom field either
				continue
			}
			if r.Type != "assign" {
				continue
			}
			sf, df := src.Config.FieldByKey(c.SourceField), dst.Config.FieldByKey(c.DestinationField)
			if sf == nil || df == nil || used[df.Key] {
				continue
			}
			conf := mapping.MaxConfidence
			if r.Confidence != nil {
				conf = *r.Confidence
			}
			used[df.Key], mapped[sf.Key] = true, true
			var f struct{ Format string }
			_ = json.Unmarshal(r.Config, &f)
			p.Edges = append(p.Edges, Edge{Source: *sf, Destination: *df, Confidence: conf, Certainty: certainty(conf), Reasons: []string{"rule " + r.Name + " of program " + prog.ID}, Apply: true,
				Format: f.Format})
		}
	} else {
		_, plan, err := s.SuggestSheet(ctx, j.AccountID, j.EnvironmentID, j.CreatedBy, src, dst)
		if err != nil {
			return nil, err
		}
		for i, sg := range plan.Columns {
			if sg.Destination == "" {
				continue
			}
			df := dst.Config.FieldByKey(sg.Destination)
			used[df.Key], mapped[src.Config.Fields[i].Key] = true, true
			p.Edges = append(p.Edges, Edge{Source: src.Config.Fields[i], Destination: *df, Confidence: sg.Confidence, Certainty: certainty(sg.Confidence), Reasons: sg.Reasons, Apply: sg.AutoApply})
		}
	}
	if err := s.readFormats(ctx, j.AccountID, p); err != nil {
		return nil, err
	}
	for _, f := range src.Config.Fields {
		if !mapped[f.Key] {
			p.UnmappedSource = append(p.UnmappedSource, f)
		}
	}
	for _, f := range dst.Config.Fields {
		if !used[f.Key] {
			p.UnmappedDestination = append(p.UnmappedDestination, f)
		}
	}
	return p, nil
}

// readFormats gives each edge onto a date, number or boolean field the reading its source
// column's values support (counted when the file was read), and uses it where the program
// chose none and the values decide it.
func (s *Service) readFormats(ctx context.Context, accountID string, p *Plan) error {
	cols, err := s.DB.ColumnFormats(ctx, p.Source.ID)
	if err != nil {
		return err
	}
	if err := s.countColumns(ctx, accountID, p, cols); err != nil {
		return err
	}
	for i := range p.Edges {
		e := &p.Edges[i]
		c := cols[e.Source.Key]
		if c == nil {
			continue
		}
		r, ok := c.For(e.Destination.Type)
		if !ok {
			continue
		}
		e.Reading = &r
		if e.Format == "" && !r.Ambiguous && r.Kind != "boolean" {
			e.Format = r.Format
		}
	}
	return nil
}

// countColumns counts, over every record of the source sheet, the values of the columns
// mapped onto date, number or boolean fields that have no counts from a file's extraction
// (a sheet written through the API or by hand): the same reading a file's columns get.
func (s *Service) countColumns(ctx context.Context, accountID string, p *Plan, cols map[string]*formats.Column) error {
	need := map[string]*formats.Column{}
	for _, e := range p.Edges {
		if _, typed := (&formats.Column{}).For(e.Destination.Type); typed && cols[e.Source.Key] == nil {
			need[e.Source.Key] = &formats.Column{}
		}
	}
	if len(need) == 0 {
		return nil
	}
	err := s.DB.EachValues(ctx, accountID, p.Source.ID, func(keys []string, _ string, row records.Row) error {
		for i, v := range row {
			if col := need[keys[i]]; col != nil && v != nil {
				col.Add(CellText(v))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	maps.Copy(cols, need)
	return nil
}

// Formats are the edges' chosen readings by destination field, for the write.
func (p *Plan) Formats() map[string]string {
	out := map[string]string{}
	for _, e := range p.Edges {
		if e.Apply && e.Format != "" {
			out[e.Destination.Key] = e.Format
		}
	}
	return out
}

// programVersion reads input.version: a version number as GET /v1/mapping/:id/versions lists
// them, optionally written "v3".
func programVersion(s string) (int, error) {
	v, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V"))
	if err != nil || v < 1 {
		return 0, errs.Invalidf("input.version", "input.version must name a program version such as \"2\" (see GET /v1/mapping/{programId}/versions), not %q", s)
	}
	return v, nil
}

// samples fills each column's Samples with values of the source sheet's first records.
func (s *Service) samples(ctx context.Context, accountID string, src *model.Sheet, cols []mapping.Column) error {
	idx := make(map[string]int, len(src.Config.Fields))
	for i, f := range src.Config.Fields {
		idx[f.Key] = i
	}
	recs, _, err := s.DB.GetRecords(ctx, accountID, src.ID, recordset.RecordQuery{Page: model.Page{Size: 25, Number: 1}}, false)
	if err != nil {
		return err
	}
	for _, r := range recs {
		for _, c := range r.Cells {
			if i, ok := idx[c.Key]; ok {
				if v := CellText(c.Value); v != "" {
					cols[i].Samples = append(cols[i].Samples, v)
				}
			}
		}
	}
	return nil
}

// Map is the built-in map job: it streams the source sheet's records into the destination
// sheet through the plan's applied edges, validating them on write; enum values are
// translated to options when the engine is sure.
func (s *Service) Map(ctx context.Context, j *model.Job) (jobs.Outcome, error) {
	var in mapInput
	if len(j.Input) > 0 {
		_ = json.Unmarshal(j.Input, &in)
	}
	p, err := s.PlanJob(ctx, j)
	if err != nil {
		return jobs.Outcome{}, err
	}
	if in.KeepRecordIDs && p.Source.ID != p.Destination.ID {
		return jobs.Outcome{}, errs.Invalidf("input.keepRecordIds",
			"keepRecordIds keeps each record where it is, so the source and destination must be the same sheet (record ids belong to their sheet); leave it false to map %s into %s as new records",
			p.Source.Name, p.Destination.Name)
	}
	var edges []Edge
	for _, e := range p.Edges {
		if e.Apply {
			edges = append(edges, e)
		}
	}
	if !in.KeepRecordIDs { // in place, the unmapped columns are the sheet's own
		added, err := s.addCustomFields(ctx, j, p)
		if err != nil {
			return jobs.Outcome{}, err
		}
		edges = append(edges, added...)
	}
	if len(edges) == 0 && len(p.transforms) == 0 {
		return jobs.Outcome{}, errs.Invalidf("plan", "No source column maps onto %s confidently enough; map the columns by hand (a program's rules)", p.Destination.Name)
	}
	var keys []string
	enums := map[string]map[string]string{}
	seen := map[string]bool{}
	addKey := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, e := range edges {
		addKey(e.Destination.Key)
		if e.Destination.Type == model.FieldEnum && e.Destination.Config != nil {
			enums[e.Destination.Key] = map[string]string{}
		}
	}
	for _, t := range p.transforms {
		for _, k := range t.dests {
			addKey(k)
		}
	}
	recs := make(chan *recordset.Record, 1000)
	errc := make(chan error, 1)
	// The reader stops when the job returns early (a failed write): done ends its wait.
	done := make(chan struct{})
	defer close(done)
	go func() {
		errc <- s.DB.EachValues(ctx, j.AccountID, p.Source.ID, func(keys []string, id string, row records.Row) error {
			r := &recordset.Record{ID: id, Cells: make([]recordset.Cell, 0, len(row))}
			for i, v := range row {
				if v != nil {
					r.Cells = append(r.Cells, recordset.Cell{Key: keys[i], Value: v})
				}
			}
			select {
			case recs <- r:
				return nil
			case <-done:
				return context.Canceled
			}
		})
		close(recs)
	}()
	var total int64
	if c, err := s.DB.GetRecordCounts(ctx, j.AccountID, p.Source.ID); err == nil {
		total = c.Total
	}
	n := 0
	next := func() (*recordset.Record, error) {
		r, ok := <-recs
		if !ok {
			if err := <-errc; err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		n++
		if n%mapBatch == 0 {
			info := fmt.Sprintf("Mapped %d of %d records", n, total)
			var pct *float64
			if total > 0 {
				v := min(99, float64(n)*100/float64(total))
				pct = &v
			}
			_, _ = s.Jobs.Ack(ctx, j.AccountID, j.ID, jobs.WorkerActor, &info, pct, nil)
		}
		return r, nil
	}
	empty := map[string]bool{}
	for _, v := range in.EmptyValues {
		empty[v] = true
	}
	values := func(r *recordset.Record) map[string]json.RawMessage {
		byKey := make(map[string]json.RawMessage, len(r.Cells))
		for _, c := range r.Cells {
			byKey[c.Key] = c.Value
		}
		vals := make(map[string]json.RawMessage, len(keys))
		for _, e := range edges {
			v := byKey[e.Source.Key]
			if len(empty) > 0 && len(v) > 0 && empty[strings.TrimSpace(CellText(v))] {
				v = nil
			}
			if cache := enums[e.Destination.Key]; cache != nil && len(v) > 0 {
				v = s.enumValue(v, e.Destination, cache)
			}
			vals[e.Destination.Key] = v
		}
		if len(p.transforms) > 0 {
			text := make(map[string]string, len(byKey))
			for k, v := range byKey {
				text[k] = CellText(v)
			}
			for _, t := range p.transforms {
				t.apply(text, vals)
			}
		}
		return vals
	}
	opt := recordset.WriteOptions{Actor: j.CreatedBy, AccountID: j.AccountID}
	if in.KeepRecordIDs {
		// All or nothing in place too: a snapshot first, put back if the job does not finish.
		snap, err := s.DB.CreateSnapshot(ctx, j.AccountID, p.Destination.ID, "Before transform job "+j.ID, "", j.CreatedBy)
		if err != nil {
			return jobs.Outcome{}, err
		}
		if err := s.transformInPlace(ctx, p.Destination.ID, keys, next, values, opt); err != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			if _, rerr := s.DB.RestoreSnapshot(context.WithoutCancel(ctx), j.AccountID, snap.ID, recordset.RestoreOptions{Updated: true}, opt); rerr != nil {
				return jobs.Outcome{}, fmt.Errorf("%w; putting the records back from snapshot %s failed too: %w", err, snap.ID, rerr)
			}
			return jobs.Outcome{}, fmt.Errorf("%w; the records it had changed were put back as they were (snapshot %s)", err, snap.ID)
		}
		return jobs.Outcome{
			Message: fmt.Sprintf("Transformed %d records of %s in place", n, p.Destination.Name),
			Next:    map[string]any{"type": "id", "id": p.Destination.ID, "path": "/space/" + p.destinationWorkbookSpace, "label": "Open " + p.Destination.Name},
		}, nil
	}
	// Each record keeps the row of the file its source record was read from.
	runs, err := s.DB.SourceLines(ctx, j.AccountID, p.Source.ID)
	if err != nil {
		return jobs.Outcome{}, err
	}
	row := 0
	if len(runs) > 0 {
		opt.Lines = &recordset.Lines{File: runs[0].File, Line: func() int { return row }}
	}
	rows := func() ([]json.RawMessage, error) {
		r, err := next()
		if err != nil {
			return nil, err
		}
		if opt.Lines != nil {
			var file string
			if file, row = runs.Of(r.ID); file != opt.Lines.File {
				row = 0
			}
		}
		vals := values(r)
		out := make([]json.RawMessage, len(keys))
		for i, k := range keys {
			out[i] = vals[k]
			if len(out[i]) == 0 {
				out[i] = jsonNull
			}
		}
		return out, nil
	}
	opt.Job = j.ID // the records added go again unless the job completes
	opt.Formats = p.Formats()
	if _, err := s.DB.InsertStream(ctx, p.Destination.ID, keys, rows, mapBatch, opt); err != nil && !errors.Is(err, io.EOF) {
		return jobs.Outcome{}, err
	}
	// A person's import is one change in their undo history of the sheet: "Undo" takes
	// the whole import back.
	if strings.HasPrefix(j.CreatedBy, sqldb.PrefixUser) && j.CreatedBy != jobs.WorkerActor {
		if _, err := s.DB.NoteJobUndo(ctx, j.ID, p.Destination.ID, j.CreatedBy, "import"); err != nil {
			return jobs.Outcome{}, err
		}
	}
	return jobs.Outcome{
		Message: fmt.Sprintf("Mapped %d records into %s", n, p.Destination.Name),
		Next:    map[string]any{"type": "id", "id": p.Destination.ID, "path": "/space/" + p.destinationWorkbookSpace, "label": "Open " + p.Destination.Name},
	}, nil
}

// transformInPlace rewrites each record of the sheet with the values the plan computes from
// it, keeping its id, mapBatch records per version (keepRecordIds: true).
func (s *Service) transformInPlace(ctx context.Context, sheetID string, keys []string, next func() (*recordset.Record, error),
	values func(*recordset.Record) map[string]json.RawMessage, opt recordset.WriteOptions) error {
	batch := make([]recordset.RecordIn, 0, mapBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := s.DB.UpdateRecords(ctx, sheetID, batch, opt)
		batch = batch[:0]
		return err
	}
	for {
		r, err := next()
		if errors.Is(err, io.EOF) {
			return flush()
		}
		if err != nil {
			return err
		}
		vals := values(r)
		in := recordset.RecordIn{ID: r.ID, Values: make(map[string]recordset.CellIn, len(keys))}
		for _, k := range keys {
			v := vals[k]
			if len(v) == 0 {
				v = jsonNull
			}
			in.Values[k] = recordset.CellIn{Value: v, HasValue: true}
		}
		if batch = append(batch, in); len(batch) == mapBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// addCustomFields adds each unmapped source column to a destination sheet that allows
// additional fields, as a string field labelled with the column's header and treated
// "additional", so nothing of the file is lost.
func (s *Service) addCustomFields(ctx context.Context, j *model.Job, p *Plan) ([]Edge, error) {
	if !p.Destination.Config.AllowAdditionalFields || len(p.UnmappedSource) == 0 {
		return nil, nil
	}
	var edges []Edge
	_, err := s.DB.ChangeSheet(ctx, j.AccountID, p.Destination.ID, j.CreatedBy, func(sh *model.Sheet, _ *model.Workbook) (bool, error) {
		taken := map[string]bool{}
		for _, f := range sh.Config.Fields {
			taken[strings.ToLower(f.Key)] = true
		}
		for _, src := range p.UnmappedSource {
			key := src.Key
			for i := 2; taken[strings.ToLower(key)]; i++ {
				key = fmt.Sprintf("%s_%d", src.Key, i)
			}
			taken[strings.ToLower(key)] = true
			f := model.Field{Key: key, Label: cmp.Or(src.Label, src.Key), Type: model.FieldString, Treatments: []string{"additional"}}
			sh.Config.Fields = append(sh.Config.Fields, f)
			edges = append(edges, Edge{Source: src, Destination: f, Confidence: mapping.MaxConfidence, Certainty: "absolute",
				Reasons: []string{"added as a custom field: the sheet allows additional fields"}, Apply: true})
		}
		return true, schema.Sheet(&sh.Config, "destination", s.DB.Settings().Caps)
	})
	return edges, err
}

// enumValue translates a source value to an enum option's value when the engine is sure;
// otherwise the value stays as it is and validation flags it.
func (s *Service) enumValue(v json.RawMessage, f model.Field, cache map[string]string) json.RawMessage {
	var text string
	if json.Unmarshal(v, &text) != nil {
		return v
	}
	opt, ok := cache[text]
	if !ok {
		sg := mapping.SuggestEnum([]string{text}, f, mapping.History{})
		if len(sg) == 1 && sg[0].Confidence >= 0.9 {
			opt = sg[0].Option
		}
		cache[text] = opt
	}
	if opt == "" {
		return v
	}
	b, _ := json.Marshal(opt)
	return b
}
