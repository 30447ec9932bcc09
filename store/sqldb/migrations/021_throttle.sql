-- Throttling of credential checks: failures per account (e-mail or client id) and
-- per client address, with the time before the next attempt is allowed. Kept in the database
-- so a restart does not reset it.
CREATE TABLE auth_throttle (
    key          TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    locked_until INTEGER NOT NULL DEFAULT 0,
    updated_at   INTEGER NOT NULL
);
