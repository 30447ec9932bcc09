-- PostgreSQL form of ../009_instructions.sql (keep the two in step).
-- Instructions: guidance text for people mapping data into a family of fields.
CREATE TABLE instructions (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    environment_id TEXT NOT NULL,
    scope          TEXT NOT NULL DEFAULT '',
    instructions   TEXT NOT NULL,
    field_keys     TEXT NOT NULL DEFAULT '[]',
    metadata       TEXT NOT NULL DEFAULT '{}',
    created_by     TEXT NOT NULL DEFAULT '',
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    deleted_at     BIGINT
);
CREATE INDEX instructions_env ON instructions(environment_id);
