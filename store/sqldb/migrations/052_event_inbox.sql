-- Nothing to do on SQLite: see postgres/052_event_inbox.sql (one writer at a time numbers
-- events in commit order as it inserts them).
SELECT 1;
