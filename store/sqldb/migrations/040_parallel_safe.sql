-- Nothing to do on SQLite: the compatibility functions are PostgreSQL's
-- (postgres/040_parallel_safe.sql).
SELECT 1;
