-- Nothing to do on SQLite: files' chunks live in the data directory
-- (postgres/030_file_chunks_storage.sql).
SELECT 1;
