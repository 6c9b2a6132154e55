/**
 * The bulk export worker (issue 6; api-spec "Bulk data"): every export table of the column
 * catalogue (workers/export/columns.ts) as gzipped CSV and Zstd Parquet, with a manifest, README.md
 * and LICENSE, published by an atomic switch of `<EXPORT_DIR>/latest` (workers/export/publish.ts).
 *
 * 1. Take the export lock (a PostgreSQL advisory lock) or fail with {@link ExportLockedError}.
 * 2. In one REPEATABLE READ READ ONLY transaction (one snapshot for every table), stream each
 *    table out of PostgreSQL with `COPY (SELECT …) TO STDOUT (FORMAT csv, HEADER true)` through gzip
 *    into `<table>.csv.gz` in a fresh staging folder: memory stays flat at any size. `price_spans`
 *    is read in listing-id ranges (one COPY each, same bytes; issue 19), so PostgreSQL never sorts
 *    every span at once, by {@link DEFAULT_EXPORT_READERS} connections at once sharing the
 *    snapshot (pg_export_snapshot; issue 31), each range one gzip member ({@link writeTableCsv}).
 * 3. Convert each CSV to `<table>.parquet` with DuckDB, explicit column types; the Parquet row count
 *    must equal COPY's row count.
 * 4. Write README.md, LICENSE and manifest.json (sizes, rows, SHA-256 of every data file), rename
 *    the staging folder to `<day>T<HHMMSS>Z`, switch `latest`, prune old exports.
 *
 * Any error removes the staging folder and leaves `latest` and earlier exports untouched.
 */
import { lockSession, unlockSession } from '../../src/db/locks.js';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { nzToday } from '../../src/domain/days.js';
import { makeProgress, type Progress } from '../progress.js';
import { EXPORT_TABLES, type ExportTable } from './columns.js';
import { countSelect, exportSelect, TABLE_SOURCES, type IdRange } from './sources.js';
import { csvToParquet, openDuckDb, type DuckDb } from './parquet.js';
import { exportLicense, exportReadme, LICENCE } from './attribution.js';
import {
  createStaging,
  DEFAULT_KEEP,
  describeFile,
  discardStaging,
  publish,
  folderName,
  removeLeftovers,
  writeManifest,
} from './publish.js';
import type { ExportFile, ExportManifest } from '../../src/services/exports.js';
import { ExpectedError } from '../../src/errors.js';


/** Another export holds the lock (a concurrent run); nothing was written. */
export class ExportLockedError extends ExpectedError {
  constructor() {
    super('another export is running (the export advisory lock is held); try again when it has finished');
    this.name = 'ExportLockedError';
  }
}

/** An export's own consistency check failed (e.g. Parquet and CSV row counts differ); nothing was published. */
export class ExportCheckError extends ExpectedError {
  constructor(message: string) {
    super(message);
    this.name = 'ExportCheckError';
  }
}

/** A file just written into the staging folder (passed to {@link ExportOptions.onFile}). */
export interface WrittenFile {
  table: ExportTable['name'];
  format: 'csv.gz' | 'parquet';
  /** Absolute path inside the staging folder. */
  path: string;
  rows: number;
}

/** Options of {@link runExport}. */
export interface ExportOptions {
  /** The export folder (EXPORT_DIR); created when missing. */
  dir: string;
  /** Show a progress bar (default: when stderr is a terminal). */
  progress?: boolean;
  /** The run's clock: `generated_at` and the folder's time (default: now). */
  now?: Date;
  /** Published exports to keep, the new one included (default 3). */
  keep?: number;
  /** Public base URL of the service, named in the attribution (README.md, LICENSE). */
  serviceUrl?: string;
  /** DuckDB memory limit, e.g. `'1GB'` (default `'1GB'`). */
  duckdbMemoryLimit?: string;
  /** Listings per COPY of the tables read by listing-id ranges (price_spans; default {@link DEFAULT_CHUNK_LISTINGS}). */
  chunkListings?: number;
  /** DuckDB worker threads (default 2). */
  duckdbThreads?: number;
  /**
   * Connections reading a chunked table's listing-id ranges at once, all in the export's one
   * snapshot (default {@link DEFAULT_EXPORT_READERS}; 1 reads on the locked connection alone).
   */
  readers?: number;
  /**
   * Called after each data file is written, before publishing; throwing aborts the run (tests use
   * it to simulate a failure half-way).
   */
  onFile?: (file: WrittenFile) => void | Promise<void>;
}

