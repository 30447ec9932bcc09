-- The nodes table on SQLite too (postgres/029_nodes.sql), with the process column of
-- postgres/047: one node writes no heartbeats here, so the table stays empty and a key left
-- in flight by another process is always one a stopped process left.
CREATE TABLE nodes (
    id         TEXT PRIMARY KEY,
    started_at INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL,
    process    TEXT NOT NULL DEFAULT ''
);
