-- Product images (issue 18 item 4; DESIGN "Collectors"; api-spec ImagePath).
--
-- listing.image stays the ImagePath the API serves: a path on this host to the 720 px AVIF
-- (`/images/ab/cdef….avif`, `_t` before `.avif` for the 200 px thumbnail), NULL until converted.
-- listing.image_url is new: the image URL a collector saw on the retailer's site (the observation's
-- `image` column when it is not already an ImagePath). The images worker (workers/images) downloads
-- each source URL once, converts it, and sets listing.image from the `image` table below.

ALTER TABLE listing ADD COLUMN image_url TEXT;
-- The worker's two joins (new URLs to fetch, converted ones to link) go through it.
CREATE INDEX listing_image_url_idx ON listing (image_url);

-- One row per source URL ever attempted: converted (`path` set, `error` NULL) or failed (`error`
-- set, `path` NULL; tried again from `retry_at`). `digest` names the files: the SHA-256 of the
-- conversion recipe and the downloaded bytes, so identical bytes at two URLs share one path, and a
-- new recipe gives new paths (the files are served as immutable).
CREATE TABLE image (
  source_url    TEXT PRIMARY KEY,
  path          TEXT,
  digest        TEXT,
  width         INTEGER,
  height        INTEGER,
  bytes         INTEGER,
  thumb_bytes   INTEGER,
  source_bytes  INTEGER,
  fetched_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  error         TEXT,
  attempts      INTEGER NOT NULL DEFAULT 1,
  retry_at      TIMESTAMPTZ,
  CHECK ((path IS NULL) = (error IS NOT NULL)),
  CHECK ((error IS NULL) = (retry_at IS NULL))
);
CREATE INDEX image_retry_idx ON image (retry_at);