/** What a successful {@link runExport} published. */
export interface ExportResult {
  /** The manifest as written (`manifest.json`). */
  manifest: ExportManifest;
  /** Name of the published folder inside `dir` (what `latest` points to). */
  folder: string;
  /** Absolute path of the published folder. */
  path: string;
  /** Data rows per table name. */
  rows: Record<ExportTable['name'], number>;
  /** Older published folders removed. */
  removed: string[];
  /** Wall-clock seconds: PostgreSQL COPY to CSV (all tables), CSV to Parquet, the whole run. */
  seconds: { csv: number; parquet: number; total: number };
}

/** Listings per COPY of a table read by listing-id ranges (TableSource.chunkBy), by default. */
export const DEFAULT_CHUNK_LISTINGS = 2000;

/**
 * The listing-id ranges a chunked table is read in, `chunk` listings each, from the snapshot's
 * listing table: the first and last are open-ended, so every row falls in exactly one.
 */
async function listingRanges(client: pg.PoolClient, chunk: number): Promise<IdRange[]> {
  const { rows } = await client.query<{ id: number }>(
    'SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM listing) x WHERE n % $1 = 1 AND n > 1 ORDER BY id',
    [chunk],
  );
  const bounds = rows.map((r) => r.id);
  return [null, ...bounds].map((from, i) => ({ from, to: bounds[i] ?? null }));
}

/**
 * Streams the CSV of `table` (header row included) out of PostgreSQL to `write`, chunk by chunk as
 * COPY sends them (`write` is awaited: backpressure). A table with a `chunkBy` column is read by
 * listing-id ranges ({@link listingRanges}), one COPY each (the header from the first), so
 * PostgreSQL sorts one range at a time; the bytes are the same as one COPY of the whole table (the
 * ranges follow the table's order). Run inside the export's snapshot transaction.
 * @returns COPY's row count (data rows, the header not counted).
 */
export async function streamTableCsv(
  client: pg.PoolClient,
  table: ExportTable,
  write: (chunk: Buffer) => void | Promise<void>,
  chunkListings = DEFAULT_CHUNK_LISTINGS,
): Promise<number> {
  const source = TABLE_SOURCES[table.name];
  const ranges: (IdRange | null)[] = source?.chunkBy ? await listingRanges(client, chunkListings) : [null];
  let rows = 0;
  for (let i = 0; i < ranges.length; i++) rows += await copyCsv(client, table, ranges[i], i === 0, write);
  return rows;
}

/**
 * One COPY of `table`'s CSV (the listing-id `range`, or the whole table when null; the header row
 * when `header`), each chunk passed to `write` as it arrives (awaited: backpressure).
 * @returns COPY's row count. It comes in the CommandComplete message, which pg hands to the copy
 *   stream only after the stream has ended (pg-copy-streams pushes its end at CopyDone), so it is
 *   read once a statement queued behind the COPY has answered: reading it at the stream's end
 *   gave 0 for a range now and then under load (a run counted 424 rows fewer than it wrote).
 */
async function copyCsv(
  client: pg.PoolClient,
  table: ExportTable,
  range: IdRange | null,
  header: boolean,
  write: (chunk: Buffer) => void | Promise<void>,
): Promise<number> {
  const copy = client.query(
    copyTo(`COPY (${exportSelect(table, TABLE_SOURCES[table.name], range)}) TO STDOUT WITH (FORMAT csv, HEADER ${header}, ENCODING 'UTF8')`),
  );
  for await (const chunk of copy as AsyncIterable<Buffer>) await write(chunk);
  await client.query('SELECT 1');
  return copy.rowCount;
}

/** Connections that read a chunked table's ranges at once, by default: PostgreSQL sorts each range in one backend, so two use two cores. */
export const DEFAULT_EXPORT_READERS = 2;

/**
 * SQL settings of every export transaction: the CSV text of numbers, days and times; and no
 * parallel workers inside a query, since the export's own readers ({@link DEFAULT_EXPORT_READERS})
 * already use the cores (measured at 1M SYNTHETIC store spans: the listing-by-listing SELECT ran
 * slower with two parallel workers than without).
 */
