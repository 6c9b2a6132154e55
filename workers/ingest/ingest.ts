/**
 * Ingest: observations → price spans in PostgreSQL.
 *
 * 1. Every row is validated while it is streamed with COPY into a session-local staging table; a
 *    malformed row (format.ts: strict integer cents, no NUL byte, known columns only) or a day
 *    after today in New Zealand rejects the whole file (file, line and column in the error) before
 *    anything is written.
 * 2. Ingests of the same retailer are serialised: a session advisory lock per retailer
 *    ({@link INGEST_LOCK_CLASS}, retailer id) is taken before the checks and held until the last
 *    day is merged, so a concurrent ingest of the same chain waits, then sees what the first wrote
 *    (an identical day is skipped, a different one rejected) — never a raw unique violation.
 * 3. References and conflicts are checked on the staging table (unknown retailer or store,
 *    duplicate rows, a day older than what is already stored, a day already ingested with other
 *    data); any problem rejects the whole file.
 * 4. Each day is then merged in one transaction, set-based: listings are upserted, changed or
 *    vanished open spans are closed, new spans opened, national spans built from the median across
 *    the chain's reporting stores, and daily store statistics written.
 *
 * "Make unchanged prices free" (DESIGN.md): an open span stores no `last_day`; its end is its
 * store's (or chain's, nationally) last collection day. A day writes only what changed.
 * Re-ingesting a day with identical data changes nothing (collections carry a digest). A process
 * killed mid-ingest leaves every day either fully merged or absent (one transaction per day; the
 * lock is released with the connection); re-running the same input completes it.
 */
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { CollectionMode } from '../../src/domain/spans.js';
import { gtinKey } from '../../src/domain/matching.js';
import { isDay, isFutureDay, nzToday } from '../../src/domain/days.js';
import { validateObservation, ObservationError, type RawRecord } from './format.js';
import { makeProgress } from '../progress.js';
import { inTransaction } from '../../src/db/transaction.js';
import { bumpDataVersion } from '../../src/db/data-version.js';

/** Options of one ingest call. */
export interface IngestOptions {
  /** How unmentioned listings are treated (default 'snapshot'). */
  mode?: CollectionMode;
  /**
   * The days between each scope's last stored collection and the days of this input are unknown
   * (for example a price log that ends a year before a catalogue): every open span of the
   * retailers (nationally) and stores in a day is closed at its previous collection day, so no
   * span runs across the unknown days and an equal price opens a new span (src/domain/spans.ts
   * mergeDay `afterGap`). Default false.
   */
  afterGap?: boolean;
  /** Recorded with each collection (a file name or importer name). */
  source?: string;
  /** Show a progress bar (default: when stderr is a terminal). */
  progress?: boolean;
  /**
   * Today's NZ calendar day, `YYYY-MM-DD` (default: today in Pacific/Auckland, `nzToday()`). A row
   * dated after it is refused: spans are append-only, so a future day would block every real day.
   */
  today?: string;
}

/**
 * First key of the session advisory locks that serialise ingests, `pg_advisory_lock(class,
 * retailer_id)` (the two-key space, apart from the single-key locks of migrate, match and export).
 */
export const INGEST_LOCK_CLASS = 7_242_013;

/** What an ingest call did. */
export interface IngestResult {
  rows: number;
  days: string[];
  /** Days merged now. */
  merged: string[];
  /** Retailer-days skipped because they were already ingested with the same data. */
  skipped: number;
  /**
   * Listings observed on the merged days (created or updated), ascending: what a search index must
   * rewrite after this ingest (workers/search). Empty when every day was skipped.
   */
  listingIds: number[];
  /** Seconds spent validating and staging (COPY), checking, and merging. */
  seconds: { stage: number; check: number; merge: number };
}

const STAGE_COLUMNS = [
  'line', 'day', 'retailer', 'store', 'external_id', 'price', 'promo_price', 'promo_kind', 'multibuy_qty',
  'multibuy_price', 'name', 'brand', 'size_text', 'gtin', 'category_path', 'image', 'retailer_url', 'available',
] as const;

