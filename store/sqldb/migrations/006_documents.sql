-- Documents: Markdown or HTML pages inside a space.
CREATE TABLE documents (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    environment_id TEXT NOT NULL,
    space_id       TEXT NOT NULL REFERENCES spaces(id),
    title          TEXT NOT NULL,
    body           TEXT NOT NULL DEFAULT '',
    treatments     TEXT NOT NULL DEFAULT '[]',
    actions        TEXT NOT NULL DEFAULT '[]',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    deleted_at     INTEGER
);
CREATE INDEX documents_space ON documents(space_id, created_at);
