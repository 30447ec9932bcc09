package ingest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/records"
	"github.com/sluice/sluice/schema"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
)

// ExportOperation is the job operation of the built-in export ("sheet:export" or
// "workbook:export" in job events).
const ExportOperation = "export"

// exportConfig is Flatfile's ExportJobConfig plus the format Sluice adds.
type exportConfig struct {
	Options struct {
		Filter        string   `json:"filter"`
		FilterField   string   `json:"filterField"`
		SearchValue   string   `json:"searchValue"`
		SearchField   string   `json:"searchField"`
		Q             string   `json:"q"`
		IDs           []string `json:"ids"`
		SortField     string   `json:"sortField"`
		SortDirection string   `json:"sortDirection"`
	} `json:"options"`
	Format string `json:"format"`
	// KeepFormulas writes cells that start like a formula as they are (CSV only).
	KeepFormulas bool `json:"keepFormulas"`
}

// Export is the built-in export job: a sheet (source us_sh_…) as CSV, or a workbook (source
// us_wb_…) as one XLSX with a worksheet per sheet; format "csv" or "xlsx" in config or input
// overrides. The result is an export file of the space; the outcome links to its download.
func (s *Service) Export(ctx context.Context, j *model.Job) (jobs.Outcome, error) {
	var cfg exportConfig
	if len(j.Config) > 0 {
		_ = json.Unmarshal(j.Config, &cfg)
	}
	var in struct {
		Format string `json:"format"`
	}
	if len(j.Input) > 0 {
		_ = json.Unmarshal(j.Input, &in)
	}
	format := strings.ToLower(cmp.Or(in.Format, cfg.Format))
	q := recordset.RecordQuery{Filter: cfg.Options.Filter, FilterField: cfg.Options.FilterField, SearchValue: cfg.Options.SearchValue,
		SearchField: cfg.Options.SearchField, Q: cfg.Options.Q, IDs: cfg.Options.IDs, SortField: cfg.Options.SortField,
		SortDesc: strings.EqualFold(cfg.Options.SortDirection, "desc")}
	var sheets []*model.Sheet
	var wb *model.Workbook
	var err error
	switch store.KindOf(j.Source) {
	case store.KindSheet:
		var sh *model.Sheet
		if sh, wb, err = s.DB.GetSheet(ctx, j.AccountID, j.Source); err != nil {
			return jobs.Outcome{}, err
		}
		sheets = []*model.Sheet{sh}
		if format == "" {
			format = "csv"
		}
	case store.KindWorkbook:
		if wb, err = s.DB.GetWorkbook(ctx, j.AccountID, j.Source); err != nil {
			return jobs.Outcome{}, err
		}
		sheets = wb.Sheets
		if format == "" {
			format = "xlsx"
		}
	default:
		return jobs.Outcome{}, errs.Invalidf("source", "An export job's source is a sheet or a workbook")
	}
	if format != "csv" && format != "xlsx" {
		return jobs.Outcome{}, errs.Invalidf("format", "format must be csv or xlsx")
	}
	if format == "csv" && len(sheets) != 1 {
		return jobs.Outcome{}, errs.Invalidf("format", "A CSV holds one sheet; export the workbook as xlsx")
	}
	id := store.NewFileID()
	name := schema.Slugify(sheets[0].Name) + "." + format
	if len(sheets) > 1 {
		name = schema.Slugify(wb.Name) + "." + format
	}
	tmp := filepath.Join(s.Blobs.Staging(), id+".part")
	n, size, err := s.write(ctx, j.AccountID, tmp, format, sheets, q, cfg.KeepFormulas)
	if err == nil {
		err = s.Blobs.Put(ctx, id, tmp)
	}
	if err != nil {
		os.Remove(tmp)
		return jobs.Outcome{}, err
	}
	mime := "text/csv"
	if format == "xlsx" {
		mime = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	}
	f := &model.File{ID: id, AccountID: wb.AccountID, EnvironmentID: wb.EnvironmentID, SpaceID: wb.SpaceID, Name: name, Ext: format, Mimetype: mime,
		Encoding: "utf-8", Status: model.FileStatusComplete, Mode: "export", Origin: "filesystem", Size: size, BytesReceived: size,
		WorkbookID: wb.ID, SheetID: sheets[0].ID}
	if err := s.DB.CreateFile(ctx, f, jobs.WorkerActor); err != nil {
		_ = s.Blobs.Remove(context.WithoutCancel(ctx), id)
		return jobs.Outcome{}, err
	}
	return jobs.Outcome{
		Message: fmt.Sprintf("Exported %d records to %s", n, name),
		Next:    map[string]any{"type": "download", "url": "/v1/files/" + id + "/download", "fileName": name, "label": "Download " + name},
	}, nil
}

// write renders the export into the file at path and returns the record count and byte size.
func (s *Service) write(ctx context.Context, accountID, path, format string, sheets []*model.Sheet, q recordset.RecordQuery, keepFormulas bool) (int, int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return 0, 0, errs.Wrap(err, "files directory")
	}
	out, err := os.Create(path)
	if err != nil {
		return 0, 0, errs.Wrap(err, "create export file")
	}
	defer out.Close()
	counter := &countingReader{rr: s.DB}
	rr := RecordReader(countingValues{counter, s.DB})
	if format == "csv" {
		err = WriteCSV(ctx, rr, accountID, sheets[0], q, out, keepFormulas)
	} else {
		err = WriteXLSX(ctx, rr, accountID, sheets, q, out)
	}
	if err != nil {
		return 0, 0, err
	}
	st, err := out.Stat()
	if err != nil {
		return 0, 0, errs.Wrap(err, "stat export file")
	}
	return counter.n, st.Size(), nil
}

// countingReader counts the records an export walks.
type countingReader struct {
	rr RecordReader
	n  int
}

func (c *countingReader) EachRecord(ctx context.Context, accountID, sheetID string, q recordset.RecordQuery, fn func(*recordset.Record) error) error {
	return c.rr.EachRecord(ctx, accountID, sheetID, q, func(r *recordset.Record) error { c.n++; return fn(r) })
}

// countingValues is a countingReader over a reader of stored values (valueReader).
type countingValues struct {
	*countingReader
	vr valueReader
}

func (c countingValues) EachValues(ctx context.Context, accountID, sheetID string, fn func(keys []string, id string, row records.Row) error) error {
	return c.vr.EachValues(ctx, accountID, sheetID, func(keys []string, id string, row records.Row) error { c.n++; return fn(keys, id, row) })
}
