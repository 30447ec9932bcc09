-- API keys at rest: api_keys.raw holds "sha256:<hex>" of the key, never the key.
-- sealed is the key encrypted under the master key (outside the database): publishable keys
-- are public and stay visible, a secret key signs its environment's webhooks. hint is what a
-- list shows of a secret key after it was revealed once (at creation, or at its first list).
-- Keys stored before this migration are hashed and sealed by the server at its next start.
ALTER TABLE api_keys ADD COLUMN sealed BLOB;
ALTER TABLE api_keys ADD COLUMN hint TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN revealed_at INTEGER;
