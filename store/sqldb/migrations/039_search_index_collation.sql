-- Nothing to do on SQLite: its FTS5 indexes already fold ASCII case
-- (postgres/039_search_index_collation.sql rebuilds the trigram indexes).
SELECT 1;
