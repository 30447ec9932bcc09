-- PostgreSQL form of ../024_embedding.sql (keep the two in step).
-- Embedding: the origins allowed to call the API from a browser (CORS) and to frame
-- Sluice's pages, per account (Flatfile's embeddedDomainWhitelist). A JSON array of origins.
ALTER TABLE accounts ADD COLUMN embedded_domains TEXT NOT NULL DEFAULT '[]';
