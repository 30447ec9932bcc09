-- Nothing to do on SQLite: one node, no heartbeats (postgres/029_nodes.sql).
SELECT 1;
