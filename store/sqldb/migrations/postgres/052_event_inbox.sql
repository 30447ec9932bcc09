-- PostgreSQL only. A write's events go into this inbox, unnumbered, without taking any lock;
-- the sequencer (sqldb.DB.SequenceEvents) moves what is committed here into events, one
-- short transaction at a time under the events lock, so that events are still numbered in
-- commit order while writes no longer queue cluster-wide on that lock through their commits.
-- An inbox row is an event's row without its number and acknowledgement (its payload
-- compressed as events' are: lz4 where the server has it, 035).
CREATE TABLE event_inbox (
    ord BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    LIKE events INCLUDING DEFAULTS INCLUDING COMPRESSION
);
ALTER TABLE event_inbox DROP COLUMN seq, DROP COLUMN acknowledged_at, DROP COLUMN acknowledged_by;
