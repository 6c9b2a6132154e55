-- store_price_span's references to listing and store, checked once a statement instead of once a
-- row (issue 31 item 3). The table's two foreign keys ran two per-row checks for every span
-- inserted: on a first day of 449,000 spans (a SYNTHETIC 100-store panel, PostgreSQL 15) the INSERT
-- took 5.98 s with them and 2.36 s without, more than the whole COPY the ingest is measured against.
--
-- The rule kept is the foreign keys' own (NO ACTION both ways), enforced by the triggers below:
--   * spans inserted: every listing_id and store_id they name exists; each referenced row is locked
--     FOR KEY SHARE once (the lock a foreign-key check takes), so a concurrent DELETE of it waits for
--     this transaction and then finds its spans;
--   * a span's listing_id and store_id never change (no writer moves a span);
--   * a listing or store deleted, or its id changed, while spans name it: refused;
--   * listing or store truncated while spans remain (TRUNCATE them together): refused.
-- Refusals carry SQLSTATE 23503 (foreign_key_violation) and PostgreSQL's own wording. Like the
-- foreign keys, the triggers do not fire under session_replication_role = replica (bulk loaders of
-- SYNTHETIC panels set it to skip reference checks).
ALTER TABLE store_price_span DROP CONSTRAINT store_price_span_listing_id_fkey,
  DROP CONSTRAINT store_price_span_store_id_fkey;

-- AFTER INSERT, for each statement: the inserted rows are `new_spans`. Their distinct ids are read
-- once (a hash aggregate), then locked and probed one each; the ids a row lock skipped (deleted
-- meanwhile) are the missing ones. (An anti-join of every inserted row with LIMIT 1 is planned as a
-- nested loop: 0.3-0.4 s for 449,000 spans on PostgreSQL 18.)
CREATE FUNCTION store_price_span_check_refs() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  listings INTEGER[];
  stores INTEGER[];
  missing INTEGER;
BEGIN
  SELECT array_agg(id) INTO listings FROM (SELECT DISTINCT listing_id AS id FROM new_spans) d;
  SELECT array_agg(id) INTO stores FROM (SELECT DISTINCT store_id AS id FROM new_spans) d;
  PERFORM 1 FROM listing l WHERE l.id = ANY(listings) FOR KEY SHARE;
  SELECT u INTO missing FROM unnest(listings) u WHERE NOT EXISTS (SELECT 1 FROM listing l WHERE l.id = u) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'insert or update on table "store_price_span" violates foreign key constraint "store_price_span_listing_id_fkey"'
      USING ERRCODE = 'foreign_key_violation', DETAIL = format('Key (listing_id)=(%s) is not present in table "listing".', missing),
        TABLE = 'store_price_span', CONSTRAINT = 'store_price_span_listing_id_fkey';
  END IF;
  PERFORM 1 FROM store s WHERE s.id = ANY(stores) FOR KEY SHARE;
  SELECT u INTO missing FROM unnest(stores) u WHERE NOT EXISTS (SELECT 1 FROM store s WHERE s.id = u) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'insert or update on table "store_price_span" violates foreign key constraint "store_price_span_store_id_fkey"'
      USING ERRCODE = 'foreign_key_violation', DETAIL = format('Key (store_id)=(%s) is not present in table "store".', missing),
        TABLE = 'store_price_span', CONSTRAINT = 'store_price_span_store_id_fkey';
  END IF;
  RETURN NULL;
END $$;

-- BEFORE UPDATE OF listing_id, store_id, for each row: a span stays with its listing and store.
CREATE FUNCTION store_price_span_refs_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.listing_id IS DISTINCT FROM OLD.listing_id OR NEW.store_id IS DISTINCT FROM OLD.store_id THEN
    RAISE EXCEPTION 'a store price span does not change listing or store (span %)', OLD.id
      USING ERRCODE = 'foreign_key_violation', TABLE = 'store_price_span';
  END IF;
  RETURN NEW;
END $$;

-- AFTER DELETE on listing or store, for each statement (`gone`, with the referenced table's name
-- as TG_TABLE_NAME); BEFORE UPDATE OF id for each row (`gone` is then the old row alone).
CREATE FUNCTION store_price_span_referenced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  key INTEGER;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.id IS NOT DISTINCT FROM OLD.id THEN RETURN NEW; END IF;
    key := OLD.id;
    IF NOT EXISTS (SELECT 1 FROM store_price_span sp WHERE (CASE TG_TABLE_NAME WHEN 'listing' THEN sp.listing_id ELSE sp.store_id END) = key) THEN
      RETURN NEW;
    END IF;
  ELSIF TG_TABLE_NAME = 'listing' THEN
    SELECT g.id INTO key FROM gone g WHERE EXISTS (SELECT 1 FROM store_price_span sp WHERE sp.listing_id = g.id) LIMIT 1;
    IF NOT FOUND THEN RETURN NULL; END IF;
  ELSE
    SELECT g.id INTO key FROM gone g WHERE EXISTS (SELECT 1 FROM store_price_span sp WHERE sp.store_id = g.id) LIMIT 1;
    IF NOT FOUND THEN RETURN NULL; END IF;
  END IF;
  RAISE EXCEPTION 'update or delete on table "%" violates foreign key constraint "store_price_span_%_id_fkey" on table "store_price_span"',
      TG_TABLE_NAME, TG_TABLE_NAME
    USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME,
      DETAIL = format('Key (id)=(%s) is still referenced from table "store_price_span".', key);
END $$;

-- AFTER TRUNCATE on listing or store: the spans must have gone with them.
CREATE FUNCTION store_price_span_referenced_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM store_price_span) THEN
    RAISE EXCEPTION 'cannot truncate table "%" while store_price_span has rows (truncate them together)', TG_TABLE_NAME
      USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER store_price_span_check_refs AFTER INSERT ON store_price_span
  REFERENCING NEW TABLE AS new_spans FOR EACH STATEMENT EXECUTE FUNCTION store_price_span_check_refs();
CREATE TRIGGER store_price_span_refs_fixed BEFORE UPDATE OF listing_id, store_id ON store_price_span
  FOR EACH ROW EXECUTE FUNCTION store_price_span_refs_fixed();
CREATE TRIGGER listing_spans_delete AFTER DELETE ON listing
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION store_price_span_referenced();
CREATE TRIGGER store_spans_delete AFTER DELETE ON store
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION store_price_span_referenced();
CREATE TRIGGER listing_spans_update_id BEFORE UPDATE OF id ON listing
  FOR EACH ROW EXECUTE FUNCTION store_price_span_referenced();
CREATE TRIGGER store_spans_update_id BEFORE UPDATE OF id ON store
  FOR EACH ROW EXECUTE FUNCTION store_price_span_referenced();
CREATE TRIGGER listing_spans_truncate AFTER TRUNCATE ON listing
  FOR EACH STATEMENT EXECUTE FUNCTION store_price_span_referenced_truncate();
CREATE TRIGGER store_spans_truncate AFTER TRUNCATE ON store
  FOR EACH STATEMENT EXECUTE FUNCTION store_price_span_referenced_truncate();
