package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// Mapping id prefixes.
const (
	PrefixMappingProgram = "us_mp_"
	PrefixMappingRule    = "us_mr_"
)

// RuleKeys extracts the history keys of a rule: for assign rules, the normalising function's
// view of config.sourceField and config.destinationField.
type RuleKeys func(r *model.MappingRule) (source, dest string)

func programContext(p *model.MappingProgram, actor string) model.EventContext {
	return model.EventContext{AccountID: p.AccountID, EnvironmentID: p.EnvironmentID, ActorID: actor}
}

// CreateProgram stores a program with its rules and emits program:created.
func (db *DB) CreateProgram(ctx context.Context, p *model.MappingProgram, actor string, keys RuleKeys) error {
	return db.Update(ctx, func(tx *Tx) error {
		p.ID = sqldb.NewID(PrefixMappingProgram)
		p.CreatedBy, p.CreatedAt, p.UpdatedAt = actor, tx.Now(), tx.Now()
		src, _ := json.Marshal(p.Source)
		dst, _ := json.Marshal(p.Destination)
		if _, err := tx.Exec(`INSERT INTO mapping_programs (id, account_id, environment_id, namespace, family_id, source, destination, created_by, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, p.ID, p.AccountID, p.EnvironmentID, p.Namespace, p.FamilyID, string(src), string(dst), actor, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now())); err != nil {
			return errs.Wrap(err, "insert program")
		}
		for _, r := range p.Rules {
			if err := tx.insertRule(p.ID, r, actor, keys); err != nil {
				return err
			}
		}
		if err := tx.newProgramVersion(p.ID, actor); err != nil {
			return err
		}
		_, err := tx.Emit("program:created", programContext(p, actor), map[string]any{"programId": p.ID, "ruleCount": len(p.Rules)})
		return err
	})
}

func (tx *Tx) insertRule(programID string, r *model.MappingRule, actor string, keys RuleKeys) error {
	r.ID, r.ProgramID = sqldb.NewID(PrefixMappingRule), programID
	r.CreatedBy, r.CreatedAt, r.UpdatedAt = actor, tx.Now(), tx.Now()
	src, dst := keys(r)
	_, err := tx.Exec(`INSERT INTO mapping_rules (id, program_id, name, type, config, metadata, confidence, source_key, dest_key, accepted_at, accepted_by, created_by, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, programID, r.Name, r.Type, sqldb.JSONText(r.Config), sqldb.JSONText(r.Metadata), r.Confidence,
		src, dst, sqldb.MillisPtr(r.AcceptedAt), r.AcceptedBy, actor, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
	if err != nil {
		return errs.Wrap(err, "insert rule")
	}
	return nil
}

const programColumns = `id, account_id, environment_id, namespace, family_id, source, destination, created_by, created_at, updated_at`

func scanProgram(s sqldb.Scanner) (*model.MappingProgram, error) {
	var p model.MappingProgram
	var src, dst string
	var c, u int64
	err := s.Scan(&p.ID, &p.AccountID, &p.EnvironmentID, &p.Namespace, &p.FamilyID, &src, &dst, &p.CreatedBy, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("programId", "Mapping program not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan program")
	}
	_ = json.Unmarshal([]byte(src), &p.Source)
	_ = json.Unmarshal([]byte(dst), &p.Destination)
	p.CreatedAt, p.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &p, nil
}

const ruleColumns = `id, program_id, name, type, config, metadata, confidence, accepted_at, accepted_by, created_by, created_at, updated_at`

func scanRule(s sqldb.Scanner) (*model.MappingRule, error) {
	var r model.MappingRule
	var cfg, meta string
	var conf sql.NullFloat64
	var acc sql.NullInt64
	var c, u int64
	err := s.Scan(&r.ID, &r.ProgramID, &r.Name, &r.Type, &cfg, &meta, &conf, &acc, &r.AcceptedBy, &r.CreatedBy, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("mappingId", "Mapping rule not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan rule")
	}
	r.Config, r.Metadata = sqldb.RawOr(cfg, "{}"), sqldb.RawOr(meta, "{}")
	if conf.Valid {
		r.Confidence = &conf.Float64
	}
	r.AcceptedAt = sqldb.FromNullMillis(acc)
	r.CreatedAt, r.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &r, nil
}

// GetProgram returns a live program of the account with its rules. Errors: not_found.
func (db *DB) GetProgram(ctx context.Context, accountID, id string) (*model.MappingProgram, error) {
	p, err := scanProgram(db.Reader.QueryRowContext(ctx, `SELECT `+programColumns+` FROM mapping_programs WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
	if err != nil {
		return nil, err
	}
	p.Rules, err = listRules(ctx, db.Reader, p.ID)
	return p, err
}

func listRules(ctx context.Context, q sqldb.Querier, programID string) ([]*model.MappingRule, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+ruleColumns+` FROM mapping_rules WHERE program_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, programID)
	if err != nil {
		return nil, errs.Wrap(err, "list rules")
	}
	defer rows.Close()
	out := []*model.MappingRule{}
	for rows.Next() {
		r, err := scanRule(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ListPrograms returns the account's live programs (one environment when envID is set),
// newest first, with their rules.
func (db *DB) ListPrograms(ctx context.Context, accountID, envID string, p model.Page) ([]*model.MappingProgram, error) {
	cond, args := `account_id = ? AND deleted_at IS NULL`, []any{accountID}
	if envID != "" {
		cond += ` AND environment_id = ?`
		args = append(args, envID)
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+programColumns+` FROM mapping_programs WHERE `+cond+` ORDER BY created_at DESC, id LIMIT ? OFFSET ?`, append(args, p.Size, p.Offset())...)
	if err != nil {
		return nil, errs.Wrap(err, "list programs")
	}
	defer rows.Close()
	var out []*model.MappingProgram
	for rows.Next() {
		pr, err := scanProgram(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, pr)
	}
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(err, "list programs")
	}
	rows.Close()
	for _, pr := range out {
		if pr.Rules, err = listRules(ctx, db.Reader, pr.ID); err != nil {
			return nil, err
		}
	}
	if out == nil {
		out = []*model.MappingProgram{}
	}
	return out, nil
}

// DeleteProgram soft-deletes a program and its rules and emits program:updated.
// Errors: not_found.
func (db *DB) DeleteProgram(ctx context.Context, p *model.MappingProgram, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`UPDATE mapping_rules SET deleted_at = ? WHERE program_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), p.ID); err != nil {
			return errs.Wrap(err, "delete rules")
		}
		if _, err := tx.Exec(`UPDATE mapping_programs SET deleted_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), p.ID); err != nil {
			return errs.Wrap(err, "delete program")
		}
		_, err := tx.Emit("program:updated", programContext(p, actor), map[string]any{"programId": p.ID, "deleted": true})
		return err
	})
}

// ChangeRules adds, replaces and deletes rules of a program in one transaction and emits
// program:updated. Replaced rules keep their ids. Errors: not_found (a rule of another program).
func (db *DB) ChangeRules(ctx context.Context, p *model.MappingProgram, add, replace []*model.MappingRule, del []string, actor string, keys RuleKeys) error {
	return db.Update(ctx, func(tx *Tx) error {
		for _, r := range add {
			if err := tx.insertRule(p.ID, r, actor, keys); err != nil {
				return err
			}
		}
		for _, r := range replace {
			src, dst := keys(r)
			r.UpdatedAt = tx.Now()
			res, err := tx.Exec(`UPDATE mapping_rules SET name = ?, type = ?, config = ?, metadata = ?, confidence = ?, source_key = ?, dest_key = ?, accepted_at = ?, accepted_by = ?, updated_at = ?
				WHERE id = ? AND program_id = ? AND deleted_at IS NULL`, r.Name, r.Type, sqldb.JSONText(r.Config), sqldb.JSONText(r.Metadata), r.Confidence, src, dst,
				sqldb.MillisPtr(r.AcceptedAt), r.AcceptedBy, sqldb.Millis(tx.Now()), r.ID, p.ID)
			if err != nil {
				return errs.Wrap(err, "update rule")
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return errs.NotFoundf("mappingId", "Rule %s is not in program %s", r.ID, p.ID)
			}
		}
		for _, id := range del {
			res, err := tx.Exec(`UPDATE mapping_rules SET deleted_at = ? WHERE id = ? AND program_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id, p.ID)
			if err != nil {
				return errs.Wrap(err, "delete rule")
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return errs.NotFoundf("ruleIds", "Rule %s is not in program %s", id, p.ID)
			}
		}
		if err := tx.newProgramVersion(p.ID, actor); err != nil {
			return err
		}
		_, err := tx.Emit("program:updated", programContext(p, actor), map[string]any{"programId": p.ID, "added": len(add), "updated": len(replace), "deleted": len(del)})
		return err
	})
}

// MappingHistory returns accepted assign rules of an environment whose source key is one of
// keys: per source key and destination key, counts for actor and for everyone else.
func (db *DB) MappingHistory(ctx context.Context, envID, actor string, keys []string) (mine, others map[string]map[string]int, err error) {
	mine, others = map[string]map[string]int{}, map[string]map[string]int{}
	if len(keys) == 0 {
		return mine, others, nil
	}
	list, _ := json.Marshal(keys)
	rows, err := db.Reader.QueryContext(ctx, `SELECT r.source_key, r.dest_key, r.accepted_by = ?, COUNT(*) FROM mapping_rules r JOIN mapping_programs p ON p.id = r.program_id
		WHERE p.environment_id = ? AND r.accepted_at IS NOT NULL AND r.deleted_at IS NULL AND `+db.Reader.Dialect().InTexts("r.source_key", "?")+`
		GROUP BY 1, 2, 3`, actor, envID, string(list))
	if err != nil {
		return nil, nil, errs.Wrap(err, "mapping history")
	}
	defer rows.Close()
	for rows.Next() {
		var src, dst string
		var isMine bool
		var n int
		if err := rows.Scan(&src, &dst, &isMine, &n); err != nil {
			return nil, nil, errs.Wrap(err, "scan history")
		}
		m := others
		if isMine {
			m = mine
		}
		if m[src] == nil {
			m[src] = map[string]int{}
		}
		m[src][dst] += n
	}
	return mine, others, rows.Err()
}

// MappingFormats are the readings (config.format) last accepted in an environment for a
// source header onto a destination field, by normalized header and then field key; the
// actor's own choices win over others'. The wizard preselects them where a column's values
// leave the reading open.
func (db *DB) MappingFormats(ctx context.Context, envID, actor string, keys []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	if len(keys) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(keys)
	format := db.Reader.Dialect().JSONField("r.config", "format")
	rows, err := db.Reader.QueryContext(ctx, `SELECT r.source_key, r.dest_key, `+format+` FROM mapping_rules r JOIN mapping_programs p ON p.id = r.program_id
		WHERE p.environment_id = ? AND r.accepted_at IS NOT NULL AND r.deleted_at IS NULL AND r.type = 'assign'
		AND `+format+` IS NOT NULL AND `+db.Reader.Dialect().InTexts("r.source_key", "?")+`
		ORDER BY r.accepted_by = ?, r.accepted_at, r.id`, envID, string(list), actor)
	if err != nil {
		return nil, errs.Wrap(err, "mapping formats")
	}
	defer rows.Close()
	for rows.Next() {
		var src, dst, format string
		if err := rows.Scan(&src, &dst, &format); err != nil {
			return nil, errs.Wrap(err, "scan mapping formats")
		}
		if out[src] == nil {
			out[src] = map[string]string{}
		}
		out[src][dst] = format // later rows win: the actor's own, then the newest
	}
	return out, rows.Err()
}

// ForgetMappings deletes every program (and rule) actor created in an environment.
func (db *DB) ForgetMappings(ctx context.Context, accountID, envID, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		cond := `account_id = ? AND created_by = ? AND deleted_at IS NULL`
		args := []any{accountID, actor}
		if envID != "" {
			cond += ` AND environment_id = ?`
			args = append(args, envID)
		}
		now := sqldb.Millis(tx.Now())
		if _, err := tx.Exec(`UPDATE mapping_rules SET deleted_at = ? WHERE deleted_at IS NULL AND program_id IN (SELECT id FROM mapping_programs WHERE `+cond+`)`, append([]any{now}, args...)...); err != nil {
			return errs.Wrap(err, "forget rules")
		}
		_, err := tx.Exec(`UPDATE mapping_programs SET deleted_at = ? WHERE `+cond, append([]any{now}, args...)...)
		return err
	})
}

// RecomputeProgram replaces a program's source and destination and its rules with freshly
// suggested ones, emitting program:recomputing and program:recomputed.
func (db *DB) RecomputeProgram(ctx context.Context, p *model.MappingProgram, rules []*model.MappingRule, actor string, keys RuleKeys) error {
	return db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.Emit("program:recomputing", programContext(p, actor), map[string]any{"programId": p.ID}); err != nil {
			return err
		}
		src, _ := json.Marshal(p.Source)
		dst, _ := json.Marshal(p.Destination)
		if _, err := tx.Exec(`UPDATE mapping_programs SET source = ?, destination = ?, updated_at = ? WHERE id = ?`, string(src), string(dst), sqldb.Millis(tx.Now()), p.ID); err != nil {
			return errs.Wrap(err, "update program")
		}
		if _, err := tx.Exec(`UPDATE mapping_rules SET deleted_at = ? WHERE program_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), p.ID); err != nil {
			return errs.Wrap(err, "drop rules")
		}
		for _, r := range rules {
			if err := tx.insertRule(p.ID, r, actor, keys); err != nil {
				return err
			}
		}
		p.Rules = rules
		if err := tx.newProgramVersion(p.ID, actor); err != nil {
			return err
		}
		_, err := tx.Emit("program:recomputed", programContext(p, actor), map[string]any{"programId": p.ID, "ruleCount": len(rules)})
		return err
	})
}
