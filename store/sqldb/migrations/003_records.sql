-- Records engine: records, their counts, unique-value index, versions and snapshots.
--
-- A record's integer key `rid` is (sheet key << 36) | sequence within the sheet, so one
-- sheet's records sit together in the table's own b-tree in insertion order: paging a sheet
-- is a range scan of the primary key, and no (sheet, rowid) index is needed. The public id
-- us_rc_… is a reversible scramble of rid (store/records_ids.go).

CREATE TABLE record_sheets (
    sk          INTEGER PRIMARY KEY,          -- sheet key, the high bits of rid
    sheet_id    TEXT NOT NULL UNIQUE,
    next_seq    INTEGER NOT NULL DEFAULT 1,   -- next sequence number within the sheet
    total       INTEGER NOT NULL DEFAULT 0,
    valid       INTEGER NOT NULL DEFAULT 0,
    schema_hash TEXT NOT NULL DEFAULT ''      -- validation-relevant config the records were checked against
);

-- Where each field's value sits in a record's values array. Positions are never reused:
-- when the schema drops a field its position is retired, and a field added again later
-- under the same key starts empty at a new one.
CREATE TABLE record_columns (
    sk        INTEGER NOT NULL,
    col       INTEGER NOT NULL,
    field_key TEXT NOT NULL,
    retired   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (sk, col)
) WITHOUT ROWID;

-- Errors and empty cells per field, kept in step with every write.
CREATE TABLE record_field_counts (
    sk        INTEGER NOT NULL,
    field_key TEXT NOT NULL,
    errors    INTEGER NOT NULL DEFAULT 0,
    empties   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (sk, field_key)
) WITHOUT ROWID;

CREATE TABLE records (
    rid        INTEGER PRIMARY KEY,
    vals       TEXT NOT NULL,     -- [value, …] at the positions record_columns gives each field; null when empty
    -- NULL for most records, else {"m": Sluice's own messages per field (type, required, enum,
    -- references), "u": messages written by agents and hooks per field, "r": record-level
    -- messages from agents, "meta": record metadata, "cfg": record config {readonly, fields,
    -- markedForDeletion}}. One column, so a clean record binds and stores little.
    x          TEXT,
    efs        TEXT,              -- keys of fields with an error in m or u, as x'1f' k1 x'1f' k2 x'1f'
    dups       TEXT,              -- unique rules (uc) this record breaks, as ',uc1,uc2,'
    valid      INTEGER NOT NULL,
    vseq       INTEGER NOT NULL   -- version of the last change; its time is the record's updatedAt
);
-- filter=error pages scan only records with errors.
CREATE INDEX records_errors ON records(rid) WHERE valid = 0;
-- versionId / sinceVersionId.
CREATE INDEX records_version ON records(vseq);

-- One row per unique constraint of a sheet (a field's own, or a composite one).
CREATE TABLE unique_rules (
    uc   INTEGER PRIMARY KEY,
    sk   INTEGER NOT NULL,
    name TEXT NOT NULL,
    UNIQUE (sk, name)
);

-- The value index behind unique checks: a write looks up only the values it touches. The
-- first record with a value is its holder; every further record with it is in record_dups,
-- so a value is duplicated exactly when record_dups has a row for it, and inserting a fresh
-- value is one insert that nothing has to look up.
CREATE TABLE record_uniques (
    uc  INTEGER NOT NULL,
    val TEXT NOT NULL,
    rid INTEGER NOT NULL,
    PRIMARY KEY (uc, val)
) WITHOUT ROWID;

CREATE TABLE record_dups (
    uc  INTEGER NOT NULL,
    val TEXT NOT NULL,
    rid INTEGER NOT NULL,
    PRIMARY KEY (uc, val, rid)
) WITHOUT ROWID;

-- Versions of record writes; the id is the commit id when the write has a commit.
CREATE TABLE record_versions (
    vseq       INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    sk         INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE snapshots (
    ssk        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    sheet_id   TEXT NOT NULL,
    label      TEXT NOT NULL DEFAULT '',
    thread_id  TEXT NOT NULL DEFAULT '',
    config     TEXT NOT NULL,             -- the sheet's config when the snapshot was taken
    created_by TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
);
CREATE INDEX snapshots_sheet ON snapshots(sheet_id, created_at);

CREATE TABLE snapshot_records (
    ssk   INTEGER NOT NULL,
    rid   INTEGER NOT NULL,
    vals  TEXT NOT NULL,
    x     TEXT,
    PRIMARY KEY (ssk, rid)
) WITHOUT ROWID;
