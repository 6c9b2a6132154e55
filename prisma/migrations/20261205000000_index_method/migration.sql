-- The index method of the stored run (issue 30: GEKS-Jevons selectable beside the chained Jevons,
-- src/domain/index-method.ts). index_run.method names the method that produced the rows of
-- index_item_day and index_day; a run with another method recomputes every day. Runs stored
-- before this migration were chained Jevons.
ALTER TABLE index_run ADD COLUMN method TEXT NOT NULL DEFAULT 'chained-jevons'
  CHECK (method IN ('chained-jevons', 'geks-jevons'));
