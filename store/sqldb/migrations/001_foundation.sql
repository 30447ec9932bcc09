-- Foundation: accounts, environments, users, keys, spaces, workbooks, sheets and events.
-- Times are Unix milliseconds (UTC). JSON columns hold text.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE accounts (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    metadata   TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE environments (
    id                   TEXT PRIMARY KEY,
    account_id           TEXT NOT NULL REFERENCES accounts(id),
    name                 TEXT NOT NULL,
    is_prod              INTEGER NOT NULL DEFAULT 0,
    guest_authentication TEXT NOT NULL DEFAULT '["shared_link","magic_link"]',
    features             TEXT NOT NULL DEFAULT '{}',
    metadata             TEXT NOT NULL DEFAULT '{}',
    translations_path    TEXT NOT NULL DEFAULT '',
    namespaces           TEXT NOT NULL DEFAULT '[]',
    language_override    TEXT NOT NULL DEFAULT '',
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    deleted_at           INTEGER
);
CREATE INDEX environments_account ON environments(account_id, created_at);

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts(id),
    email         TEXT NOT NULL COLLATE NOCASE UNIQUE,
    name          TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

CREATE TABLE api_keys (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts(id),
    environment_id TEXT NOT NULL REFERENCES environments(id),
    type           TEXT NOT NULL CHECK (type IN ('SECRET', 'PUBLISHABLE')),
    raw            TEXT NOT NULL UNIQUE,
    created_at     INTEGER NOT NULL,
    deleted_at     INTEGER
);
CREATE INDEX api_keys_environment ON api_keys(environment_id);

CREATE TABLE spaces (
    id                   TEXT PRIMARY KEY,
    account_id           TEXT NOT NULL REFERENCES accounts(id),
    environment_id       TEXT NOT NULL REFERENCES environments(id),
    name                 TEXT NOT NULL DEFAULT '',
    app_id               TEXT NOT NULL DEFAULT '',
    namespace            TEXT NOT NULL DEFAULT '',
    is_app_template      INTEGER NOT NULL DEFAULT 0,
    metadata             TEXT NOT NULL DEFAULT '{}',
    settings             TEXT NOT NULL DEFAULT '{}',
    actions              TEXT NOT NULL DEFAULT '[]',
    access               TEXT NOT NULL DEFAULT '["*"]',
    labels               TEXT NOT NULL DEFAULT '[]',
    guest_authentication TEXT NOT NULL DEFAULT '["shared_link","magic_link"]',
    auto_configure       INTEGER NOT NULL DEFAULT 0,
    primary_workbook_id  TEXT NOT NULL DEFAULT '',
    translations_path    TEXT NOT NULL DEFAULT '',
    language_override    TEXT NOT NULL DEFAULT '',
    display_order        INTEGER,
    created_by           TEXT NOT NULL DEFAULT '',
    created_by_name      TEXT NOT NULL DEFAULT '',
    archived_at          INTEGER,
    last_activity_at     INTEGER,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    deleted_at           INTEGER
);
CREATE INDEX spaces_environment ON spaces(environment_id, created_at);
CREATE INDEX spaces_account ON spaces(account_id, created_at);

CREATE TABLE workbooks (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts(id),
    environment_id TEXT NOT NULL REFERENCES environments(id),
    space_id       TEXT NOT NULL REFERENCES spaces(id),
    name           TEXT NOT NULL DEFAULT '',
    namespace      TEXT NOT NULL DEFAULT '',
    labels         TEXT NOT NULL DEFAULT '[]',
    treatments     TEXT NOT NULL DEFAULT '[]',
    metadata       TEXT NOT NULL DEFAULT '{}',
    settings       TEXT NOT NULL DEFAULT '{}',
    actions        TEXT NOT NULL DEFAULT '[]',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    deleted_at     INTEGER
);
CREATE INDEX workbooks_space ON workbooks(space_id);

CREATE TABLE sheets (
    id          TEXT PRIMARY KEY,
    workbook_id TEXT NOT NULL REFERENCES workbooks(id),
    name        TEXT NOT NULL DEFAULT '',
    slug        TEXT NOT NULL DEFAULT '',
    config      TEXT NOT NULL DEFAULT '{}',
    metadata    TEXT NOT NULL DEFAULT '{}',
    namespace   TEXT NOT NULL DEFAULT '',
    position    INTEGER NOT NULL DEFAULT 0,
    locked_by   TEXT NOT NULL DEFAULT '',
    locked_at   INTEGER,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    deleted_at  INTEGER
);
CREATE INDEX sheets_workbook ON sheets(workbook_id);

CREATE TABLE events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    account_id      TEXT NOT NULL,
    environment_id  TEXT NOT NULL,
    space_id        TEXT NOT NULL DEFAULT '',
    domain          TEXT NOT NULL,
    topic           TEXT NOT NULL,
    context         TEXT NOT NULL,
    payload         TEXT NOT NULL DEFAULT '{}',
    data_url        TEXT NOT NULL DEFAULT '',
    callback_url    TEXT NOT NULL DEFAULT '',
    namespaces      TEXT NOT NULL DEFAULT '[]',
    created_at      INTEGER NOT NULL,
    acknowledged_at INTEGER,
    acknowledged_by TEXT NOT NULL DEFAULT ''
);
CREATE INDEX events_environment ON events(environment_id, created_at);
CREATE INDEX events_account ON events(account_id, created_at);
CREATE INDEX events_space ON events(space_id, created_at);