export const EXPORT_SETTINGS =
  "SET LOCAL extra_float_digits = 1; SET LOCAL DateStyle = 'ISO, YMD'; SET LOCAL TimeZone = 'UTC'; SET LOCAL max_parallel_workers_per_gather = 0";

/** A range's CSV compressed as one gzip member, and COPY's row count. */
interface Member {
  parts: Buffer[];
  rows: number;
}

/**
 * One listing-id range (or the whole table, `range` null) of `table` as one gzip member: COPY's
 * chunks through zlib's gzip (compressed in libuv's thread pool) into memory.
 */
async function gzipMember(client: pg.PoolClient, table: ExportTable, range: IdRange | null, header: boolean, bar: Progress | null): Promise<Member> {
  const gzip = zlib.createGzip({ level: 6 });
  const parts: Buffer[] = [];
  gzip.on('data', (b: Buffer) => parts.push(b));
  const ended = once(gzip, 'end');
  ended.catch(() => {}); // awaited below; an early failure surfaces through the writes too
  let skip = header ? 1 : 0; // the header line is not a row
  try {
    const rows = await copyCsv(client, table, range, header, async (chunk) => {
      if (bar) {
        let n = 0;
        for (let k = chunk.indexOf(10); k !== -1; k = chunk.indexOf(10, k + 1)) n++;
        const inc = n - Math.min(skip, n);
        skip -= n - inc;
        if (inc > 0) bar.increment(inc);
      }
      if (!gzip.write(chunk)) await once(gzip, 'drain');
    });
    gzip.end();
    await ended;
    return { parts, rows };
  } catch (e) {
    gzip.destroy();
    throw e;
  }
}

/**
 * Writes `<table>.csv.gz`: the table's CSV (header row included) as a series of gzip members, one
 * per listing-id range of a chunked table ({@link listingRanges}; one member for the others).
 * RFC 1952 §2.2 makes a gzip file a series of members: gunzip, zlib, Python and DuckDB read them
 * as one stream, and the decompressed bytes are those of one COPY of the whole table (the ranges
 * follow the table's order; the header comes from the first).
 *
 * The ranges are read by `readers` connections at once (PostgreSQL sorts each range in its own
 * backend), each compressed as it streams; members are written in range order, and a new range
 * starts only once the oldest in flight is written, so at most `readers` compressed ranges are in
 * memory.
 * @returns COPY's row count (data rows, the header not counted).
 */
async function writeTableCsv(readers: readonly pg.PoolClient[], table: ExportTable, file: string, bar: Progress | null, chunkListings: number): Promise<number> {
  const ranges: (IdRange | null)[] = TABLE_SOURCES[table.name]?.chunkBy ? await listingRanges(readers[0], chunkListings) : [null];
  const out = fs.createWriteStream(file);
  const closed = once(out, 'close');
  closed.catch(() => {});
  const free = [...readers];
  const inFlight: { client: pg.PoolClient; member: Promise<Member> }[] = [];
  let rows = 0;
  const writeOldest = async () => {
    const { client, member } = inFlight.shift()!;
    const { parts, rows: n } = await member;
    free.push(client);
    for (const part of parts) if (!out.write(part)) await once(out, 'drain');
    rows += n;
  };
  try {
    for (let i = 0; i < ranges.length; i++) {
      if (!free.length) await writeOldest();
      const client = free.shift()!; // the export's own connection first: a one-range table reads on it alone
      const member = gzipMember(client, table, ranges[i], i === 0, bar);
      member.catch(() => {}); // awaited in order by writeOldest
      inFlight.push({ client, member });
    }
    while (inFlight.length) await writeOldest();
    out.end();
    await closed;
    return rows;
  } catch (e) {
    // Let the other ranges settle before their connections are dropped by the caller.
    await Promise.allSettled(inFlight.map((f) => f.member));
    out.destroy();
    throw e;
  }
}

/**
 * Opens `n` more connections reading in the snapshot `snapshot` (pg_export_snapshot() of the
 * export's transaction, which stays open): each a REPEATABLE READ READ ONLY transaction with the
 * export's settings. On failure the ones opened are dropped and the error thrown.
 */
