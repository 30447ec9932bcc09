-- Data clips: some records of a sheet copied into a sheet of their own (in a workbook of the
-- same space) for collaborators, with a restricted or public shared link.
CREATE TABLE data_clips (
    id                 TEXT PRIMARY KEY,
    account_id         TEXT NOT NULL REFERENCES accounts(id),
    environment_id     TEXT NOT NULL,
    space_id           TEXT NOT NULL,
    workbook_id        TEXT NOT NULL,
    source_sheet_id    TEXT NOT NULL,
    clip_sheet_id      TEXT NOT NULL,
    name               TEXT NOT NULL,
    description        TEXT NOT NULL DEFAULT '',
    status             TEXT NOT NULL DEFAULT 'active',
    collaborators      TEXT NOT NULL DEFAULT '[]',
    shared_link_access TEXT NOT NULL DEFAULT 'restricted',
    guest_id           TEXT NOT NULL DEFAULT '',
    access_token       TEXT NOT NULL DEFAULT '',
    created_by         TEXT NOT NULL DEFAULT '',
    merged_at          INTEGER,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    deleted_at         INTEGER
);
CREATE INDEX data_clips_space ON data_clips(space_id, created_at);
CREATE INDEX data_clips_source ON data_clips(source_sheet_id);
