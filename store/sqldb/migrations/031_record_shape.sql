-- shape changes whenever records are added to or removed from a sheet (not when they are
-- edited): the positions of its records are then what they were, so the page anchors a
-- node keeps (page_anchors.go) still hold.
ALTER TABLE record_sheets ADD COLUMN shape INTEGER NOT NULL DEFAULT 0;
