-- The SQLite-compatible functions are pure (IMMUTABLE, no side effects), but were created
-- without PARALLEL SAFE, which PostgreSQL then takes as unsafe: any query calling one (a
-- search's per-field recheck calls instr) ran in one process. Marked safe, a search that
-- scans 1,000,000 records runs on parallel workers: 590 ms through the API, 330 after.
ALTER FUNCTION sluice_json_path(text) PARALLEL SAFE;
ALTER FUNCTION json_extract(text, text) PARALLEL SAFE;
ALTER FUNCTION json_each(text) PARALLEL SAFE;
ALTER FUNCTION json_each(text, text) PARALLEL SAFE;
ALTER FUNCTION json_array_length(text) PARALLEL SAFE;
ALTER FUNCTION json_quote(text) PARALLEL SAFE;
ALTER FUNCTION instr(text, text) PARALLEL SAFE;
ALTER FUNCTION instr(bytea, bytea) PARALLEL SAFE;
