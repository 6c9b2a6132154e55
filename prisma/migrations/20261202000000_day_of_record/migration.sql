-- The day of record (issue 26, "Say how old every fact is"). An open span used to run to its
-- scope's last collection day (store.last_day, retailer.last_national_day), so collecting one store
-- of a chain made every open national span of the chain "current" through that day. Now:
--   * store.covered_day / retailer.covered_day: the last day a COMPLETE collection covered the
--     scope (a snapshot of the store, a change log of the scope, or for a chain's national scope a
--     national collection or every active store collected completely). Every span still open after
--     that day's merge was observed on it.
--   * store_price_span.seen_day / national_price_span.seen_day: the last day a PARTIAL collection
--     (one store of many, a failed page, a search sample) saw an open span unchanged; written only
--     for the rows such a collection saw.
-- An open span's `to` (its last observed day) is greatest(first_day, seen_day, scope covered_day):
-- src/domain/spans.ts spanTo, SQL src/services/span-sql.ts spanToSql.
--   * collection.observed_at: when that collection's prices were observed (a collector's run time,
--     a file's own timestamps, else the start of the observation day in New Zealand);
--     collection.listings: distinct listings observed in the chain-day (its national row).
--     retailer.last_run is the newest observed_at, never the time an import ran.
ALTER TABLE store ADD COLUMN covered_day DATE;
ALTER TABLE retailer ADD COLUMN covered_day DATE;
ALTER TABLE store_price_span ADD COLUMN seen_day DATE;
ALTER TABLE national_price_span ADD COLUMN seen_day DATE;
ALTER TABLE collection ADD COLUMN observed_at TIMESTAMPTZ, ADD COLUMN listings INTEGER;

-- Existing data: a store is covered on its last snapshot day; a chain's national scope on its last
-- day collected in full (a snapshot or change log of national rows: a chain-day with no store rows,
-- or a snapshot, which under the former rules closed every national span it did not see).
UPDATE store st SET covered_day = c.day
  FROM (SELECT store_id, max(day) AS day FROM collection WHERE store_id IS NOT NULL AND mode = 'snapshot' GROUP BY store_id) c
 WHERE c.store_id = st.id;
UPDATE retailer r SET covered_day = c.day
  FROM (SELECT n.retailer_id, max(n.day) AS day FROM collection n
         WHERE n.store_id IS NULL AND (n.mode = 'snapshot' OR NOT EXISTS (
           SELECT 1 FROM collection s WHERE s.retailer_id = n.retailer_id AND s.day = n.day AND s.store_id IS NOT NULL))
         GROUP BY n.retailer_id) c
 WHERE c.retailer_id = r.id;
-- Collections without an observation time: the start of their day in New Zealand (not later than
-- any observation of that day); last_run never later than the newest of them.
UPDATE collection SET observed_at = (day::timestamp AT TIME ZONE 'Pacific/Auckland') WHERE observed_at IS NULL;
UPDATE retailer r SET last_run = c.at
  FROM (SELECT retailer_id, max(observed_at) AS at FROM collection GROUP BY retailer_id) c
 WHERE c.retailer_id = r.id AND (r.last_run IS NULL OR r.last_run > c.at + interval '1 day');

-- A third mode: 'partial' (only the rows were observed; src/domain/spans.ts CollectionMode).
ALTER TABLE collection DROP CONSTRAINT collection_mode_check;
ALTER TABLE collection ADD CONSTRAINT collection_mode_check CHECK (mode IN ('snapshot', 'changes', 'partial'));
ALTER TABLE collect_run DROP CONSTRAINT collect_run_mode_check;
ALTER TABLE collect_run ADD CONSTRAINT collect_run_mode_check CHECK (mode IN ('snapshot', 'changes', 'partial'));
