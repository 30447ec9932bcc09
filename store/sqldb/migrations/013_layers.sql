-- Layers: named overlays a sheet's cell values can be written in (a cell value's `layer`).
-- A layer exists once a write first uses its name in the sheet; layer:created announces it.
CREATE TABLE sheet_layers (
    sheet_id   TEXT NOT NULL REFERENCES sheets(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (sheet_id, name)
) WITHOUT ROWID;
