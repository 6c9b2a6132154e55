/**
 * The bulk export (workers/export) against a real PostgreSQL loaded with the real data
 * (../shared/data through the start-up import): every Parquet file read back by DuckDB and every
 * CSV gunzipped and parsed, row counts equal to the manifest's and the database's, the manifest's
 * sizes and hashes, the catalogue's column names and types, open spans resolved, the atomic
 * `latest` switch, a failed run and a concurrent run leaving the published export untouched.
 * The basket and index tables (empty here: no index run) are tested with data in
 * export-index.test.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import type { TestDatabase } from '../helpers/db.js';
import { createRealDataDatabase } from '../helpers/real-data.js';
import { LOCKS } from '../../src/db/locks.js';
import { ExportLockedError, runExport, type ExportResult } from '../../workers/export/export.js';
import { ExportManifest, LATEST, readExportManifest as readManifest } from '../../src/services/exports.js';
import { DUCKDB_TYPE, EXPORT_TABLES } from '../../workers/export/columns.js';
import { openDuckDb, parquetColumns, sqlString, type DuckDb } from '../../workers/export/parquet.js';
import { currentNationalSpans } from '../../src/services/prices.js';
import { lastSeen } from '../../src/domain/listings.js';

const FILE_NAMES = EXPORT_TABLES.flatMap((t) => [`${t.name}.parquet`, `${t.name}.csv.gz`]);
const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const readCsv = (file: string) => parse(zlib.gunzipSync(fs.readFileSync(file)), { columns: false }) as string[][];
/** Every file of a folder with its hash: to prove nothing changed. */
const snapshot = (folder: string) =>
  Object.fromEntries(fs.readdirSync(folder).sort().map((n) => [n, sha256(path.join(folder, n))]));

