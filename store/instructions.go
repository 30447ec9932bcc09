package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
)

// PrefixInstruction is the id prefix of instructions.
const PrefixInstruction = "us_in_"

// Instruction is guidance for people mapping data into a family of fields.
type Instruction struct {
	ID            string
	AccountID     string
	EnvironmentID string
	Scope         string
	Text          string
	FieldKeys     []string
	Metadata      json.RawMessage
	CreatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

const instructionColumns = `id, account_id, environment_id, scope, instructions, field_keys, metadata, created_by, created_at, updated_at`

func scanInstruction(s sqldb.Scanner) (*Instruction, error) {
	var in Instruction
	var keys, meta string
	var c, u int64
	err := s.Scan(&in.ID, &in.AccountID, &in.EnvironmentID, &in.Scope, &in.Text, &keys, &meta, &in.CreatedBy, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("instructionId", "Instruction not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan instruction")
	}
	in.FieldKeys, in.Metadata = sqldb.StringList(keys), sqldb.RawOr(meta, "{}")
	in.CreatedAt, in.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &in, nil
}

// SaveInstruction creates (no id) or replaces an instruction.
func (db *DB) SaveInstruction(ctx context.Context, in *Instruction) error {
	return db.Update(ctx, func(tx *Tx) error {
		in.UpdatedAt = tx.Now()
		if in.ID == "" {
			in.ID, in.CreatedAt = sqldb.NewID(PrefixInstruction), tx.Now()
			_, err := tx.Exec(`INSERT INTO instructions (id, account_id, environment_id, scope, instructions, field_keys, metadata, created_by, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, in.ID, in.AccountID, in.EnvironmentID, in.Scope, in.Text, sqldb.JSONText(in.FieldKeys), sqldb.JSONText(in.Metadata),
				in.CreatedBy, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()))
			if err != nil {
				return errs.Wrap(err, "insert instruction")
			}
			return nil
		}
		_, err := tx.Exec(`UPDATE instructions SET scope = ?, instructions = ?, field_keys = ?, metadata = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`,
			in.Scope, in.Text, sqldb.JSONText(in.FieldKeys), sqldb.JSONText(in.Metadata), sqldb.Millis(tx.Now()), in.ID)
		if err != nil {
			return errs.Wrap(err, "update instruction")
		}
		return nil
	})
}

// GetInstruction returns a live instruction of the account. Errors: not_found.
func (db *DB) GetInstruction(ctx context.Context, accountID, id string) (*Instruction, error) {
	return scanInstruction(db.Reader.QueryRowContext(ctx, `SELECT `+instructionColumns+` FROM instructions WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
}

// ListInstructions returns the live instructions of an environment.
func (db *DB) ListInstructions(ctx context.Context, envID string) ([]*Instruction, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+instructionColumns+` FROM instructions WHERE environment_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, envID)
	if err != nil {
		return nil, errs.Wrap(err, "list instructions")
	}
	defer rows.Close()
	var out []*Instruction
	for rows.Next() {
		in, err := scanInstruction(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, rows.Err()
}

// DeleteInstruction soft-deletes an instruction. Errors: not_found.
func (db *DB) DeleteInstruction(ctx context.Context, accountID, id string) error {
	return db.Update(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`UPDATE instructions SET deleted_at = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, sqldb.Millis(tx.Now()), id, accountID)
		if err != nil {
			return errs.Wrap(err, "delete instruction")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.NotFoundf("instructionId", "Instruction not found")
		}
		return nil
	})
}
