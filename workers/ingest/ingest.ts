/**
 * Ingest: observations → price spans in PostgreSQL.
 *
 * 1. Every row is validated while it is streamed with COPY into a session-local staging table; a
 *    malformed row (format.ts: strict integer cents, no NUL byte, known columns only) or a day
 *    after today in New Zealand rejects the whole file (file, line and column in the error) before
 *    anything is written. References are resolved while streaming, from maps read before the
 *    COPY: retailer and store ids, and the listing ids of the first row's chain (any other listing
 *    gets a provisional negative key, one per chain and external id; each day's rows get the
 *    listing's id as that day is merged: in place, or, for a day mostly of such rows, in a copy of
 *    the day's rows that the merge then reads). A synchronous source (an importer's generator) is
 *    read without a promise per record. An unknown retailer or store, or a store on a
 *    national-only chain, rejects the file (first such line named) after the whole file is read.
 * 2. Ingests of the same retailer are serialised: a session advisory lock per retailer
 *    ({@link INGEST_LOCK_CLASS}, retailer id) is taken before the checks and held until the last
 *    day is merged, so a concurrent ingest of the same chain waits, then sees what the first wrote
 *    (an identical day is skipped, a different one rejected) — never a raw unique violation.
 * 3. Conflicts are checked on the staging table: duplicate rows (a unique index on day, store and
 *    listing, which the merge then reads by), a day older than what is already stored, a day
 *    already ingested with other data (collection digests); any problem rejects the whole file.
 * 4. Each day is then merged in one transaction, set-based: listings are upserted; one hash join
 *    of the stores' open spans with the day's rows finds what changed, so only changed or
 *    vanished spans are closed and only new prices open spans; national spans come from the median
 *    across the chain's reporting stores, computed in the same aggregation as the daily store
 *    statistics.
 *
 * "Make unchanged prices free" (DESIGN.md): an open span stores no `last_day`; its end is its last
 * observed day (the day of record, src/domain/spans.ts spanTo): its scope's covered day — moved by
 * one write when a collection covers the scope (a snapshot or change log of a store; nationally, a
 * national collection or every active store of the chain) — or, for what a partial collection saw
 * unchanged, its own `seen_day`. A covering day writes only what changed; a partial one also the
 * `seen_day` of what it saw.
 * Re-ingesting a day with identical data changes nothing (collections carry a digest). A process
 * killed mid-ingest leaves every day either fully merged or absent (one transaction per day; the
 * lock is released with the connection); re-running the same input completes it.
 *
 * Needs PostgreSQL 15 or later (a unique index with NULLS NOT DISTINCT: national rows have no store).
 */
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { CollectionMode } from '../../src/domain/spans.js';
import { nationalCoveredDay, spanToSql, storeCoveredDay } from '../../src/services/span-sql.js';
import { gtinKey } from '../../src/domain/matching.js';
import { isDay, isFutureDay, nzToday } from '../../src/domain/days.js';
import { excerpt, quoted, validateObservation, ObservationError, type RawRecord } from './format.js';
import { makeProgress } from '../progress.js';
import { inTransaction } from '../../src/db/transaction.js';
import { lockSession, unlockSession } from '../../src/db/locks.js';
import { copyRows } from '../copy-rows.js';

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
  /**
   * When the prices of `day` were observed (collection.observed_at, which `retailer.last_run`
   * follows): a collector's run, or a file's own timestamps. Default, or when it answers null: now
   * for a day that is `today`, else the start of that day in New Zealand (the one instant surely not
   * later than its observations). Clamped to now.
   */
  observedAt?: (day: string) => Date | null;
  /** Show a progress bar (default: when stderr is a terminal). */
  progress?: boolean;
  /**
   * Today's NZ calendar day, `YYYY-MM-DD` (default: today in Pacific/Auckland, `nzToday()`). A row
   * dated after it is refused: spans are append-only, so a future day would block every real day.
   */
  today?: string;
}


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

/** The staging table's columns, in COPY order (see {@link copyLines}). */
const STAGE_COLUMNS = [
  'line', 'day', 'retailer_id', 'store_id', 'listing_id', 'external_id', 'price', 'promo_price', 'promo_kind', 'multibuy_qty',
  'multibuy_price', 'name', 'brand', 'size_text', 'gtin', 'category_path', 'image', 'retailer_url', 'available', 'attrs',
] as const;

/**
 * A value in the staging COPY's text format: null as the empty string (the COPY's `NULL ''`: a
 * third fewer bytes a row than `\N`, most columns being null; validation lets no empty text
 * through, so none is mistaken for a null); backslash, tab, newline and carriage return escaped.
 * @throws Error for an empty text, which would be read as null.
 */
