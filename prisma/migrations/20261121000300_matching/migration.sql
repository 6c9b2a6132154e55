-- Cross-chain matching (issue 5; workers/match, src/domain/matching.ts).
--
-- Products carry the brand's owner and parent (api-spec ProductDetail `brand_owner`: the retailer
-- slug when the brand is a house brand; `brand_parent`: the parent brand of a sub-brand), filled by
-- the matching worker from the curated list in src/domain/brands.ts.
ALTER TABLE product
  ADD COLUMN brand_owner  TEXT,
  ADD COLUMN brand_parent TEXT;

-- A listing's link: method (gtin, retailer_id, name, manual, ...), confidence in [0, 1], locked by
-- a curator (never changed by the worker), and when the last decision about it was made.
ALTER TABLE listing
  ADD CONSTRAINT listing_link_confidence_check CHECK (link_confidence BETWEEN 0 AND 1);

-- Every link decision, append-only: the worker's links, re-links, unlinks and confidence updates,
-- and a curator's link, unlink, lock and unlock. `product_id` is the listing's product after the
-- decision, `previous_product_id` before it; neither is a foreign key, because products merged away
-- or left without listings are removed while their history stays.
CREATE TABLE link_decision (
  id                   BIGSERIAL PRIMARY KEY,
  listing_id           INTEGER NOT NULL REFERENCES listing(id),
  action               TEXT NOT NULL CHECK (action IN ('link', 'relink', 'unlink', 'update', 'lock', 'unlock')),
  product_id           INTEGER,
  previous_product_id  INTEGER,
  method               TEXT,
  confidence           DOUBLE PRECISION CHECK (confidence BETWEEN 0 AND 1),
  locked               BOOLEAN NOT NULL,
  actor                TEXT NOT NULL CHECK (actor IN ('matcher', 'curator')),
  -- Evidence: the partner listing and score parts of a name link, the GTIN, a curator's note.
  detail               JSONB,
  decided_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX link_decision_listing_idx ON link_decision (listing_id, id);

CREATE FUNCTION link_decision_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'link_decision is append-only';
END
$$;
CREATE TRIGGER link_decision_append_only BEFORE UPDATE OR DELETE ON link_decision
  FOR EACH ROW EXECUTE FUNCTION link_decision_append_only();
