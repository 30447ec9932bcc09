-- PostgreSQL only: the SQLite functions the store's queries use, with SQLite's answers, so
-- one query text serves both engines (store/dialect.go rewrites the rest). JSON columns stay
-- text, as in SQLite; these parse them as jsonb.

CREATE EXTENSION IF NOT EXISTS citext;

-- A SQLite JSON path ($, $.a.b, $."a b", $[3], $.a[2].b) as a text[] path for #> and #>>.
CREATE FUNCTION sluice_json_path(path text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    out text[] := '{}';
    i int := 2; -- after the $
    n int := length(path);
    c text;
    j int;
BEGIN
    WHILE i <= n LOOP
        c := substr(path, i, 1);
        IF c = '.' THEN
            i := i + 1;
            IF substr(path, i, 1) = '"' THEN
                j := strpos(substr(path, i + 1), '"');
                out := out || substr(path, i + 1, j - 1);
                i := i + j + 1;
            ELSE
                j := i;
                WHILE j <= n AND substr(path, j, 1) NOT IN ('.', '[') LOOP j := j + 1; END LOOP;
                out := out || substr(path, i, j - i);
                i := j;
            END IF;
        ELSIF c = '[' THEN
            j := strpos(substr(path, i), ']');
            out := out || substr(path, i + 1, j - 2);
            i := i + j;
        ELSE
            RAISE EXCEPTION 'bad JSON path %', path;
        END IF;
    END LOOP;
    RETURN out;
END $$;

-- json_extract(doc, path): a scalar as text (strings unquoted, true/false as 1/0 like
-- SQLite), objects and arrays as JSON text, NULL for JSON null or a missing path.
CREATE FUNCTION json_extract(doc text, path text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE jsonb_typeof(v)
        WHEN 'null' THEN NULL
        WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN '1' ELSE '0' END
        WHEN 'string' THEN v #>> '{}'
        ELSE v::text END
    FROM (SELECT (doc::jsonb) #> sluice_json_path(path) AS v) x
$$;

-- json_each(doc[, path]): one row per element or member (key, value as json_extract gives
-- it, type).
CREATE FUNCTION json_each(doc text) RETURNS TABLE (key text, value text, type text) LANGUAGE sql IMMUTABLE AS $$
    SELECT k, CASE jsonb_typeof(v) WHEN 'string' THEN v #>> '{}' WHEN 'null' THEN NULL
               WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN '1' ELSE '0' END ELSE v::text END, jsonb_typeof(v)
    FROM (SELECT (e.o - 1)::text AS k, e.v FROM jsonb_array_elements(doc::jsonb) WITH ORDINALITY AS e(v, o)
          WHERE jsonb_typeof(doc::jsonb) = 'array'
          UNION ALL
          SELECT m.key, m.value FROM jsonb_each(doc::jsonb) m WHERE jsonb_typeof(doc::jsonb) = 'object') x(k, v)
$$;

CREATE FUNCTION json_each(doc text, path text) RETURNS TABLE (key text, value text, type text) LANGUAGE sql IMMUTABLE AS $$
    SELECT * FROM json_each(((doc::jsonb) #> sluice_json_path(path))::text)
$$;

CREATE FUNCTION json_array_length(doc text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_array_length(doc::jsonb)::bigint
$$;

CREATE FUNCTION json_quote(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT to_jsonb(v)::text
$$;

-- instr(haystack, needle): 1-based position, 0 when absent.
CREATE FUNCTION instr(haystack text, needle text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT strpos(haystack, needle)::bigint
$$;

CREATE FUNCTION instr(haystack bytea, needle bytea) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT position(needle IN haystack)::bigint
$$;

-- SQLite's NOCASE: equal and ordered ignoring case (ICU, so beyond ASCII too).
CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