function copyText(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (s === '') throw new Error('an empty text cannot be staged (it would be read as null)');
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

interface StageCounter {
  rows: number;
  /** The days and retailer ids staged. */
  days: Set<string>;
  retailers: Set<number>;
  /** The store ids staged, by day. */
  stores: Map<string, Set<number>>;
  /** Rows staged, and rows staged with a provisional listing key, by day (which way a day's keys are replaced: {@link mergeDayInSql}). */
  dayRows: Map<string, number>;
  provisionalRows: Map<string, number>;
  /** The file the records came from (named in the check errors), when they came from one. */
  file: string | null;
}

/**
 * Ids the staging resolves while streaming: every retailer and store (a few hundred rows), and the
 * listings of one chain (read before the COPY, since the connection is busy during it).
 */
interface References {
  retailers: Map<string, { id: number; nationalOnly: boolean }>;
  /** `retailer id \0 store external id` → store id. */
  stores: Map<string, number>;
  /** The chain whose listings are in {@link listings}, or null. */
  listingsOf: number | null;
  /** External id → listing id, for `listingsOf`. */
  listings: Map<string, number>;
  /** Retailer id → external id → provisional negative key, for every other listing. */
  provisional: Map<number, Map<string, number>>;
  /** Provisional keys drawn (the last one is its negative). */
  provisionalCount: number;
  /** The first (earliest) day staged of each provisional key, at index `-key - 1`: the day its listing is created. */
  provisionalDays: string[];
}

/** The first line of each kind of reference problem, thrown in this order after the stream ends. */
interface ReferenceProblems {
  unknownRetailer?: { line: number; retailer: string };
  nationalOnly?: { line: number; retailer: string };
  unknownStore?: { line: number; retailer: string; store: string };
}

/** Reads the retailers and stores, and the listings of `firstRetailer` (a slug) when it is known. */
async function readReferences(client: pg.PoolClient, firstRetailer: string | null): Promise<References> {
  const retailers = new Map<string, { id: number; nationalOnly: boolean }>();
  for (const r of (await client.query<{ id: number; slug: string; national_only: boolean }>('SELECT id, slug, national_only FROM retailer')).rows) {
    retailers.set(r.slug, { id: r.id, nationalOnly: r.national_only });
  }
  const stores = new Map<string, number>();
  for (const r of (await client.query<{ id: number; retailer_id: number; external_id: string }>('SELECT id, retailer_id, external_id FROM store')).rows) {
    stores.set(`${r.retailer_id}\u0000${r.external_id}`, r.id);
  }
  const first = firstRetailer === null ? undefined : retailers.get(firstRetailer);
  const listings = new Map<string, number>();
  if (first) {
    for (const r of (await client.query<{ id: number; external_id: string }>('SELECT id, external_id FROM listing WHERE retailer_id = $1', [first.id])).rows) {
      listings.set(r.external_id, r.id);
    }
  }
  return { retailers, stores, listingsOf: first?.id ?? null, listings, provisional: new Map(), provisionalCount: 0, provisionalDays: [] };
}

/**
 * The listing id of `externalId` at `retailerId`: its id when read, else its provisional negative
 * key (noting `day` when it is the key's earliest).
 */
function listingKey(refs: References, retailerId: number, externalId: string, day: string): number {
  if (retailerId === refs.listingsOf) {
    const id = refs.listings.get(externalId);
    if (id !== undefined) return id;
  }
  let chain = refs.provisional.get(retailerId);
  if (!chain) refs.provisional.set(retailerId, (chain = new Map()));
  let p = chain.get(externalId);
  if (p === undefined) {
    p = -(refs.provisionalCount += 1);
    chain.set(externalId, p);
    refs.provisionalDays.push(day);
  } else if (day < refs.provisionalDays[-p - 1]) refs.provisionalDays[-p - 1] = day;
  return p;
}

/**
 * Validates each record (`first`, then the rest of `records`) and yields COPY text for the staging
 * table in chunks of about 64 KiB, resolving references and counting rows in `counter`; the first
 * reference problem of each kind is noted in `problems` (and its rows not staged). A synchronous
 * `records` is read without awaiting each record.
 * @throws ObservationError for a malformed record or a day after `today`.
 */
async function* copyLines(
  first: IteratorResult<RawRecord>, records: AsyncIterator<RawRecord> | Iterator<RawRecord>, counter: StageCounter, today: string, refs: References,
  problems: ReferenceProblems,
) {
  let buf = '';
  let checkedDay = '';
  let lastStore: number | null = null;
  // Rows of `checkedDay` since it began, added to the counter's by-day counts when the day changes.
  let dayRows = 0;
  let dayProvisional = 0;
  const countDay = () => {
    if (dayRows === 0) return;
    counter.dayRows.set(checkedDay, (counter.dayRows.get(checkedDay) ?? 0) + dayRows);
    counter.provisionalRows.set(checkedDay, (counter.provisionalRows.get(checkedDay) ?? 0) + dayProvisional);
    dayRows = 0;
    dayProvisional = 0;
  };
  // `first`, then the rest of `records`; a synchronous source (an importer's generator) is read
  // without a promise per record: only a chunk of COPY text is awaited.
  let next: IteratorResult<RawRecord> | Promise<IteratorResult<RawRecord>>;
  let read = false;
  try {
    for (let r = first; !r.done; r = (next = records.next()) instanceof Promise ? await next : next) {
      const raw = r.value;
      const o = validateObservation(raw);
      counter.file ??= raw.file ?? null;
      if (o.day !== checkedDay) {
        if (isFutureDay(o.day, today)) {
          throw new ObservationError(
            `${o.day} is after today in New Zealand (${today}): a collection day cannot be in the future (history is append-only, so it would block every later real day)`,
            raw.line, { file: raw.file, column: 'day' },
          );
        }
        countDay();
        checkedDay = o.day;
        counter.days.add(o.day);
        lastStore = null;
      }
      counter.rows += 1;
      const retailer = refs.retailers.get(o.retailer);
      if (!retailer) {
        problems.unknownRetailer ??= { line: raw.line, retailer: o.retailer };
        continue;
      }
      let storeId: number | null = null;
      if (o.store !== null) {
        if (retailer.nationalOnly) {
          problems.nationalOnly ??= { line: raw.line, retailer: o.retailer };
          continue;
        }
        const id = refs.stores.get(`${retailer.id}\u0000${o.store}`);
        if (id === undefined) {
          problems.unknownStore ??= { line: raw.line, retailer: o.retailer, store: o.store };
          continue;
        }
        storeId = id;
      }
      if (problems.unknownRetailer || problems.nationalOnly || problems.unknownStore) continue; // the file is refused: stop staging
      counter.retailers.add(retailer.id);
      if (storeId !== null && storeId !== lastStore) {
        let set = counter.stores.get(o.day);
        if (!set) counter.stores.set(o.day, (set = new Set()));
        set.add(storeId);
        lastStore = storeId;
      }
      const gtin = o.gtin === null ? null : gtinKey(o.gtin);
      const path = o.category_path.length > 0 ? o.category_path : null;
      const attrs = o.name !== null || o.brand !== null || o.size_text !== null || gtin !== null || path !== null
        || o.image !== null || o.retailer_url !== null || o.available !== null;
      const key = listingKey(refs, retailer.id, o.external_id, o.day);
      dayRows += 1;
      if (key < 0) dayProvisional += 1;
      buf += `${raw.line}\t${o.day}\t${retailer.id}\t${storeId ?? ''}\t${key}\t${copyText(o.external_id)}\t${o.price}\t${
        copyText(o.promo_price)}\t${copyText(o.promo_kind)}\t${copyText(o.multibuy_qty)}\t${copyText(o.multibuy_price)}\t${
        attrs ? `${copyText(o.name)}\t${copyText(o.brand)}\t${copyText(o.size_text)}\t${copyText(gtin)}\t${copyText(path)}\t${copyText(o.image)}\t${
          copyText(o.retailer_url)}\t${copyText(o.available)}\tt` : '\t\t\t\t\t\t\t\tf'}\n`;
      if (buf.length > 1 << 16) {
        yield buf;
        buf = '';
      }
    }
    read = true;
  } finally {
    // Stopped early (a refused row, or the COPY failed): the source is closed (a file reader's stream).
    if (!read) await records.return?.();
  }
  countDay();
  if (buf) yield buf;
}

/** Throws the first reference problem noted while staging, in the order the checks have always run. */
function throwReferenceProblems(problems: ReferenceProblems, file: string | null): void {
  const p = problems;
  // A file's text is repeated as an excerpt at most (format.ts quoted).
  if (p.unknownRetailer) throw new ObservationError(`unknown retailer ${quoted(p.unknownRetailer.retailer)}`, p.unknownRetailer.line, { file });
  if (p.nationalOnly) throw new ObservationError(`${p.nationalOnly.retailer} has national prices only: leave store empty`, p.nationalOnly.line, { file });
  if (p.unknownStore) {
    throw new ObservationError(`unknown store ${quoted(p.unknownStore.store)} of ${p.unknownStore.retailer} (import the store list first)`, p.unknownStore.line, { file });
  }
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
    // Hash joins and sorts over a day's rows in memory (reset when the connection goes back).
    await client.query("SET work_mem = '256MB'");
    // The references are read before the COPY (the connection is busy during it), with the listings
    // of the first row's chain: a national collector's call holds one chain.
    const it = (Symbol.asyncIterator in records ? (records as AsyncIterable<RawRecord>)[Symbol.asyncIterator]() : (records as Iterable<RawRecord>)[Symbol.iterator]());
    const t0 = performance.now();
    const first = await it.next();
    const firstRetailer = first.done ? null : (first.value.record as { retailer?: unknown } | null)?.retailer;
    const refs = await readReferences(client, typeof firstRetailer === 'string' ? firstRetailer : null);
    await client.query(`CREATE TEMP TABLE stg (
      line INT, day DATE, retailer_id INT, store_id INT, listing_id INT, external_id TEXT, price INT, promo_price INT,
      promo_kind SMALLINT, multibuy_qty INT, multibuy_price INT, name TEXT, brand TEXT, size_text TEXT,
      gtin BIGINT, category_path JSONB, image TEXT, retailer_url TEXT, available BOOLEAN, attrs BOOLEAN)`);
    const counter: StageCounter = {
      rows: 0, file: null, days: new Set(), retailers: new Set(), stores: new Map(), dayRows: new Map(), provisionalRows: new Map(),
    };
    const file = () => counter.file;
    const problems: ReferenceProblems = {};
    const copy = client.query(copyFrom(`COPY stg (${STAGE_COLUMNS.join(', ')}) FROM STDIN WITH (NULL '')`));
    await pipeline(Readable.from(copyLines(first, it, counter, today, refs, problems)), copy);
    const t1 = performance.now();
    if (counter.rows === 0) return { rows: 0, days: [], merged: [], skipped: 0, listingIds: [], seconds: { stage: (t1 - t0) / 1000, check: 0, merge: 0 } };
    throwReferenceProblems(problems, file());
    if (refs.provisionalCount > 0) {
      // The provisional keys, with their chain, external id and earliest day (a row a new listing).
      await client.query('CREATE TEMP TABLE stg_keys (listing_id INT PRIMARY KEY, retailer_id INT, external_id TEXT, first_day DATE)');
      const keyLines = function* () {
        for (const [retailerId, chain] of refs.provisional) {
          for (const [externalId, key] of chain) yield `${key}\t${retailerId}\t${copyText(externalId)}\t${refs.provisionalDays[-key - 1]}\n`;
        }
      };
      await copyRows(client, 'stg_keys (listing_id, retailer_id, external_id, first_day)', keyLines()); // no nulls
      await client.query('ANALYZE stg_keys');
    }

    // Duplicates: the unique index the merge reads by (a listing's provisional key stands for its
    // chain and external id, so equal keys are equal observations' keys).
    try {
      await client.query('CREATE UNIQUE INDEX stg_key ON stg (day, store_id, listing_id) NULLS NOT DISTINCT');
    } catch (e) {
      if ((e as { code?: string }).code !== '23505') throw e;
      await fail(client, file(), `SELECT max(s.line) AS line, s.external_id, st.external_id AS store, s.day::text FROM stg s
        LEFT JOIN store st ON st.id = s.store_id GROUP BY s.day, s.store_id, st.external_id, s.listing_id, s.external_id HAVING count(*) > 1 ORDER BY 1 LIMIT 1`, [],
        (r) => `duplicate observation of ${excerpt(String(r.external_id))} at store ${quoted(String(r.store ?? ''))} on ${r.day}`);
      throw e;
    }
    await client.query('ANALYZE stg');

    // One ingest per retailer at a time (ascending ids, so two multi-chain ingests cannot deadlock):
    // everything below reads and writes the chain's state as the previous ingest left it.
    locked = [...counter.retailers].sort((a, b) => a - b);
    for (const id of locked) await lockSession(client, 'ingest', 'wait', id);

    const inputDays = [...counter.days].sort();
    // Collections (one per retailer-day) and their digests ({@link COLLECTION_DIGEST}): identical
    // re-ingest is skipped, a conflicting one rejected.
    await client.query(`CREATE TEMP TABLE stg_coll AS
      SELECT retailer_id, day, min(line) AS line, count(*)::int AS rows, ${COLLECTION_DIGEST} AS digest
      FROM stg GROUP BY retailer_id, day`);
    await fail(client, file(), `SELECT sc.line, r.slug, sc.day::text FROM stg_coll sc JOIN retailer r ON r.id = sc.retailer_id
      JOIN collection c ON c.retailer_id = sc.retailer_id AND c.store_id IS NULL AND c.day = sc.day
      WHERE c.digest <> CASE WHEN c.digest LIKE 'v2:%' THEN sc.digest ELSE (${LEGACY_COLLECTION_DIGEST}) END
      ORDER BY sc.line LIMIT 1`, [],
      (r) => `${r.slug} ${r.day} was already ingested with different observations (a chain's day is ingested once, from one file)`);
    const skipped = (await client.query(`DELETE FROM stg_coll sc USING collection c
      WHERE c.retailer_id = sc.retailer_id AND c.store_id IS NULL AND c.day = sc.day`)).rowCount ?? 0;
    if (skipped > 0) await client.query('DELETE FROM stg WHERE NOT EXISTS (SELECT 1 FROM stg_coll sc WHERE sc.retailer_id = stg.retailer_id AND sc.day = stg.day)');
    await fail(client, file(), `SELECT sc.line, r.slug, sc.day::text, r.last_national_day::text AS last FROM stg_coll sc
      JOIN retailer r ON r.id = sc.retailer_id WHERE sc.day <= r.last_national_day ORDER BY sc.line LIMIT 1`, [],
      (r) => `${r.slug} ${r.day} is not after the last ingested day ${r.last} (history is append-only)`);
    await fail(client, file(), `SELECT min(s.line) AS line, st.external_id, s.day::text, st.last_day::text AS last FROM stg s
      JOIN store st ON st.id = s.store_id WHERE s.day <= st.last_day GROUP BY st.external_id, s.day, st.last_day ORDER BY 1 LIMIT 1`, [],
      (r) => `store ${r.external_id}: ${r.day} is not after its last ingested day ${r.last}`);

    const days = (await client.query<{ day: string }>('SELECT DISTINCT day::text AS day FROM stg_coll ORDER BY 1')).rows.map((r) => r.day);
    const t2 = performance.now();
    const bar = makeProgress(opts.progress, 'ingest days', days.length);
    const stage: StageState = { rows: counter.rows, rekeyedSinceAnalyze: 0 };
    // The listings of the merged days, as each day's merge reports them (one row a listing, not a
    // scan of every staged row). At most the catalogue's size.
    const merged = new Set<number>();
    for (const day of days) {
      // One transaction per day, on the held connection (its temporary tables and advisory locks);
      // the job runner bumps the data version after the call (workers/jobs).
      await inTransaction(client, async (tx) => {
        const ids = await mergeDayInSql(tx, day, [...(counter.stores.get(day) ?? [])], mode, opts.afterGap === true, opts.source ?? null,
          observedAt(opts, day, today), stage, counter.dayRows.get(day) ?? 0, counter.provisionalRows.get(day) ?? 0);
        for (const id of ids) merged.add(id);
      });
      bar.increment();
    }
    bar.stop();
    const t3 = performance.now();
    const listingIds = [...merged].sort((a, b) => a - b);
    const seconds = { stage: (t1 - t0) / 1000, check: (t2 - t1) / 1000, merge: (t3 - t2) / 1000 };
    return { rows: counter.rows, days: inputDays, merged: days, skipped, listingIds, seconds };
  } finally {
    let broken = false;
    for (const id of locked) if (!(await unlockSession(client, 'ingest', id))) broken = true;
    await client.query(`${DROP_TEMP}; RESET work_mem`).catch(() => {
      broken = true;
    });
    // A connection that could not release its locks must not go back to the pool holding them.
    client.release(broken);
  }
}

