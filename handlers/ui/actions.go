package ui

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/markup"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
	"github.com/sluice/sluice/store/recordset"
	"github.com/sluice/sluice/views"
)

// Actions in the dashboard: any page drops in views.ActionSlot for a workbook, sheet, file
// or document, which loads that target's action bar. A button whose constraints do not hold
// is disabled with the reason as its tooltip; a guardrail or input form opens a dialog
// first; running creates the action's job exactly as the API does, and the job is followed
// in a blocking overlay (foreground) or a toast (background, toolbarBlocking) until its
// outcome, with the outcome's next step as a link or button.

// ActionStore is what the action bar reads.
type ActionStore interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	ResolveResource(ctx context.Context, accountID, key, id string) (*store.Resource, error)
	ActionsOn(ctx context.Context, accountID, targetID string) ([]*model.Action, error)
	FindAction(ctx context.Context, accountID, targetID, operation string) (*model.Action, error)
	SheetIDsOfWorkbook(ctx context.Context, workbookID string) ([]string, error)
	GetRecordCounts(ctx context.Context, accountID, sheetID string) (*recordset.Counts, error)
	BlockingJob(ctx context.Context, workbookID string) (*model.Job, error)
	GetJob(ctx context.Context, accountID, id string) (*model.Job, error)
}

// ActionRunner creates an action's job.
type ActionRunner interface {
	RunAction(ctx context.Context, a *model.Action, input json.RawMessage, actor string) (*model.Job, error)
	Retry(ctx context.Context, accountID, id, actor string) (*model.Job, error)
	AckOutcome(ctx context.Context, accountID, id, actor string) (*model.Job, error)
	Finish(ctx context.Context, accountID, id, actor, status string, outcome json.RawMessage, info *string) (*model.Job, error)
}

// ActionPages serves the action bar, action runs and job panels.
type ActionPages struct {
	store  ActionStore
	runner ActionRunner
	now    func() time.Time
}

// NewActionPages returns the action handlers; now is the store's clock.
func NewActionPages(s ActionStore, r ActionRunner, now func() time.Time) *ActionPages {
	return &ActionPages{store: s, runner: r, now: now}
}

// target loads the space and checks the target belongs to it.
func (h *ActionPages) target(c *fiber.Ctx, id string) (SessionUser, *model.Space, *store.Resource, error) {
	u, sp, err := spaceOf(c, h.store)
	if err != nil {
		return u, nil, nil, err
	}
	res, err := h.store.ResolveResource(c.Context(), u.AccountID, "target", id)
	if err != nil || res.SpaceID != sp.ID {
		return u, nil, nil, errs.NotFoundf("target", "Not found in this space")
	}
	return u, sp, res, nil
}

// Bar handles GET /space/:spaceId/actions?target=: the target's action buttons.
func (h *ActionPages) Bar(c *fiber.Ctx) error {
	u, sp, res, err := h.target(c, c.Query("target"))
	if err != nil {
		return err
	}
	list, err := h.store.ActionsOn(c.Context(), u.AccountID, c.Query("target"))
	if err != nil {
		return err
	}
	st, err := h.state(c.Context(), u.AccountID, c.Query("target"), res)
	if err != nil {
		return err
	}
	p := views.ActionBarProps{SpaceID: sp.ID, TargetID: c.Query("target"), Compact: c.Query("compact") == "1"}
	field := c.Query("field")
	for i, a := range list {
		// Actions mounted on fields sit in those columns' menus, the others in the toolbar.
		if onField(a, field) != (field != "") {
			continue
		}
		p.Buttons = append(p.Buttons, actionButton(c.Context(), i, a, st, sp.ArchivedAt != nil))
	}
	return Render(c, fiber.StatusOK, views.ActionBar(p))
}

// onField reports whether an action is mounted on fields and, when field is given, on that
// one (mount {type: "field", keys}; no keys means every field).
func onField(a *model.Action, field string) bool {
	m := a.Config.Mount
	if m == nil || m.Type != "field" {
		return false
	}
	if field == "" || len(m.Keys) == 0 {
		return true
	}
	for _, k := range m.Keys {
		if k == field {
			return true
		}
	}
	return false
}

// targetState is what decides whether a target's actions can run now.
type targetState struct {
	counted       bool
	total, errors int64
	blocking      *model.Job
}

