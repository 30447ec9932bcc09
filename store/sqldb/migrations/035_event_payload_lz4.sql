-- Nothing to do on SQLite: payload compression is PostgreSQL's TOAST
-- (postgres/035_event_payload_lz4.sql).
SELECT 1;
