-- One data version for the whole database (issue 19 item 1; DESIGN "The data version, derived
-- views and the response cache").
--
-- A single row (id 1). Every write job (ingest, import, import-export, match, basket matching, the
-- index, the derived views, collect, images, the curators' commands) ends by bumping `version`
-- through src/db/data-version.ts bumpDataVersion, in the same transaction as its writes where it
-- can, and notifies channel `nzgp_data_version`; API servers LISTEN and key their response cache on
-- (epoch, version). Updating one row (rather than inserting into a log) serialises bumps, so the
-- versions increase in commit order and the notifications arrive in that order.
--
-- `epoch` is drawn once, when the table is created: a database rebuilt from scratch starts again at
-- version 0 with another epoch, so a cache key of the old database never names data of the new one.
CREATE TABLE data_version (
  id          SMALLINT PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  epoch       TEXT NOT NULL,
  version     BIGINT NOT NULL,
  finished_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  what        TEXT NOT NULL DEFAULT 'migration'
);

INSERT INTO data_version (id, epoch, version) VALUES (1, substr(md5(random()::text || clock_timestamp()::text), 1, 12), 0);
