-- The distinct values of fields with too many to keep in record_values (ids, e-mails), a row
-- each, for the filter-by-value menu and GET /v1/sheets/:id/cells on big sheets (issue 17,
-- value_counts.go). Built in the background as a generation; record_values.state 2 says the
-- field's values are here, generation record_values.gen, kept in step by every write. Rows
-- of other generations are left over and cleared by the next build.
ALTER TABLE record_values ADD COLUMN gen INTEGER NOT NULL DEFAULT 0;
CREATE TABLE value_counts (
    sk    INTEGER NOT NULL,
    col   INTEGER NOT NULL,
    gen   INTEGER NOT NULL,
    v     TEXT NOT NULL,     -- the value's JSON as stored
    n     REAL NOT NULL,     -- its place among values of one count: the number (booleans 1/0), +∞ for text
    t     TEXT,              -- then the text (NULL for numbers)
    total INTEGER NOT NULL,  -- records holding it
    valid INTEGER NOT NULL,  -- valid records holding it
    PRIMARY KEY (sk, col, gen, v)
) WITHOUT ROWID;
-- The most frequent first, and in value order: a page of the menu or of the API is a range
-- of one of these indexes, which hold every column read (v, as the key's end) so that a
-- whole list is read from the index alone.
CREATE INDEX value_counts_top ON value_counts (sk, col, gen, total DESC, n, t, valid);
CREATE INDEX value_counts_order ON value_counts (sk, col, gen, n, t, total, valid);
