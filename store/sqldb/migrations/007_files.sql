-- Files uploaded to a space; their bytes live under <data dir>/files/<id>.
CREATE TABLE files (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    environment_id TEXT NOT NULL,
    space_id       TEXT NOT NULL REFERENCES spaces(id),
    name           TEXT NOT NULL,
    ext            TEXT NOT NULL DEFAULT '',
    mimetype       TEXT NOT NULL DEFAULT '',
    encoding       TEXT NOT NULL DEFAULT '',
    status         TEXT NOT NULL DEFAULT 'partial',
    mode           TEXT NOT NULL DEFAULT 'import',
    origin         TEXT NOT NULL DEFAULT 'filesystem',
    size           INTEGER NOT NULL DEFAULT 0,
    bytes_received INTEGER NOT NULL DEFAULT 0,
    actions        TEXT NOT NULL DEFAULT '[]',
    workbook_id    TEXT NOT NULL DEFAULT '',
    sheet_id       TEXT NOT NULL DEFAULT '',
    description    TEXT NOT NULL DEFAULT '',
    created_by     TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    deleted_at     INTEGER
);
CREATE INDEX files_space ON files(space_id, created_at);
