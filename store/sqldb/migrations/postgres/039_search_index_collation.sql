-- Searches match the values' text in the "C" collation (ASCII case folded, as on SQLite), so
-- the sheets' trigram indexes are over that expression now. The ones built before cannot
-- answer it: they are dropped, and each sheet's next search builds its new one.
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT indexname FROM pg_indexes WHERE indexname LIKE 'records\_search\_%' LOOP
        EXECUTE 'DROP INDEX IF EXISTS ' || quote_ident(r.indexname);
    END LOOP;
END $$;