func (h *ActionPages) state(ctx context.Context, accountID, targetID string, res *store.Resource) (targetState, error) {
	var st targetState
	var sheets []string
	switch store.KindOf(targetID) {
	case store.KindSheet:
		sheets = []string{targetID}
	case store.KindWorkbook:
		var err error
		if sheets, err = h.store.SheetIDsOfWorkbook(ctx, targetID); err != nil {
			return st, err
		}
	}
	for _, id := range sheets {
		n, err := h.store.GetRecordCounts(ctx, accountID, id)
		if err != nil {
			return st, err
		}
		st.counted, st.total, st.errors = true, st.total+n.Total, st.errors+n.Error
	}
	if res.WorkbookID != "" {
		var err error
		if st.blocking, err = h.store.BlockingJob(ctx, res.WorkbookID); err != nil {
			return st, err
		}
	}
	return st, nil
}

// actionButton turns an action into its button: why it is disabled, its guide, guardrail
// and input form.
func actionButton(ctx context.Context, i int, a *model.Action, st targetState, archived bool) views.ActionButton {
	cfg := a.Config
	b := views.ActionButton{Index: i, Operation: cfg.Operation, Label: sdkText(ctx, cmp.Or(cfg.Label, cfg.Operation)), Description: cfg.Description,
		Primary: cfg.Primary != nil && *cfg.Primary, Mode: cmp.Or(cfg.Mode, "foreground"), Tooltip: cfg.Tooltip}
	if cfg.Guide != nil {
		b.Guide = markup.HTML(cfg.Guide.Content)
	}
	if cfg.Guardrail != nil {
		b.Guardrail = markup.HTML(cfg.Guardrail.Content)
	}
	needValid := cfg.Has(model.ConstraintHasAllValid) || isSet(cfg.RequireAllValid) || isSet(cfg.RequireAllValidTotal)
	switch {
	case archived:
		b.Disabled = views.T(ctx, "action.archived")
	case cfg.Operation == "":
		b.Disabled = views.T(ctx, "action.no_operation")
	case st.blocking != nil:
		b.Disabled = views.Tf(ctx, "action.blocked", map[string]any{"Job": jobName(ctx, st.blocking)})
	case st.counted && cfg.Has(model.ConstraintHasData) && st.total == 0:
		b.Disabled = views.T(ctx, "action.needs_data")
	case st.counted && needValid && st.errors > 0:
		b.Disabled = views.Tn(ctx, "action.needs_valid", int64(st.errors), "")
	}
	if b.Disabled != "" {
		for _, m := range cfg.Messages {
			if m.Type == "error" && m.Content != "" {
				b.Disabled = m.Content // the action's own wording for its error state
			}
		}
	} else {
		for _, m := range cfg.Messages {
			if m.Type == "info" && m.Content != "" {
				b.Tooltip = m.Content
			}
		}
	}
	if f := cfg.InputForm; f != nil {
		for _, fl := range f.Fields {
			in := views.ActionInput{Key: fl.Key, Label: cmp.Or(fl.Label, fl.Key), Description: fl.Description, Type: fl.Type,
				Required: fl.Required(), Default: ingest.CellText(fl.DefaultValue)}
			if fl.Config != nil {
				for _, o := range fl.Config.Options {
					v := ingest.CellText(o.Value)
					in.Options = append(in.Options, views.ImportOption{Value: v, Label: cmp.Or(o.Label, v)})
				}
			}
			b.Inputs = append(b.Inputs, in)
		}
	}
	return b
}

func isSet(b *bool) bool { return b != nil && *b }

// Run handles POST /space/:spaceId/actions/run (target, operation, in.<key> per input field):
// it creates the action's job and answers its panel.
func (h *ActionPages) Run(c *fiber.Ctx) error {
	u, sp, _, err := h.target(c, c.FormValue("target"))
	if err != nil {
		return err
	}
	if sp.ArchivedAt != nil {
		return errs.Invalidf("spaceId", "This space is archived").WithMsg("space.archived_notice", nil)
	}
	a, err := h.store.FindAction(c.Context(), u.AccountID, c.FormValue("target"), c.FormValue("operation"))
	if err != nil {
		return err
	}
	if a == nil {
		return errs.NotFoundf("operation", "No action %q here", c.FormValue("operation"))
	}
	input, err := actionInput(c, a.Config.InputForm)
	if err != nil {
		return err
	}
	j, err := h.runner.RunAction(c.Context(), a, input, u.UserID)
	if err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.JobPanel(h.jobPanel(c.Context(), sp.ID, j, j.Mode)))
}

