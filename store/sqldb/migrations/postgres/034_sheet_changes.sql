-- PostgreSQL form of ../034_sheet_changes.sql (keep the two in step).
ALTER TABLE record_sheets ADD COLUMN changes BIGINT NOT NULL DEFAULT 0;
