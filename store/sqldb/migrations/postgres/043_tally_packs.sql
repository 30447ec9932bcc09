-- Per block of 1,024 record keys of a sheet and value position, the values of its records
-- as a distinct-values tally reads them (tally_packs_postgres.go): a line each, a string's text or,
-- after a byte 1, a number's or a boolean's JSON text; empty values left out. A tally of a
-- field with a value per record reads these (45 ms for 1,000,000 e-mails) instead of every
-- record's jsonb (390 ms of PostgreSQL's CPU). A block has a row only while it holds every
-- record of the block; a write that changes a value of the position, deletes a record or
-- adds one the row does not take deletes it. num: 1 when a line is JSON text (a text
-- field's tally, which takes numbers as text, reads the records instead).
CREATE TABLE tally_packs (
    sk    BIGINT NOT NULL,
    col   INTEGER NOT NULL,
    blk   BIGINT NOT NULL,
    lines TEXT NOT NULL,
    num   INTEGER NOT NULL,
    PRIMARY KEY (sk, col, blk)
);
-- (lz4 where the server has it: a quarter of the size for e-mails, read as fast; pglz,
-- PostgreSQL's default, compresses several times slower)
DO $$
BEGIN
    ALTER TABLE tally_packs ALTER COLUMN lines SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
    ALTER TABLE tally_packs ALTER COLUMN lines SET STORAGE EXTERNAL;
END $$;
