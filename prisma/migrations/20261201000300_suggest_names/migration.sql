-- Type-ahead listings as rows (issue 19 item 5: "search and suggestions p99 at 120k listings, aim
-- < 20 ms"). With the category and brand parts of a suggestion read from the `suggest` view
-- (20261201000200_suggest_views), its listings part still matched every listing's search_name live
-- and normalised each match's name (search_normalize) to rank those starting with the prefix
-- first: ~30,000 matches for "ga" on the SYNTHETIC panel, p50 ~ 150-300 ms. The derived-views
-- worker (workers/levels/suggest.ts, view `suggest`) now also stores the unlinked listings in
-- display order with their normalised names, and every word start of their search_name as a key;
-- the API reads them only while the view is current, else matches live as before, so answers
-- never differ (src/search/embedded.ts).

-- One row per listing without a product (the only ones a suggestion lists): `ord` its rank in the
-- suggestion order (available first, then shorter name, then id: length(name), listing.id), so the
-- available rows hold ords 1 to their count; `name_norm` search_normalize(name) (the "name starts
-- with the prefix" test) and `search_name` a copy of listing.search_name (the "a word starts with
-- the prefix" test). Written in `ord` order.
CREATE TABLE suggest_listing (
  listing_id  INTEGER PRIMARY KEY,
  ord         INTEGER NOT NULL UNIQUE,
  available   BOOLEAN NOT NULL,
  name_norm   TEXT NOT NULL,
  search_name TEXT NOT NULL
);
CREATE INDEX suggest_listing_available_ord_idx ON suggest_listing (available, ord);

-- Every word start of a suggest_listing row's search_name: the text from that word on, cut to its
-- first 24 characters (src/search/embedded.ts WORD_KEY_CHARS), with the row's `ord`; and each
-- row's name_norm (its first 200 characters, NAME_KEY_CHARS) with its `ord`. A prefix's matches are the keys starting with it: a btree
-- range (collation "C" lets LIKE 'prefix%' use it), rows written in key order so that the range
-- is read from adjacent pages. Longer prefixes are rechecked on suggest_listing.search_name.
CREATE TABLE suggest_word (
  key TEXT COLLATE "C" NOT NULL,
  ord INTEGER NOT NULL,
  PRIMARY KEY (key, ord)
);
CREATE TABLE suggest_name (
  key TEXT COLLATE "C" NOT NULL,
  ord INTEGER NOT NULL,
  PRIMARY KEY (key, ord)
);
