-- A chain's own category tree (issue 17 item 4, browse_retailer; api-spec CategoryNode,
-- RetailerBrowse): each listing's `category_path` (the retailer's breadcrumb, outermost first) puts
-- it at one node of its chain's tree and below every ancestor. The derived-views worker
-- (workers/levels/categories.ts, view `categories`) materialises every node with its listing count
-- and every listing's membership of every node at or above it, so the plain tree and its pages are
-- index reads, never a scan of a chain's catalogue. Which listings count: the chain's AVAILABLE
-- listings (still on its site at the last collection) with a non-empty path of non-empty labels.

-- The view's name joins the others (and 'shelves', registered by the shelf directory at the same time).
ALTER TABLE view_run DROP CONSTRAINT IF EXISTS view_run_name_check;
ALTER TABLE view_run ADD CONSTRAINT view_run_name_check
  CHECK (name IN ('stores', 'areas', 'chains', 'deals', 'shelves', 'categories'));

-- One row per node of a chain's tree: `path` the labels from the top (the top of the tree itself is
-- path '{}', parent and label NULL), `listings` the counted listings at or below it (never 0: a node
-- exists because a listing sits at or below it). `id` is stable while the node exists (upserted by
-- (retailer_id, path)), so memberships are diff-written.
CREATE TABLE retailer_category (
  id           SERIAL PRIMARY KEY,
  retailer_id  INTEGER NOT NULL REFERENCES retailer(id),
  path         TEXT[] NOT NULL,
  parent       TEXT[],
  label        TEXT,
  listings     INTEGER NOT NULL CHECK (listings > 0),
  CONSTRAINT retailer_category_path_key UNIQUE (retailer_id, path),
  CHECK ((cardinality(path) = 0) = (parent IS NULL) AND (parent IS NULL) = (label IS NULL))
);
-- A node's children (the API orders the few rows: biggest first, then label in code-point order).
CREATE INDEX retailer_category_children_idx ON retailer_category (retailer_id, parent);

-- Every counted listing under every node at or above its own (the top included), keyed in the page
-- order: lower-cased name in code-point order, then listing id. A page is an index-only range read.
CREATE TABLE retailer_category_listing (
  category_id  INTEGER NOT NULL REFERENCES retailer_category(id) ON DELETE CASCADE,
  sort_name    TEXT COLLATE "C" NOT NULL,
  listing_id   INTEGER NOT NULL,
  PRIMARY KEY (category_id, sort_name, listing_id)
);
