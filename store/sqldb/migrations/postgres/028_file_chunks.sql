-- PostgreSQL only: files' bytes, so every node reads what any node received (SQLite keeps
-- them in the data directory). One row per chunk of at most 1 MiB, written and read one at
-- a time, so no file is ever whole in memory.
CREATE TABLE file_chunks (
    file_id    TEXT NOT NULL,
    n          BIGINT NOT NULL,   -- 0, 1, 2 … in order
    data       BYTEA NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (file_id, n)
);
