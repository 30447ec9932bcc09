-- Guests: people outside the account who open the spaces granted to them.
CREATE TABLE guests (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    environment_id TEXT NOT NULL,
    email          TEXT NOT NULL COLLATE NOCASE,
    name           TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    deleted_at     INTEGER
);
CREATE UNIQUE INDEX guests_env_email ON guests(environment_id, email) WHERE deleted_at IS NULL;

CREATE TABLE guest_spaces (
    guest_id      TEXT NOT NULL REFERENCES guests(id),
    space_id      TEXT NOT NULL REFERENCES spaces(id),
    last_accessed INTEGER,
    PRIMARY KEY (guest_id, space_id)
) WITHOUT ROWID;
CREATE INDEX guest_spaces_space ON guest_spaces(space_id);
