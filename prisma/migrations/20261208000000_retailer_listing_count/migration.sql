-- A chain's catalogue size kept on its row (issue 31 item 1: list_retailers, compare_retailers and
-- get_retailer_levels order chains by it, and counting every listing of every chain on each call
-- took 130 ms to 2 s on a SYNTHETIC 120,000-listing panel). retailer.listing_count is the number of
-- listing rows of the chain, kept exact by statement-level triggers on listing for every writer
-- (ingest, import, collect, the synthetic panel): INSERT and DELETE add and subtract per chain from
-- their transition tables, TRUNCATE zeroes every chain. A listing never changes chain (refused
-- below), so UPDATEs need no bookkeeping. ENABLE ALWAYS: they also fire under
-- session_replication_role = replica, which bulk loaders set to skip foreign-key checks.
ALTER TABLE retailer ADD COLUMN listing_count INTEGER NOT NULL DEFAULT 0;

UPDATE retailer r SET listing_count = c.n
FROM (SELECT retailer_id, count(*)::int AS n FROM listing GROUP BY retailer_id) c
WHERE c.retailer_id = r.id;

-- Rows inserted add to their chain's count, rows deleted subtract: the two triggers below name
-- their transition table `changed`.
CREATE FUNCTION listing_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE retailer r SET listing_count = r.listing_count + CASE TG_OP WHEN 'INSERT' THEN c.n ELSE -c.n END
  FROM (SELECT retailer_id, count(*)::int AS n FROM changed GROUP BY retailer_id) c
  WHERE c.retailer_id = r.id;
  RETURN NULL;
END $$;

CREATE FUNCTION listing_count_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE retailer SET listing_count = 0 WHERE listing_count <> 0;
  RETURN NULL;
END $$;

CREATE FUNCTION listing_retailer_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.retailer_id IS DISTINCT FROM OLD.retailer_id THEN
    RAISE EXCEPTION 'a listing does not change chain (listing %)', OLD.id;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER listing_count_insert AFTER INSERT ON listing
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION listing_count_change();
CREATE TRIGGER listing_count_delete AFTER DELETE ON listing
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION listing_count_change();
CREATE TRIGGER listing_count_truncate AFTER TRUNCATE ON listing
  FOR EACH STATEMENT EXECUTE FUNCTION listing_count_truncate();
CREATE TRIGGER listing_retailer_fixed BEFORE UPDATE OF retailer_id ON listing
  FOR EACH ROW EXECUTE FUNCTION listing_retailer_fixed();

ALTER TABLE listing ENABLE ALWAYS TRIGGER listing_count_insert;
ALTER TABLE listing ENABLE ALWAYS TRIGGER listing_count_delete;
ALTER TABLE listing ENABLE ALWAYS TRIGGER listing_count_truncate;
ALTER TABLE listing ENABLE ALWAYS TRIGGER listing_retailer_fixed;
