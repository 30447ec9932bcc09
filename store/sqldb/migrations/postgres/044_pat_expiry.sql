-- PostgreSQL form of ../044_pat_expiry.sql (keep the two in step).
-- A personal access token may expire: NULL keeps it until it is revoked.
ALTER TABLE personal_access_tokens ADD COLUMN expires_at BIGINT;
