package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// The job state machine lives in package jobs; the store only keeps jobs and writes their
// events. Domain code composes a change inside DB.Update with the Tx methods below.

const jobColumns = `id, account_id, environment_id, space_id, workbook_id, sheet_id, file_id, document_id, type, operation, source, destination,
	config, trigger, status, progress, mode, input, subject, outcome, result, info, managed, part, part_data, part_execution, parent_id,
	predecessor_ids, metadata, action_id, created_by, estimated_completion_at, dispatched_at, started_at, last_ack_at, finished_at,
	outcome_acknowledged_at, created_at, updated_at`

func scanJob(sc sqldb.Scanner) (*model.Job, error) {
	var j model.Job
	var cfg, input, subject, outcome, result, partData sql.NullString
	var preds, meta string
	var managed int
	var part sql.NullInt64
	var eta, dispatched, started, acked, finished, outAck sql.NullInt64
	var c, u int64
	err := sc.Scan(&j.ID, &j.AccountID, &j.EnvironmentID, &j.SpaceID, &j.WorkbookID, &j.SheetID, &j.FileID, &j.DocumentID, &j.Type, &j.Operation,
		&j.Source, &j.Destination, &cfg, &j.Trigger, &j.Status, &j.Progress, &j.Mode, &input, &subject, &outcome, &result, &j.Info, &managed,
		&part, &partData, &j.PartExecution, &j.ParentID, &preds, &meta, &j.ActionID, &j.CreatedBy, &eta, &dispatched, &started, &acked,
		&finished, &outAck, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("jobId", "Job not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan job")
	}
	j.Config, j.Input, j.Subject = nullJSON(cfg), nullJSON(input), nullJSON(subject)
	j.Outcome, j.Result, j.PartData = nullJSON(outcome), nullJSON(result), nullJSON(partData)
	j.PredecessorIDs, j.Metadata = sqldb.StringList(preds), sqldb.RawOr(meta, "{}")
	j.Managed = managed == 1
	if part.Valid {
		v := int(part.Int64)
		j.Part = &v
	}
	j.EstimatedCompletionAt, j.DispatchedAt, j.StartedAt = sqldb.FromNullMillis(eta), sqldb.FromNullMillis(dispatched), sqldb.FromNullMillis(started)
	j.LastAckAt, j.FinishedAt, j.OutcomeAcknowledgedAt = sqldb.FromNullMillis(acked), sqldb.FromNullMillis(finished), sqldb.FromNullMillis(outAck)
	j.CreatedAt, j.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &j, nil
}

// nullJSON turns a nullable JSON column into nil or raw JSON.
func nullJSON(s sql.NullString) json.RawMessage {
	if !s.Valid || s.String == "" {
		return nil
	}
	return json.RawMessage(s.String)
}

// jsonOrNull stores raw JSON, or NULL when absent.
func jsonOrNull(r json.RawMessage) any {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	return string(r)
}

func jobArgs(j *model.Job) []any {
	var part any
	if j.Part != nil {
		part = *j.Part
	}
	return []any{j.AccountID, j.EnvironmentID, j.SpaceID, j.WorkbookID, j.SheetID, j.FileID, j.DocumentID, j.Type, j.Operation, j.Source,
		j.Destination, jsonOrNull(j.Config), j.Trigger, j.Status, j.Progress, j.Mode, jsonOrNull(j.Input), jsonOrNull(j.Subject),
		jsonOrNull(j.Outcome), jsonOrNull(j.Result), j.Info, sqldb.BoolInt(j.Managed), part, jsonOrNull(j.PartData), j.PartExecution, j.ParentID,
		sqldb.JSONText(j.PredecessorIDs), sqldb.JSONText(j.Metadata), j.ActionID, j.CreatedBy, sqldb.MillisPtr(j.EstimatedCompletionAt), sqldb.MillisPtr(j.DispatchedAt),
		sqldb.MillisPtr(j.StartedAt), sqldb.MillisPtr(j.LastAckAt), sqldb.MillisPtr(j.FinishedAt), sqldb.MillisPtr(j.OutcomeAcknowledgedAt), sqldb.Millis(j.CreatedAt), sqldb.Millis(j.UpdatedAt)}
}

