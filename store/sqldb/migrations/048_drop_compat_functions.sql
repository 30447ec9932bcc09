-- Nothing to do on SQLite: its own json_each, json_extract and instr are what PostgreSQL
-- imitated until postgres/048_drop_compat_functions.sql.
SELECT 1;
