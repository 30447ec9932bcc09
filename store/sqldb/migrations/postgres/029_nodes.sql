-- PostgreSQL only: the Sluice nodes sharing the database. Each writes seen_at every few
-- seconds; the others take over the work of one that stops doing so (its running jobs fail,
-- its half-extracted files fail).
CREATE TABLE nodes (
    id         TEXT PRIMARY KEY,
    started_at BIGINT NOT NULL,
    seen_at    BIGINT NOT NULL
);
