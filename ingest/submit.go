package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/events"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/netguard"
	"github.com/sluice/sluice/store/recordset"
)

// SubmitOperation is the built-in Submit of workbooks made in the dashboard's sheet builder
// ("workbook:sluice-submit"): it needs no agent.
const SubmitOperation = "sluice-submit"

// SubmitPostLimit is the most records Submit sends to a workbook's settings.submitUrl in one
// request; a larger workbook is submitted as a download only.
const SubmitPostLimit = 100_000

// Submitter carries out the built-in Submit: every sheet is kept as submitted (a snapshot
// labelled "Submitted"), the workbook is offered as a download, and when the workbook names
// settings.submitUrl its records are POSTed there as JSON, signed like webhooks
// (X-Sluice-Signature with the environment's secret key).
type Submitter struct {
	Files *Service
	// Client sends to the submit URL (default: a client that refuses private addresses).
	Client *http.Client
}

// Submit is the jobs handler of workbook:sluice-submit.
func (s *Submitter) Submit(ctx context.Context, j *model.Job) (jobs.Outcome, error) {
	db := s.Files.DB
	wb, err := db.GetWorkbook(ctx, j.AccountID, j.Source)
	if err != nil {
		return jobs.Outcome{}, err
	}
	if wb.SpaceID != j.SpaceID {
		return jobs.Outcome{}, errs.NotFoundf("source", "Workbook not found")
	}
	for _, sh := range wb.Sheets {
		if _, err := db.CreateSnapshot(ctx, j.AccountID, sh.ID, "Submitted", "", jobs.WorkerActor); err != nil {
			return jobs.Outcome{}, err
		}
	}
	format := "xlsx"
	if len(wb.Sheets) == 1 {
		format = "csv"
	}
	export := *j
	export.Config, export.Input = nil, json.RawMessage(`{"format":"`+format+`"}`)
	out, err := s.Files.Export(ctx, &export)
	if err != nil {
		return jobs.Outcome{}, err
	}
	var settings struct {
		SubmitURL string `json:"submitUrl"`
	}
	_ = json.Unmarshal(wb.Settings, &settings)
	n, err := s.post(ctx, wb, settings.SubmitURL)
	if err != nil {
		return jobs.Outcome{}, err
	}
	out.Message = fmt.Sprintf("Submitted %d records", n)
	if settings.SubmitURL != "" {
		out.Message += " to " + hostOf(settings.SubmitURL)
	}
	return out, nil
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Host
	}
	return raw
}

// submitBody is what Submit POSTs: the workbook and each sheet's records as {key: value}.
type submitBody struct {
	WorkbookID string        `json:"workbookId"`
	SpaceID    string        `json:"spaceId"`
	Name       string        `json:"name"`
	Sheets     []submitSheet `json:"sheets"`
}

type submitSheet struct {
	ID      string           `json:"id"`
	Slug    string           `json:"slug"`
	Name    string           `json:"name"`
	Records []map[string]any `json:"records"`
}

// post sends the workbook's records to target (when set) and returns how many records the
// workbook holds.
func (s *Submitter) post(ctx context.Context, wb *model.Workbook, target string) (int, error) {
	body := submitBody{WorkbookID: wb.ID, SpaceID: wb.SpaceID, Name: wb.Name}
	n := 0
	for _, sh := range wb.Sheets {
		out := submitSheet{ID: sh.ID, Slug: sh.Slug, Name: sh.Name, Records: []map[string]any{}}
		err := s.Files.DB.EachRecord(ctx, wb.AccountID, sh.ID, recordset.RecordQuery{}, func(r *recordset.Record) error {
			if n++; target == "" {
				return nil
			}
			if n > SubmitPostLimit {
				return errs.Invalidf("settings.submitUrl", "Submit sends at most %d records to a URL; this workbook has more. Download it instead.", SubmitPostLimit)
			}
			row := map[string]any{"id": r.ID}
			for _, c := range r.Cells {
				if c.Value != nil {
					row[c.Key] = c.Value
				}
			}
			out.Records = append(out.Records, row)
			return nil
		})
		if err != nil {
			return 0, err
		}
		body.Sheets = append(body.Sheets, out)
	}
	if target == "" {
		return n, nil
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	secret, err := s.Files.DB.SecretKey(ctx, wb.EnvironmentID)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(raw))
	if err != nil {
		return 0, errs.Invalidf("settings.submitUrl", "The Submit URL is not valid: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Sluice-Submit/1")
	req.Header.Set(events.SignatureHeader, events.Signature(secret, s.Files.DB.Now(), raw))
	client := s.Client
	if client == nil {
		client = netguard.Client(time.Minute)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("sending the records to %s failed: %w", hostOf(target), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return 0, fmt.Errorf("%s answered HTTP %d to the submitted records", hostOf(target), resp.StatusCode)
	}
	return n, nil
}
