-- PostgreSQL form of ../036_value_lists.sql (keep the two in step).
CREATE TABLE record_values (
    sk    BIGINT NOT NULL,
    col   BIGINT NOT NULL,
    state BIGINT NOT NULL,
    list  BYTEA NOT NULL,
    PRIMARY KEY (sk, col)
);
