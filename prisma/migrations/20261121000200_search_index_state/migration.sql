-- Bookkeeping of the Elasticsearch search index (workers/search). Unused by the embedded backend.

-- The index behind each alias, as last built by `search-reindex`, and when incremental updates
-- last reached it.
CREATE TABLE search_index_state (
  alias       TEXT PRIMARY KEY,
  index_name  TEXT NOT NULL,
  documents   INTEGER NOT NULL,
  built_at    TIMESTAMPTZ NOT NULL,
  synced_at   TIMESTAMPTZ
);

-- Outbox of listings whose index documents must be (re)written: filled after each ingest, drained
-- by the incremental update; rows stay when Elasticsearch is unreachable, so the next update (or
-- a full reindex) catches up. `seq` grows on every (re-)queue, so a row re-queued while it is
-- being indexed is not removed with the older copy. No foreign key: a listing that no longer
-- exists must still be removed from the index.
CREATE TABLE search_index_pending (
  listing_id  INTEGER PRIMARY KEY,
  seq         BIGSERIAL NOT NULL,
  queued_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
