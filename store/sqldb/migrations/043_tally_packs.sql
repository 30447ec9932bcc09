-- Nothing to do on SQLite: tallies read the records' JSON text directly
-- (postgres/043_tally_packs.sql keeps packs for PostgreSQL's jsonb).
SELECT 1;
