package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/sluice/sluice/store/sqldb"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/model"
)

// Id prefixes of agents, their versions and their log entries (webhook deliveries).
const (
	PrefixAgent        = "us_ag_"
	PrefixAgentVersion = "us_agv_"
	PrefixAgentLog     = "us_lg_"
)

const agentColumns = `id, account_id, environment_id, config, version, created_by, created_at, updated_at`

func scanAgent(sc sqldb.Scanner) (*model.Agent, error) {
	var a model.Agent
	var cfg string
	var c, u int64
	err := sc.Scan(&a.ID, &a.AccountID, &a.EnvironmentID, &cfg, &a.Version, &a.CreatedBy, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("agentId", "Agent not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan agent")
	}
	if err := json.Unmarshal([]byte(cfg), &a.Config); err != nil {
		return nil, errs.Wrap(err, "decode agent %s", a.ID)
	}
	a.CreatedAt, a.UpdatedAt = sqldb.FromMillis(c), sqldb.FromMillis(u)
	return &a, nil
}

func agentEvent(tx *Tx, topic string, a *model.Agent, actor string) error {
	_, err := tx.Emit(topic, model.EventContext{AccountID: a.AccountID, EnvironmentID: a.EnvironmentID, ActorID: actor},
		map[string]any{"agentId": a.ID, "slug": a.Config.Slug, "version": a.Version, "topics": sqldb.NonNil(a.Config.Topics)})
	return err
}

