-- PostgreSQL form of ../018_users.sql (keep the two in step).
-- Users of an account beyond the first admin: invited by e-mail, holding at most one active
-- invitation (a new one revokes the previous), and the outbox of e-mail Sluice sends.
ALTER TABLE users ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE users ADD COLUMN dashboard BIGINT;
ALTER TABLE users ADD COLUMN last_seen_at BIGINT;
ALTER TABLE users ADD COLUMN deleted_at BIGINT;

CREATE TABLE invitations (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users(id),
    account_id  TEXT NOT NULL,
    token_hash  TEXT NOT NULL UNIQUE,
    created_by  TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    accepted_at BIGINT,
    revoked_at  BIGINT
);
CREATE INDEX invitations_user ON invitations(user_id);

CREATE TABLE outbox (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    to_addr    TEXT NOT NULL,
    subject    TEXT NOT NULL,
    html       TEXT NOT NULL,
    text       TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    sent_at    BIGINT,
    error      TEXT NOT NULL DEFAULT '',
    rowid      BIGINT GENERATED ALWAYS AS IDENTITY -- SQLite's insertion order
);
CREATE INDEX outbox_account ON outbox(account_id, created_at);
