-- Nothing to do on PostgreSQL: ../037_search_indexes.sql tracks SQLite's FTS5 indexes;
-- PostgreSQL's trigram indexes are created by search_trgm_postgres.go as they are built.
SELECT 1;
