-- Nothing to do on SQLite: see postgres/051_write_again.sql (a write's statements cost no
-- round trip here, so no write sends them on a guess).
SELECT 1;
