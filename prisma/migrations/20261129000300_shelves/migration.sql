-- Shelves (issue 17 items 3 and 5; api-spec ShelfSummary, ShelfProduct, ShelfPage, list_shelves,
-- browse_shelf): the curated shelf directory (src/domain/shelves.ts) filled with products. The
-- derived-views worker (workers/levels/shelves.ts, view `shelves`) writes one row per product with a
-- current offer whose kind sits on a shelf; browse_shelf filters, sorts, counts and facets these
-- rows only (no span is read per request). Money in cents; per-unit prices in cents per the leaf
-- shelf's compare unit (src/domain/unit-price.ts).

ALTER TABLE view_run DROP CONSTRAINT IF EXISTS view_run_name_check;
ALTER TABLE view_run ADD CONSTRAINT view_run_name_check CHECK (name IN ('stores', 'areas', 'chains', 'deals', 'shelves'));

-- One shelf product: a linked product (group_key `p<product id>`), or a listing not yet linked
-- (`l<listing id>`), as search_products groups them, with at least one current offer (a listing
-- flagged available whose latest national span is open). Per chain (arrays aligned on
-- retailer_ids, ascending): the chain's best offer — its listing whose cheapest admitted unit price
-- (shelf price, special, club price or multibuy rate: src/domain/deals.ts) is lowest — with that
-- listing's shelf price, the admitted price, its promo kind (NULL when it is the shelf price) and
-- that price per the leaf shelf's compare unit (NULL when not measured in it). No foreign keys:
-- products are merged and removed by the matcher, and the view is rebuilt after it.
CREATE TABLE shelf_product (
  group_key     TEXT PRIMARY KEY,
  product_id    INTEGER,
  listing_id    INTEGER,
  -- The leaf shelf of the group's kind (a product's generic's kind; an unlinked listing's own).
  shelf_slug    TEXT NOT NULL,
  kind_slug     TEXT NOT NULL,
  name          TEXT NOT NULL,
  -- How widely stocked (sort `popular`): chains with a current offer, then active stores pricing it now.
  chains        INTEGER NOT NULL CHECK (chains > 0),
  stores        INTEGER NOT NULL CHECK (stores >= 0),
  retailer_ids  INTEGER[] NOT NULL,
  listing_ids   INTEGER[] NOT NULL,
  shelf_prices  INTEGER[] NOT NULL,
  best_prices   DOUBLE PRECISION[] NOT NULL,
  promo_kinds   SMALLINT[] NOT NULL,
  per_units     DOUBLE PRECISION[] NOT NULL,
  -- The cheapest chain (1-based index into the arrays; ties: the lower retailer id) and its values.
  best_at       SMALLINT NOT NULL CHECK (best_at >= 1),
  price         DOUBLE PRECISION NOT NULL CHECK (price > 0),
  per_unit      DOUBLE PRECISION,
  -- The biggest (shelf − admitted) ÷ shelf over its chains; 0 when no offer is below its shelf price.
  discount      DOUBLE PRECISION NOT NULL CHECK (discount >= 0 AND discount < 1),
  -- Words of the product's and its listings' names and brands and of its kind's label (simple and
  -- English configurations), matched by browse_shelf `q`.
  search_doc    TSVECTOR NOT NULL,
  -- The product's position in each product-level sort over every shelf product (1 = first; ties
  -- already broken by the popular order), so a page of any shelf in those sorts is an index walk
  -- (src/services/shelves.ts). per_unit / per_unit_desc rank by the leaf unit's per_unit.
  rank_popular        INTEGER NOT NULL,
  rank_price          INTEGER NOT NULL,
  rank_price_desc     INTEGER NOT NULL,
  rank_per_unit       INTEGER NOT NULL,
  rank_per_unit_desc  INTEGER NOT NULL,
  rank_deal           INTEGER NOT NULL,
  CHECK (cardinality(retailer_ids) = chains AND cardinality(listing_ids) = chains AND cardinality(shelf_prices) = chains
         AND cardinality(best_prices) = chains AND cardinality(promo_kinds) = chains AND cardinality(per_units) = chains),
  CHECK ((product_id IS NULL) <> (listing_id IS NULL))
);
CREATE INDEX shelf_product_shelf_idx ON shelf_product (shelf_slug);
CREATE INDEX shelf_product_product_idx ON shelf_product (product_id);
CREATE INDEX shelf_product_rank_popular_idx ON shelf_product (rank_popular);
CREATE INDEX shelf_product_rank_price_idx ON shelf_product (rank_price);
CREATE INDEX shelf_product_rank_price_desc_idx ON shelf_product (rank_price_desc);
CREATE INDEX shelf_product_rank_per_unit_idx ON shelf_product (rank_per_unit);
CREATE INDEX shelf_product_rank_per_unit_desc_idx ON shelf_product (rank_per_unit_desc);
CREATE INDEX shelf_product_rank_deal_idx ON shelf_product (rank_deal);

-- Facet counts without q (browse_shelf total, kinds, retailers): per kind and chain (retailer_id 0:
-- any chain), the shelf products offered there and those with an offer below shelf price there.
CREATE TABLE shelf_facet (
  kind_slug    TEXT NOT NULL,
  retailer_id  INTEGER NOT NULL,
  products     INTEGER NOT NULL CHECK (products > 0),
  deals        INTEGER NOT NULL CHECK (deals >= 0 AND deals <= products),
  PRIMARY KEY (kind_slug, retailer_id)
);

-- Products per shelf of the directory (list_shelves, ShelfSummary `products`): the shelf_product
-- rows on the shelf or any shelf below it, written in the same build, so a shelf's count equals
-- browse_shelf's unfiltered `total`. Every shelf of the directory has a row (0 when empty).
CREATE TABLE shelf_count (
  slug      TEXT PRIMARY KEY,
  products  INTEGER NOT NULL CHECK (products >= 0)
);
