package store

import (
	"context"
	"time"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// AuditEntry is one administrative change.
type AuditEntry struct {
	ID, AccountID, EnvironmentID, ActorID, ActorKind, ClientAddr string
	Area, Action, Target                                         string
	Status                                                       int
	Details                                                      string // JSON object, secret values redacted
	CreatedAt                                                    time.Time
}

// AddAudit records an entry.
func (db *DB) AddAudit(ctx context.Context, a *AuditEntry) error {
	return db.Update(ctx, func(tx *Tx) error {
		a.ID, a.CreatedAt = sqldb.NewID("us_aud_"), tx.Now()
		if a.Details == "" {
			a.Details = "{}"
		}
		if _, err := tx.Exec(`INSERT INTO audit_log (id, account_id, environment_id, actor_id, actor_kind, client_addr, area, action, target, status, details, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, a.AccountID, a.EnvironmentID, a.ActorID, a.ActorKind, a.ClientAddr, a.Area, a.Action,
			a.Target, a.Status, a.Details, sqldb.Millis(tx.Now())); err != nil {
			return errs.Wrap(err, "record audit entry")
		}
		return nil
	})
}

// AuditFilter narrows ListAudit; empty fields match everything.
type AuditFilter struct {
	AccountID, ActorID, Area, Search string
	Since                            *time.Time
	Page                             model.Page
}

// ListAudit returns the newest entries first.
func (db *DB) ListAudit(ctx context.Context, f AuditFilter) ([]*AuditEntry, error) {
	q, args := `SELECT id, account_id, environment_id, actor_id, actor_kind, client_addr, area, action, target, status, details, created_at
		FROM audit_log WHERE account_id = ?`, []any{f.AccountID}
	if f.ActorID != "" {
		q, args = q+` AND actor_id = ?`, append(args, f.ActorID)
	}
	if f.Area != "" {
		q, args = q+` AND area = ?`, append(args, f.Area)
	}
	if f.Search != "" {
		like := db.Reader.Dialect().Like()
		q, args = q+` AND (action`+like+`? OR target`+like+`? OR details`+like+`?)`, append(args, "%"+f.Search+"%", "%"+f.Search+"%", "%"+f.Search+"%")
	}
	if f.Since != nil {
		q, args = q+` AND created_at >= ?`, append(args, sqldb.Millis(*f.Since))
	}
	rows, err := db.Reader.QueryContext(ctx, q+` ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, errs.Wrap(err, "list audit")
	}
	defer rows.Close()
	var out []*AuditEntry
	for rows.Next() {
		var a AuditEntry
		var c int64
		if err := rows.Scan(&a.ID, &a.AccountID, &a.EnvironmentID, &a.ActorID, &a.ActorKind, &a.ClientAddr, &a.Area, &a.Action, &a.Target, &a.Status, &a.Details, &c); err != nil {
			return nil, errs.Wrap(err, "scan audit")
		}
		a.CreatedAt = sqldb.FromMillis(c)
		out = append(out, &a)
	}
	return out, rows.Err()
}
