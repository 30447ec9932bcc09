-- The store's queries no longer call SQLite's functions on PostgreSQL: the dialect spells
-- them natively (strpos, #>>, jsonb_array_elements_text, jsonb_path_exists…), so the
-- imitations 000_compat.sql created go, and a query that still calls one fails in the tests.
DROP FUNCTION json_each(text, text);
DROP FUNCTION json_each(text);
DROP FUNCTION json_extract(text, text);
DROP FUNCTION json_array_length(text);
DROP FUNCTION json_quote(text);
DROP FUNCTION instr(text, text);
DROP FUNCTION instr(bytea, bytea);
DROP FUNCTION sluice_json_path(text);
