/**
 * Bootstrapping an instance from a bulk export (workers/export/import.ts), round trip against real
 * PostgreSQL databases: export A → import into a fresh B → export B gives the same row counts and
 * byte-identical CSVs per table, the same database rows (spans, stores, products, daily statistics)
 * and the same API answers for sample listings and products; matching re-run on B changes nothing.
 * Also: an altered or missing file is refused before any write, a data error rolls everything
 * back, a non-empty instance is refused, and a manifest URL works (a tiny static HTTP server).
 *
 * Data: the real test data of test/helpers/prices.ts (Woolworths national history, the 2026-08-03
 * store day of Woolworths and PAK'nSAVE, specials), plus a SYNTHETIC second store day, 2026-08-04,
 * made here from the first: every store's 2026-08-03 prices again, except that the first two
 * Woolworths listings of store 882226 cost 10 cents more and the first PAK'nSAVE listing of Botany
 * is not stocked. Those changes are this test's inventions (they give multi-day spans, closed store
 * spans and two days of statistics). One listing's link is locked and another is pinned unlinked,
 * as a curator would (fixture metadata).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { nationalCoveredDay, spanToSql, storeCoveredDay } from '../../src/services/span-sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { HISTORY_SKUS, PAKNSAVE_STORES, seedRealPrices, WOOLWORTHS_STORES, type Seeded } from '../helpers/prices.js';
import { ingest } from '../../workers/ingest/ingest.js';
import type { RawRecord } from '../../workers/ingest/format.js';
import { runMatching, type MatchReport } from '../../workers/match/match.js';
import { runExport, type ExportResult } from '../../workers/export/export.js';
import { EXPORT_TABLES } from '../../workers/export/columns.js';
import { ExportImportError, importExport, type ImportExportResult } from '../../workers/export/import.js';

const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' });
const SYNTHETIC_DAY = '2026-08-04';

let a: TestDatabase;
let b: TestDatabase;
let c: TestDatabase;
let seed: Seeded;
let tmp: string;
let exportA: ExportResult;
let exportB: ExportResult;
let imported: ImportExportResult;
let matchB: MatchReport;
let apiA: FastifyInstance;
let apiB: FastifyInstance;

/**
 * The SYNTHETIC second store day (see the file comment), from the stores' open spans of the first;
 * `day` another day for the same invention applied to the latest prices.
 */
async function syntheticDay(db: TestDatabase, day = SYNTHETIC_DAY): Promise<RawRecord[]> {
  const { rows } = await db.pool.query<{
    slug: string; store: string; external_id: string; price: number; promo_price: number | null; promo_kind: number | null;
    multibuy_qty: number | null; multibuy_price: number | null;
  }>(
    `SELECT r.slug, st.external_id AS store, l.external_id, sp.price, sp.promo_price, sp.promo_kind::int AS promo_kind,
       sp.multibuy_qty, sp.multibuy_price
     FROM store_price_span sp JOIN store st ON st.id = sp.store_id JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id
     WHERE sp.last_day IS NULL ORDER BY r.slug, st.external_id, l.external_id`,
  );
  const dearer = rows.filter((r) => r.store === WOOLWORTHS_STORES[0]).slice(0, 2).map((r) => r.external_id);
  const gone = rows.find((r) => r.store === PAKNSAVE_STORES[0])!.external_id;
  return rows
    .filter((r) => !(r.store === PAKNSAVE_STORES[0] && r.external_id === gone))
    .map((r, i) => ({
      line: i + 2,
      record: {
        day, retailer: r.slug, store: r.store, external_id: r.external_id,
        price: r.store === WOOLWORTHS_STORES[0] && dearer.includes(r.external_id) ? r.price + 10 : r.price,
        promo_price: r.promo_price, promo_kind: r.promo_kind, multibuy_qty: r.multibuy_qty, multibuy_price: r.multibuy_price,
      },
    }));
}

