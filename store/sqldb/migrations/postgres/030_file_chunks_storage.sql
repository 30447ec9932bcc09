-- Files' chunks are stored as they come: most uploads (xlsx, zip, gzip) are already
-- compressed, and compressing a CSV's chunks on the way in cost more time than the upload
-- (issue 15's import benchmark). EXTERNAL keeps them out of line without pglz.
ALTER TABLE file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