// saveAgentVersion writes the agent row and a new version row made from origin.
func (tx *Tx) saveAgentVersion(a *model.Agent, origin int, insert bool) (*model.AgentVersion, error) {
	cfg, err := json.Marshal(a.Config)
	if err != nil {
		return nil, errs.Wrap(err, "encode agent")
	}
	if insert {
		_, err = tx.Exec(`INSERT INTO agents (id, account_id, environment_id, slug, url, config, version, created_by, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, a.AccountID, a.EnvironmentID, a.Config.Slug, a.Config.URL, string(cfg), a.Version,
			a.CreatedBy, sqldb.Millis(a.CreatedAt), sqldb.Millis(a.UpdatedAt))
	} else {
		_, err = tx.Exec(`UPDATE agents SET slug = ?, url = ?, config = ?, version = ?, updated_at = ? WHERE id = ?`,
			a.Config.Slug, a.Config.URL, string(cfg), a.Version, sqldb.Millis(a.UpdatedAt), a.ID)
	}
	if err != nil {
		return nil, errs.Wrap(err, "save agent")
	}
	v := &model.AgentVersion{ID: sqldb.NewID(PrefixAgentVersion), AgentID: a.ID, Version: a.Version, Origin: origin, Config: a.Config, CreatedAt: tx.Now()}
	if _, err := tx.Exec(`INSERT INTO agent_versions (id, agent_id, version, origin, config, url, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		v.ID, v.AgentID, v.Version, v.Origin, string(cfg), a.Config.URL, sqldb.Millis(tx.Now())); err != nil {
		return nil, errs.Wrap(err, "insert agent version")
	}
	return v, nil
}

// DeployAgent stores an agent for the environment. When a live agent with the same slug
// exists it is replaced, as Flatfile's deploy does: its config becomes a new version and
// agent:updated is emitted; otherwise a new agent (version 1) is created with agent:created.
// It reports whether the agent was created.
func (db *DB) DeployAgent(ctx context.Context, a *model.Agent, actor string) (bool, error) {
	created := false
	err := db.Update(ctx, func(tx *Tx) error {
		var cur *model.Agent
		if a.Config.Slug != "" {
			found, err := scanAgent(tx.QueryRow(`SELECT `+agentColumns+` FROM agents WHERE environment_id = ? AND slug = ? AND deleted_at IS NULL
				ORDER BY created_at LIMIT 1`, a.EnvironmentID, a.Config.Slug))
			if err != nil && !errs.Is(err, errs.NotFound) {
				return err
			}
			cur = found
		}
		a.UpdatedAt = tx.Now()
		if cur == nil {
			created = true
			a.ID, a.Version, a.CreatedAt, a.CreatedBy = sqldb.NewID(PrefixAgent), 1, tx.Now(), actor
			if _, err := tx.saveAgentVersion(a, 1, true); err != nil {
				return err
			}
			return agentEvent(tx, "agent:created", a, actor)
		}
		a.ID, a.Version, a.CreatedAt, a.CreatedBy = cur.ID, cur.Version+1, cur.CreatedAt, cur.CreatedBy
		if _, err := tx.saveAgentVersion(a, a.Version, false); err != nil {
			return err
		}
		return agentEvent(tx, "agent:updated", a, actor)
	})
	return created, err
}

// GetAgent returns a live agent of the account. Errors: not_found.
func (db *DB) GetAgent(ctx context.Context, accountID, id string) (*model.Agent, error) {
	return scanAgent(db.Reader.QueryRowContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
}

// AgentFilter selects agents.
type AgentFilter struct {
	AccountID     string
	EnvironmentID string
	IsSystem      *bool
	Search        string // part of the slug, or the id
	Page          model.Page
}

// ListAgents returns one page of live agents, oldest first, and the number matching f.
func (db *DB) ListAgents(ctx context.Context, f AgentFilter) ([]*model.Agent, int, error) {
	where := []string{"account_id = ?", "deleted_at IS NULL"}
	args := []any{f.AccountID}
	if f.EnvironmentID != "" {
		where, args = append(where, "environment_id = ?"), append(args, f.EnvironmentID)
	}
	if f.IsSystem != nil {
		system := db.Reader.Dialect().JSONTrue("config", "isSystem")
		if !*f.IsSystem {
			system = "NOT " + system
		}
		where = append(where, system)
	}
	if f.Search != "" {
		where, args = append(where, "(id = ? OR "+db.Reader.Dialect().Contains("lower(slug)", "lower(?)")+")"), append(args, f.Search, f.Search)
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, errs.Wrap(err, "count agents")
	}
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE `+cond+` ORDER BY created_at, id LIMIT ? OFFSET ?`,
		append(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, 0, errs.Wrap(err, "list agents")
	}
	defer rows.Close()
	out := []*model.Agent{}
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// DeleteAgent soft-deletes an agent, gives up its pending deliveries and emits
// agent:deleted. Errors: not_found.
func (db *DB) DeleteAgent(ctx context.Context, accountID, id, actor string) error {
	return db.Update(ctx, func(tx *Tx) error {
		a, err := scanAgent(tx.QueryRow(`SELECT `+agentColumns+` FROM agents WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, id, accountID))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE agents SET deleted_at = ?, updated_at = ? WHERE id = ?`, sqldb.Millis(tx.Now()), sqldb.Millis(tx.Now()), id); err != nil {
			return errs.Wrap(err, "delete agent")
		}
		if _, err := tx.Exec(`UPDATE deliveries SET status = 'failed', last_error = 'agent deleted', next_attempt_at = NULL, completed_at = ?
			WHERE agent_id = ? AND status = 'pending'`, sqldb.Millis(tx.Now()), id); err != nil {
			return errs.Wrap(err, "cancel deliveries")
		}
		return agentEvent(tx, "agent:deleted", a, actor)
	})
}

func scanAgentVersion(sc sqldb.Scanner) (*model.AgentVersion, error) {
	var v model.AgentVersion
	var cfg string
	var c int64
	err := sc.Scan(&v.ID, &v.AgentID, &v.Version, &v.Origin, &cfg, &c)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errs.NotFoundf("agentVersionId", "Agent version not found")
	}
	if err != nil {
		return nil, errs.Wrap(err, "scan agent version")
	}
	if err := json.Unmarshal([]byte(cfg), &v.Config); err != nil {
		return nil, errs.Wrap(err, "decode agent version %s", v.ID)
	}
	v.CreatedAt = sqldb.FromMillis(c)
	return &v, nil
}

// ListAgentVersions returns an agent's versions, oldest first.
func (db *DB) ListAgentVersions(ctx context.Context, agentID string) ([]*model.AgentVersion, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT id, agent_id, version, origin, config, created_at FROM agent_versions WHERE agent_id = ? ORDER BY version`, agentID)
	if err != nil {
		return nil, errs.Wrap(err, "list agent versions")
	}
	defer rows.Close()
	out := []*model.AgentVersion{}
	for rows.Next() {
		v, err := scanAgentVersion(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// RevertAgent makes an earlier version current again: its config becomes a new version whose
// origin is the reverted one, and agent:updated is emitted. Errors: not_found.
func (db *DB) RevertAgent(ctx context.Context, accountID, agentID, versionID, actor string) (*model.AgentVersion, error) {
	var out *model.AgentVersion
	err := db.Update(ctx, func(tx *Tx) error {
		a, err := scanAgent(tx.QueryRow(`SELECT `+agentColumns+` FROM agents WHERE id = ? AND account_id = ? AND deleted_at IS NULL`, agentID, accountID))
		if err != nil {
			return err
		}
		old, err := scanAgentVersion(tx.QueryRow(`SELECT id, agent_id, version, origin, config, created_at FROM agent_versions WHERE id = ? AND agent_id = ?`,
			versionID, agentID))
		if err != nil {
			return err
		}
		a.Config, a.Version, a.UpdatedAt = old.Config, a.Version+1, tx.Now()
		if out, err = tx.saveAgentVersion(a, old.Version, false); err != nil {
			return err
		}
		return agentEvent(tx, "agent:updated", a, actor)
	})
	return out, err
}

// WebhookAgents returns every live agent with a webhook URL.
func (db *DB) WebhookAgents(ctx context.Context) ([]*model.Agent, error) {
	rows, err := db.Reader.QueryContext(ctx, `SELECT `+agentColumns+` FROM agents WHERE url <> '' AND deleted_at IS NULL ORDER BY created_at`)
	if err != nil {
		return nil, errs.Wrap(err, "list webhook agents")
	}
	defer rows.Close()
	var out []*model.Agent
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