const DROP_TEMP = 'DROP TABLE IF EXISTS pg_temp.stg, pg_temp.stg_keys, pg_temp.stg_day, pg_temp.stg_coll, pg_temp.chg, pg_temp.agg, pg_temp.nat, pg_temp.cov, pg_temp.nclose';

/**
 * The observation instant of `day` ({@link IngestOptions.observedAt}): the option's answer, else now
 * for today, else the start of the day in New Zealand (as SQL's `day::timestamp AT TIME ZONE
 * 'Pacific/Auckland'` gives, computed there); null means "let SQL decide".
 */
function observedAt(opts: IngestOptions, day: string, today: string): Date | null {
  const given = opts.observedAt?.(day) ?? null;
  if (given !== null && !Number.isNaN(given.getTime())) return given;
  return day === today ? new Date() : null;
}

/**
 * The digest of a chain-day's observations (collection.digest of its national row), for use in a
 * `GROUP BY retailer_id, day` over `stg`: `v2:<rows>:<sum of the rows' 64-bit hashes>` — a multiset
 * hash of each row's priced fields (store, external id, price, promotion, multibuy) by
 * `hash_record_extended`, the stable hash PostgreSQL partitions by (PostgreSQL 14+), so it needs
 * no sort of the day's rows and does not depend on their order.
 */
