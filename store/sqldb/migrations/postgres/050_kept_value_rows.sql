-- PostgreSQL form of ../050_kept_value_rows.sql (keep the two in step): kept value lists
-- as a row per value, so that a write upserts its values instead of reading and rewriting
-- each field's whole list.
CREATE TABLE kept_values (
    sk    BIGINT NOT NULL,
    col   BIGINT NOT NULL,
    v     TEXT NOT NULL COLLATE "C",
    total BIGINT NOT NULL,
    valid BIGINT NOT NULL,
    PRIMARY KEY (sk, col, v)
);
ALTER TABLE record_values ADD COLUMN n BIGINT NOT NULL DEFAULT 0;
ALTER TABLE record_values ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0;
DELETE FROM record_values WHERE state = 0;
