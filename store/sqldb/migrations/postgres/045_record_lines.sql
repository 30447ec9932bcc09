-- PostgreSQL form of ../045_record_lines.sql (keep the two in step).
-- Where imported records came from: the n records from rid on were rows line, line+1, … of
-- file (its id). Written by file imports, one run per transaction; the grid shows a record's
-- row in its file. Records added otherwise have none.
CREATE TABLE record_lines (
    rid  BIGINT PRIMARY KEY,
    n    BIGINT NOT NULL,
    line BIGINT NOT NULL,
    file TEXT NOT NULL
);
