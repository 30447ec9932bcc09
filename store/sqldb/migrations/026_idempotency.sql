-- Idempotent writes: a client that sends Idempotency-Key gets, for 24 hours, the
-- first answer to that key instead of a second write.
CREATE TABLE idempotency_keys (
    id           TEXT PRIMARY KEY,          -- sha256 of the principal and the key
    fingerprint  TEXT NOT NULL,             -- method, path and body digest of the first request
    node         TEXT NOT NULL,             -- the server process that is answering it
    committed    INTEGER NOT NULL DEFAULT 0, -- set in the transaction of the request's first write
    status       INTEGER,                   -- NULL while the first request is in flight
    content_type TEXT NOT NULL DEFAULT '',
    body         BLOB,
    created_at   INTEGER NOT NULL
);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
