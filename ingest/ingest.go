// Package ingest carries out the built-in extraction job of an upload: it reads the file with
// package extract, creates the source workbook (one sheet per table, a string field per
// column) and streams the rows into it through the records store, reporting progress on the
// job and the outcome on the file.
package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/sluice/sluice/blobs"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/extract"
	"github.com/sluice/sluice/formats"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
)

// Operation is the job operation of extraction; its job events carry job "file:extract".
const Operation = "extract"

// Service extracts uploaded files.
type Service struct {
	DB    *store.DB
	Jobs  *jobs.Service
	Blobs blobs.Store // files' bytes
}

// Handle is the jobs.Handler of the extraction job; the job's source is the file.
func (s *Service) Handle(ctx context.Context, j *model.Job) (string, error) {
	f, err := s.DB.GetFile(ctx, j.AccountID, j.Source)
	if err != nil {
		return "", err
	}
	var created string
	msg, err := s.extract(ctx, j, f, &created)
	if err != nil {
		// All or nothing: the workbook this extraction made goes with what had been read into
		// it; nothing else (a file's workbookId may have been set by anyone). The job's
		// context may be over (canceled, out of time): this cleanup has its own.
		cctx := context.WithoutCancel(ctx)
		if created != "" {
			if derr := s.DB.DeleteWorkbook(cctx, f.AccountID, created, jobs.WorkerActor); derr != nil && !errs.Is(derr, errs.NotFound) {
				return "", derr
			}
		}
		f.WorkbookID, f.SheetID = "", ""
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		f.Status, f.Description = model.FileStatusFailed, "Extraction failed: "+userMessage(err)
		if serr := s.DB.SaveFile(cctx, f, jobs.WorkerActor); serr != nil {
			return "", serr
		}
		return "", errs.Invalidf("file", "%s", f.Description)
	}
	return msg, nil
}

func userMessage(err error) string {
	var e *errs.Error
	if errors.As(err, &e) && e.Code != errs.Internal {
		return e.Message
	}
	return err.Error()
}

func (s *Service) extract(ctx context.Context, j *model.Job, f *model.File, created *string) (string, error) {
	f.Status = model.FileStatusAnalyzing
	if err := s.DB.SaveFile(ctx, f, jobs.WorkerActor); err != nil {
		return "", err
	}
	path, done, err := s.Blobs.Local(ctx, f.ID)
	if err != nil {
		return "", errs.Wrap(err, "read the upload")
	}
	defer done()
	caps := s.DB.Settings().Caps
	src, err := extract.Open(path, f.Name, caps)
	if err != nil {
		return "", err
	}
	defer src.Close()
	f.Encoding = src.Encoding.Name
	wb := &model.Workbook{AccountID: f.AccountID, EnvironmentID: f.EnvironmentID, SpaceID: f.SpaceID, Name: "[file] " + f.Name,
		Labels: []string{"file"}, Treatments: []string{"EXTRACTED_FROM_SOURCE"}}
	used := map[string]bool{}
	for i, t := range src.Tables {
		cfg := model.SheetConfig{Name: t.Name, Slug: uniqueSlug(schema.Slugify(t.Name), used), AllowAdditionalFields: true}
		for _, h := range t.Headers {
			cfg.Fields = append(cfg.Fields, model.Field{Key: h, Label: h, Type: model.FieldString})
		}
		if err := schema.Sheet(&cfg, fmt.Sprintf("sheets[%d]", i), caps); err != nil {
			return "", err
		}
		wb.Sheets = append(wb.Sheets, &model.Sheet{Config: cfg})
	}
	if err := s.DB.CreateWorkbook(ctx, wb, f.CreatedBy); err != nil {
		return "", err
	}
	*created = wb.ID
	f.WorkbookID, f.SheetID, f.Status = wb.ID, wb.Sheets[0].ID, model.FileStatusAnalyzed
	if err := s.DB.SaveFile(ctx, f, jobs.WorkerActor); err != nil {
		return "", err
	}
	total := 0
	for i, t := range src.Tables {
		n, err := s.load(ctx, j, f, src, t, wb.Sheets[i].ID, total)
		total += n
		if err != nil {
			return "", fmt.Errorf("sheet %q, after %d rows: %w", t.Name, n, err)
		}
	}
	f.Status, f.Description = model.FileStatusComplete, warnings(src)
	if err := s.DB.SaveFile(ctx, f, jobs.WorkerActor); err != nil {
		return "", err
	}
	return fmt.Sprintf("Extracted %d records into %d sheet(s)", total, len(src.Tables)), nil
}

// load streams one table into its sheet, acknowledging the job with progress per batch.
func (s *Service) load(ctx context.Context, j *model.Job, f *model.File, src *extract.File, t *extract.Table, sheetID string, before int) (int, error) {
	n := 0
	infer := startInference(len(t.Headers))
	var quote records.Quoter
	batch := s.DB.ImportBatch()
	report := s.startProgress(ctx, j, src)
	defer report.stop()
	rows := func() ([]json.RawMessage, error) {
		row, err := t.Next()
		if err != nil {
			return nil, err
		}
		infer.add(row)
		n++
		if n%batch == 0 {
			report.send(before + n)
		}
		return quote.Row(row), nil
	}
	lines := &recordset.Lines{File: f.ID, Line: t.Row}
	_, err := s.DB.InsertStream(ctx, sheetID, t.Headers, rows, batch, recordset.WriteOptions{Actor: f.CreatedBy, AccountID: f.AccountID, Job: j.ID, Lines: lines})
	cols := infer.done()
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if err != nil {
		return n, err
	}
	byKey := make(map[string]*formats.Column, len(cols))
	for i, h := range t.Headers {
		byKey[h] = &cols[i]
	}
	return n, s.DB.SaveColumnFormats(ctx, sheetID, byKey)
}

