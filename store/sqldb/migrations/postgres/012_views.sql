-- PostgreSQL form of ../012_views.sql (keep the two in step).
-- Saved views: filters, sorting and search of a sheet, by the person who saved them.
CREATE TABLE views (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    sheet_id   TEXT NOT NULL,
    name       TEXT NOT NULL,
    config     TEXT NOT NULL DEFAULT '{}',
    created_by TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX views_sheet ON views(sheet_id, created_at);
