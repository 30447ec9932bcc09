-- PostgreSQL form of ../007_files.sql (keep the two in step).
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
    size           BIGINT NOT NULL DEFAULT 0,
    bytes_received BIGINT NOT NULL DEFAULT 0,
    actions        TEXT NOT NULL DEFAULT '[]',
    workbook_id    TEXT NOT NULL DEFAULT '',
    sheet_id       TEXT NOT NULL DEFAULT '',
    description    TEXT NOT NULL DEFAULT '',
    created_by     TEXT NOT NULL DEFAULT '',
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    deleted_at     BIGINT
);
CREATE INDEX files_space ON files(space_id, created_at);
