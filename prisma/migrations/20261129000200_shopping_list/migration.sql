-- The cheapest place for a whole list (issue 16 item 7, plan_shopping_list): a line of a shopping
-- list costs, at a store, the cheapest of its shelf price, special, club price (members) and
-- multibuy there. store_listing (each store's current prices, written by the derived-views worker,
-- workers/levels/stores.ts) kept a multibuy's kind and promo price but not its terms: it now keeps
-- them too (multibuy_qty units for multibuy_price cents in total; both NULL unless promo_kind = 3),
-- and is indexed by listing, as a list looks its listings up at every store.

ALTER TABLE store_listing
  ADD COLUMN multibuy_qty    INTEGER,
  ADD COLUMN multibuy_price  INTEGER;

-- The rows written before this migration get the terms of their store span (the latest one
-- starting on or before the row's day: the span the worker took the row from), so that an
-- incremental build, which rewrites only the rows whose inputs changed, leaves exactly what a full
-- build would.
UPDATE store_listing sl
SET (multibuy_qty, multibuy_price) = (
  SELECT sp.multibuy_qty, sp.multibuy_price FROM store_price_span sp
  WHERE sp.listing_id = sl.listing_id AND sp.store_id = sl.store_id AND sp.first_day <= sl.day
  ORDER BY sp.first_day DESC LIMIT 1
)
WHERE sl.promo_kind = 3;

CREATE INDEX store_listing_listing_idx ON store_listing (listing_id);
