-- Collection runs (issue 18 item 2; workers/collect/run.ts): the run log and the per-store checkpoints
-- that make a killed run resumable.

-- One row per run of one chain's collector for one NZ day: when it started and finished, how it
-- ended, and its totals. A run that ends without ingesting (killed, aborted, failed) keeps
-- finished_at NULL or status 'aborted'/'failed'; the chain's `retailer.last_run` is set when a run
-- finishes.
CREATE TABLE collect_run (
  id           SERIAL PRIMARY KEY,
  retailer_id  INTEGER NOT NULL REFERENCES retailer(id),
  day          DATE NOT NULL,
  origin       TEXT NOT NULL,
  started_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at  TIMESTAMPTZ,
  status       TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished', 'aborted', 'failed')),
  -- Scopes (stores, or the nation) of the run, and those collected now, skipped as done, or failed.
  scopes       INTEGER NOT NULL DEFAULT 0,
  collected    INTEGER NOT NULL DEFAULT 0,
  resumed      INTEGER NOT NULL DEFAULT 0,
  failed       INTEGER NOT NULL DEFAULT 0,
  pages        INTEGER NOT NULL DEFAULT 0,
  rows         INTEGER NOT NULL DEFAULT 0,
  -- Pages skipped as malformed plus scopes failed.
  errors       INTEGER NOT NULL DEFAULT 0,
  -- How the chain's day was ingested ('snapshot' or 'changes'), NULL before the ingest.
  mode         TEXT CHECK (mode IN ('snapshot', 'changes')),
  error        TEXT
);
CREATE INDEX collect_run_retailer_idx ON collect_run (retailer_id, day);

-- The checkpoint of one scope (a store, or '' for national prices) of one chain's day: 'done' once
-- every page of the scope was fetched and its rows spooled (spool_file, spool_rows); the chain's
-- day is ingested once, from every done scope. A re-run of the day skips done scopes whose spool is
-- still there and collects the others again from their first page. Also the per-store run log:
-- pages, rows, errors (malformed pages skipped), start and end of the last attempt.
CREATE TABLE collect_checkpoint (
  retailer_id   INTEGER NOT NULL REFERENCES retailer(id),
  day           DATE NOT NULL,
  scope         TEXT NOT NULL,
  store_id      INTEGER REFERENCES store(id),
  run_id        INTEGER NOT NULL REFERENCES collect_run(id),
  status        TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  pages         INTEGER NOT NULL DEFAULT 0,
  rows          INTEGER NOT NULL DEFAULT 0,
  errors        INTEGER NOT NULL DEFAULT 0,
  spool_file    TEXT,
  spool_sha256  TEXT,
  started_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at   TIMESTAMPTZ,
  error         TEXT,
  PRIMARY KEY (retailer_id, day, scope)
);
CREATE INDEX collect_checkpoint_run_idx ON collect_checkpoint (run_id);
CREATE INDEX collect_checkpoint_store_idx ON collect_checkpoint (store_id);
