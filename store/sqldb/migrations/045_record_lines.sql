-- Where imported records came from: the n records from rid on were rows line, line+1, … of
-- file (its id). Written by file imports, one run per transaction; the grid shows a record's
-- row in its file. Records added otherwise have none.
CREATE TABLE record_lines (
    rid  INTEGER PRIMARY KEY,
    n    INTEGER NOT NULL,
    line INTEGER NOT NULL,
    file TEXT NOT NULL
);
