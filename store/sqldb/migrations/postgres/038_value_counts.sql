-- PostgreSQL form of ../038_value_counts.sql (keep the two in step).
ALTER TABLE record_values ADD COLUMN gen BIGINT NOT NULL DEFAULT 0;
CREATE TABLE value_counts (
    sk    BIGINT NOT NULL,
    col   BIGINT NOT NULL,
    gen   BIGINT NOT NULL,
    n     DOUBLE PRECISION NOT NULL,
    t     TEXT COLLATE "C" NOT NULL,
    v     TEXT COLLATE "C" NOT NULL,
    total BIGINT NOT NULL,
    valid BIGINT NOT NULL,
    PRIMARY KEY (sk, col, gen, n, t, v)
);
CREATE INDEX value_counts_many ON value_counts (sk, col, gen, total DESC, n, t, v) INCLUDE (valid) WHERE total > 1;