const COLLECTION_DIGEST = `'v2:' || count(*) || ':' || sum(hash_record_extended((store_id, external_id, price, promo_price, promo_kind, multibuy_qty, multibuy_price), 0))`;

/**
 * The digest collections written before `v2` carry (md5 of the rows sorted by store and external
 * id), for the chain-day of `sc` (a stg_coll row): computed only to compare with such a collection.
 */
const LEGACY_COLLECTION_DIGEST = `SELECT md5(string_agg(concat_ws('|', coalesce(st.external_id, ''), s.external_id, s.price, s.promo_price, s.promo_kind, s.multibuy_qty, s.multibuy_price), ','
    ORDER BY coalesce(st.external_id, ''), s.external_id))
  FROM stg s LEFT JOIN store st ON st.id = s.store_id WHERE s.retailer_id = sc.retailer_id AND s.day = sc.day`;

/**
 * SQL of a day's observation instant from the parameters `day` and `at` (the given instant or
 * null): the given instant clamped to now, else the start of the day in New Zealand.
 */
const observedAtSql = (day: string, at: string) =>
  `least(now(), coalesce(${at}::timestamptz, ${day}::date::timestamp AT TIME ZONE 'Pacific/Auckland'))`;

/**
 * An open national span `sp` (chain `r`) is interrupted: a collection of its chain since its last
 * observation did not see it (src/domain/spans.ts mergeDay); read before the chain's days move.
 */
