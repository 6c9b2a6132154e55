-- The search functions as PL/pgSQL (issue 31 item 3: a first day's new listings). Same results,
-- same signatures; only the language changes, so the stored search columns and the indexes over
-- them stay valid (no rewrite).
--
-- Why: the generated column listing.search_doc calls search_document once a new or renamed listing.
-- As LANGUAGE sql neither function can be inlined (unaccent and array_to_string are STABLE, the
-- functions are declared IMMUTABLE), and a SQL function calling SQL functions sets each inner call
-- up again on every outer call: 1,000 new listings spent 130-190 ms in search_document alone
-- (four search_normalize calls each), most of an INSERT INTO listing of 220-270 ms. As PL/pgSQL
-- (plans cached for the session, search_normalize evaluated once for the name) the same 1,000
-- documents take 25-35 ms and the INSERT 75-80 ms (PostgreSQL 15, a loaded 2-core machine).
--
-- Every name is schema-qualified: from PostgreSQL 17 maintenance commands (CREATE INDEX, ANALYZE,
-- REINDEX) evaluate index expressions with a search_path of pg_catalog only.

-- Lowercase, accents removed, apostrophes/backticks/hyphens/dots removed, & as a space, whitespace
-- collapsed (mirrored by normalizeSearchText in src/search/synonyms.ts; test/integration/rules-agree).
CREATE OR REPLACE FUNCTION public.search_normalize(text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
BEGIN
  RETURN pg_catalog.btrim(pg_catalog.regexp_replace(
           pg_catalog.replace(pg_catalog.regexp_replace(pg_catalog.lower(public.unaccent('public.unaccent'::regdictionary, $1)), '[''’`.-]', '', 'g'), '&', ' '),
           '\s+', ' ', 'g'));
END
$$;

-- The full-text document of a listing: its name (weight A, English stems plus unstemmed words),
-- brand (B) and category path (C), each normalised by search_normalize.
CREATE OR REPLACE FUNCTION public.search_document(name text, brand text, category_path text[]) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n text := coalesce(public.search_normalize(name), '');
BEGIN
  RETURN pg_catalog.setweight(pg_catalog.to_tsvector('pg_catalog.english'::regconfig, n), 'A')
      || pg_catalog.setweight(pg_catalog.to_tsvector('pg_catalog.simple'::regconfig, n), 'A')
      || pg_catalog.setweight(pg_catalog.to_tsvector('pg_catalog.english'::regconfig, coalesce(public.search_normalize(brand), '')), 'B')
      || pg_catalog.setweight(pg_catalog.to_tsvector('pg_catalog.english'::regconfig,
           coalesce(public.search_normalize(pg_catalog.array_to_string(category_path, ' ')), '')), 'C');
END
$$;

-- A category path as one normalised text (listing_category_trgm_idx): the same nesting, the same fix.
CREATE OR REPLACE FUNCTION public.search_category_text(category_path text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
BEGIN
  RETURN public.search_normalize(pg_catalog.array_to_string(category_path, ' '));
END
$$;