// inference counts what a table's columns' values can be read as (formats.Column: every
// value, since a column's date order is decided by all of them) in a goroutine of its own,
// beside the import's reading, checking and writing of the rows (issue 17: 1.4 s of CPU in
// a 1,000,000-row file of twelve columns, most of it trying to read text as dates).
type inference struct {
	cols  []formats.Column
	chunk [][]string
	ch    chan [][]string
	wg    sync.WaitGroup
}

// inferChunk is how many rows go to the inference goroutine at a time.
const inferChunk = 512

func startInference(n int) *inference {
	in := &inference{cols: make([]formats.Column, n), ch: make(chan [][]string, 4)}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		for rows := range in.ch {
			for _, row := range rows {
				for i, c := range row {
					if i < len(in.cols) {
						in.cols[i].Add(c)
					}
				}
			}
		}
	}()
	return in
}

// add hands a row (not changed afterwards) to the inference.
func (in *inference) add(row []string) {
	in.chunk = append(in.chunk, row)
	if len(in.chunk) == inferChunk {
		in.ch <- in.chunk
		in.chunk = make([][]string, 0, inferChunk)
	}
}

// done waits for the rows added so far and returns the columns' counts.
func (in *inference) done() []formats.Column {
	if len(in.chunk) > 0 {
		in.ch <- in.chunk
	}
	close(in.ch)
	in.wg.Wait()
	return in.cols
}

// progressReports acknowledges a job's progress from a goroutine of its own: the reader
// that reports it runs ahead of the write transactions and must not wait behind them for
// the write lock (issue 15: on PostgreSQL that wait stalled the reader for every batch).
// The latest report wins over one not yet sent, and reports are at least progressEvery
// apart: each is a write transaction, and one per batch took the write lock between the
// import's own batches (0.5 s of a 1,000,000-row import on PostgreSQL).
type progressReports struct {
	ch       chan int
	stopping chan struct{}
	done     chan struct{}
}

// progressEvery is the least time between two progress reports of one job.
const progressEvery = time.Second

func (s *Service) startProgress(ctx context.Context, j *model.Job, src *extract.File) *progressReports {
	p := &progressReports{ch: make(chan int, 1), stopping: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for rows := range p.ch {
			s.progress(ctx, j, src, rows)
			select {
			case <-time.After(progressEvery):
			case <-p.stopping:
			}
		}
	}()
	return p
}

// send queues rows as the progress to report, replacing a report still queued.
func (p *progressReports) send(rows int) {
	select {
	case <-p.ch:
	default:
	}
	p.ch <- rows
}

// stop writes the last report queued, without waiting out the interval, and returns.
func (p *progressReports) stop() {
	close(p.stopping)
	close(p.ch)
	<-p.done
}

func (s *Service) progress(ctx context.Context, j *model.Job, src *extract.File, rows int) {
	info := fmt.Sprintf("Extracted %d rows", rows)
	var pct *float64
	if p := src.Progress(); p > 0 {
		v := float64(int(p*98)) + 1
		pct = &v
	}
	_, _ = s.Jobs.Ack(ctx, j.AccountID, j.ID, jobs.WorkerActor, &info, pct, nil)
}

func uniqueSlug(slug string, used map[string]bool) string {
	s := slug
	for i := 2; used[s]; i++ {
		s = fmt.Sprintf("%s-%d", slug, i)
	}
	used[s] = true
	return s
}

// warnings says what extraction changed or left out, for the file's description.
func warnings(src *extract.File) string {
	var w []string
	if e := src.Encoding; e.Invalid > 0 {
		w = append(w, fmt.Sprintf("%d invalid %s byte sequence(s) were replaced with U+FFFD, the first at byte %d", e.Invalid, e.Name, e.FirstInvalid))
	}
	for _, t := range src.Tables {
		if n, line := t.Suspect(); n > 0 {
			w = append(w, fmt.Sprintf("sheet %q: %d cell(s) span several lines and contain the delimiter, the first at line %d: check for a quote that is never closed", t.Name, n, line))
		}
		if t.Dropped > 0 {
			w = append(w, fmt.Sprintf("sheet %q: %d cell(s) beyond the header's columns were left out", t.Name, t.Dropped))
		}
	}
	return strings.Join(w, "; ")
}

// StartExtraction creates the ready extraction job of an uploaded file; the built-in worker
// picks it up.
func (s *Service) StartExtraction(ctx context.Context, f *model.File, actor string) error {
	j := &model.Job{AccountID: f.AccountID, EnvironmentID: f.EnvironmentID, Type: "file", Operation: Operation, Source: f.ID,
		Trigger: "immediate", Mode: "foreground"}
	if err := s.Jobs.Prepare(ctx, j); err != nil {
		return err
	}
	return s.Jobs.Create(ctx, j, actor)
}

var jsonNull = json.RawMessage("null")

// jsonString encodes a cell as a JSON string ("" as null). Most cells need no escaping, and
// copying them is many times faster than json.Marshal, which matters at a million rows.
func jsonString(s string) json.RawMessage {
	if s == "" {
		return jsonNull
	}
	return records.Quote(s)
}
