-- PostgreSQL form of ../033_sheet_layouts.sql (keep the two in step).
CREATE TABLE sheet_layouts (
    user_id    TEXT NOT NULL,
    sheet_id   TEXT NOT NULL,
    widths     TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, sheet_id)
);
