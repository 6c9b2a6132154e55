-- National scale (issue 19 item 3): the open store spans by listing. store_price_span_open_idx
-- leads with the store (ingest's merge and the store views read a store's open spans); the reads
-- by listing — a listing's or product's store prices and their counts (src/services/prices.ts
-- storePrices, storePriceCounts; src/services/product-prices.ts productStorePrices) — had only
-- store_price_span_listing_idx (listing_id, store_id, first_day), which walks every span of the
-- listing, closed ones included (≈ 12 a store a year), to find the open one. This partial index
-- holds the open spans only, in listing order.
CREATE INDEX store_price_span_open_listing_idx ON store_price_span (listing_id, store_id) WHERE last_day IS NULL;
