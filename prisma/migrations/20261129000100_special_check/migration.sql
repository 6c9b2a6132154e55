-- "Is this special real?" (issue 16 item 6, beyond the contract): each current deal checked against
-- its listing's national span history (src/domain/special-check.ts), written by the derived-views
-- worker with the deal it belongs to (workers/levels/deals.ts). The API reads these rows only.
-- Money in integer cents per unit, except the multibuy unit price and the saving (fractional cents).
CREATE TABLE special_check (
  kind                TEXT NOT NULL,
  listing_id          INTEGER NOT NULL,
  -- The deal's unit price (special/member: promo price; multibuy: set price ÷ set size) and the shelf price.
  promo_price         DOUBLE PRECISION NOT NULL CHECK (promo_price > 0),
  shelf_price         INTEGER NOT NULL CHECK (shelf_price > 0),
  -- First day of the current unbroken run of the promotion; the window is the 90 days before it.
  promo_since         DATE NOT NULL,
  window_from         DATE NOT NULL,
  window_to           DATE NOT NULL,
  days_observed       INTEGER NOT NULL CHECK (days_observed >= 0),
  promo_days          INTEGER NOT NULL CHECK (promo_days >= 0),
  usual_price         INTEGER,
  lowest_price        INTEGER,
  lowest_shelf_price  INTEGER,
  -- A shelf-price rise within 30 days before promo_since: all three or none.
  rise_from           INTEGER,
  rise_to             INTEGER,
  rise_day            DATE,
  saving_vs_usual     DOUBLE PRECISION,
  verdict             TEXT NOT NULL CHECK (verdict IN ('insufficient_history', 'no_usual_price', 'inflated', 'above_usual', 'not_lowest', 'genuine')),
  PRIMARY KEY (kind, listing_id),
  CONSTRAINT special_check_deal_fkey FOREIGN KEY (kind, listing_id) REFERENCES deal (kind, listing_id) ON DELETE CASCADE,
  CHECK ((rise_from IS NULL) = (rise_to IS NULL) AND (rise_from IS NULL) = (rise_day IS NULL))
);
-- One statement per batch of listings (src/services/special-check.ts).
CREATE INDEX special_check_listing_idx ON special_check (listing_id);
