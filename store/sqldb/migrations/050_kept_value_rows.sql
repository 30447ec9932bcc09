-- Kept value lists as a row per value instead of one encoded list per field: a write adds
-- and removes its values with one upsert instead of reading and rewriting every field's
-- whole list (up to 256 KiB each, on every write of a sheet under 4,096 records). n and
-- bytes count a list's values and their bytes, for its limits. Lists kept before are
-- forgotten: a field's list is counted again at its next request, and kept when small.
CREATE TABLE kept_values (
    sk    INTEGER NOT NULL,
    col   INTEGER NOT NULL,
    v     TEXT NOT NULL,          -- the value as stored (its JSON text)
    total INTEGER NOT NULL,
    valid INTEGER NOT NULL,
    PRIMARY KEY (sk, col, v)
) WITHOUT ROWID;
ALTER TABLE record_values ADD COLUMN n INTEGER NOT NULL DEFAULT 0;
ALTER TABLE record_values ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
DELETE FROM record_values WHERE state = 0;
