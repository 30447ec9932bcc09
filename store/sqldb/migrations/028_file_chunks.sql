-- Nothing to do on SQLite: one node keeps files' bytes in the data directory
-- (postgres/028_file_chunks.sql stores them in the database for every node).
SELECT 1;
