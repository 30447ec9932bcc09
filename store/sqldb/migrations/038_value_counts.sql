-- The distinct values of fields with too many to keep in record_values (ids, e-mails), a row
-- each, for the filter-by-value menu and GET /v1/sheets/:id/cells on big sheets (issue 17,
-- distinct_counts.go). Built in the background when first asked for, as a generation;
-- record_values.state 2 says the field's values are here, generation record_values.gen,
-- kept in step by every write. Rows of other generations are left over and cleared by the
-- next build.
ALTER TABLE record_values ADD COLUMN gen INTEGER NOT NULL DEFAULT 0;
-- In value order (n, t: the value's place; v decides n and t, so a write finds its row by
-- the key); a page of values in order is a range of the table itself.
CREATE TABLE value_counts (
    sk    INTEGER NOT NULL,
    col   INTEGER NOT NULL,
    gen   INTEGER NOT NULL,
    n     REAL NOT NULL,     -- the number (booleans 1/0), +∞ for text: after every number
    t     TEXT NOT NULL,     -- the text of text ('' for numbers)
    v     TEXT NOT NULL,     -- the value's JSON as stored
    total INTEGER NOT NULL,  -- records holding it
    valid INTEGER NOT NULL,  -- valid records holding it
    PRIMARY KEY (sk, col, gen, n, t, v)
) WITHOUT ROWID;
-- The values held by more than one record, the most frequent first: with the table's own
-- order (the values held by one record), a page of the menu or of the API by count is a
-- range of the two. For a field with a value per record this index is tiny.
CREATE INDEX value_counts_many ON value_counts (sk, col, gen, total DESC, n, t, v, valid) WHERE total > 1;
