-- Per block of 1,024 record keys of a sheet, a Bloom filter of the trigrams of its records'
-- text values (search_blooms_postgres.go): a search right after an import, before the sheet's trigram
-- index is built, reads only the blocks that may hold its needle. A block has a row only
-- while the filter holds every record in it; writes that change a record delete its block's.
-- nums: 1 when every number's text is in the filter (a needle of number characters may trust it).
CREATE TABLE search_blooms (
    sk   BIGINT NOT NULL,
    blk  BIGINT NOT NULL,
    bits BYTEA NOT NULL,
    nums INTEGER NOT NULL,
    PRIMARY KEY (sk, blk)
);
-- (filters are dense and read whole by every search of the sheet: no compression)
ALTER TABLE search_blooms ALTER COLUMN bits SET STORAGE EXTERNAL;