async function openReaders(pool: pg.Pool, snapshot: string, n: number): Promise<pg.PoolClient[]> {
  if (!/^[0-9A-F-]+$/i.test(snapshot)) throw new Error(`unexpected snapshot id ${JSON.stringify(snapshot)}`);
  const readers: pg.PoolClient[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const c = await pool.connect();
      // A connection lost between queries is reported as an 'error' event; the next query fails.
      c.on('error', ignoreReaderError);
      readers.push(c);
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await c.query(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
      await c.query(EXPORT_SETTINGS);
    }
    return readers;
  } catch (e) {
    for (const c of readers) {
      c.off('error', ignoreReaderError);
      c.release(true);
    }
    throw e;
  }
}

/** 'error' listener of an extra reader: without one a lost connection would crash the worker; its query fails instead. */
function ignoreReaderError(): void {}

/** Ends the extra readers' transactions and returns them to the pool (dropped when `broken`). */
async function closeReaders(readers: pg.PoolClient[], broken: boolean): Promise<void> {
  for (const c of readers) {
    c.off('error', ignoreReaderError);
    if (broken) {
      c.release(true);
      continue;
    }
    try {
      await c.query('COMMIT');
      c.release();
    } catch {
      c.release(true);
    }
  }
}

/**
 * Exports every table of the catalogue from one consistent snapshot of the database and publishes
 * the result as `<dir>/<day>T<HHMMSS>Z`, switching `<dir>/latest` to it atomically.
 *
 * Files: `<table>.csv.gz` (RFC 4180, header, UTF-8, gzip; dates `YYYY-MM-DD`, money integer cents,
 * booleans `true`/`false`, `text[]` as JSON arrays, empty field = null) and `<table>.parquet`
 * (Zstd, the catalogue's DuckDB types) for listings, stores, price_spans, index_daily, basket;
 * `manifest.json` (the contract's ExportManifest: `day` = latest data day, the newest
 * `retailer.last_national_day`/`store.last_day`, else today in New Zealand; one entry per data
 * file, 10 in all); `README.md` and `LICENSE` (licence, attribution, column reference).
 *
 * Holds a PostgreSQL advisory lock (the `export` lock, src/db/locks.ts) on one pooled connection for the
 * whole run. Memory: rows are streamed (PostgreSQL → gzip → file; DuckDB reads the file within its
 * memory limit).
 * @throws ExportLockedError when another export is running (nothing is touched);
 * ExportCheckError when a Parquet file's row count differs from COPY's; any database, DuckDB or
 * file-system error. On any error the staging folder is removed and `latest` and earlier exports
 * are left as they were.
 */
