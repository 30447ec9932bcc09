-- changes counts the committed writes to a sheet's records (every write updates its row of
-- record_sheets, under the row's lock, so the count follows commit order). A node compares it
-- with the count its kept sorted orders and value lists were computed at (PostgreSQL: other
-- nodes write too).
ALTER TABLE record_sheets ADD COLUMN changes INTEGER NOT NULL DEFAULT 0;
