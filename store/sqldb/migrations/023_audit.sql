-- The audit trail: every administrative change, who made it, from where and what
-- it touched. Details never hold secret values (they are redacted before they get here).
CREATE TABLE audit_log (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    environment_id TEXT NOT NULL DEFAULT '',
    actor_id       TEXT NOT NULL DEFAULT '',
    actor_kind     TEXT NOT NULL DEFAULT '',
    client_addr    TEXT NOT NULL DEFAULT '',
    area           TEXT NOT NULL,
    action         TEXT NOT NULL,
    target         TEXT NOT NULL DEFAULT '',
    status         INTEGER NOT NULL,
    details        TEXT NOT NULL DEFAULT '{}',
    created_at     INTEGER NOT NULL
);
CREATE INDEX audit_account_time ON audit_log(account_id, created_at);
