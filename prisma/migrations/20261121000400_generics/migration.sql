-- Generics (issue 5; src/domain/kinds.ts, workers/match/generics.ts).
--
-- A kind is what an item is ("beef mince"), curated in src/domain/kinds.ts and written here by the
-- matching worker; a generic is a kind with a variant and a size ("Beef mince, lean, 500 g"), the
-- set a product's alternatives come from (api-spec ProductDetail `generic_*`, Alternative).
-- `shelf_slug`/`shelf_label` name the most specific shelf a kind is on; they stay null until the
-- shelves exist.
CREATE TABLE kind (
  id            SERIAL PRIMARY KEY,
  slug          TEXT NOT NULL UNIQUE,
  label         TEXT NOT NULL,
  compare_unit  TEXT NOT NULL CHECK (compare_unit IN ('kg', 'l', 'each')),
  shelf_slug    TEXT,
  shelf_label   TEXT
);

CREATE TABLE generic (
  id        SERIAL PRIMARY KEY,
  kind_id   INTEGER NOT NULL REFERENCES kind(id),
  -- `<kind slug>|<variant>|<size label>`: one generic per kind, variant and size.
  key       TEXT NOT NULL UNIQUE,
  variant   TEXT,
  size      TEXT,
  label     TEXT NOT NULL
);
CREATE INDEX generic_kind_idx ON generic (kind_id);

ALTER TABLE listing ADD COLUMN generic_id INTEGER REFERENCES generic(id);
CREATE INDEX listing_generic_idx ON listing (generic_id);

ALTER TABLE product ADD COLUMN generic_id INTEGER REFERENCES generic(id);
CREATE INDEX product_generic_idx ON product (generic_id);
