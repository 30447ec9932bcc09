-- PostgreSQL only: event payloads are compressed with lz4 where the server has it. An
-- import batch's records:created names its 20,000 record ids (580 kB that pglz compresses
-- slowly and barely: 6 ms a batch, inside the write lock); lz4 takes a fraction of that.
-- A server built without lz4 keeps pglz.
DO $$
BEGIN
    ALTER TABLE events ALTER COLUMN payload SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'lz4 is not available: event payloads stay compressed with pglz';
END $$;
