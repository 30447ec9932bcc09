-- SQLite only: the sheets that have an FTS5 trigram search index (records_search_<sk>, a
-- contentless table keyed by rid, search_fts_sqlite.go). It is built a slice of the sheet at a
-- time: records up to upto are in it and kept there by every write; ready once the whole
-- sheet is, and searches use it from then on.
CREATE TABLE search_indexes (
    sk    INTEGER PRIMARY KEY,
    upto  INTEGER NOT NULL,
    ready INTEGER NOT NULL DEFAULT 0
);
