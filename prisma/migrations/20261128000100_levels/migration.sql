-- Where is it cheaper (issue 16): store, chain and area price levels and deals, materialised by the
-- derived-views worker (workers/levels) every ten minutes and after each ingest. The API reads these
-- rows only; it never aggregates spans per request. Levels are weighted geometric means over basket
-- items (basket_item.weight) of price ratios, null under 20 items (api-spec "Limits").

-- One row per view: the data version it was built from (see workers/levels: a digest of what the
-- view read — collections, basket matches, the index run) and when, so a reader can tell how fresh
-- it is and the worker can skip a view whose inputs did not change.
CREATE TABLE view_run (
  name          TEXT PRIMARY KEY CHECK (name IN ('stores', 'areas', 'chains', 'deals')),
  data_version  TEXT NOT NULL,
  built_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
  seconds       DOUBLE PRECISION NOT NULL,
  detail        JSONB
);

-- A store's basket level on one day from the store spans in force that day (api-spec StoreLevels):
-- level = weighted geometric mean over basket items priced at the store of (store price ÷ the
-- chain's national median that day); NULL when fewer than 20 items were priced. Incremental: only
-- (store, day) pairs whose inputs changed are rewritten.
CREATE TABLE store_level_day (
  store_id  INTEGER NOT NULL REFERENCES store(id),
  day       DATE NOT NULL,
  level     DOUBLE PRECISION CHECK (level > 0),
  n_items   INTEGER NOT NULL CHECK (n_items >= 0),
  PRIMARY KEY (store_id, day)
);

-- A store's current panel (api-spec Store level/n_items/club/sale/multibuy/day, StoreDetail groups,
-- spread, listings_priced) from its latest observation of each listing.
CREATE TABLE store_level (
  store_id         INTEGER PRIMARY KEY REFERENCES store(id),
  day              DATE,
  level            DOUBLE PRECISION CHECK (level > 0),
  n_items          INTEGER NOT NULL CHECK (n_items >= 0),
  -- GroupLevel[]: {code, name, level, n}
  groups           JSONB NOT NULL DEFAULT '[]',
  -- 22 counts: bucket 0 (< 0.80), 1..20 (0.80 to 1.20 in 0.02 steps), 21 (≥ 1.20)
  spread           INTEGER[] NOT NULL CHECK (cardinality(spread) = 22),
  listings_priced  INTEGER NOT NULL CHECK (listings_priced >= 0),
  club             INTEGER NOT NULL DEFAULT 0,
  sale             INTEGER NOT NULL DEFAULT 0,
  multibuy         INTEGER NOT NULL DEFAULT 0
);

-- Every listing priced at a store in the last 7 days of the store's collections (its latest store
-- span), with the chain's national median (national span in force that day) and ratio = price ÷
-- median (api-spec StoreListing; StoreDetail dearer/cheaper; get_store_listings).
CREATE TABLE store_listing (
  store_id     INTEGER NOT NULL REFERENCES store(id),
  listing_id   INTEGER NOT NULL REFERENCES listing(id),
  day          DATE NOT NULL,
  price        INTEGER NOT NULL CHECK (price > 0),
  promo_price  INTEGER,
  promo_kind   SMALLINT,
  median       INTEGER NOT NULL CHECK (median > 0),
  ratio        DOUBLE PRECISION NOT NULL CHECK (ratio > 0),
  PRIMARY KEY (store_id, listing_id)
);
CREATE INDEX store_listing_ratio_idx ON store_listing (store_id, ratio);

-- Areas (api-spec Area): stores' levels rolled up by region, urban class and town, item-weighted
-- geometric mean of the stores' levels (each store weighted by its n_items); ord is the order within
-- its scope (urban: main centres first).
CREATE TABLE area_level (
  scope   TEXT NOT NULL CHECK (scope IN ('region', 'urban', 'town')),
  key     TEXT NOT NULL,
  label   TEXT NOT NULL,
  ord     INTEGER NOT NULL,
  level   DOUBLE PRECISION CHECK (level > 0),
  stores  INTEGER NOT NULL,
  chains  TEXT[] NOT NULL DEFAULT '{}',
  towns   TEXT[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (scope, key)
);

-- compare_retailers: each basket item's price at each chain (median over the chain's matched
-- listings of their national price on the item's basis, specials counted, club prices not; cents).
CREATE TABLE chain_item_price (
  item_id      INTEGER NOT NULL REFERENCES basket_item(id),
  retailer_id  INTEGER NOT NULL REFERENCES retailer(id),
  price        INTEGER NOT NULL CHECK (price > 0),
  listings     INTEGER NOT NULL CHECK (listings > 0),
  PRIMARY KEY (item_id, retailer_id)
);

-- Chain levels on one day (get_retailer_levels; the latest day is compare_retailers' headline and
-- groups): group_id 0 = all food (headline), else basket_group.id; level = weighted geometric mean
-- over items of (chain price ÷ cross-chain median), 1.0 = the cross-chain median.
CREATE TABLE chain_level_day (
  retailer_id  INTEGER NOT NULL REFERENCES retailer(id),
  group_id     INTEGER NOT NULL CHECK (group_id >= 0),
  day          DATE NOT NULL,
  level        DOUBLE PRECISION CHECK (level > 0),
  items        INTEGER NOT NULL CHECK (items >= 0),
  PRIMARY KEY (retailer_id, group_id, day)
);

-- Current promotions (list_deals, StoreDetail deals come from store_listing): one row per listing
-- and kind; saving in cents per unit (special/member: price − promo_price; multibuy: price −
-- multibuy_price ÷ multibuy_qty) and as a share of the shelf price.
CREATE TABLE deal (
  kind         TEXT NOT NULL CHECK (kind IN ('special', 'member', 'multibuy')),
  listing_id   INTEGER NOT NULL REFERENCES listing(id),
  retailer_id  INTEGER NOT NULL REFERENCES retailer(id),
  day          DATE NOT NULL,
  price        INTEGER NOT NULL CHECK (price > 0),
  saving       DOUBLE PRECISION NOT NULL CHECK (saving > 0),
  saving_pct   DOUBLE PRECISION NOT NULL CHECK (saving_pct > 0 AND saving_pct < 1),
  PRIMARY KEY (kind, listing_id)
);
CREATE INDEX deal_rank_idx ON deal (kind, saving_pct DESC, listing_id);
CREATE INDEX deal_retailer_idx ON deal (retailer_id, kind);
