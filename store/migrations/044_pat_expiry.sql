-- A personal access token may expire (issue 38): NULL keeps it until it is revoked.
ALTER TABLE personal_access_tokens ADD COLUMN expires_at INTEGER;
