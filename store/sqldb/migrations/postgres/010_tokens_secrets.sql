-- PostgreSQL form of ../010_tokens_secrets.sql (keep the two in step).
-- Personal access tokens (only a hash of the value is kept) and secrets (values encrypted).
CREATE TABLE personal_access_tokens (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    user_id      TEXT NOT NULL REFERENCES users(id),
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    deleted_at   BIGINT
);
CREATE INDEX personal_access_tokens_user ON personal_access_tokens(user_id);

CREATE TABLE secrets (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    environment_id TEXT NOT NULL,
    space_id       TEXT NOT NULL DEFAULT '',
    actor_id       TEXT NOT NULL DEFAULT '',
    name           TEXT NOT NULL,
    value_enc      BYTEA NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE UNIQUE INDEX secrets_scope_name ON secrets(environment_id, space_id, actor_id, name);