describe('bulk export of the real data', () => {
  let db: TestDatabase;
  let dir: string;
  let duck: DuckDb;
  let first: ExportResult;
  const now = new Date('2026-08-04T01:02:03.000Z');

  async function dbCounts(): Promise<Record<string, number>> {
    const r = await db.pool.query(
      `SELECT (SELECT count(*) FROM listing)::int AS listings, (SELECT count(*) FROM store)::int AS stores,
         ((SELECT count(*) FROM national_price_span) + (SELECT count(*) FROM store_price_span))::int AS price_spans,
         (SELECT count(*) FROM index_day)::int AS index_daily, (SELECT count(*) FROM basket_item WHERE active)::int AS basket`,
    );
    return r.rows[0];
  }

  async function query<T = Record<string, unknown>>(sql: string): Promise<T[]> {
    return (await duck.connection.runAndReadAll(sql)).getRowObjectsJS() as T[];
  }

  beforeAll(async () => {
    db = await createRealDataDatabase('export'); // the run's one import of the real data, copied
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-test-'));
    duck = await openDuckDb({ tempDirectory: path.join(dir, '.duck-test') });
    first = await runExport(db.pool, { dir, now, progress: false, serviceUrl: 'https://prices.example.nz' });
  }, 300_000);
  afterAll(async () => {
    duck?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  });

  it('has no manifest before the first export', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'export-empty-'));
    try {
      expect(await readManifest(empty)).toBeNull();
      expect(await readManifest(path.join(empty, 'missing'))).toBeNull();
    } finally {
      fs.rmSync(empty, { recursive: true });
    }
  });

  it('publishes a folder and points latest at it', async () => {
    expect(first.folder).toBe('2026-08-03T010203Z');
    expect(fs.readlinkSync(path.join(dir, LATEST))).toBe(first.folder);
    expect(fs.readdirSync(dir).filter((n) => n !== '.duck-test').sort()).toEqual([first.folder, LATEST].sort());
    expect(fs.readdirSync(path.join(dir, LATEST)).sort()).toEqual([...FILE_NAMES, 'LICENSE', 'README.md', 'manifest.json'].sort());
    expect(await readManifest(dir)).toEqual(first.manifest);
  });

  it('writes the contract manifest: day, licence, generated_at, and each data file’s bytes, rows and sha256', async () => {
    const m = ExportManifest.parse(JSON.parse(fs.readFileSync(path.join(dir, LATEST, 'manifest.json'), 'utf8')));
    expect(Object.keys(m).sort()).toEqual(['day', 'files', 'generated_at', 'licence']);
    const day = await db.pool.query(`SELECT greatest((SELECT max(last_national_day) FROM retailer), (SELECT max(last_day) FROM store))::text AS d`);
    expect(m.day).toBe(day.rows[0].d);
    expect(m.licence).toBe('CC BY 4.0');
    expect(m.generated_at).toBe(now.toISOString());
    expect(m.files.map((f) => f.name)).toEqual(FILE_NAMES);
    for (const f of m.files) {
      const file = path.join(dir, LATEST, f.name);
      expect(Object.keys(f).sort()).toEqual(['bytes', 'name', 'rows', 'sha256']);
      expect(f.bytes).toBe(fs.statSync(file).size);
      expect(f.sha256).toBe(sha256(file));
    }
  });

  it('row counts of every Parquet file (DuckDB) and CSV (gunzip + parse) equal the manifest’s and the database’s', async () => {
    const counts = await dbCounts();
    expect(counts.price_spans).toBeGreaterThan(100_000); // the real Woolworths history, plus store samples
    for (const t of EXPORT_TABLES) {
      const entries = first.manifest.files.filter((f) => f.name.startsWith(`${t.name}.`));
      expect(entries.map((e) => e.rows)).toEqual([counts[t.name], counts[t.name]]);
      const [{ n }] = await query<{ n: bigint }>(`SELECT count(*) AS n FROM read_parquet(${sqlString(path.join(dir, LATEST, `${t.name}.parquet`))})`);
      expect(Number(n)).toBe(counts[t.name]);
      const csv = readCsv(path.join(dir, LATEST, `${t.name}.csv.gz`));
      expect(csv[0]).toEqual(t.columns.map((c) => c.name));
      expect(csv.length - 1).toBe(counts[t.name]);
      expect(new Set(csv.map((r) => r.length))).toEqual(new Set([t.columns.length]));
    }
  });

  it('Parquet columns and types are exactly the catalogue’s, empty tables included', async () => {
    for (const t of EXPORT_TABLES) {
      const cols = await parquetColumns(duck, path.join(dir, LATEST, `${t.name}.parquet`));
      expect(cols).toEqual(t.columns.map((c) => ({ name: c.name, type: DUCKDB_TYPE[c.type] })));
    }
  });

  it('Parquet and CSV hold the same rows in the same order', async () => {
    for (const name of ['listings', 'stores'] as const) {
      const t = EXPORT_TABLES.find((x) => x.name === name)!;
      const csv = readCsv(path.join(dir, LATEST, `${name}.csv.gz`)).slice(1);
      const pq = (await duck.connection.runAndReadAll(`SELECT * FROM read_parquet(${sqlString(path.join(dir, LATEST, `${name}.parquet`))})`)).getRowObjectsJS();
      expect(pq.length).toBe(csv.length);
      pq.forEach((row, i) => {
        t.columns.forEach((c, j) => {
          const v = row[c.name];
          const text = v === null ? '' : c.type === 'text[]' ? JSON.stringify(v) : v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
          expect(text, `${name} row ${i + 1} ${c.name}`).toBe(csv[i][j]);
        });
      });
    }
  });

  it('spans: days as dates, money as integer cents, open spans resolved to their day of record and marked current', async () => {
    const file = sqlString(path.join(dir, LATEST, 'price_spans.parquet'));
    const open = await db.pool.query(
      `SELECT (SELECT count(*) FROM national_price_span WHERE last_day IS NULL)::int AS national,
              (SELECT count(*) FROM store_price_span WHERE last_day IS NULL)::int AS store`,
    );
    const byScope = await query<{ scope: string; current: number; nulls: number; bad: number }>(
      `SELECT scope, count(*) FILTER (WHERE current)::int AS current, count(*) FILTER (WHERE last_day IS NULL)::int AS nulls,
         count(*) FILTER (WHERE last_day < first_day OR price < 0 OR (scope = 'national') <> (store_id IS NULL))::int AS bad
       FROM read_parquet(${file}) GROUP BY scope ORDER BY scope`,
    );
    expect(byScope).toEqual([
      { scope: 'national', current: open.rows[0].national, nulls: 0, bad: 0 },
      { scope: 'store', current: open.rows[0].store, nulls: 0, bad: 0 },
    ]);
    expect(open.rows[0].national).toBeGreaterThan(0);
    expect(open.rows[0].store).toBeGreaterThan(0);

    // Every open span's last_day is its day of record (src/domain/spans.ts spanTo): the latest of its
    // first day, its seen day and its scope's covered day, never a day nothing observed it.
    const expected = await db.pool.query<{ k: string }>(
      `SELECT 'national|' || sp.listing_id || '|' || sp.first_day || '|' || greatest(sp.first_day, sp.seen_day, r.covered_day) AS k
       FROM national_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id WHERE sp.last_day IS NULL
       UNION ALL
       SELECT 'store|' || sp.listing_id || '|' || sp.store_id || '|' || sp.first_day || '|' || greatest(sp.first_day, sp.seen_day, st.covered_day)
       FROM store_price_span sp JOIN store st ON st.id = sp.store_id WHERE sp.last_day IS NULL`,
    );
    // On the real data the samples (2026-08-03, partial) saw few of Woolworths' listings: most open
    // national spans end on the catalogue's day, 2026-07-27, not on the chain's last day.
    const ends = await db.pool.query<{ d: string; n: number }>(
      `SELECT greatest(sp.first_day, sp.seen_day, r.covered_day)::text AS d, count(*)::int AS n
       FROM national_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id
       WHERE sp.last_day IS NULL AND r.slug = 'woolworths' GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    );
    expect(ends.rows[0]).toMatchObject({ d: '2026-07-27' });
    expect(ends.rows[0].n).toBeGreaterThan(15000);
    const got = await query<{ k: string }>(
      `SELECT scope || '|' || listing_id || '|' || coalesce(store_id::VARCHAR || '|', '') || strftime(first_day, '%Y-%m-%d') || '|' || strftime(last_day, '%Y-%m-%d') AS k
       FROM read_parquet(${file}) WHERE current`,
    );
    expect(got.map((r) => r.k).sort()).toEqual(expected.rows.map((r) => r.k).sort());

    // Closed spans keep their stored last day.
    const closed = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM national_price_span WHERE last_day IS NOT NULL');
    const [{ n }] = await query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM read_parquet(${file}) WHERE NOT current`);
    expect(n).toBe(closed.rows[0].n);
    expect(n).toBeGreaterThan(0);

    // Deterministic order: listing, national before store, store, first day.
    const [{ unordered }] = await query<{ unordered: number }>(
      `SELECT count(*)::INTEGER AS unordered FROM (
         SELECT listing_id, scope, store_id, first_day,
           lag(listing_id) OVER w AS pl, lag(scope) OVER w AS ps, lag(store_id) OVER w AS pst, lag(first_day) OVER w AS pf, rn
         FROM (SELECT *, row_number() OVER () AS rn FROM read_parquet(${file})) WINDOW w AS (ORDER BY rn))
       WHERE rn > 1 AND (pl, ps, coalesce(pst, -1), pf) > (listing_id, scope, coalesce(store_id, -1), first_day)`,
    );
    expect(unordered).toBe(0);
  });

  it('listings carry the API’s last_seen and slug, with category paths as lists', async () => {
    const rows = await query<{ listing_id: number; retailer: string; last_seen: Date; first_seen: Date; category_path: string[] }>(
      `SELECT listing_id, retailer, last_seen, first_seen, category_path FROM read_parquet(${sqlString(path.join(dir, LATEST, 'listings.parquet'))})
       WHERE listing_id % 97 = 0 ORDER BY listing_id`,
    );
    expect(rows.length).toBeGreaterThan(100);
    const latest = await currentNationalSpans(db.pool, rows.map((r) => r.listing_id));
    const listings = await db.pool.query<{ id: number; slug: string; first_seen: string; category_path: string[] }>(
      'SELECT l.id, r.slug, l.first_seen, l.category_path FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE l.id = ANY($1::int[])',
      [rows.map((r) => r.listing_id)],
    );
    const byId = new Map(listings.rows.map((l) => [l.id, l]));
    for (const r of rows) {
      const l = byId.get(r.listing_id)!;
      expect(r.retailer).toBe(l.slug);
      expect(r.last_seen.toISOString().slice(0, 10)).toBe(lastSeen(l.first_seen, latest.get(r.listing_id)));
      expect(r.category_path).toEqual(l.category_path);
    }
  });

  it('writes the licence and attribution beside the manifest', () => {
    const readme = fs.readFileSync(path.join(dir, LATEST, 'README.md'), 'utf8');
    expect(readme).toContain('CC BY 4.0');
    expect(readme).toContain('https://creativecommons.org/licenses/by/4.0/');
    expect(readme).toContain('Contains data from NZ Grocery Prices (https://prices.example.nz)');
    expect(readme).toContain("PAK'nSAVE");
    expect(readme).toContain('in-store prices may differ');
    expect(readme).toContain('nowcast, not an official statistic');
    for (const t of EXPORT_TABLES) for (const c of t.columns) expect(readme).toContain(`| \`${c.name}\` | ${DUCKDB_TYPE[c.type]}`);
    const licence = fs.readFileSync(path.join(dir, LATEST, 'LICENSE'), 'utf8');
    expect(licence).toContain('https://creativecommons.org/licenses/by/4.0/');
  });

  it('several connections reading listing ranges at once write the same bytes as one, gzip members in range order', async () => {
    // chunkListings 100 splits the real log's listings into many ranges, each one gzip member
    // (RFC 1952 §2.2); the members are compressed as each range streams and written in range
    // order, so the file's bytes do not depend on how many connections read.
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'export-readers-'));
    try {
      const at = new Date('2026-08-04T05:00:00Z');
      const one = await runExport(db.pool, { dir: path.join(base, 'one'), now: at, progress: false, chunkListings: 100, readers: 1 });
      const three = await runExport(db.pool, { dir: path.join(base, 'three'), now: at, progress: false, chunkListings: 100, readers: 3 });
      const spans = (r: ExportResult) => path.join(r.path, 'price_spans.csv.gz');
      const listings = Number((await db.pool.query('SELECT count(*) AS n FROM listing')).rows[0].n);
      expect(listings).toBeGreaterThan(300); // at least four ranges
      for (const t of EXPORT_TABLES) expect(sha256(path.join(three.path, `${t.name}.csv.gz`))).toBe(sha256(path.join(one.path, `${t.name}.csv.gz`)));
      expect(three.rows).toEqual(first.rows);
      // Many members, and the whole decompresses to the bytes of the default export's single-range-per-2000 file.
      expect(zlib.gunzipSync(fs.readFileSync(spans(three))).equals(zlib.gunzipSync(fs.readFileSync(path.join(dir, first.folder, 'price_spans.csv.gz'))))).toBe(true);
      expect(fs.readFileSync(spans(three)).length).toBeGreaterThan(fs.readFileSync(path.join(dir, first.folder, 'price_spans.csv.gz')).length);
      // DuckDB reads the multi-member file as one CSV: the same rows as the Parquet the run wrote.
      const [csvRows] = await query<{ n: bigint }>(`SELECT count(*) AS n FROM read_csv(${sqlString(spans(three))}, header = true)`);
      expect(Number(csvRows.n)).toBe(three.rows.price_spans);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it('a failed run removes its staging folder and leaves latest and its files untouched', async () => {
    const before = snapshot(path.join(dir, LATEST));
    const err = await runExport(db.pool, {
      dir,
      now: new Date('2026-08-05T00:00:00Z'),
      progress: false,
      onFile: (f) => {
        if (f.table === 'price_spans' && f.format === 'parquet') throw new Error('simulated failure');
      },
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('simulated failure');
    expect(fs.readlinkSync(path.join(dir, LATEST))).toBe(first.folder);
    expect(snapshot(path.join(dir, LATEST))).toEqual(before);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.tmp-') || n.startsWith('.latest-'))).toEqual([]);
    expect(fs.readdirSync(dir).filter((n) => n !== '.duck-test').sort()).toEqual([first.folder, LATEST].sort());
    // The lock and the connection were released: the next run works.
    const again = await runExport(db.pool, { dir, now: new Date('2026-08-05T00:00:01Z'), progress: false });
    expect(fs.readlinkSync(path.join(dir, LATEST))).toBe(again.folder);
  });

  it('a database error half-way also leaves the published export untouched', async () => {
    const published = fs.readlinkSync(path.join(dir, LATEST));
    const before = snapshot(path.join(dir, LATEST));
    // Kill the export's own connection (the one holding the export lock) after the first table.
    const err = await runExport(db.pool, {
      dir,
      progress: false,
      onFile: async (f) => {
        if (f.table === 'listings' && f.format === 'csv.gz') {
          await db.pool.query(
            `SELECT pg_terminate_backend(pid) FROM pg_locks
             WHERE locktype = 'advisory' AND classid = ($1::bigint >> 32)::oid AND objid = ($1::bigint & 4294967295)::oid AND objsubid = 1`,
            [LOCKS.export.key],
          );
        }
        if (f.table === 'stores') throw new Error('unreachable: the stores COPY should have failed');
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).not.toMatch(/unreachable/);
    expect(fs.readlinkSync(path.join(dir, LATEST))).toBe(published);
    expect(snapshot(path.join(dir, LATEST))).toEqual(before);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
  });

  it('refuses to run while another export holds the lock, and two concurrent runs publish once', async () => {
    const published = fs.readlinkSync(path.join(dir, LATEST));
    const holder = await db.pool.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1::bigint)', [LOCKS.export.key]);
      const err = await runExport(db.pool, { dir, progress: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExportLockedError);
      expect((err as Error).message).toMatch(/another export is running/);
      expect(fs.readlinkSync(path.join(dir, LATEST))).toBe(published);
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1::bigint)', [LOCKS.export.key]);
      holder.release();
    }
    const runs = await Promise.allSettled([
      runExport(db.pool, { dir, progress: false, now: new Date('2026-08-06T00:00:00Z') }),
      runExport(db.pool, { dir, progress: false, now: new Date('2026-08-06T00:00:01Z') }),
    ]);
    const ok = runs.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<ExportResult>[];
    const failed = runs.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(ok.length).toBe(1);
    expect(failed.map((f) => f.reason)).toEqual([expect.any(ExportLockedError)]);
    expect(fs.readlinkSync(path.join(dir, LATEST))).toBe(ok[0].value.folder);
    expect(await readManifest(dir)).toEqual(ok[0].value.manifest);
  });

  it('keeps only the newest exports', async () => {
    let last: ExportResult | null = null;
    for (let i = 0; i < 3; i++) last = await runExport(db.pool, { dir, progress: false, keep: 2, now: new Date(Date.UTC(2026, 7, 7, 0, 0, i)) });
    const folders = fs.readdirSync(dir).filter((n) => /^\d{4}-\d{2}-\d{2}T\d{6}Z/.test(n));
    expect(folders.length).toBe(2);
    expect(folders).toContain(last!.folder);
    expect(fs.readlinkSync(path.join(dir, LATEST))).toBe(last!.folder);
    // Same snapshot, same bytes: exports are reproducible.
    const a = last!.manifest.files.filter((f) => f.name.endsWith('.csv.gz')).map((f) => [f.name, f.rows]);
    expect(a).toEqual(first.manifest.files.filter((f) => f.name.endsWith('.csv.gz')).map((f) => [f.name, f.rows]));
  });
});
