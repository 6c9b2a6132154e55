-- Embedded search (issue 4): accent-insensitive full text and trigram matching over listings.
-- The search columns are generated from the listing's own name, brand and category path, so they
-- can never drift from the catalogue and need no separate indexing job.

CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The normalised text both sides of a match use (mirrored by normalizeSearchText in
-- src/search/synonyms.ts): lowercase, accents removed, apostrophes/backticks/hyphens/dots removed
-- ("Wattie's" = "watties", "Weet-Bix" = "weetbix"), & as a space, whitespace collapsed.
-- unaccent with an explicit dictionary is immutable in practice; declaring it lets the generated
-- columns and indexes below use it.
CREATE FUNCTION search_normalize(text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT btrim(regexp_replace(
           replace(regexp_replace(lower(public.unaccent('public.unaccent'::regdictionary, $1)), '[''’`.-]', '', 'g'), '&', ' '),
           '\s+', ' ', 'g'))
$$;

-- The full-text document of a listing: its name (weight A, English stems plus unstemmed words so
-- both "tomatoes" ~ "tomato" and exact words match), brand (B) and category path (C).
CREATE FUNCTION search_document(name text, brand text, category_path text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('english', coalesce(search_normalize(name), '')), 'A')
      || setweight(to_tsvector('simple', coalesce(search_normalize(name), '')), 'A')
      || setweight(to_tsvector('english', coalesce(search_normalize(brand), '')), 'B')
      || setweight(to_tsvector('english', coalesce(search_normalize(array_to_string(category_path, ' ')), '')), 'C')
$$;

ALTER TABLE listing
  ADD COLUMN search_name text GENERATED ALWAYS AS (search_normalize(coalesce(brand || ' ', '') || name)) STORED,
  ADD COLUMN search_doc tsvector GENERATED ALWAYS AS (search_document(name, brand, category_path)) STORED;

CREATE INDEX listing_search_doc_idx ON listing USING gin (search_doc);
CREATE INDEX listing_search_name_trgm_idx ON listing USING gin (search_name gin_trgm_ops);
CREATE INDEX listing_brand_idx ON listing (search_normalize(brand)) WHERE brand IS NOT NULL;
-- Superseded by listing_search_name_trgm_idx (normalised brand + name).
DROP INDEX IF EXISTS listing_name_trgm_idx;
