-- A personal access token may expire: NULL keeps it until it is revoked.
ALTER TABLE personal_access_tokens ADD COLUMN expires_at INTEGER;
