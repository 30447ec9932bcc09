package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// Program versions: every change of a program's rules (creation, rule edits, recompute)
// stores the whole rule list as the next version, numbered from 1. A transform job's
// input.version names one; without it the job runs the rules as they are now.

// versionRule is a rule as a version keeps it.
type versionRule struct {
	ID         string          `json:"id"`
	Name       string          `json:"name,omitempty"`
	Type       string          `json:"type"`
	Config     json.RawMessage `json:"config,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Confidence *float64        `json:"confidence,omitempty"`
	AcceptedBy string          `json:"acceptedBy,omitempty"`
	CreatedBy  string          `json:"createdBy,omitempty"`
	CreatedAt  int64           `json:"createdAt"`
	UpdatedAt  int64           `json:"updatedAt"`
}

// ProgramVersion is one stored version of a program.
type ProgramVersion struct {
	Version   int
	RuleCount int
	CreatedBy string
	CreatedAt time.Time
}

// newProgramVersion stores the program's current rules as its next version.
func (tx *Tx) newProgramVersion(programID, actor string) error {
	rules, err := listRules(tx.Context(), tx, programID)
	if err != nil {
		return err
	}
	vr := make([]versionRule, len(rules))
	for i, r := range rules {
		vr[i] = versionRule{ID: r.ID, Name: r.Name, Type: r.Type, Config: r.Config, Metadata: r.Metadata, Confidence: r.Confidence,
			AcceptedBy: r.AcceptedBy, CreatedBy: r.CreatedBy, CreatedAt: sqldb.Millis(r.CreatedAt), UpdatedAt: sqldb.Millis(r.UpdatedAt)}
	}
	b, _ := json.Marshal(vr)
	_, err = tx.Exec(`INSERT INTO mapping_program_versions (program_id, version, rules, created_by, created_at)
		SELECT ?, COALESCE(MAX(version), 0) + 1, ?, ?, ? FROM mapping_program_versions WHERE program_id = ?`,
		programID, string(b), actor, sqldb.Millis(tx.Now()), programID)
	if err != nil {
		return errs.Wrap(err, "store program version")
	}
	return nil
}

// ProgramVersions lists a program's versions, newest first.
func (db *DB) ProgramVersions(ctx context.Context, programID string) ([]ProgramVersion, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT version, `+db.Reader.Dialect().JSONLength("rules")+`, created_by, created_at FROM mapping_program_versions
		WHERE program_id = ? ORDER BY version DESC`, programID)
	if err != nil {
		return nil, errs.Wrap(err, "list program versions")
	}
	defer rows.Close()
	out := []ProgramVersion{}
	for rows.Next() {
		var v ProgramVersion
		var at int64
		if err := rows.Scan(&v.Version, &v.RuleCount, &v.CreatedBy, &at); err != nil {
			return nil, errs.Wrap(err, "scan program version")
		}
		v.CreatedAt = sqldb.FromMillis(at)
		out = append(out, v)
	}
	return out, rows.Err()
}

// ProgramRulesAt returns a program's rules as version held them. Errors: not_found.
func (db *DB) ProgramRulesAt(ctx context.Context, programID string, version int) ([]*model.MappingRule, error) {
	var raw string
	err := db.Reader.QueryRowContext(ctx, `SELECT rules FROM mapping_program_versions WHERE program_id = ? AND version = ?`, programID, version).Scan(&raw)
	if err == sql.ErrNoRows {
		var latest sql.NullInt64
		_ = db.Reader.QueryRowContext(ctx, `SELECT MAX(version) FROM mapping_program_versions WHERE program_id = ?`, programID).Scan(&latest)
		return nil, errs.NotFoundf("input.version", "Mapping program %s has no version %d (its latest is %d)", programID, version, latest.Int64)
	}
	if err != nil {
		return nil, errs.Wrap(err, "read program version")
	}
	var vr []versionRule
	if err := json.Unmarshal([]byte(raw), &vr); err != nil {
		return nil, errs.Wrap(err, "decode program version")
	}
	out := make([]*model.MappingRule, len(vr))
	for i, r := range vr {
		out[i] = &model.MappingRule{ID: r.ID, ProgramID: programID, Name: r.Name, Type: r.Type, Config: r.Config, Metadata: r.Metadata,
			Confidence: r.Confidence, AcceptedBy: r.AcceptedBy, CreatedBy: r.CreatedBy, CreatedAt: sqldb.FromMillis(r.CreatedAt), UpdatedAt: sqldb.FromMillis(r.UpdatedAt)}
	}
	return out, nil
}
