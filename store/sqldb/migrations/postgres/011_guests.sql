-- PostgreSQL form of ../011_guests.sql (keep the two in step).
-- Guests: people outside the account who open the spaces granted to them.
CREATE TABLE guests (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    environment_id TEXT NOT NULL,
    email          CITEXT NOT NULL,
    name           TEXT NOT NULL DEFAULT '',
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    deleted_at     BIGINT
);
CREATE UNIQUE INDEX guests_env_email ON guests(environment_id, email) WHERE deleted_at IS NULL;

CREATE TABLE guest_spaces (
    guest_id      TEXT NOT NULL REFERENCES guests(id),
    space_id      TEXT NOT NULL REFERENCES spaces(id),
    last_accessed BIGINT,
    PRIMARY KEY (guest_id, space_id)
);
CREATE INDEX guest_spaces_space ON guest_spaces(space_id);