function copyText(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

interface StageCounter {
  rows: number;
  /** The file the records came from (named in the check errors), when they came from one. */
  file: string | null;
}

async function* copyLines(records: AsyncIterable<RawRecord> | Iterable<RawRecord>, counter: StageCounter, today: string) {
  let buf = '';
  for await (const raw of records) {
    const o = validateObservation(raw);
    counter.file ??= raw.file ?? null;
    if (isFutureDay(o.day, today)) {
      throw new ObservationError(
        `${o.day} is after today in New Zealand (${today}): a collection day cannot be in the future (history is append-only, so it would block every later real day)`,
        raw.line, { file: raw.file, column: 'day' },
      );
    }
    const row = { ...o, line: raw.line, gtin: o.gtin === null ? null : gtinKey(o.gtin) };
    buf += STAGE_COLUMNS.map((c) => copyText((row as Record<string, unknown>)[c])).join('\t') + '\n';
    counter.rows += 1;
    if (buf.length > 1 << 16) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}

async function fail(client: pg.PoolClient, file: string | null, sql: string, params: unknown[], message: (r: Record<string, unknown>) => string) {
  const r = await client.query(sql, params);
  if (r.rowCount) throw new ObservationError(message(r.rows[0]), (r.rows[0].line as number | undefined) ?? null, { file });
}

/**
 * Ingests observations (from a file reader or an importer). The whole input is validated and
 * checked before the first write; each day is then merged in its own transaction. Concurrent
 * ingests touching the same retailer run one after the other (advisory lock per retailer).
 * @throws ObservationError for any malformed row (file, line and column named), a day after
 *   `opts.today`, or inconsistent input (nothing written); RangeError for a malformed `opts.today`.
 */
export async function ingest(
  pool: pg.Pool,
  records: AsyncIterable<RawRecord> | Iterable<RawRecord>,
  opts: IngestOptions = {},
): Promise<IngestResult> {
  const mode = opts.mode ?? 'snapshot';
  const today = opts.today ?? nzToday();
  if (!isDay(today)) throw new RangeError(`today must be a day YYYY-MM-DD, not "${today}"`);
  const client = await pool.connect();
  let locked: number[] = [];
  try {
    await client.query(DROP_TEMP);
    // Temp tables live in local buffers (default 8 MB); a day of a national panel needs more.
    await client.query("SET temp_buffers = '256MB'").catch(() => {}); // only settable before first temp use
    await client.query(`CREATE TEMP TABLE stg_raw (
      line INT, day DATE, retailer TEXT, store TEXT, external_id TEXT, price INT, promo_price INT,
      promo_kind SMALLINT, multibuy_qty INT, multibuy_price INT, name TEXT, brand TEXT, size_text TEXT,
      gtin BIGINT, category_path JSONB, image TEXT, retailer_url TEXT, available BOOLEAN)`);
    const counter: StageCounter = { rows: 0, file: null };
    const file = () => counter.file;
    const copy = client.query(copyFrom(`COPY stg_raw (${STAGE_COLUMNS.join(', ')}) FROM STDIN`));
    const t0 = performance.now();
    await pipeline(Readable.from(copyLines(records, counter, today)), copy);
    const t1 = performance.now();
    if (counter.rows === 0) return { rows: 0, days: [], merged: [], skipped: 0, listingIds: [], seconds: { stage: (t1 - t0) / 1000, check: 0, merge: 0 } };

    // References, resolved in one pass.
    await client.query(`CREATE TEMP TABLE stg AS
      SELECT o.*, r.id AS retailer_id, r.national_only, s.id AS store_id
      FROM stg_raw o LEFT JOIN retailer r ON r.slug = o.retailer
      LEFT JOIN store s ON s.retailer_id = r.id AND s.external_id = o.store`);
    await client.query('DROP TABLE stg_raw');
    await fail(client, file(), 'SELECT line, retailer FROM stg WHERE retailer_id IS NULL ORDER BY line LIMIT 1', [],
      (r) => `unknown retailer "${r.retailer}"`);
    await fail(client, file(), 'SELECT line, retailer FROM stg WHERE national_only AND store IS NOT NULL ORDER BY line LIMIT 1', [],
      (r) => `${r.retailer} has national prices only: leave store empty`);
    await fail(client, file(), 'SELECT line, retailer, store FROM stg WHERE store IS NOT NULL AND store_id IS NULL ORDER BY line LIMIT 1', [],
      (r) => `unknown store "${r.store}" of ${r.retailer} (import the store list first)`);
    await fail(client, file(), `SELECT max(line) AS line, external_id, store, day::text FROM stg
      GROUP BY retailer_id, store_id, store, external_id, day HAVING count(*) > 1 ORDER BY 1 LIMIT 1`, [],
      (r) => `duplicate observation of ${r.external_id} at store "${r.store ?? ''}" on ${r.day}`);
    await client.query('CREATE INDEX ON stg (day)');
    await client.query('ANALYZE stg');

    // One ingest per retailer at a time (ascending ids, so two multi-chain ingests cannot deadlock):
    // everything below reads and writes the chain's state as the previous ingest left it.
    locked = (await client.query<{ id: number }>('SELECT DISTINCT retailer_id AS id FROM stg ORDER BY 1')).rows.map((r) => r.id);
    for (const id of locked) await client.query('SELECT pg_advisory_lock($1, $2)', [INGEST_LOCK_CLASS, id]);

    const inputDays = (await client.query<{ day: string }>('SELECT DISTINCT day::text AS day FROM stg ORDER BY 1')).rows.map((r) => r.day);
    // Collections (one per retailer-day) and their digests: identical re-ingest is skipped,
    // a conflicting one rejected.
    await client.query(`CREATE TEMP TABLE stg_coll AS
      SELECT retailer_id, day, min(line) AS line, count(*)::int AS rows,
             md5(string_agg(concat_ws('|', coalesce(store, ''), external_id, price, promo_price, promo_kind, multibuy_qty, multibuy_price), ','
               ORDER BY coalesce(store, ''), external_id)) AS digest
      FROM stg GROUP BY retailer_id, day`);
    await fail(client, file(), `SELECT sc.line, r.slug, sc.day::text FROM stg_coll sc JOIN retailer r ON r.id = sc.retailer_id
      JOIN collection c ON c.retailer_id = sc.retailer_id AND c.store_id IS NULL AND c.day = sc.day
      WHERE c.digest <> sc.digest ORDER BY sc.line LIMIT 1`, [],
      (r) => `${r.slug} ${r.day} was already ingested with different observations (a chain's day is ingested once, from one file)`);
    const skipped = (await client.query(`DELETE FROM stg_coll sc USING collection c
      WHERE c.retailer_id = sc.retailer_id AND c.store_id IS NULL AND c.day = sc.day`)).rowCount ?? 0;
    await client.query('DELETE FROM stg WHERE NOT EXISTS (SELECT 1 FROM stg_coll sc WHERE sc.retailer_id = stg.retailer_id AND sc.day = stg.day)');
    await fail(client, file(), `SELECT sc.line, r.slug, sc.day::text, r.last_national_day::text AS last FROM stg_coll sc
      JOIN retailer r ON r.id = sc.retailer_id WHERE sc.day <= r.last_national_day ORDER BY sc.line LIMIT 1`, [],
      (r) => `${r.slug} ${r.day} is not after the last ingested day ${r.last} (history is append-only)`);
    await fail(client, file(), `SELECT min(s.line) AS line, st.external_id, s.day::text, st.last_day::text AS last FROM stg s
      JOIN store st ON st.id = s.store_id WHERE s.day <= st.last_day GROUP BY st.external_id, s.day, st.last_day ORDER BY 1 LIMIT 1`, [],
      (r) => `store ${r.external_id}: ${r.day} is not after its last ingested day ${r.last}`);

    const days = (await client.query<{ day: string }>('SELECT DISTINCT day::text AS day FROM stg ORDER BY 1')).rows.map((r) => r.day);
    const t2 = performance.now();
    const bar = makeProgress(opts.progress, 'ingest days', days.length);
    for (const day of days) {
      // One transaction per day, on the held connection (its temporary tables and advisory locks);
      // the day's data version bump commits with it (src/db/data-version.ts).
      await inTransaction(client, async (tx) => {
        await mergeDayInSql(tx, day, mode, opts.afterGap === true, opts.source ?? null);
        await bumpDataVersion(tx, `ingest ${day}${opts.source ? ` (${opts.source})` : ''}`);
      });
      bar.increment();
    }
    bar.stop();
    const t3 = performance.now();
    const listingIds = days.length === 0 ? [] : (await client.query<{ id: number }>(
      `SELECT l.id FROM (SELECT DISTINCT retailer_id, external_id FROM stg) s
       JOIN listing l ON l.retailer_id = s.retailer_id AND l.external_id = s.external_id ORDER BY l.id`)).rows.map((r) => r.id);
    const seconds = { stage: (t1 - t0) / 1000, check: (t2 - t1) / 1000, merge: (t3 - t2) / 1000 };
    return { rows: counter.rows, days: inputDays, merged: days, skipped, listingIds, seconds };
  } finally {
    let broken = false;
    for (const id of locked) {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [INGEST_LOCK_CLASS, id]).catch(() => {
        broken = true;
      });
    }
    await client.query(DROP_TEMP).catch(() => {
      broken = true;
    });
    // A connection that could not release its locks must not go back to the pool holding them.
    client.release(broken);
  }
}

const DROP_TEMP = 'DROP TABLE IF EXISTS pg_temp.stg_raw, pg_temp.stg, pg_temp.stg_coll, pg_temp.stg_day, pg_temp.nat';

const SAME_PRICE = (a: string, b: string) => `${a}.price = ${b}.price
  AND ${a}.promo_price IS NOT DISTINCT FROM ${b}.promo_price AND ${a}.promo_kind IS NOT DISTINCT FROM ${b}.promo_kind
  AND ${a}.multibuy_qty IS NOT DISTINCT FROM ${b}.multibuy_qty AND ${a}.multibuy_price IS NOT DISTINCT FROM ${b}.multibuy_price`;

/**
 * The observation's `image` column holds either an ImagePath already served here (an export
 * re-ingested: `/…/x.avif`, stored in listing.image) or the retailer's image URL a collector saw
 * (stored in listing.image_url, which workers/images downloads and converts into listing.image).
 */
const IMAGE_PATH = (col: string) => `(CASE WHEN ${col} ~ '^/[A-Za-z0-9_./-]+\\.avif$' THEN ${col} END)`;
const IMAGE_SOURCE = (col: string) => `(CASE WHEN ${col} !~ '^/[A-Za-z0-9_./-]+\\.avif$' THEN ${col} END)`;

/** Merges the staged rows of one day, inside the caller's transaction. */
async function mergeDayInSql(client: pg.PoolClient, day: string, mode: CollectionMode, afterGap: boolean, source: string | null): Promise<void> {
  const q = (sql: string) => client.query(sql, [day]);

  // Listings: insert new ones, then update attributes that changed (an empty value never erases).
  // Only the missing ones are offered to INSERT: a conflicting row would still draw an id from the
  // sequence, leaving gaps of a whole day's size between listing ids.
  await q(`INSERT INTO listing (retailer_id, external_id, name, first_seen)
    SELECT DISTINCT s.retailer_id, s.external_id, r.name || ' item ' || s.external_id, $1::date
    FROM stg s JOIN retailer r ON r.id = s.retailer_id WHERE s.day = $1
      AND NOT EXISTS (SELECT 1 FROM listing l WHERE l.retailer_id = s.retailer_id AND l.external_id = s.external_id)
    ON CONFLICT (retailer_id, external_id) DO NOTHING`);
  await q(`CREATE TEMP TABLE stg_day ON COMMIT DROP AS
    SELECT s.*, l.id AS listing_id FROM stg s JOIN listing l ON l.retailer_id = s.retailer_id AND l.external_id = s.external_id
    WHERE s.day = $1`);
  await client.query('CREATE INDEX ON stg_day (store_id, listing_id)');
  await client.query('ANALYZE stg_day');
  await q(`WITH a AS (
      SELECT DISTINCT ON (listing_id) listing_id, name, brand, size_text, gtin, category_path, image, retailer_url, available
      FROM stg_day WHERE day = $1 ORDER BY listing_id, (name IS NULL), line DESC)
    UPDATE listing l SET name = coalesce(a.name, l.name), brand = coalesce(a.brand, l.brand),
      size_text = coalesce(a.size_text, l.size_text), gtin = coalesce(a.gtin, l.gtin),
      category_path = CASE WHEN jsonb_array_length(a.category_path) > 0
        THEN ARRAY(SELECT jsonb_array_elements_text(a.category_path)) ELSE l.category_path END,
      image = coalesce(${IMAGE_PATH('a.image')}, l.image), image_url = coalesce(${IMAGE_SOURCE('a.image')}, l.image_url),
      retailer_url = coalesce(a.retailer_url, l.retailer_url),
      available = coalesce(a.available, true), first_seen = least(l.first_seen, $1::date)
    FROM a WHERE l.id = a.listing_id AND (
      (a.name IS NOT NULL AND a.name IS DISTINCT FROM l.name) OR (a.brand IS NOT NULL AND a.brand IS DISTINCT FROM l.brand)
      OR (a.size_text IS NOT NULL AND a.size_text IS DISTINCT FROM l.size_text) OR (a.gtin IS NOT NULL AND a.gtin IS DISTINCT FROM l.gtin)
      OR (jsonb_array_length(a.category_path) > 0 AND ARRAY(SELECT jsonb_array_elements_text(a.category_path)) IS DISTINCT FROM l.category_path)
      OR (${IMAGE_PATH('a.image')} IS NOT NULL AND ${IMAGE_PATH('a.image')} IS DISTINCT FROM l.image)
      OR (${IMAGE_SOURCE('a.image')} IS NOT NULL AND ${IMAGE_SOURCE('a.image')} IS DISTINCT FROM l.image_url) OR (a.retailer_url IS NOT NULL AND a.retailer_url IS DISTINCT FROM l.retailer_url)
      OR coalesce(a.available, true) IS DISTINCT FROM l.available OR $1::date < l.first_seen)`);

  // Store spans: close open spans that changed (or, in a snapshot, were not observed; after a gap,
  // every open span) at the store's previous collection day; open spans for new prices.
  await q(`UPDATE store_price_span sp SET last_day = st.last_day
    FROM store st
    WHERE st.id IN (SELECT DISTINCT store_id FROM stg_day WHERE day = $1 AND store_id IS NOT NULL)
      AND sp.store_id = st.id AND sp.last_day IS NULL
      ${afterGap ? '' : `AND NOT EXISTS (SELECT 1 FROM stg_day o WHERE o.day = $1 AND o.store_id = sp.store_id AND o.listing_id = sp.listing_id AND ${SAME_PRICE('o', 'sp')})`}
      ${mode === 'changes' && !afterGap ? 'AND EXISTS (SELECT 1 FROM stg_day o WHERE o.day = $1 AND o.store_id = sp.store_id AND o.listing_id = sp.listing_id)' : ''}`);
  await q(`INSERT INTO store_price_span (listing_id, store_id, first_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
    SELECT o.listing_id, o.store_id, $1::date, o.price, o.promo_price, o.promo_kind, o.multibuy_qty, o.multibuy_price
    FROM stg_day o WHERE o.day = $1 AND o.store_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM store_price_span sp WHERE sp.store_id = o.store_id AND sp.listing_id = o.listing_id AND sp.last_day IS NULL)`);
  await q(`UPDATE store SET last_day = $1::date WHERE id IN (SELECT DISTINCT store_id FROM stg_day WHERE day = $1 AND store_id IS NOT NULL)`);

  // National observations: a direct national row wins; otherwise the median across stores
  // (same rules as src/domain/spans.ts nationalPrice).
  await q(`CREATE TEMP TABLE nat ON COMMIT DROP AS
    SELECT listing_id, retailer_id, price, promo_price, promo_kind, multibuy_qty, multibuy_price
    FROM stg_day WHERE day = $1 AND store_id IS NULL
    UNION ALL
    SELECT listing_id, retailer_id, price, CASE WHEN promo THEN promo_price END, CASE WHEN promo THEN promo_kind END,
      CASE WHEN promo AND promo_kind = 3 THEN multibuy_qty END, CASE WHEN promo AND promo_kind = 3 THEN multibuy_price END
    FROM (
      SELECT listing_id, retailer_id,
        round(percentile_cont(0.5) WITHIN GROUP (ORDER BY price)::numeric)::int AS price,
        count(promo_price) * 2 > count(*) AS promo,
        round(percentile_cont(0.5) WITHIN GROUP (ORDER BY promo_price)::numeric)::int AS promo_price,
        mode() WITHIN GROUP (ORDER BY promo_kind) FILTER (WHERE promo_price IS NOT NULL) AS promo_kind,
        mode() WITHIN GROUP (ORDER BY multibuy_qty) FILTER (WHERE promo_kind = 3) AS multibuy_qty,
        round(percentile_cont(0.5) WITHIN GROUP (ORDER BY multibuy_price) FILTER (WHERE promo_kind = 3)::numeric)::int AS multibuy_price
      FROM stg_day s WHERE day = $1 AND store_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM stg_day d WHERE d.day = $1 AND d.store_id IS NULL AND d.listing_id = s.listing_id)
      GROUP BY listing_id, retailer_id) m`);
  await q(`UPDATE national_price_span sp SET last_day = r.last_national_day
    FROM listing l JOIN retailer r ON r.id = l.retailer_id
    WHERE l.id = sp.listing_id AND sp.last_day IS NULL
      AND l.retailer_id IN (SELECT DISTINCT retailer_id FROM stg_day WHERE day = $1)
      ${afterGap ? '' : `AND NOT EXISTS (SELECT 1 FROM nat o WHERE o.listing_id = sp.listing_id AND ${SAME_PRICE('o', 'sp')})`}
      ${mode === 'changes' && !afterGap ? 'AND EXISTS (SELECT 1 FROM nat o WHERE o.listing_id = sp.listing_id)' : ''}`);
  await q(`INSERT INTO national_price_span (listing_id, first_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
    SELECT o.listing_id, $1::date, o.price, o.promo_price, o.promo_kind, o.multibuy_qty, o.multibuy_price
    FROM nat o WHERE NOT EXISTS (SELECT 1 FROM national_price_span sp WHERE sp.listing_id = o.listing_id AND sp.last_day IS NULL)`);
  await q(`UPDATE retailer SET last_national_day = $1::date, last_run = now() WHERE id IN (SELECT DISTINCT retailer_id FROM stg_day WHERE day = $1)`);

  // Daily store statistics (shelf price across the stores that priced the listing).
  await q(`INSERT INTO listing_day_stats (listing_id, day, min, med, max, n)
    SELECT listing_id, $1::date, min(price), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY price)::numeric)::int, max(price), count(*)
    FROM stg_day WHERE day = $1 AND store_id IS NOT NULL GROUP BY listing_id
    ON CONFLICT (listing_id, day) DO NOTHING`);

  // Collections: the chain's national one (with the digest) and one per store.
  await client.query(`INSERT INTO collection (retailer_id, store_id, day, mode, rows, digest, source)
    SELECT retailer_id, NULL, day, $2, rows, digest, $3 FROM stg_coll WHERE day = $1
    UNION ALL
    SELECT retailer_id, store_id, day, $2, count(*), '', $3 FROM stg_day WHERE day = $1 AND store_id IS NOT NULL GROUP BY retailer_id, store_id, day`,
    [day, mode, source]);
}
