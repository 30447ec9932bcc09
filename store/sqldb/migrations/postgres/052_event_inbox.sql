-- PostgreSQL only. A write's events go into this inbox, unnumbered, without taking any lock;
-- the sequencer (sqldb.DB.SequenceEvents) moves what is committed here into events, one
-- short transaction at a time under the events lock, so that events are still numbered in
-- commit order while writes no longer queue cluster-wide on that lock through their commits.
CREATE TABLE event_inbox (
    ord             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              TEXT NOT NULL,
    account_id      TEXT NOT NULL,
    environment_id  TEXT NOT NULL,
    space_id        TEXT NOT NULL DEFAULT '',
    domain          TEXT NOT NULL,
    topic           TEXT NOT NULL,
    context         TEXT NOT NULL,
    payload         TEXT NOT NULL DEFAULT '{}',
    data_url        TEXT NOT NULL DEFAULT '',
    callback_url    TEXT NOT NULL DEFAULT '',
    namespaces      TEXT NOT NULL DEFAULT '[]',
    created_at      BIGINT NOT NULL
);
DO $$
BEGIN
    ALTER TABLE event_inbox ALTER COLUMN payload SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'lz4 is not available: inbox payloads stay compressed with pglz';
END $$;
