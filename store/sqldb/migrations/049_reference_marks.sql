-- A write of a sheet's records marks the sheets whose reference fields point at it, so that
-- their records are rechecked. The mark is a count in a table of its own, not a flag in the
-- referring sheet's row: writes of two sheets that refer to each other run side by side on
-- PostgreSQL and would otherwise each wait for the other's row. A sheet is stale while its
-- marks outnumber those its last full check saw (record_sheets.refs_checked).
CREATE TABLE sheet_ref_marks (
    sheet_id TEXT PRIMARY KEY,
    n        INTEGER NOT NULL
);
ALTER TABLE record_sheets ADD COLUMN refs_checked INTEGER NOT NULL DEFAULT 0;
