-- PostgreSQL form of ../031_record_shape.sql (keep the two in step).
ALTER TABLE record_sheets ADD COLUMN shape BIGINT NOT NULL DEFAULT 0;
