-- PostgreSQL form of ../008_mapping.sql (keep the two in step).
-- Mapping programs (how one sheet config maps onto another) and their rules. Accepted rules
-- are the history the suggestion engine learns from.
CREATE TABLE mapping_programs (
    id               TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL,
    environment_id   TEXT NOT NULL,
    namespace        TEXT NOT NULL DEFAULT '',
    family_id        TEXT NOT NULL DEFAULT '',
    source           TEXT NOT NULL,
    destination      TEXT NOT NULL,
    created_by       TEXT NOT NULL DEFAULT '',
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    deleted_at       BIGINT
);
CREATE INDEX mapping_programs_env ON mapping_programs(environment_id, created_at);

CREATE TABLE mapping_rules (
    id          TEXT PRIMARY KEY,
    program_id  TEXT NOT NULL REFERENCES mapping_programs(id),
    name        TEXT NOT NULL DEFAULT '',
    type        TEXT NOT NULL,
    config      TEXT NOT NULL DEFAULT '{}',
    metadata    TEXT NOT NULL DEFAULT '{}',
    confidence  DOUBLE PRECISION,
    source_key  TEXT NOT NULL DEFAULT '', -- normalised source header of assign rules, for history
    dest_key    TEXT NOT NULL DEFAULT '',
    accepted_at BIGINT,
    accepted_by TEXT NOT NULL DEFAULT '',
    created_by  TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    deleted_at  BIGINT
);
CREATE INDEX mapping_rules_program ON mapping_rules(program_id);
CREATE INDEX mapping_rules_history ON mapping_rules(source_key) WHERE accepted_at IS NOT NULL AND deleted_at IS NULL;
