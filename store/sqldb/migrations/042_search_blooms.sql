-- Nothing to do on SQLite: searches before the FTS5 index is built scan
-- (postgres/042_search_blooms.sql keeps Bloom filters for PostgreSQL's slower scan).
SELECT 1;