export async function runExport(pool: pg.Pool, options: ExportOptions): Promise<ExportResult> {
  const started = performance.now();
  const now = options.now ?? new Date();
  const dir = path.resolve(options.dir);
  const showProgress = options.progress ?? Boolean(process.stderr.isTTY);
  let connectionBroken = false;
  const client = await pool.connect();
  // A connection lost between queries is reported as an 'error' event: note it (the next query fails).
  const onClientError = () => {
    connectionBroken = true;
  };
  client.on('error', onClientError);
  let locked = false;
  let inTransaction = false;
  let staging: string | null = null;
  let duck: DuckDb | null = null;
  let bar: Progress | null = null;
  let extraReaders: pg.PoolClient[] = [];
  try {
    if (!(await lockSession(client, 'export', 'try'))) throw new ExportLockedError();
    locked = true;

    await removeLeftovers(dir);
    staging = await createStaging(dir);

    // One snapshot for every table.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    inTransaction = true;
    await client.query(EXPORT_SETTINGS);
    const meta = await client.query<{ day: string | null; retailers: string[] }>(
      `SELECT greatest((SELECT max(last_national_day) FROM retailer), (SELECT max(last_day) FROM store))::text AS day,
         ARRAY(SELECT r.name FROM retailer r
           WHERE EXISTS (SELECT 1 FROM listing l WHERE l.retailer_id = r.id) OR EXISTS (SELECT 1 FROM store s WHERE s.retailer_id = r.id)
           ORDER BY r.id) AS retailers`,
    );
    const day = meta.rows[0].day ?? nzToday(now);
    const retailers = meta.rows[0].retailers.length ? meta.rows[0].retailers : undefined;

    if (showProgress) {
      let total = 0;
      for (const t of EXPORT_TABLES) total += Number((await client.query<{ n: string }>(countSelect(t))).rows[0].n);
      bar = makeProgress(true, 'export rows', total);
    }

    const rows = {} as Record<ExportTable['name'], number>;
    const t0 = performance.now();
    // More readers in the same snapshot: the transaction above exports it and stays open.
    const snapshot = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0].id;
    extraReaders = await openReaders(pool, snapshot, Math.max(1, options.readers ?? DEFAULT_EXPORT_READERS) - 1);
    for (const table of EXPORT_TABLES) {
      const file = path.join(staging, `${table.name}.csv.gz`);
      try {
        rows[table.name] = await writeTableCsv([client, ...extraReaders], table, file, bar, options.chunkListings ?? DEFAULT_CHUNK_LISTINGS);
      } catch (e) {
        connectionBroken = true; // a COPY interrupted half-way leaves the connection unusable
        throw e;
      }
      await options.onFile?.({ table: table.name, format: 'csv.gz', path: file, rows: rows[table.name] });
    }
    await closeReaders(extraReaders, false);
    extraReaders = [];
    await client.query('COMMIT');
    inTransaction = false;
    bar?.stop();
    bar = null;
    const csvSeconds = (performance.now() - t0) / 1000;

    const t1 = performance.now();
    duck = await openDuckDb({
      tempDirectory: path.join(staging, '.duckdb-tmp'),
      memoryLimit: options.duckdbMemoryLimit,
      threads: options.duckdbThreads,
    });
    for (const table of EXPORT_TABLES) {
      const csv = path.join(staging, `${table.name}.csv.gz`);
      const parquet = path.join(staging, `${table.name}.parquet`);
      const n = await csvToParquet(duck, table, csv, parquet);
      if (n !== rows[table.name]) {
        throw new ExportCheckError(`${table.name}.parquet has ${n} rows but COPY wrote ${rows[table.name]} to ${table.name}.csv.gz`);
      }
      await options.onFile?.({ table: table.name, format: 'parquet', path: parquet, rows: n });
    }
    duck.close();
    duck = null;
    await fs.promises.rm(path.join(staging, '.duckdb-tmp'), { recursive: true, force: true });
    const parquetSeconds = (performance.now() - t1) / 1000;

    const files: ExportFile[] = [];
    for (const table of EXPORT_TABLES) {
      for (const ext of ['parquet', 'csv.gz']) {
        files.push(await describeFile(path.join(staging, `${table.name}.${ext}`), rows[table.name]));
      }
    }
    const manifest: ExportManifest = { day, licence: LICENCE, generated_at: now.toISOString(), files };
    await fs.promises.writeFile(
      path.join(staging, 'README.md'),
      exportReadme({ day, generatedAt: now, serviceUrl: options.serviceUrl, retailers, rows }),
    );
    await fs.promises.writeFile(path.join(staging, 'LICENSE'), exportLicense(options.serviceUrl, retailers));
    await writeManifest(staging, manifest);

    const published = await publish(dir, staging, folderName(day, now), options.keep ?? DEFAULT_KEEP);
    staging = null;
    return {
      manifest,
      folder: published.folder,
      path: published.path,
      rows,
      removed: published.removed,
      seconds: { csv: csvSeconds, parquet: parquetSeconds, total: (performance.now() - started) / 1000 },
    };
  } finally {
    bar?.stop();
    try {
      duck?.close();
    } catch {
      // already failing; the original error matters
    }
    if (staging) await discardStaging(staging).catch(() => {});
    await closeReaders(extraReaders, connectionBroken);
    client.off('error', onClientError);
    await releaseClient(client, { locked, inTransaction, broken: connectionBroken });
  }
}

/**
 * Ends the transaction, releases the advisory lock and returns the client to the pool; destroys
 * the connection instead (which also releases the lock) when it is unusable or cleanup fails.
 */
async function releaseClient(client: pg.PoolClient, state: { locked: boolean; inTransaction: boolean; broken: boolean }): Promise<void> {
  if (state.broken) {
    client.release(true);
    return;
  }
  try {
    if (state.inTransaction) await client.query('ROLLBACK');
    client.release(state.locked && !(await unlockSession(client, 'export')));
  } catch {
    client.release(true);
  }
}
