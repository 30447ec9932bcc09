-- PostgreSQL form of ../016_apps.sql (keep the two in step).
-- Apps (a kind of import product built on Sluice: portal, projects, mapping, workbooks or
-- custom) and their stored constraints (named validators), versioned on every change.
CREATE TABLE apps (
    id                  TEXT PRIMARY KEY,
    account_id          TEXT NOT NULL REFERENCES accounts(id),
    name                TEXT NOT NULL,
    namespace           TEXT NOT NULL,
    type                TEXT NOT NULL,
    entity              TEXT NOT NULL,
    entity_plural       TEXT NOT NULL,
    icon                TEXT NOT NULL DEFAULT '',
    metadata            TEXT,
    environment_filters TEXT,
    blueprint           TEXT,
    activated_at        BIGINT,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    deleted_at          BIGINT
);
CREATE UNIQUE INDEX apps_namespace ON apps(account_id, namespace) WHERE deleted_at IS NULL;

CREATE TABLE app_constraints (
    id          TEXT PRIMARY KEY,
    app_id      TEXT NOT NULL REFERENCES apps(id),
    validator   TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    function    TEXT NOT NULL DEFAULT '',
    options     TEXT,
    label       TEXT NOT NULL DEFAULT '',
    version     BIGINT NOT NULL DEFAULT 1,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    deleted_at  BIGINT
);
CREATE UNIQUE INDEX app_constraints_validator ON app_constraints(app_id, validator) WHERE deleted_at IS NULL;

CREATE TABLE app_constraint_versions (
    constraint_id TEXT NOT NULL REFERENCES app_constraints(id),
    version       BIGINT NOT NULL,
    validator     TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    function      TEXT NOT NULL DEFAULT '',
    options       TEXT,
    label         TEXT NOT NULL DEFAULT '',
    created_at    BIGINT NOT NULL,
    PRIMARY KEY (constraint_id, version)
);
