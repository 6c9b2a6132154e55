-- The food price index nowcast on the official FPI basket (issue 15; DESIGN.md "The basket and the
-- index"; src/domain/basket.ts, src/domain/basket-match.ts, src/domain/price-index.ts; workers/index).
--
-- The basket's source is src/domain/basket-items.json: the index worker copies it into basket_group and
-- basket_item on every run (upsert by id; items no longer in the file are marked inactive, their
-- matches and history stay). Weights are shares of the whole basket (0 to 1); the API reports percent.

CREATE TABLE basket_group (
  -- 1..5 in the order of src/domain/basket.ts GROUP_CODES; 0 is all food in index_day and the API.
  id          INTEGER PRIMARY KEY CHECK (id > 0),
  code        TEXT NOT NULL,
  name        TEXT NOT NULL,
  weight      DOUBLE PRECISION NOT NULL CHECK (weight > 0 AND weight <= 1),
  observable  BOOLEAN NOT NULL,
  -- Stats NZ series reference of the official group index (official_index.series_ref).
  series_ref  TEXT NOT NULL
);
CREATE UNIQUE INDEX basket_group_code_key ON basket_group (code);

CREATE TABLE basket_item (
  id             INTEGER PRIMARY KEY CHECK (id > 0),
  code           TEXT NOT NULL,
  official_code  BOOLEAN NOT NULL,
  name           TEXT NOT NULL,
  group_id       INTEGER NOT NULL REFERENCES basket_group(id),
  weight         DOUBLE PRECISION NOT NULL CHECK (weight > 0 AND weight <= 1),
  spec           TEXT,
  per_unit       BOOLEAN NOT NULL,
  -- Dimension of the specification as the basket file states it: kg, l or each. qty in g, ml or
  -- items; qty_min / qty_max in kg, l or items (src/domain/basket.ts BasketItem).
  unit           TEXT NOT NULL CHECK (unit IN ('kg', 'l', 'each')),
  qty            DOUBLE PRECISION,
  qty_min        DOUBLE PRECISION,
  qty_max        DOUBLE PRECISION,
  kind           TEXT,
  keywords       TEXT[] NOT NULL DEFAULT '{}',
  exclusions     TEXT[] NOT NULL DEFAULT '{}',
  active         BOOLEAN NOT NULL DEFAULT true
);
CREATE UNIQUE INDEX basket_item_code_key ON basket_item (code);
CREATE INDEX basket_item_group_idx ON basket_item (group_id);

-- A listing matched to a basket item from valid_from (inclusive) to valid_to (exclusive; NULL while
-- in force). A listing is matched to at most one item at a time. New matches start on the day after
-- the last computed index day, ended matches end there too, so a curator's change never rewrites
-- computed history; a backfill from scratch replays the same intervals. ref_price (cents on the
-- item's basis: per kg or litre for per-unit items, else per pack; fractional for per-kg bases) and
-- linked_relative are the link factor: the listing's relative = linked_relative × basis / ref_price.
-- The latest row of a listing (highest id) is its state; `locked` on it pins that state (matched to
-- its item, or unmatched when valid_to is set) against the automatic matcher.
CREATE TABLE basket_match (
  id               BIGSERIAL PRIMARY KEY,
  item_id          INTEGER NOT NULL REFERENCES basket_item(id),
  listing_id       INTEGER NOT NULL REFERENCES listing(id),
  origin           TEXT NOT NULL CHECK (origin IN ('auto', 'manual')),
  locked           BOOLEAN NOT NULL DEFAULT false,
  confidence       DOUBLE PRECISION CHECK (confidence BETWEEN 0 AND 1),
  valid_from       DATE NOT NULL,
  valid_to         DATE,
  ref_price        DOUBLE PRECISION CHECK (ref_price > 0),
  linked_relative  DOUBLE PRECISION CHECK (linked_relative > 0),
  CHECK (valid_to IS NULL OR valid_to >= valid_from)
);
CREATE UNIQUE INDEX basket_match_open_idx ON basket_match (listing_id) WHERE valid_to IS NULL;
CREATE INDEX basket_match_listing_idx ON basket_match (listing_id, id);
CREATE INDEX basket_match_item_idx ON basket_match (item_id, valid_from);

-- Every basket-match decision, append-only: the matcher's and curators' (as link_decision is for
-- product links). item_id / previous_item_id are the listing's item after / before the decision;
-- `day` is the valid_from or valid_to the decision set.
CREATE TABLE basket_decision (
  id                BIGSERIAL PRIMARY KEY,
  listing_id        INTEGER NOT NULL REFERENCES listing(id),
  action            TEXT NOT NULL CHECK (action IN ('match', 'rematch', 'unmatch', 'lock', 'unlock')),
  item_id           INTEGER,
  previous_item_id  INTEGER,
  confidence        DOUBLE PRECISION CHECK (confidence BETWEEN 0 AND 1),
  locked            BOOLEAN NOT NULL,
  actor             TEXT NOT NULL CHECK (actor IN ('matcher', 'curator')),
  day               DATE,
  detail            JSONB,
  decided_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX basket_decision_listing_idx ON basket_decision (listing_id, id);

CREATE FUNCTION basket_decision_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'basket_decision is append-only';
END
$$;
CREATE TRIGGER basket_decision_append_only BEFORE UPDATE OR DELETE ON basket_decision
  FOR EACH ROW EXECUTE FUNCTION basket_decision_append_only();

-- Official Stats NZ FPI index levels (base June 2017 = 1000), monthly: all food (CPIM.SE901) and the
-- groups (basket_group.series_ref). Imported from DATA_DIR (thecolab-ai--nz-cost-of-living
-- fpi_monthly.csv); the anchor of the `anchored` series.
CREATE TABLE official_index (
  series_ref  TEXT NOT NULL,
  month       TEXT NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  value       DOUBLE PRECISION NOT NULL CHECK (value > 0),
  PRIMARY KEY (series_ref, month)
);

-- One basket item on one day (api-spec ItemSeries): relative (1.0 on the item's base day; NULL
-- before), n counted listings (0 = carried forward), stale (carried past the 14-day cap).
CREATE TABLE index_item_day (
  item_id   INTEGER NOT NULL REFERENCES basket_item(id),
  day       DATE NOT NULL,
  relative  DOUBLE PRECISION,
  n         INTEGER,
  stale     BOOLEAN,
  PRIMARY KEY (item_id, day)
);
CREATE INDEX index_item_day_day_idx ON index_item_day (day);

-- One aggregate on one day (api-spec IndexPoint): group_id 0 is all food, else basket_group.id.
-- raw is chained, base 1000 on the first computed day; anchored = raw × the anchor factor of
-- index_run (NULL when no official month overlaps); coverage = share of observable weight with a
-- counted listing; items / listings counted that day.
CREATE TABLE index_day (
  group_id  INTEGER NOT NULL CHECK (group_id >= 0),
  day       DATE NOT NULL,
  raw       DOUBLE PRECISION NOT NULL CHECK (raw > 0),
  anchored  DOUBLE PRECISION,
  coverage  DOUBLE PRECISION NOT NULL CHECK (coverage BETWEEN 0 AND 1),
  items     INTEGER NOT NULL,
  listings  INTEGER NOT NULL,
  PRIMARY KEY (group_id, day)
);
CREATE INDEX index_day_day_idx ON index_day (day);

-- The computation's state (one row): the days computed, the anchor, and each item's state on
-- last_day (relative, n, stale, last counted day, the links with yesterday's basis), from which the
-- next day is computed incrementally. A backfill rewrites it.
CREATE TABLE index_run (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  first_day      DATE NOT NULL,
  last_day       DATE NOT NULL,
  anchor         JSONB NOT NULL,
  basket_digest  TEXT NOT NULL,
  state          JSONB NOT NULL,
  computed_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  CHECK (last_day >= first_day)
);
