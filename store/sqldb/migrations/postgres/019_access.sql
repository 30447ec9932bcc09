-- PostgreSQL form of ../019_access.sql (keep the two in step).
-- Access hardening: users invited with an environment's key reach that environment
-- only; a user's token_version ends every token issued before a password change; dashboard
-- sessions live on the server (the cookie holds only the session id) so logout, password
-- change and user deletion end them at once.
ALTER TABLE users ADD COLUMN environment_id TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN token_version BIGINT NOT NULL DEFAULT 0;

CREATE TABLE sessions (
    id_hash        TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL,
    account_id     TEXT NOT NULL,
    email          TEXT NOT NULL DEFAULT '',
    environment_id TEXT NOT NULL DEFAULT '',
    guest_space    TEXT NOT NULL DEFAULT '',
    client_addr    TEXT NOT NULL DEFAULT '',
    created_at     BIGINT NOT NULL,
    seen_at        BIGINT NOT NULL,
    ended_at       BIGINT
);
CREATE INDEX sessions_user ON sessions(user_id);