/** Row counts of the tables an import writes. */
async function counts(db: TestDatabase): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ['store', 'listing', 'product', 'national_price_span', 'store_price_span', 'listing_day_stats', 'link_decision', 'collection']) {
    out[t] = (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`)).rows[0].n;
  }
  return out;
}

const EMPTY = {
  store: 0, listing: 0, product: 0, national_price_span: 0, store_price_span: 0, listing_day_stats: 0, link_decision: 0, collection: 0,
};

/** The gunzipped bytes of `<folder>/<name>`. */
const gunzip = (folder: string, name: string) => zlib.gunzipSync(fs.readFileSync(path.join(folder, name)));

/** A copy of export folder `from` (symlinks resolved) at `to`. */
async function copyExport(from: string, to: string): Promise<string> {
  await fsp.cp(await fsp.realpath(from), to, { recursive: true });
  return to;
}

/** Rewrites `name` in export folder `dir` and its manifest entry (size and sha256), as a consistent but wrong export. */
async function rewriteFile(dir: string, name: string, bytes: Buffer): Promise<void> {
  await fsp.writeFile(path.join(dir, name), bytes);
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(await fsp.readFile(manifestFile, 'utf8')) as { files: { name: string; bytes: number; sha256: string }[] };
  const entry = manifest.files.find((f) => f.name === name)!;
  entry.bytes = bytes.length;
  entry.sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  await fsp.writeFile(manifestFile, JSON.stringify(manifest, null, 2));
}

async function expectImportError(p: Promise<unknown>): Promise<ExportImportError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(ExportImportError);
  return e as ExportImportError;
}

beforeAll(async () => {
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'export-roundtrip-'));
  [a, b, c] = await Promise.all([createTestDatabase('roundtrip_a'), createTestDatabase('roundtrip_b'), createTestDatabase('roundtrip_c')]);

  seed = await seedRealPrices(a.pool);
  await ingest(a.pool, await syntheticDay(a), { mode: 'snapshot', source: 'export-roundtrip.test.ts (synthetic)', progress: false });
  await runMatching(a.pool, { progress: false });
  // Curator states (fixture metadata): one listing's link locked, another pinned unlinked.
  await a.pool.query('UPDATE listing SET link_locked = true, linked_at = now() WHERE id = $1', [seed.listingIds.get('woolworths:927566')]);
  await a.pool.query(
    `UPDATE listing SET product_id = NULL, link_method = 'manual', link_confidence = 1, link_locked = true, linked_at = now() WHERE id = $1`,
    [seed.listingIds.get(`woolworths:${HISTORY_SKUS[0]}`)],
  );
  await runMatching(a.pool, { progress: false });

  exportA = await runExport(a.pool, { dir: path.join(tmp, 'a'), progress: false });
  imported = await importExport(b.pool, path.join(tmp, 'a', 'latest'), { progress: false });
  // As the CLI does after an import: the links come from the export, so nothing may change.
  matchB = await runMatching(b.pool, { progress: false });
  exportB = await runExport(b.pool, { dir: path.join(tmp, 'b'), progress: false });

  const rateLimit = { perMinute: 1_000_000, perDay: 10_000_000 };
  apiA = await createServer({ db: a, env, rateLimit });
  apiB = await createServer({ db: b, env, rateLimit });
});

afterAll(async () => {
  await apiA?.close();
  await apiB?.close();
  await Promise.all([a?.drop(), b?.drop(), c?.drop()]);
  if (tmp) await fsp.rm(tmp, { recursive: true, force: true });
});

describe('export → import → export', () => {
  it('loads every table of the export with its ids and reports what it did', async () => {
    const rowsA = Object.fromEntries(EXPORT_TABLES.map((t) => [t.name, exportA.rows[t.name]]));
    expect(imported.rows).toEqual(rowsA);
    expect(imported.verified).toBe(exportA.manifest.files.length);
    expect(imported.day).toBe(exportA.manifest.day);
    expect(imported.skipped).toEqual(['index_daily', 'basket']);
    const ca = await counts(a);
    const cb = await counts(b);
    expect(imported.loaded).toEqual({
      stores: ca.store, listings: ca.listing, products: ca.product, nationalSpans: ca.national_price_span,
      storeSpans: ca.store_price_span, dayStats: ca.listing_day_stats,
    });
    expect(imported.loaded.storeSpans).toBeGreaterThan(0);
    expect(imported.loaded.products).toBeGreaterThan(0);
    expect({ ...cb, link_decision: 0, collection: 0 }).toEqual({ ...ca, link_decision: 0, collection: 0 });
    // No decisions or collections are made up (see workers/export/import.ts).
    expect(cb.link_decision).toBe(0);
    expect(cb.collection).toBe(0);
    expect(imported.lastNationalDay.woolworths).toBe(SYNTHETIC_DAY);
    expect(imported.lastNationalDay.paknsave).toBe(SYNTHETIC_DAY);
    expect(imported.lastNationalDay.warehouse).toBeNull();
  });

  it('matching re-run on the imported instance changes nothing', () => {
    expect(matchB.changes).toEqual({ link: 0, relink: 0, unlink: 0, update: 0 });
    expect(matchB.products).toMatchObject({ created: 0, updated: 0, deleted: 0 });
    expect(matchB.listingIds).toEqual([]);
  });

  it('exporting the imported instance gives the same row counts and byte-identical CSVs', () => {
    const summary = (r: ExportResult) => r.manifest.files.map((f) => ({ name: f.name, rows: f.rows }));
    expect(summary(exportB)).toEqual(summary(exportA));
    expect(exportB.manifest.day).toBe(exportA.manifest.day);
    for (const t of EXPORT_TABLES) {
      const csvA = gunzip(exportA.path, `${t.name}.csv.gz`);
      const csvB = gunzip(exportB.path, `${t.name}.csv.gz`);
      expect(csvB.equals(csvA), `${t.name}.csv.gz differs`).toBe(true);
    }
  });

  it('holds the same stores, spans, products, links and daily statistics', async () => {
    const same = async (sql: string) => {
      const [ra, rb] = await Promise.all([a.pool.query(sql), b.pool.query(sql)]);
      expect(rb.rows, sql).toEqual(ra.rows);
      return ra.rows.length;
    };
    await same('SELECT slug, last_national_day FROM retailer ORDER BY id');
    // The scopes' covered days are not exported: every open span carries its own day of record
    // (seen_day) after the import instead, so the spans' ends are compared below, not covered_day.
    await same('SELECT id, retailer_id, external_id, name, address, region, lat, lng, town, area, urban, active, last_day FROM store ORDER BY id');
    await same(`SELECT id, retailer_id, external_id, name, brand, size_text, qty, unit, pack_count, weighable, gtin, category_path, image,
      retailer_url, first_seen, product_id, link_method, link_confidence, link_locked, search_name, search_doc::text FROM listing ORDER BY id`);
    await same('SELECT id, name, brand, size_text, gtin, image, brand_owner, brand_parent FROM product ORDER BY id');
    expect(await same(`SELECT listing_id, store_id, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price
      FROM store_price_span ORDER BY listing_id, store_id, first_day`)).toBeGreaterThan(0);
    const closed = await a.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM store_price_span WHERE last_day IS NOT NULL');
    expect(closed.rows[0].n).toBeGreaterThan(0); // the SYNTHETIC day closed some store spans
    await same(`SELECT listing_id, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price
      FROM national_price_span ORDER BY listing_id, first_day`);
    // Every span ends on the same day of record (src/domain/spans.ts spanTo), open ones included.
    await same(`SELECT sp.listing_id, sp.store_id, sp.first_day, ${spanToSql('sp', storeCoveredDay('st'))} AS "to"
      FROM store_price_span sp JOIN store st ON st.id = sp.store_id ORDER BY 1, 2, 3`);
    await same(`SELECT sp.listing_id, sp.first_day, ${spanToSql('sp', nationalCoveredDay('r'))} AS "to"
      FROM national_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id ORDER BY 1, 2`);
    // Recomputed from the store spans: both store days, exactly as ingest wrote them.
    expect(await same('SELECT listing_id, day, min, med, max, n FROM listing_day_stats ORDER BY listing_id, day')).toBeGreaterThan(0);
    await same('SELECT DISTINCT day FROM listing_day_stats ORDER BY day');
    // New rows continue after the imported ids.
    for (const t of ['store', 'listing', 'product']) {
      const { rows } = await b.pool.query<{ next: number; max: number }>(
        `SELECT nextval(pg_get_serial_sequence('${t}', 'id'))::int AS next, (SELECT max(id) FROM ${t}) AS max`,
      );
      expect(rows[0].next).toBeGreaterThan(rows[0].max);
    }
  });

  it('answers the same for sample listings and products', async () => {
    const listing = (key: string) => seed.listingIds.get(key)!;
    const store = (ext: string) => seed.storeIds.get(ext)!;
    const { rows: priced } = await a.pool.query<{ listing_id: number }>(
      'SELECT DISTINCT listing_id FROM store_price_span ORDER BY listing_id LIMIT 3',
    );
    const listingIds = [
      listing('woolworths:927566'), // linked to the Silver Fern Farms burgers, a special at 882226, locked
      listing('paknsave:5329042-EA-000'),
      listing(`woolworths:${HISTORY_SKUS[0]}`), // national history, pinned unlinked
      listing(`woolworths:${HISTORY_SKUS[1]}`),
      ...priced.map((r) => r.listing_id),
    ];
    const { rows: products } = await a.pool.query<{ id: number }>('SELECT id FROM product ORDER BY id');
    expect(products.length).toBeGreaterThan(0);
    const urls = [
      ...listingIds.flatMap((id) => [
        `/api/v1/listings/${id}`,
        `/api/v1/listings/${id}/history`,
        `/api/v1/listings/${id}/history?store=${store(WOOLWORTHS_STORES[0])}`,
        `/api/v1/listings/${id}/history?store=${store(PAKNSAVE_STORES[0])}`,
      ]),
      ...products.flatMap(({ id }) => [
        `/api/v1/products/${id}`,
        `/api/v1/products/${id}/history`,
        `/api/v1/products/${id}/stores`,
        `/api/v1/products/${id}/spread`,
      ]),
      '/api/v1/stores',
      '/api/v1/search?q=burgers',
      '/api/v1/listings?q=milk',
    ];
    let withStores = 0;
    for (const url of urls) {
      const [ra, rb] = await Promise.all([apiA.inject({ method: 'GET', url }), apiB.inject({ method: 'GET', url })]);
      expect(ra.statusCode, url).toBe(200);
      expect(rb.statusCode, url).toBe(200);
      expect(rb.json(), url).toEqual(ra.json());
      const body = ra.json() as { stores?: unknown[]; stats?: { day?: string[] } };
      if (url.match(/^\/api\/v1\/listings\/\d+$/) && (body.stores?.length ?? 0) > 0 && (body.stats?.day?.length ?? 0) === 2) withStores++;
    }
    expect(withStores).toBeGreaterThan(0);
    const burgers = (await apiB.inject({ url: `/api/v1/products/${(await b.pool.query('SELECT product_id FROM listing WHERE id = $1', [listing('woolworths:927566')])).rows[0].product_id}` })).json() as {
      offers: { id: number; locked: boolean }[];
    };
    expect(burgers.offers.map((o) => o.id).sort()).toEqual([listing('woolworths:927566'), listing('paknsave:5329042-EA-000')].sort());
  });
});

describe('refusals', () => {
  it('refuses a non-empty instance before reading anything, and leaves it as it was', async () => {
    const before = await counts(a);
    const e = await expectImportError(importExport(a.pool, exportA.path, { progress: false }));
    expect(e.message).toMatch(/not empty/);
    expect(await counts(a)).toEqual(before);
  });

  it('refuses an altered file (any listed file, by sha256) before any write', async () => {
    const dir = await copyExport(exportA.path, path.join(tmp, 'tampered'));
    const file = path.join(dir, 'price_spans.parquet');
    const bytes = await fsp.readFile(file);
    bytes[bytes.length >> 1] ^= 0xff;
    await fsp.writeFile(file, bytes);
    const e = await expectImportError(importExport(c.pool, dir, { progress: false }));
    expect(e.file).toBe('price_spans.parquet');
    expect(e.message).toMatch(/sha256/);
    expect(await counts(c)).toEqual(EMPTY);

    const csv = path.join(dir, 'stores.csv.gz');
    await fsp.truncate(csv, (await fsp.stat(csv)).size - 1);
    await fsp.copyFile(path.join(exportA.path, 'price_spans.parquet'), file);
    const truncated = await expectImportError(importExport(c.pool, dir, { progress: false }));
    expect(truncated.file).toBe('stores.csv.gz');
    expect(truncated.message).toMatch(/bytes/);

    await fsp.rm(csv);
    const missing = await expectImportError(importExport(c.pool, dir, { progress: false }));
    expect(missing.file).toBe('stores.csv.gz');
    expect(missing.message).toMatch(/missing/);
    expect(await counts(c)).toEqual(EMPTY);
  });

  it('refuses a manifest without the licence or a table', async () => {
    const dir = await copyExport(exportA.path, path.join(tmp, 'manifests'));
    const manifestFile = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(await fsp.readFile(manifestFile, 'utf8')) as { licence: string; files: { name: string }[] };
    await fsp.writeFile(manifestFile, JSON.stringify({ ...manifest, licence: 'CC0' }));
    expect((await expectImportError(importExport(c.pool, dir, { progress: false }))).message).toMatch(/licence/);
    await fsp.writeFile(manifestFile, JSON.stringify({ ...manifest, files: manifest.files.filter((f) => f.name !== 'basket.csv.gz') }));
    expect((await expectImportError(importExport(c.pool, dir, { progress: false }))).message).toMatch(/basket\.csv\.gz/);
    expect(await counts(c)).toEqual(EMPTY);
  });

  it('rolls everything back when the data break a rule half-way (a consistent manifest, a negative price)', async () => {
    const dir = await copyExport(exportA.path, path.join(tmp, 'negative'));
    const lines = gunzip(dir, 'price_spans.csv.gz').toString('utf8').split('\n');
    const cols = lines[0].split(',');
    const row = lines.length - 2; // the last data row
    const fields = lines[row].split(',');
    fields[cols.indexOf('price')] = '-5';
    lines[row] = fields.join(',');
    await rewriteFile(dir, 'price_spans.csv.gz', zlib.gzipSync(lines.join('\n')));
    const e = await expectImportError(importExport(c.pool, dir, { progress: false }));
    expect(e.message).toMatch(/nothing was imported/);
    // Stores and listings were inserted before the spans: the transaction took them back.
    expect(await counts(c)).toEqual(EMPTY);

    await rewriteFile(dir, 'price_spans.csv.gz', fs.readFileSync(path.join(exportA.path, 'price_spans.csv.gz')));
    await rewriteFile(dir, 'listings.csv.gz', zlib.gzipSync(gunzip(dir, 'listings.csv.gz').toString('utf8').replace(',woolworths,', ',kmart,')));
    const unknown = await expectImportError(importExport(c.pool, dir, { progress: false }));
    expect(unknown.file).toBe('listings.csv.gz');
    expect(unknown.message).toMatch(/unknown retailer "kmart"/);
    expect(await counts(c)).toEqual(EMPTY);
  });
});

describe('a manifest URL', () => {
  it('downloads the files next to the manifest, verifies and imports them', async () => {
    const root = path.join(tmp, 'a');
    const server = http.createServer((req, res) => {
      const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/data\//, '');
      const file = path.join(root, rel);
      if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      fs.createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const missing = await expectImportError(importExport(c.pool, `http://127.0.0.1:${port}/data/nothing/manifest.json`, { progress: false }));
      expect(missing.message).toMatch(/HTTP 404/);
      const r = await importExport(c.pool, `http://127.0.0.1:${port}/data/latest/manifest.json`, { progress: false });
      expect(r.loaded).toEqual(imported.loaded);
      expect(await counts(c)).toEqual({ ...(await counts(b)) });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('ingest after an import', () => {
  it('ingests the next day as the source instance does; an exported day is refused, not re-merged', async () => {
    // SYNTHETIC next day: the same invented changes as above, applied to the 2026-08-04 prices.
    const next = await syntheticDay(a, '2026-08-05');
    const [ra, rb] = await Promise.all([
      ingest(a.pool, next, { mode: 'snapshot', source: 'next day (synthetic)', progress: false }),
      ingest(b.pool, next, { mode: 'snapshot', source: 'next day (synthetic)', progress: false }),
    ]);
    expect(rb.merged).toEqual(['2026-08-05']);
    expect(rb.listingIds).toEqual(ra.listingIds);
    for (const sql of [
      'SELECT slug, last_national_day FROM retailer ORDER BY id',
      'SELECT id, last_day FROM store ORDER BY id',
      `SELECT listing_id, store_id, first_day, last_day, price, promo_price, promo_kind FROM store_price_span ORDER BY listing_id, store_id, first_day`,
      `SELECT listing_id, first_day, last_day, price, promo_price, promo_kind FROM national_price_span ORDER BY listing_id, first_day`,
      'SELECT listing_id, day, min, med, max, n FROM listing_day_stats ORDER BY listing_id, day',
    ]) {
      const [x, y] = await Promise.all([a.pool.query(sql), b.pool.query(sql)]);
      expect(y.rows, sql).toEqual(x.rows);
    }
    // No collections are imported (their digests are not in the export): re-ingesting a day the
    // export holds is refused as history is append-only, where the source would skip it as a repeat.
    const again = await syntheticDay(a, SYNTHETIC_DAY);
    await expect(ingest(b.pool, again, { mode: 'snapshot', progress: false })).rejects.toThrow(/not after the last ingested day/);
  });
});
