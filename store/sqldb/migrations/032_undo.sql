-- The grid's undo history: the last changes each person made in a sheet through
-- the grid, and for each what it replaced, so that undo writes the earlier values back as a
-- new commit and redo writes the later ones again.
CREATE TABLE undo_entries (
    uk         INTEGER PRIMARY KEY,
    sk         INTEGER NOT NULL,           -- the record sheet
    actor      TEXT NOT NULL,
    what       TEXT NOT NULL,              -- edit, paste, fill, add, delete, replace, clear, set
    count      INTEGER NOT NULL DEFAULT 0, -- records it changed
    undone     INTEGER NOT NULL DEFAULT 0, -- 1 once undone (until redone)
    side       INTEGER NOT NULL DEFAULT 0, -- the side of undo_records that puts it back
    created_at INTEGER NOT NULL
);
CREATE INDEX undo_entries_actor ON undo_entries(sk, actor, uk);
CREATE INDEX undo_entries_age ON undo_entries(created_at);

-- undo_records hold, per entry and side, what each record was before: kind 0 a record the
-- change added (putting back removes it), 1 one it changed (fields: the keys of the fields
-- it changed; putting back restores them), 2 one it removed (added back as it was).
CREATE TABLE undo_records (
    uk     INTEGER NOT NULL,
    side   INTEGER NOT NULL,
    rid    INTEGER NOT NULL,
    kind   INTEGER NOT NULL,
    fields TEXT,
    vals   TEXT,
    x      TEXT,
    PRIMARY KEY (uk, side, rid)
) WITHOUT ROWID;
