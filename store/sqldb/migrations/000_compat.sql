-- Nothing to do on SQLite: postgres/000_compat.sql gives PostgreSQL the SQLite functions the
-- store's queries use (json_each, json_extract, instr). Numbered in step with it.
SELECT 1;