const NAT_INTERRUPTED = `coalesce(${spanToSql('sp', nationalCoveredDay('r'))} < r.last_national_day, false)`;

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

/** What the day-by-day merge knows of the staging table across days. */
interface StageState {
  /** Rows staged. */
  rows: number;
  /** Rows whose provisional listing key was replaced since the last ANALYZE of `stg`. */
  rekeyedSinceAnalyze: number;
}

/**
 * Merges the staged rows of one day, inside the caller's transaction: listings, store spans,
 * national spans, daily store statistics and collections; `stores` are the ids of the stores
 * observed that day, `dayRows` the rows staged for it and `provisional` how many of them have a
 * provisional listing key (counted while staging; an upper bound once skipped chain-days are
 * deleted). Writes only what changed. Returns the ids of the listings observed that day.
 */
async function mergeDayInSql(
  client: pg.PoolClient, day: string, stores: number[], mode: CollectionMode, afterGap: boolean, source: string | null, at: Date | null,
  stage: StageState, dayRows: number, provisional: number,
): Promise<number[]> {
  // Whether this day covers its scopes (src/domain/spans.ts CollectionMode): every store in the rows
  // when the mode is complete; a chain's national scope when it also has national rows that day or
  // every active store of it is in the rows.
  const covers = mode !== 'partial';
  const q = (sql: string) => client.query(sql, [day]);

  // Listings first seen today: insert them, then give this day's rows their ids. They are the
  // provisional keys whose earliest day this is (stg_keys, written while staging): a key's listing
  // exists from its earliest merged day on (an earlier day skipped as already ingested held the same
  // rows, so it created the listing then). Only the missing ones are offered to INSERT: a
  // conflicting row would still draw an id from the sequence, leaving gaps of a whole day's size
  // between listing ids. Ids are drawn in (chain, external id in byte order) order, so the same
  // data gives the same ids on any server, whatever its collation.
  if (provisional > 0) {
    await q(`INSERT INTO listing (retailer_id, external_id, name, first_seen)
      SELECT k.retailer_id, k.external_id, r.name || ' item ' || k.external_id, $1::date
      FROM stg_keys k JOIN retailer r ON r.id = k.retailer_id
      WHERE k.first_day = $1 AND NOT EXISTS (SELECT 1 FROM listing l WHERE l.retailer_id = k.retailer_id AND l.external_id = k.external_id)
      ORDER BY k.retailer_id, k.external_id COLLATE "C"
      ON CONFLICT (retailer_id, external_id) DO NOTHING`);
  }
  // The table the rest of the merge reads the day's rows from: `stg`, or a copy of the day's rows
  // with their ids (`stg_day`).
  let src = 'stg';
  if (provisional * 3 > dayRows) {
    // Most of the day's rows have a provisional key (a first day): the day's rows are copied once
    // with their ids, which costs a third of an UPDATE of as many rows of `stg` (every row rewritten,
    // and its key indexed). `stg` keeps the provisional keys (see {@link ingest}'s listing ids).
    await q(`CREATE TEMP TABLE stg_day ON COMMIT DROP AS
      SELECT ${STAGE_COLUMNS.map((c) => `s.${c}`).join(', ')} FROM stg s WHERE s.day = $1 AND s.listing_id > 0
      UNION ALL
      SELECT ${STAGE_COLUMNS.map((c) => (c === 'listing_id' ? 'coalesce(m.id, s.listing_id)' : `s.${c}`)).join(', ')} FROM stg s
        LEFT JOIN (SELECT k.listing_id AS key, l.id FROM stg_keys k JOIN listing l ON l.retailer_id = k.retailer_id AND l.external_id = k.external_id) m
          ON m.key = s.listing_id
        WHERE s.day = $1 AND s.listing_id < 0`);
    await client.query('ANALYZE stg_day');
    src = 'stg_day';
  } else if (provisional > 0) {
    // Only this day's rows: a later day's rows of the same listing get its id on their own day
    // (their INSERT finds the listing, their provisional key remains). Re-planning statistics only
    // after a tenth of the staged rows changed key since the last ANALYZE: a log of many days
    // (the real price history: 194 days) re-analysed a 39,000-row table every day for 21 of its
    // 62 seconds.
    const updated = await q(`UPDATE stg s SET listing_id = l.id FROM listing l
      WHERE s.day = $1 AND s.listing_id < 0 AND l.retailer_id = s.retailer_id AND l.external_id = s.external_id`);
    stage.rekeyedSinceAnalyze += updated.rowCount ?? 0;
    if (stage.rekeyedSinceAnalyze * 10 > stage.rows) {
      await client.query('ANALYZE stg');
      stage.rekeyedSinceAnalyze = 0;
    }
  }

  // The day the listing triggers record a changed size on (listing_size_span, migration
  // 20261210000000_listing_size_span): transaction-local, set again for each merged day.
  await client.query(`SELECT set_config('app.observed_day', $1::date::text, true)`, [day]);
  // Attributes that changed (an empty value never erases), from each listing's chosen row: the last
  // line with a name, else the last line.
  await q(`WITH a AS (
      SELECT DISTINCT ON (listing_id) listing_id, name, brand, size_text, gtin, category_path, image, retailer_url, available
      FROM ${src} WHERE day = $1 AND listing_id IN (SELECT listing_id FROM ${src} WHERE day = $1 AND attrs)
      ORDER BY listing_id, (name IS NULL), line DESC)
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
  // A listing whose rows carry no attribute at all: its chosen row is empty, so it is available again
  // and seen since today at the latest (the same rule as above, without the sort).
  await q(`UPDATE listing l SET available = true, first_seen = least(l.first_seen, $1::date)
    FROM (SELECT listing_id FROM ${src} WHERE day = $1 GROUP BY listing_id HAVING NOT bool_or(attrs)) o
    WHERE l.id = o.listing_id AND (l.available IS DISTINCT FROM true OR $1::date < l.first_seen)`);

  // Store spans: one hash join of the reporting stores' open spans with the day's rows finds the
  // spans to close (changed; in a snapshot also not observed; after a gap, every one) and the rows
  // that open a span (new or changed; after a gap, every one). Closed at the span's own last
  // observed day (spanTo: greatest of first_day, seen_day and the store's covered day).
  // When none of the stores has an open span (their first day), every row opens one and nothing
  // closes: the rows are inserted as they are, without the join's copy of them.
  const anyOpen = stores.length > 0
    && ((await client.query('SELECT 1 FROM store_price_span WHERE store_id = ANY($1::int[]) AND last_day IS NULL LIMIT 1', [stores])).rowCount ?? 0) > 0;
  let opening = `(SELECT * FROM ${src} WHERE day = $1 AND store_id IS NOT NULL) o`;
  if (anyOpen) {
    await client.query(`CREATE TEMP TABLE chg ON COMMIT DROP AS
      SELECT sp.id AS span_id, sp.store_id AS span_store, sp.interrupted, o.listing_id, o.store_id, o.price, o.promo_price, o.promo_kind, o.multibuy_qty, o.multibuy_price
      FROM (SELECT sp.*, coalesce(${spanToSql('sp', storeCoveredDay('st'))} < st.last_day, false) AS interrupted
            FROM store_price_span sp JOIN store st ON st.id = sp.store_id WHERE sp.last_day IS NULL AND sp.store_id = ANY($2::int[])) sp
      FULL JOIN (SELECT * FROM ${src} WHERE day = $1 AND store_id IS NOT NULL) o ON o.store_id = sp.store_id AND o.listing_id = sp.listing_id
      ${afterGap ? '' : `WHERE sp.id IS NULL OR o.listing_id IS NULL OR sp.interrupted OR NOT (${SAME_PRICE('o', 'sp')})`}`, [day, stores]);
    // Its size decides the plan: on a steady day a few % of rows, each closed through the primary key.
    await client.query('ANALYZE chg');
    await client.query(`UPDATE store_price_span sp SET last_day = ${spanToSql('sp', storeCoveredDay('st'))}
      FROM chg c JOIN store st ON st.id = c.span_store
      WHERE sp.id = c.span_id ${afterGap || mode === 'snapshot' ? '' : mode === 'changes' ? 'AND (c.listing_id IS NOT NULL OR c.interrupted)' : 'AND c.listing_id IS NOT NULL'}`);
    // A partial collection moves no covered day: what it saw unchanged records the day on its span.
    if (!covers && !afterGap) {
      await q(`UPDATE store_price_span sp SET seen_day = $1::date
        FROM ${src} o WHERE o.day = $1 AND o.store_id IS NOT NULL AND sp.store_id = o.store_id AND sp.listing_id = o.listing_id
          AND sp.last_day IS NULL AND sp.first_day < $1::date AND ${SAME_PRICE('o', 'sp')}`);
    }
    opening = '(SELECT * FROM chg WHERE listing_id IS NOT NULL) o';
  }
  // In listing order: two of the table's four indexes lead with the listing (and the primary key
  // grows), so their entries are appended rather than scattered (a first day of 500,000 spans: 7 %
  // less CPU, sort included).
  await q(`INSERT INTO store_price_span (listing_id, store_id, first_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
    SELECT o.listing_id, o.store_id, $1::date, o.price, o.promo_price, o.promo_kind, o.multibuy_qty, o.multibuy_price
    FROM ${opening} ORDER BY o.listing_id, o.store_id`);
  await client.query(`UPDATE store SET last_day = $1::date${covers ? ', covered_day = $1::date' : ''} WHERE id = ANY($2::int[])`, [day, stores]);

  // One aggregation over the store rows gives the daily store statistics and the national median
  // observations (same rules as src/domain/spans.ts nationalPrice).
  await q(`CREATE TEMP TABLE agg ON COMMIT DROP AS
    SELECT listing_id, retailer_id, min(price) AS min, max(price) AS max, count(*) AS n,
      round(percentile_cont(0.5) WITHIN GROUP (ORDER BY price)::numeric)::int AS price,
      count(promo_price) * 2 > count(*) AS promo,
      round(percentile_cont(0.5) WITHIN GROUP (ORDER BY promo_price)::numeric)::int AS promo_price,
      mode() WITHIN GROUP (ORDER BY promo_kind) FILTER (WHERE promo_price IS NOT NULL) AS promo_kind,
      mode() WITHIN GROUP (ORDER BY multibuy_qty) FILTER (WHERE promo_kind = 3) AS multibuy_qty,
      round(percentile_cont(0.5) WITHIN GROUP (ORDER BY multibuy_price) FILTER (WHERE promo_kind = 3)::numeric)::int AS multibuy_price
    FROM ${src} WHERE day = $1 AND store_id IS NOT NULL GROUP BY listing_id, retailer_id`);

  // National observations: a direct national row wins; otherwise the median across stores.
  await q(`CREATE TEMP TABLE nat ON COMMIT DROP AS
    SELECT listing_id, retailer_id, price, promo_price, promo_kind, multibuy_qty, multibuy_price
    FROM ${src} WHERE day = $1 AND store_id IS NULL
    UNION ALL
    SELECT listing_id, retailer_id, price, CASE WHEN promo THEN promo_price END, CASE WHEN promo THEN promo_kind END,
      CASE WHEN promo AND promo_kind = 3 THEN multibuy_qty END, CASE WHEN promo AND promo_kind = 3 THEN multibuy_price END
    FROM agg a WHERE NOT EXISTS (SELECT 1 FROM ${src} d WHERE d.day = $1 AND d.store_id IS NULL AND d.listing_id = a.listing_id)`);
  // The chains whose national scope this day covers (see `covers` above).
  await client.query(`CREATE TEMP TABLE cov ON COMMIT DROP AS
    SELECT r.id AS retailer_id FROM retailer r
    WHERE $3::boolean AND r.id IN (SELECT DISTINCT retailer_id FROM ${src} WHERE day = $1)
      AND (EXISTS (SELECT 1 FROM ${src} d WHERE d.day = $1 AND d.retailer_id = r.id AND d.store_id IS NULL)
        OR NOT EXISTS (SELECT 1 FROM store st WHERE st.retailer_id = r.id AND st.active AND st.id <> ALL($2::int[])))`,
    [day, stores, covers]);
  // National spans closed: changed or interrupted (src/domain/spans.ts mergeDay) and observed; not
  // observed, in a snapshot covering the chain (or interrupted, in a covering change log); after a
  // gap, every one. At the span's own last observed day.
  // One hash join of the chains' open national spans with the day's national observations (at most
  // one a listing) finds them; the spans are then closed through their ids.
  const observed = 'o.listing_id IS NOT NULL';
  const covered = 'c.retailer_id IS NOT NULL';
  const closeWhen = afterGap ? 'true' : [
    `(${observed} AND (${NAT_INTERRUPTED} OR NOT (${SAME_PRICE('o', 'sp')})))`,
    ...(mode === 'snapshot' ? [`(NOT ${observed} AND ${covered})`] : []),
    ...(mode === 'changes' ? [`(NOT ${observed} AND ${covered} AND ${NAT_INTERRUPTED})`] : []),
  ].join(' OR ');
  await q(`CREATE TEMP TABLE nclose ON COMMIT DROP AS
    SELECT sp.id, ${spanToSql('sp', nationalCoveredDay('r'))} AS to_day
    FROM national_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id
    LEFT JOIN nat o ON o.listing_id = sp.listing_id LEFT JOIN cov c ON c.retailer_id = l.retailer_id
    WHERE sp.last_day IS NULL AND l.retailer_id IN (SELECT DISTINCT retailer_id FROM ${src} WHERE day = $1) AND (${closeWhen})`);
  await client.query('UPDATE national_price_span sp SET last_day = n.to_day FROM nclose n WHERE sp.id = n.id');
  // Seen unchanged by a day that does not cover the chain: the day is recorded on the span (an
  // interrupted one was closed above, and reopens below).
  if (!afterGap) {
    await q(`UPDATE national_price_span sp SET seen_day = $1::date
      FROM nat o WHERE o.listing_id = sp.listing_id AND sp.last_day IS NULL AND sp.first_day < $1::date
        AND o.retailer_id NOT IN (SELECT retailer_id FROM cov) AND ${SAME_PRICE('o', 'sp')}`);
  }
  await q(`INSERT INTO national_price_span (listing_id, first_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
    SELECT o.listing_id, $1::date, o.price, o.promo_price, o.promo_kind, o.multibuy_qty, o.multibuy_price
    FROM nat o WHERE NOT EXISTS (SELECT 1 FROM national_price_span sp WHERE sp.listing_id = o.listing_id AND sp.last_day IS NULL)`);
  // The chains' days: latest collection, covered day, and last_run from the observation time
  // (never the time this ingest runs, unless the day is today's).
  await client.query(`UPDATE retailer SET last_national_day = $1::date,
      covered_day = CASE WHEN id IN (SELECT retailer_id FROM cov) THEN $1::date ELSE covered_day END,
      last_run = greatest(last_run, ${observedAtSql('$1', '$2')})
    WHERE id IN (SELECT DISTINCT retailer_id FROM ${src} WHERE day = $1)`, [day, at]);

  // Daily store statistics (shelf price across the stores that priced the listing).
  await q(`INSERT INTO listing_day_stats (listing_id, day, min, med, max, n)
    SELECT listing_id, $1::date, min, price, max, n FROM agg
    ON CONFLICT (listing_id, day) DO NOTHING`);

  // Collections: the chain's national one (with the digest) and one per store. The chain's listings
  // observed are its rows of `nat`: one a listing (its national row, else the median of its stores).
  await client.query(`INSERT INTO collection (retailer_id, store_id, day, mode, rows, digest, source, observed_at, listings)
    SELECT sc.retailer_id, NULL, sc.day, $2, sc.rows, sc.digest, $3, ${observedAtSql('$1', '$4')},
      (SELECT count(*) FROM nat WHERE nat.retailer_id = sc.retailer_id)
    FROM stg_coll sc WHERE sc.day = $1
    UNION ALL
    SELECT retailer_id, store_id, day, $2, count(*), '', $3, ${observedAtSql('$1', '$4')}, count(*)
    FROM ${src} WHERE day = $1 AND store_id IS NOT NULL GROUP BY retailer_id, store_id, day`,
    [day, mode, source, at]);
  // `nat` has one row for each listing observed this day (its national row, else its stores' median).
  return (await client.query<{ id: number }>('SELECT listing_id AS id FROM nat')).rows.map((r) => r.id);
}
