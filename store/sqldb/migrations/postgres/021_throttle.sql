-- PostgreSQL form of ../021_throttle.sql (keep the two in step).
-- Throttling of credential checks: failures per account (e-mail or client id) and
-- per client address, with the time before the next attempt is allowed. Kept in the database
-- so a restart does not reset it.
CREATE TABLE auth_throttle (
    key          TEXT PRIMARY KEY,
    failures     BIGINT NOT NULL,
    locked_until BIGINT NOT NULL DEFAULT 0,
    updated_at   BIGINT NOT NULL
);
