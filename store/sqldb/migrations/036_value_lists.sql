-- Each field's distinct values with how many records hold them (all, and valid), kept in
-- step with every write so the filter-by-value menu and GET /v1/sheets/:id/cells answer
-- without reading the sheet. One row per value position: state 0 keeps the
-- exact list; state 1 means the field holds too many distinct values to keep, and a
-- missing row that the list is not known yet (sheets from before this table). Both are
-- answered by counting the records, and a count that finds few enough values keeps them.
CREATE TABLE record_values (
    sk    INTEGER NOT NULL,
    col   INTEGER NOT NULL,
    state INTEGER NOT NULL,
    list  BLOB NOT NULL,      -- (uvarint length, value as stored, uvarint total, uvarint valid)…
    PRIMARY KEY (sk, col)
) WITHOUT ROWID;
