-- Type-ahead over the real catalogue (issue 12): with ~17,900 named listings and products, the
-- suggestion query's scans of every product, brand and category path (search_normalize per row)
-- took ~100 ms. Products get the listing's generated search_name with a trigram index, and brands
-- and category paths trigram indexes on their normalised text, so each part of the suggestion reads
-- only the rows whose text holds the prefix (src/search/embedded.ts SUGGEST_SQL).

ALTER TABLE product
  ADD COLUMN search_name text GENERATED ALWAYS AS (search_normalize(coalesce(brand || ' ', '') || name)) STORED;
CREATE INDEX product_search_name_trgm_idx ON product USING gin (search_name gin_trgm_ops);

CREATE INDEX listing_brand_trgm_idx ON listing USING gin (search_normalize(brand) gin_trgm_ops) WHERE brand IS NOT NULL;
-- A category path as one normalised text (its labels joined by spaces); immutable like
-- search_document, which also joins the path, so an index can use it. Schema-qualified: from
-- PostgreSQL 17, CREATE INDEX evaluates it with a search_path of pg_catalog only.
CREATE FUNCTION search_category_text(category_path text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT public.search_normalize(array_to_string(category_path, ' '))
$$;
CREATE INDEX listing_category_trgm_idx ON listing USING gin (search_category_text(category_path) gin_trgm_ops)
  WHERE cardinality(category_path) > 0;
