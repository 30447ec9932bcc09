-- The grid's layout as each person left it in a sheet: column widths by field key.
CREATE TABLE sheet_layouts (
    user_id    TEXT NOT NULL,
    sheet_id   TEXT NOT NULL,
    widths     TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, sheet_id)
);
