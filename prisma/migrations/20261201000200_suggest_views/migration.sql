-- Type-ahead terms and "recently seen" as rows (issue 19 item 3: "suggestions and 'recently seen'
-- scan per request"), written by the derived-views worker (workers/levels/suggest.ts, view
-- `suggest`). On the SYNTHETIC panel (120k listings) the category and brand parts of a suggestion
-- aggregated every listing per request, and search without q computed every listing's last seen
-- day to keep the newest. The API reads these tables only while the view is current (its view_run
-- row holds the database's data version, src/db/data-version.ts), else computes live as before, so
-- answers never differ.
ALTER TABLE view_run DROP CONSTRAINT IF EXISTS view_run_name_check;
ALTER TABLE view_run ADD CONSTRAINT view_run_name_check
  CHECK (name IN ('stores', 'areas', 'chains', 'deals', 'shelves', 'categories', 'suggest'));

-- One row per category label (of the chains' own paths) and per brand (by normalised text): `norm`
-- is search_normalize(label), `n` the listings (a category: summed over the paths holding it),
-- `parent` a category's parent path joined by ' › ' (the least of its paths'; NULL for brands).
CREATE TABLE suggest_term (
  kind   TEXT NOT NULL CHECK (kind IN ('category', 'brand')),
  label  TEXT NOT NULL,
  norm   TEXT NOT NULL,
  parent TEXT,
  n      INTEGER NOT NULL,
  PRIMARY KEY (kind, label)
);

-- Each chain's most recently seen listings (the newest 500 by last seen day, then id; src/domain/
-- listings.ts lastSeen): enough for every no-q search (at most 500 ids, src/services/search.ts).
CREATE TABLE recent_listing (
  listing_id  INTEGER PRIMARY KEY,
  retailer_id INTEGER NOT NULL,
  last_seen   DATE NOT NULL
);
CREATE INDEX recent_listing_seen_idx ON recent_listing (last_seen, listing_id);
CREATE INDEX recent_listing_retailer_seen_idx ON recent_listing (retailer_id, last_seen, listing_id);