// actionInput reads the input form's values from the posted form (in.<key>), typed as the
// form says; the action's own checks (required, enum options) run when the job is created.
func actionInput(c *fiber.Ctx, form *model.InputForm) (json.RawMessage, error) {
	if form == nil {
		return nil, nil
	}
	in := map[string]any{}
	for _, f := range form.Fields {
		raw := strings.TrimSpace(c.FormValue("in." + f.Key))
		switch f.Type {
		case model.InputBoolean:
			in[f.Key] = raw == "true" || raw == "on"
		case model.InputNumber:
			if raw == "" {
				continue
			}
			n, err := strconv.ParseFloat(strings.ReplaceAll(raw, ",", "."), 64)
			if err != nil {
				return nil, errs.Invalidf("input."+f.Key, "%s must be a number", cmp.Or(f.Label, f.Key)).
					WithMsg("action.not_number", map[string]any{"Field": cmp.Or(f.Label, f.Key)})
			}
			in[f.Key] = n
		case model.InputEnum:
			if raw == "" {
				continue
			}
			in[f.Key] = enumInput(f, raw)
		default:
			if raw == "" && !f.Required() {
				continue
			}
			in[f.Key] = c.FormValue("in." + f.Key) // textareas keep their line breaks
		}
	}
	return json.Marshal(in)
}

// enumInput gives an enum input the option's value as configured (a number stays a number).
func enumInput(f model.InputField, text string) any {
	if f.Config != nil {
		for _, o := range f.Config.Options {
			if ingest.CellText(o.Value) == text {
				return o.Value
			}
		}
	}
	return text
}

// Job handles GET /space/:spaceId/jobs/:jobId/panel?mode=: an action job's panel, polled
// until the job is finished.
func (h *ActionPages) Job(c *fiber.Ctx) error {
	_, j, err := jobOf(c, h.store)
	if err != nil {
		return err
	}
	if j.Finished() {
		c.Set("HX-Trigger", "sl-job-done") // action bars refresh: a blocking job no longer blocks
	}
	p := h.jobPanel(c.Context(), j.SpaceID, j, c.Query("mode", j.Mode))
	p.NoAgent = j.Status == model.JobReady && h.now().Sub(j.CreatedAt) > NoAgentAfter
	return Render(c, fiber.StatusOK, views.JobPanel(p))
}

// NoAgentAfter is how long an action's job may wait for an agent before its panel says that
// none is listening and offers to cancel it.
const NoAgentAfter = 10 * time.Second

// Cancel handles POST /space/:spaceId/jobs/:jobId/cancel: a job no agent took is canceled
// from its panel.
func (h *ActionPages) Cancel(c *fiber.Ctx) error {
	u, j, err := jobOf(c, h.store)
	if err != nil {
		return err
	}
	if j, err = h.runner.Finish(c.Context(), u.AccountID, j.ID, u.UserID, model.JobCanceled, nil, nil); err != nil {
		return err
	}
	c.Set("HX-Trigger", "sl-job-done")
	return Render(c, fiber.StatusOK, views.JobPanel(h.jobPanel(c.Context(), j.SpaceID, j, c.FormValue("mode", j.Mode))))
}

// Retry handles POST /space/:spaceId/jobs/:jobId/retry: a failed job's outcome offered a
// retry; the job runs again and its panel follows it.
func (h *ActionPages) Retry(c *fiber.Ctx) error {
	u, j, err := jobOf(c, h.store)
	if err != nil {
		return err
	}
	if j, err = h.runner.Retry(c.Context(), u.AccountID, j.ID, u.UserID); err != nil {
		return err
	}
	return Render(c, fiber.StatusOK, views.JobPanel(h.jobPanel(c.Context(), j.SpaceID, j, c.FormValue("mode", j.Mode))))
}

// AckOutcome handles POST /space/:spaceId/jobs/:jobId/outcome/ack: the user closed a
// finished job's panel, which acknowledges its outcome (job:outcome-acknowledged, what an
// embedding page's closeSpace.onClose waits for); the panel goes away.
func (h *ActionPages) AckOutcome(c *fiber.Ctx) error {
	u, j, err := jobOf(c, h.store)
	if err != nil {
		return err
	}
	if _, err = h.runner.AckOutcome(c.Context(), u.AccountID, j.ID, u.UserID); err != nil {
		return err
	}
	return c.SendString("")
}

// jobOf loads the request's :jobId, which must belong to its :spaceId.
func jobOf(c *fiber.Ctx, s interface {
	GetJob(ctx context.Context, accountID, id string) (*model.Job, error)
}) (SessionUser, *model.Job, error) {
	u := userOf(c)
	if err := guard(u, c.Params("spaceId")); err != nil {
		return u, nil, err
	}
	j, err := s.GetJob(c.Context(), u.AccountID, c.Params("jobId"))
	if err != nil || j.SpaceID != c.Params("spaceId") {
		return u, nil, errs.NotFoundf("jobId", "Job not found")
	}
	return u, j, nil
}