// InsertJob stores a new job, filling its id and times, and records its predecessors.
func (tx *Tx) InsertJob(j *model.Job) error {
	j.ID = sqldb.NewID(sqldb.PrefixJob)
	j.CreatedAt, j.UpdatedAt = tx.Now(), tx.Now()
	if j.Trigger == "" {
		j.Trigger = "manual"
	}
	if len(j.Metadata) == 0 || string(j.Metadata) == "null" {
		j.Metadata = json.RawMessage("{}")
	}
	if j.PredecessorIDs == nil {
		j.PredecessorIDs = []string{}
	}
	_, err := tx.Exec(`INSERT INTO jobs (id, `+strings.TrimPrefix(jobColumns, "id, ")+`)
		VALUES (?`+strings.Repeat(", ?", 38)+`)`, append([]any{j.ID}, jobArgs(j)...)...)
	if err != nil {
		return errs.Wrap(err, "insert job")
	}
	for _, p := range j.PredecessorIDs {
		if _, err := tx.Exec(`INSERT INTO job_predecessors (predecessor_id, job_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, p, j.ID); err != nil {
			return errs.Wrap(err, "insert job predecessor")
		}
	}
	return nil
}

// SaveJob writes every field of a loaded job back and moves its updatedAt to now.
func (tx *Tx) SaveJob(j *model.Job) error {
	j.UpdatedAt = tx.Now()
	sets := strings.ReplaceAll(strings.TrimPrefix(jobColumns, "id, "), ",", " = ?,") + " = ?"
	_, err := tx.Exec(`UPDATE jobs SET `+sets+` WHERE id = ?`, append(jobArgs(j), j.ID)...)
	if err != nil {
		return errs.Wrap(err, "update job")
	}
	return nil
}

// LoadJob reads a live job of the account inside the transaction. Errors: not_found.
func (tx *Tx) LoadJob(accountID, id string) (*model.Job, error) {
	return scanJob(tx.QueryRow(`SELECT `+jobColumns+` FROM jobs WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
}

// DeleteJob soft-deletes a job.
func (tx *Tx) DeleteJob(j *model.Job) error {
	if _, err := tx.Exec(`UPDATE jobs SET deleted_at = ?, updated_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()), j.ID); err != nil {
		return errs.Wrap(err, "delete job")
	}
	return nil
}

// GetJob returns a live job of the account. Errors: not_found.
func (db *DB) GetJob(ctx context.Context, accountID, id string) (*model.Job, error) {
	return scanJob(db.Reader.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
}

func (tx *Tx) queryJobs(q string, args ...any) ([]*model.Job, error) {
	rows, err := tx.QueryContext(tx.Context(), q, args...)
	if err != nil {
		return nil, errs.Wrap(err, "query jobs")
	}
	defer rows.Close()
	var out []*model.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// WaitingDependents returns the live waiting jobs that list id among their predecessors.
func (tx *Tx) WaitingDependents(id string) ([]*model.Job, error) {
	return tx.queryJobs(`SELECT `+jobColumns+` FROM jobs WHERE id IN (SELECT job_id FROM job_predecessors WHERE predecessor_id = ?)
		AND status = ? AND deleted_at IS NULL ORDER BY created_at, id`, id, model.JobWaiting)
}

// PredecessorStatuses returns the status of each of j's predecessors that still exists.
func (tx *Tx) PredecessorStatuses(j *model.Job) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range j.PredecessorIDs {
		var st string
		err := tx.QueryRow(`SELECT status FROM jobs WHERE id = ? AND account_id = ?`, p, j.AccountID).Scan(&st)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, errs.Wrap(err, "read predecessor")
		}
		out[p] = st
	}
	return out, nil
}

// UnfinishedChildren counts the live unfinished parts of a parent job.
func (tx *Tx) UnfinishedChildren(parentID string) (int, error) {
	var n int
	err := tx.QueryRow(`SELECT COUNT(*) FROM jobs WHERE parent_id = ? AND deleted_at IS NULL AND status NOT IN (?, ?, ?)`,
		parentID, model.JobComplete, model.JobFailed, model.JobCanceled).Scan(&n)
	if err != nil {
		return 0, errs.Wrap(err, "count job parts")
	}
	return n, nil
}

// BlockingJob returns the unfinished job of a toolbarBlocking action mounted on the workbook,
// or nil when there is none.
func (tx *Tx) BlockingJob(workbookID string) (*model.Job, error) {
	return blockingJob(tx.Context(), tx, workbookID)
}

// BlockingJob returns the unfinished toolbarBlocking job of a workbook, or nil: while it runs,
// the workbook's actions and its sheets' toolbars are disabled. Any such job counts, whether it
// runs a first-class action, one written inline in the workbook's `actions` (those have no
// id) or was created with that mode.
func (db *DB) BlockingJob(ctx context.Context, workbookID string) (*model.Job, error) {
	return blockingJob(ctx, db.Reader, workbookID)
}

func blockingJob(ctx context.Context, q sqldb.Querier, workbookID string) (*model.Job, error) {
	j, err := scanJob(q.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE workbook_id = ? AND type = 'workbook' AND mode = 'toolbarBlocking'
		AND deleted_at IS NULL AND status NOT IN (?, ?, ?) ORDER BY created_at LIMIT 1`,
		workbookID, model.JobComplete, model.JobFailed, model.JobCanceled))
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	return j, err
}

// EmitJob writes a job event with Flatfile's payload {domain, operation, job, status, info,
// isPart, input} and a context naming the job's resources and, for action jobs, the action.
func (tx *Tx) EmitJob(j *model.Job, topic, actor string) error {
	c := model.EventContext{AccountID: j.AccountID, EnvironmentID: j.EnvironmentID, SpaceID: j.SpaceID, WorkbookID: j.WorkbookID,
		SheetID: j.SheetID, FileID: j.FileID, DocumentID: j.DocumentID, JobID: j.ID, ActorID: actor, ActionID: j.ActionID}
	if j.SheetID != "" {
		// Listeners filter sheet jobs by slug (e.g. recordHook-style {sheetSlug: "contacts"}).
		_ = tx.QueryRow(`SELECT slug FROM sheets WHERE id = ?`, j.SheetID).Scan(&c.SheetSlug)
	}
	if j.SpaceID != "" {
		var ns string
		if tx.QueryRow(`SELECT namespace FROM spaces WHERE id = ?`, j.SpaceID).Scan(&ns) == nil && ns != "" {
			c.Namespaces = []string{ns}
		}
	}
	payload := struct {
		Domain    string          `json:"domain"`
		Operation string          `json:"operation"`
		Job       string          `json:"job"`
		Status    string          `json:"status"`
		Info      string          `json:"info,omitempty"`
		IsPart    bool            `json:"isPart"`
		Input     json.RawMessage `json:"input,omitempty"`
	}{j.Type, j.Operation, j.Name(), j.Status, j.Info, j.Part != nil || j.ParentID != "", j.Input}
	_, err := tx.Emit(topic, c, payload)
	return err
}

// insertSpaceConfigureJob creates the space:configure job every new space gets: trigger
// immediate, so it is ready at once and job:ready tells the configuring agent to build it.
func (tx *Tx) insertSpaceConfigureJob(s *model.Space, actor string) error {
	now := tx.Now()
	j := &model.Job{AccountID: s.AccountID, EnvironmentID: s.EnvironmentID, SpaceID: s.ID, Type: "space", Operation: "configure",
		Source: s.ID, Trigger: "immediate", Status: model.JobReady, Mode: "foreground", CreatedBy: actor, DispatchedAt: &now}
	if err := tx.InsertJob(j); err != nil {
		return err
	}
	if err := tx.EmitJob(j, "job:created", actor); err != nil {
		return err
	}
	return tx.EmitJob(j, "job:ready", actor)
}

// JobFilter selects jobs for GET /v1/jobs. AccountID is always set.
type JobFilter struct {
	AccountID        string
	EnvironmentID    string
	SpaceID          string
	WorkbookID       string
	FileID           string
	ParentID         string
	Source           string
	ExcludeChildJobs bool
	SortDesc         bool
	Page             model.Page
}

// ListJobs returns one page of jobs ordered by creation time and the number matching f.
func (db *DB) ListJobs(ctx context.Context, f JobFilter) ([]*model.Job, int, error) {
	where := []string{"account_id = ?", "deleted_at IS NULL"}
	args := []any{f.AccountID}
	add := func(cond string, v ...any) { where = append(where, cond); args = append(args, v...) }
	if f.EnvironmentID != "" {
		add("environment_id = ?", f.EnvironmentID)
	}
	if f.SpaceID != "" {
		add("space_id = ?", f.SpaceID)
	}
	if f.WorkbookID != "" {
		add("(workbook_id = ? OR destination = ?)", f.WorkbookID, f.WorkbookID)
	}
	if f.FileID != "" {
		add("file_id = ?", f.FileID)
	}
	if f.ParentID != "" {
		add("parent_id = ?", f.ParentID)
	}
	if f.Source != "" {
		add("source = ?", f.Source)
	}
	if f.ExcludeChildJobs {
		add("parent_id = ''")
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM jobs WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, errs.Wrap(err, "count jobs")
	}
	order := "created_at, id"
	if f.SortDesc {
		order = "created_at DESC, id DESC"
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE `+cond+` ORDER BY `+order+` LIMIT ? OFFSET ?`,
		append(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list jobs")
	}
	defer rows.Close()
	out := []*model.Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, j)
	}
	return out, total, rows.Err()
}

// unfinished is the condition of the jobs_unfinished partial index, spelled exactly as in
// the migration so SQLite uses the index: the timers and the worker never scan finished jobs.
const unfinished = `status NOT IN ('complete', 'failed', 'canceled') AND deleted_at IS NULL`

// JobRef names a job for the timers.
type JobRef struct{ AccountID, ID, SpaceID string }

func (db *DB) jobRefs(ctx context.Context, q string, args ...any) ([]JobRef, error) {
	rows, err := db.Reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, errs.Wrap(err, "find due jobs")
	}
	defer rows.Close()
	var out []JobRef
	for rows.Next() {
		var r JobRef
		if err := rows.Scan(&r.AccountID, &r.ID, &r.SpaceID); err != nil {
			return nil, errs.Wrap(err, "scan job ref")
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// UnacknowledgedJobs returns executing jobs whose last acknowledgement (or start) is at or
// before cutoff.
func (db *DB) UnacknowledgedJobs(ctx context.Context, cutoff time.Time) ([]JobRef, error) {
	return db.jobRefs(ctx, `SELECT account_id, id, space_id FROM jobs WHERE `+unfinished+` AND status = 'executing'
		AND COALESCE(last_ack_at, started_at, updated_at) <= ? ORDER BY created_at`, sqldb.Millis(cutoff))
}

// OverdueJobs returns unfinished jobs named typ:operation created at or before cutoff.
func (db *DB) OverdueJobs(ctx context.Context, typ, operation string, cutoff time.Time) ([]JobRef, error) {
	return db.jobRefs(ctx, `SELECT account_id, id, space_id FROM jobs WHERE `+unfinished+`
		AND type = ? AND operation = ? AND created_at <= ? ORDER BY created_at`, typ, operation, sqldb.Millis(cutoff))
}

// ReadyJobs returns dispatched ready jobs with one of the given operations or type:operation
// pairs, oldest first (the built-in workers pick their work here).
func (db *DB) ReadyJobs(ctx context.Context, operations []string, limit int) ([]JobRef, error) {
	if len(operations) == 0 {
		return nil, nil
	}
	// An entry is an operation ("delete-records") or a type and operation ("file:extract"); the
	// list is bound twice, once for each way of matching.
	list := `(?` + strings.Repeat(", ?", len(operations)-1) + `)`
	var args []any
	for range 2 {
		for _, o := range operations {
			args = append(args, o)
		}
	}
	args = append(args, limit)
	return db.jobRefs(ctx, `SELECT account_id, id, space_id FROM jobs WHERE `+unfinished+` AND status = 'ready' AND dispatched_at IS NOT NULL
		AND (operation IN `+list+` OR type || ':' || operation IN `+list+`) ORDER BY created_at LIMIT ?`, args...)
}

// SetJobRunner records the worker that carries the job out.
func (tx *Tx) SetJobRunner(id, runner string) error {
	if _, err := tx.Exec(`UPDATE jobs SET runner = ? WHERE id = ?`, runner, id); err != nil {
		return errs.Wrap(err, "claim job")
	}
	return nil
}

// RunnerJobs lists the executing jobs runner claimed: at start, the ones its last run left
// unfinished.
func (db *DB) RunnerJobs(ctx context.Context, runner string) ([]JobRef, error) {
	return db.jobRefs(ctx, `SELECT account_id, id, space_id FROM jobs WHERE status = 'executing' AND runner = ? AND deleted_at IS NULL`, runner)
}
