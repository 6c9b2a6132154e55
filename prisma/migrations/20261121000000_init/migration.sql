-- Core model: retailers, stores, listings, products, price spans, collections, daily store statistics.
-- Money is integer NZ cents; days are NZ calendar dates (Pacific/Auckland).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE retailer (
  id                 SERIAL PRIMARY KEY,
  slug               TEXT NOT NULL UNIQUE,
  name               TEXT NOT NULL,
  national_only      BOOLEAN NOT NULL DEFAULT FALSE,
  website            TEXT,
  -- Last day a national collection was ingested: the `to` of every open national span of the chain.
  last_national_day  DATE,
  -- When the catalogue was last collected (UTC).
  last_run           TIMESTAMPTZ
);

CREATE TABLE store (
  id           SERIAL PRIMARY KEY,
  retailer_id  INTEGER NOT NULL REFERENCES retailer(id),
  external_id  TEXT NOT NULL,
  name         TEXT NOT NULL,
  address      TEXT,
  region       TEXT,
  lat          DOUBLE PRECISION NOT NULL,
  lng          DOUBLE PRECISION NOT NULL,
  town         TEXT NOT NULL,
  area         TEXT NOT NULL,
  urban        TEXT,
  active       BOOLEAN NOT NULL DEFAULT TRUE,
  -- Last day a collection of this store was ingested: the `to` of every open span at the store.
  last_day     DATE,
  CONSTRAINT store_retailer_external_key UNIQUE (retailer_id, external_id)
);

CREATE TABLE product (
  id          SERIAL PRIMARY KEY,
  name        TEXT NOT NULL,
  brand       TEXT,
  size_text   TEXT,
  gtin        BIGINT,
  image       TEXT,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE listing (
  id               SERIAL PRIMARY KEY,
  retailer_id      INTEGER NOT NULL REFERENCES retailer(id),
  external_id      TEXT NOT NULL,
  name             TEXT NOT NULL,
  brand            TEXT,
  size_text        TEXT,
  qty              DOUBLE PRECISION,
  unit             TEXT CHECK (unit IN ('g', 'ml', 'each', 'm')),
  pack_count       INTEGER,
  weighable        BOOLEAN NOT NULL DEFAULT FALSE,
  gtin             BIGINT,
  category_path    TEXT[] NOT NULL DEFAULT '{}',
  image            TEXT,
  retailer_url     TEXT,
  available        BOOLEAN NOT NULL DEFAULT TRUE,
  first_seen       DATE NOT NULL,
  product_id       INTEGER REFERENCES product(id),
  link_method      TEXT,
  link_confidence  DOUBLE PRECISION,
  link_locked      BOOLEAN NOT NULL DEFAULT FALSE,
  linked_at        TIMESTAMPTZ,
  CONSTRAINT listing_retailer_external_key UNIQUE (retailer_id, external_id)
);
CREATE INDEX listing_product_idx ON listing (product_id);
CREATE INDEX listing_gtin_idx ON listing (gtin);
CREATE INDEX listing_name_trgm_idx ON listing USING gin (name gin_trgm_ops);

-- Store-level price spans. An open span (last_day NULL) runs to its store's last_day.
CREATE TABLE store_price_span (
  id              BIGSERIAL PRIMARY KEY,
  listing_id      INTEGER NOT NULL REFERENCES listing(id),
  store_id        INTEGER NOT NULL REFERENCES store(id),
  first_day       DATE NOT NULL,
  last_day        DATE,
  price           INTEGER NOT NULL CHECK (price >= 0),
  promo_price     INTEGER CHECK (promo_price >= 0),
  promo_kind      SMALLINT CHECK (promo_kind BETWEEN 1 AND 4),
  multibuy_qty    INTEGER CHECK (multibuy_qty >= 2),
  multibuy_price  INTEGER CHECK (multibuy_price >= 0),
  CHECK (last_day IS NULL OR last_day >= first_day)
);
CREATE UNIQUE INDEX store_price_span_open_idx ON store_price_span (store_id, listing_id) WHERE last_day IS NULL;
CREATE INDEX store_price_span_listing_idx ON store_price_span (listing_id, store_id, first_day);

-- National price spans: the median across the chain's reporting stores, or the national observation
-- of a national-only chain. An open span (last_day NULL) runs to the retailer's last_national_day.
CREATE TABLE national_price_span (
  id              BIGSERIAL PRIMARY KEY,
  listing_id      INTEGER NOT NULL REFERENCES listing(id),
  first_day       DATE NOT NULL,
  last_day        DATE,
  price           INTEGER NOT NULL CHECK (price >= 0),
  promo_price     INTEGER CHECK (promo_price >= 0),
  promo_kind      SMALLINT CHECK (promo_kind BETWEEN 1 AND 4),
  multibuy_qty    INTEGER CHECK (multibuy_qty >= 2),
  multibuy_price  INTEGER CHECK (multibuy_price >= 0),
  CHECK (last_day IS NULL OR last_day >= first_day)
);
CREATE UNIQUE INDEX national_price_span_open_idx ON national_price_span (listing_id) WHERE last_day IS NULL;
CREATE INDEX national_price_span_listing_idx ON national_price_span (listing_id, first_day);

-- One row per ingested collection: a store's (store_id set) or a chain's national (store_id NULL)
-- observations of one day. Makes re-ingesting a day a no-op and rejects conflicting re-ingests.
CREATE TABLE collection (
  id           SERIAL PRIMARY KEY,
  retailer_id  INTEGER NOT NULL REFERENCES retailer(id),
  store_id     INTEGER REFERENCES store(id),
  day          DATE NOT NULL,
  mode         TEXT NOT NULL CHECK (mode IN ('snapshot', 'changes')),
  rows         INTEGER NOT NULL,
  digest       TEXT NOT NULL,
  source       TEXT,
  ingested_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX collection_scope_day_idx ON collection (retailer_id, COALESCE(store_id, 0), day);

-- Daily per-listing statistics across the stores that priced it (shelf price, cents).
CREATE TABLE listing_day_stats (
  listing_id  INTEGER NOT NULL REFERENCES listing(id),
  day         DATE NOT NULL,
  min         INTEGER NOT NULL,
  med         INTEGER NOT NULL,
  max         INTEGER NOT NULL,
  n           INTEGER NOT NULL,
  PRIMARY KEY (listing_id, day)
);

-- Record of imports run at start-up (importer name and source digest), so start-up imports once.
CREATE TABLE import_run (
  name         TEXT PRIMARY KEY,
  digest       TEXT NOT NULL,
  finished_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

INSERT INTO retailer (slug, name, national_only, website) VALUES
  ('woolworths', 'Woolworths', FALSE, 'https://www.woolworths.co.nz'),
  ('newworld', 'New World', FALSE, 'https://www.newworld.co.nz'),
  ('paknsave', 'PAK''nSAVE', FALSE, 'https://www.paknsave.co.nz'),
  ('freshchoice', 'FreshChoice', FALSE, 'https://store.freshchoice.co.nz'),
  ('supervalue', 'SuperValue', FALSE, 'https://www.supervalue.co.nz'),
  ('warehouse', 'The Warehouse', TRUE, 'https://www.thewarehouse.co.nz');