// jobTitle names an action's job by the action's label (what the user pressed), not by its
// internal name (workbook:submitActionFg); other jobs keep their name.
func (h *ActionPages) jobTitle(ctx context.Context, j *model.Job) string {
	if a, err := h.store.FindAction(ctx, j.AccountID, j.Source, j.Operation); err == nil && a != nil && a.Config.Label != "" {
		return sdkText(ctx, a.Config.Label)
	}
	return jobName(ctx, j)
}

// jobPanel is what an action job's panel shows: progress, then the outcome and its next step.
func (h *ActionPages) jobPanel(ctx context.Context, spaceID string, j *model.Job, mode string) views.JobPanelProps {
	p := views.JobPanelProps{JobProgressProps: jobProgress(ctx, spaceID, j), Mode: cmp.Or(mode, "foreground"), Title: h.jobTitle(ctx, j)}
	var out struct {
		Heading string          `json:"heading"`
		Next    json.RawMessage `json:"next"`
	}
	if len(j.Outcome) > 0 && json.Unmarshal(j.Outcome, &out) == nil {
		p.Heading = out.Heading
		p.Next = outcomeNext(ctx, spaceID, out.Next)
	}
	return p
}

// outcomeNext turns an outcome's next into a link or button: id (a resource of the space, or
// its path), url, download, files, view (a sheet with columns hidden) and retry.
func outcomeNext(ctx context.Context, spaceID string, raw json.RawMessage) *views.JobNext {
	var n struct {
		Type          string   `json:"type"`
		ID            string   `json:"id"`
		Path          string   `json:"path"`
		Query         string   `json:"query"`
		Label         string   `json:"label"`
		URL           string   `json:"url"`
		FileName      string   `json:"fileName"`
		SheetID       string   `json:"sheetId"`
		HiddenColumns []string `json:"hiddenColumns"`
		Files         []struct {
			FileID string `json:"fileId"`
		} `json:"files"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &n) != nil {
		return nil
	}
	next := &views.JobNext{Label: n.Label}
	switch n.Type {
	case "id":
		switch {
		case localPath(n.Path):
			next.URL = n.Path
		case store.KindOf(n.ID) == store.KindSheet:
			next.URL = "/space/" + spaceID + "/sheet/" + n.ID
		default:
			next.URL = "/space/" + spaceID
		}
		if n.Query != "" {
			next.URL += "?" + strings.TrimPrefix(n.Query, "?")
		}
		next.Label = cmp.Or(n.Label, views.T(ctx, "action.open"))
	case "url", "download":
		if !strings.HasPrefix(n.URL, "https://") && !strings.HasPrefix(n.URL, "http://") && !localPath(n.URL) {
			return nil // javascript:, //other-host and other schemes are not followed
		}
		next.URL, next.External, next.Download = n.URL, !localPath(n.URL), n.Type == "download"
		next.Label = cmp.Or(n.Label, n.FileName, views.T(ctx, "action.open_link"))
		if id, ok := apiDownload(n.URL); ok {
			// The API's download wants a key; the dashboard's sends the session's user.
			next.URL = "/space/" + spaceID + "/files/" + id + "/download"
			if n.FileName != "" && (n.Label == "" || n.Label == "Download "+n.FileName) {
				next.Label = views.Tf(ctx, "action.download_file", map[string]any{"Name": n.FileName})
			}
		}
	case "files":
		if len(n.Files) == 0 {
			return nil
		}
		next.URL, next.Download = "/space/"+spaceID+"/files/"+n.Files[0].FileID+"/download", true
		next.Label = cmp.Or(n.Label, views.Tn(ctx, "action.files", int64(len(n.Files)), ""))
	case "view":
		next.URL = "/space/" + spaceID + "/sheet/" + n.SheetID
		if len(n.HiddenColumns) > 0 {
			next.URL += "?hide=" + strings.Join(n.HiddenColumns, ",")
		}
		next.Label = cmp.Or(n.Label, views.T(ctx, "action.view"))
	case "retry":
		next.Retry = true
		next.Label = cmp.Or(n.Label, views.T(ctx, "action.retry"))
	default:
		return nil
	}
	return next
}

// apiDownload reads the file id of an API download link (/v1/files/<id>/download).
func apiDownload(u string) (string, bool) {
	id, ok := strings.CutPrefix(u, "/v1/files/")
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, "/download")
	return id, ok && id != "" && !strings.Contains(id, "/")
}
