-- A listing's size history (issue 32 item 4, shrinkflation): listing_size_span holds each printed
-- size (`size_text`, as the chain prints it) a listing had, from the day it was first observed
-- (`first_day`) to the last day the chain was collected before the size changed (`last_day`; NULL
-- while it is the listing's current size: the open span). The parsed quantity, unit and pack count
-- are not stored: they come from the one size rule (src/domain/sizes.ts parseSize) when read, as the
-- listing's own qty/unit/pack_count do (written later, by the match job, not by the writers of
-- size_text).
--
-- One mechanism for every writer of listing.size_text (the day-file ingest and so collection, the
-- importers, the catalogue attribute writer, the export importer, the SYNTHETIC panel loader):
-- statement-level triggers on listing with transition tables, so a statement that changes no size
-- costs one pass over the rows it updated (most days the ingest updates only the few listings whose
-- attributes changed) and nothing per row.
--   * INSERT: a listing inserted with a size opens its span on its first_seen day.
--   * UPDATE: a size that changes (to another non-NULL text; an empty value never erases a size) on
--     the observed day D closes the open span and opens one on D. D is the transaction-local setting
--     app.observed_day (the ingest sets it to the day it merges), else the chain's last national day
--     (a catalogue written outside a day's merge describes the chain as last collected), else the
--     listing's first_seen; never before first_seen. The closed span ends at the chain's last
--     collection day before D (retailer.last_national_day as the trigger sees it: the ingest moves it
--     after the attribute merge), at least its own first_day and at most D - 1: like a price span, it
--     is closed at a day the chain was observed, never at a day after the change. An open span that
--     began on D itself (a second change the same day) takes the new text in place.
--   * DELETE and TRUNCATE of listing remove the listings' spans (the history belongs to the listing;
--     no foreign key, so TRUNCATE listing need not name this table).
-- A re-run of a day changes nothing: the ingest skips a day it merged, and an UPDATE that writes the
-- same size is no change. ENABLE ALWAYS: the triggers also fire under session_replication_role =
-- replica (bulk loaders of SYNTHETIC panels).
CREATE TABLE listing_size_span (
  id         BIGSERIAL PRIMARY KEY,
  listing_id INTEGER NOT NULL,
  size_text  TEXT    NOT NULL,
  -- The size before this one (the previous span's text); NULL for a listing's first span. Kept so
  -- that a window's size changes are read from one partial index, without probing every listing's
  -- previous span (on a 120,000-listing SYNTHETIC panel whose listings were all first seen inside
  -- list_shrinkflation's window, that probe took 0.5 s a call).
  prev_size_text TEXT,
  first_day  DATE    NOT NULL,
  last_day   DATE
);
CREATE INDEX listing_size_span_listing_idx ON listing_size_span (listing_id, first_day);
CREATE INDEX listing_size_span_change_idx ON listing_size_span (first_day) WHERE prev_size_text IS NOT NULL;
CREATE UNIQUE INDEX listing_size_span_open_idx ON listing_size_span (listing_id) WHERE last_day IS NULL;

-- Backfill: one open span per listing with a size, from its first_seen (the only size known).
INSERT INTO listing_size_span (listing_id, size_text, first_day)
SELECT id, size_text, first_seen FROM listing WHERE size_text IS NOT NULL ORDER BY id;

CREATE FUNCTION listing_size_span_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO listing_size_span (listing_id, size_text, first_day)
  SELECT n.id, n.size_text, n.first_seen FROM new_listings n WHERE n.size_text IS NOT NULL;
  RETURN NULL;
END $$;

CREATE FUNCTION listing_size_span_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  observed DATE := nullif(current_setting('app.observed_day', true), '')::date;
  ids INTEGER[];
  sizes TEXT[];
  olds TEXT[];
  days DATE[];
  ends DATE[];
BEGIN
  -- The one pass every UPDATE of listing pays: the rows whose size changed.
  SELECT array_agg(n.id), array_agg(n.size_text), array_agg(o.size_text),
      array_agg(greatest(n.first_seen, coalesce(observed, r.last_national_day, n.first_seen))),
      array_agg(r.last_national_day)
    INTO ids, sizes, olds, days, ends
    FROM new_listings n JOIN old_listings o ON o.id = n.id JOIN retailer r ON r.id = n.retailer_id
    WHERE n.size_text IS NOT NULL AND n.size_text IS DISTINCT FROM o.size_text;
  IF ids IS NULL THEN
    RETURN NULL;
  END IF;
  -- A span opened on the change day itself takes the new text.
  UPDATE listing_size_span s SET size_text = c.size_text
    FROM unnest(ids, sizes, days) AS c(id, size_text, day)
    WHERE s.listing_id = c.id AND s.last_day IS NULL AND s.first_day >= c.day;
  -- Else the open span closes at the chain's last collection day before the change.
  UPDATE listing_size_span s SET last_day = greatest(s.first_day, least(coalesce(c.chain_day, c.day - 1), c.day - 1))
    FROM unnest(ids, days, ends) AS c(id, day, chain_day)
    WHERE s.listing_id = c.id AND s.last_day IS NULL AND s.first_day < c.day;
  -- The new span remembers the size it follows (the listing's size before this statement; NULL when
  -- it had none, as for a first span).
  INSERT INTO listing_size_span (listing_id, size_text, prev_size_text, first_day)
  SELECT c.id, c.size_text, c.old, c.day FROM unnest(ids, sizes, olds, days) AS c(id, size_text, old, day)
  WHERE NOT EXISTS (SELECT 1 FROM listing_size_span s WHERE s.listing_id = c.id AND s.last_day IS NULL);
  RETURN NULL;
END $$;

CREATE FUNCTION listing_size_span_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM listing_size_span s WHERE s.listing_id IN (SELECT o.id FROM old_listings o);
  RETURN NULL;
END $$;

CREATE FUNCTION listing_size_span_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM listing_size_span;
  RETURN NULL;
END $$;

CREATE TRIGGER listing_size_span_insert AFTER INSERT ON listing
  REFERENCING NEW TABLE AS new_listings FOR EACH STATEMENT EXECUTE FUNCTION listing_size_span_insert();
CREATE TRIGGER listing_size_span_update AFTER UPDATE ON listing
  REFERENCING OLD TABLE AS old_listings NEW TABLE AS new_listings FOR EACH STATEMENT EXECUTE FUNCTION listing_size_span_update();
CREATE TRIGGER listing_size_span_delete AFTER DELETE ON listing
  REFERENCING OLD TABLE AS old_listings FOR EACH STATEMENT EXECUTE FUNCTION listing_size_span_delete();
CREATE TRIGGER listing_size_span_truncate AFTER TRUNCATE ON listing
  FOR EACH STATEMENT EXECUTE FUNCTION listing_size_span_truncate();

ALTER TABLE listing ENABLE ALWAYS TRIGGER listing_size_span_insert;
ALTER TABLE listing ENABLE ALWAYS TRIGGER listing_size_span_update;
ALTER TABLE listing ENABLE ALWAYS TRIGGER listing_size_span_delete;
ALTER TABLE listing ENABLE ALWAYS TRIGGER listing_size_span_truncate;
