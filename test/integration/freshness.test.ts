/**
 * Issue 26 "Say how old every fact is", on the real data folder (../shared/data): the import that
 * `npm start` runs on an empty database (catalogue 2026-07-27 after the Woolworths log, which ends
 * 2025-05-04; store samples 2026-08-03), then matching, the index and the derived views, then one
 * Woolworths store collected for "today" (2026-12-02, the day the issue was filed) through the
 * replay server of the chain's recorded shapes (test/fixtures/collect/woolworths: the retailer's
 * site is faked, 8 real SKUs of the catalogue at one store). Pins each rule of the day of record
 * (src/domain/spans.ts spanTo / isCurrentSpan):
 * - `last_run` is when the prices were observed, not when the import ran;
 * - the index stops where observation stops: `as_of`, no day with coverage after the newest
 *   observation plus the 14-day cap, coverage 0 across the 2025-05 → 2026-07 gap (no carry);
 * - get_data_status lists the gap and the chains' last days;
 * - `Last-Modified` and `If-Modified-Since` → 304;
 * - after the one-store collection: only what it saw is current (listing `current.day`,
 *   `available`), deals of the catalogue it did not see leave the feed, the index's coverage falls
 *   to what it saw and the other items turn stale, the store's panel holds only what it saw.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { httpDate } from '../../facades/http/caching.js';
import { bumpDataVersion } from '../../src/db/data-version.js';
import { addDays, nzDay } from '../../src/domain/days.js';
import { CAP_DAYS } from '../../src/domain/spans.js';
import { loadEnv } from '../../src/env.js';
import { runCollect, type CollectReport } from '../../workers/collect/run.js';
import { runBasketMatching } from '../../workers/index/match.js';
import { runIndex } from '../../workers/index/compute.js';
import { importRealData } from '../../workers/import/index.js';
import { runViews } from '../../workers/views/run.js';
import { runMatching } from '../../workers/match/match.js';
import { createTestDatabase, DATA_DIR, type TestDatabase } from '../helpers/db.js';
import { startReplayServer, type ReplayServer } from '../helpers/replay-server.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TODAY = '2026-12-02';
const FIX = new URL('../fixtures/collect/', import.meta.url).pathname;
/** Woolworths Northlands: store 1225718, fulfilment store 9441 in the recorded shapes. */
const NORTHLANDS = '1225718';
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });

let db: TestDatabase;
let app: FastifyInstance;
let importStarted: Date;

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers });
async function json(url: string): Promise<Json> {
  const r = await get(url);
  expect(r.statusCode, `${url}: ${r.body.slice(0, 300)}`).toBe(200);
  return r.json();
}

/** What `npm start` does after an import, and `collect` after a collection: matching, basket, index, views. */
async function derive(): Promise<void> {
  await runMatching(db.pool, { progress: false });
  await runBasketMatching(db.pool, { progress: false });
  await runIndex(db.pool, { dataDir: DATA_DIR, progress: false, today: TODAY });
  await runViews(db.pool, { progress: false });
}

beforeAll(async () => {
  db = await createTestDatabase('freshness');
  importStarted = new Date();
  await importRealData(db.pool, DATA_DIR, { progress: false });
  await bumpDataVersion(db.pool, 'import');
  await derive();
  app = await createServer({ db, env, rateLimit: { perMinute: 1_000_000, perDay: 10_000_000 } });
}, 900_000);

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

/** Newest collection day of each chain (the newest observation). */
async function newestDays(): Promise<Map<string, string>> {
  const r = await db.pool.query<{ slug: string; day: string }>(
    'SELECT r.slug, max(c.day)::text AS day FROM collection c JOIN retailer r ON r.id = c.retailer_id GROUP BY r.slug',
  );
  return new Map(r.rows.map((x) => [x.slug, x.day]));
}

describe('a fresh start on the real data', () => {
  it('gives each chain last_run = when its prices were observed, never the import time', async () => {
    const newest = await newestDays();
    const retailers = (await json('/api/v1/retailers')) as Json[];
    const collected = retailers.filter((r) => newest.has(r.slug));
    expect(collected.map((r) => r.slug).sort()).toEqual(['newworld', 'paknsave', 'woolworths']);
    for (const r of collected) {
      expect(r.last_run, r.slug).not.toBeNull();
      expect(new Date(r.last_run).getTime(), r.slug).toBeLessThan(importStarted.getTime());
      expect(nzDay(new Date(r.last_run)) <= newest.get(r.slug)!, r.slug).toBe(true);
    }
    // The samples of 2026-08-03 give no time of day: the start of that day in New Zealand.
    expect(collected.find((r) => r.slug === 'woolworths')!.last_run).toBe('2026-08-02T12:00:00.000Z');
    for (const r of retailers.filter((x) => !newest.has(x.slug))) expect(r.last_run, r.slug).toBeNull();
  });

  it('stops the index where observation stops: as_of, no coverage past the cap, coverage 0 across the gap', async () => {
    const newest = [...(await newestDays()).values()].sort().at(-1)!;
    expect(newest).toBe('2026-08-03');
    const latest = await json('/api/v1/index/latest');
    expect(latest.as_of <= newest).toBe(true);
    expect(latest.coverage.weight).toBeGreaterThan(0);
    const points = (await json('/api/v1/index/daily?from=2025-04-20&to=2026-12-02')) as Json[];
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) expect(p.day <= addDays(newest, CAP_DAYS), p.day).toBe(true);
    // The log's last day is 2025-05-04: its prices count 14 more days, then nothing was observed
    // until the catalogue of 2026-07-27. Those points exist (raw is carried) with coverage 0.
    const at = (d: string) => points.find((p) => p.day === d);
    expect(at('2025-05-18')!.coverage).toBeGreaterThan(0);
    const gap = points.filter((p) => p.day >= '2025-05-19' && p.day <= '2026-07-26');
    expect(gap.length).toBe(434);
    expect(gap.every((p) => p.coverage === 0)).toBe(true);
    expect(at('2026-07-27')!.coverage).toBeGreaterThan(0.5);
  });

  it('lists the 2025-05 → 2026-07 gap and each chain\'s last collection day in get_data_status', async () => {
    const s = await json('/api/v1/status');
    expect(s.newest_day).toBe('2026-08-03');
    expect(s.gaps).toContainEqual({ from: '2025-05-05', to: '2026-07-26', days: 448 });
    const ww = s.retailers.find((r: Json) => r.slug === 'woolworths');
    expect(ww).toMatchObject({ first_day: expect.any(String), last_day: '2026-08-03' });
    expect(ww.gaps).toContainEqual({ from: '2025-05-05', to: '2026-07-26', days: 448 });
  });

  it('answers GETs with Last-Modified (the newest observation) and 304 to If-Modified-Since', async () => {
    const newest = (await db.pool.query<{ t: Date }>('SELECT max(last_run) AS t FROM retailer')).rows[0].t;
    const r = await get('/api/v1/retailers');
    expect(r.headers['last-modified']).toBe(httpDate(newest));
    expect((await get('/api/v1/retailers', { 'if-modified-since': httpDate(newest) })).statusCode).toBe(304);
    expect((await get('/api/v1/retailers', { 'if-modified-since': httpDate(new Date(newest.getTime() - 86_400_000)) })).statusCode).toBe(200);
  });

  it('keeps the catalogue\'s deals (observed within the cap of the chain\'s latest collection), each with its day', async () => {
    const d = await db.pool.query<{ day: string; n: number }>(
      `SELECT d.day::text AS day, count(*)::int AS n FROM deal d JOIN retailer r ON r.id = d.retailer_id WHERE r.slug = 'woolworths' GROUP BY 1 ORDER BY 1`,
    );
    expect(d.rows.length).toBeGreaterThan(0);
    for (const row of d.rows) expect(row.day >= addDays('2026-08-03', -CAP_DAYS)).toBe(true);
    expect(d.rows.find((x) => x.day === '2026-07-27')!.n).toBeGreaterThan(1000);
  });
});

describe('after one Woolworths store is collected today (replay of the recorded shapes)', () => {
  let server: ReplayServer;
  let spool: string;
  let report: CollectReport;
  let seen: number[];
  let storeId: number;
  let dealsBefore: number[];
  let collectStarted: Date;

  beforeAll(async () => {
    dealsBefore = (await db.pool.query<{ id: number }>(
      `SELECT d.listing_id AS id FROM deal d JOIN retailer r ON r.id = d.retailer_id WHERE r.slug = 'woolworths' ORDER BY 1`,
    )).rows.map((r) => r.id);
    const ww = (dept: string, page: number, file: string) => ({
      path: '/api/v1/products', query: { dasFilter: `Department;;${dept};false`, page: String(page) }, headers: { cookie: 'f-9441' }, respond: { file: `woolworths/${file}` },
    });
    server = await startReplayServer([
      {
        method: 'PUT', path: '/api/v1/fulfilment/my/pickup-addresses', body: `"addressId":${NORTHLANDS}`,
        respond: { file: `woolworths/select-store-${NORTHLANDS}.json`, headers: { 'set-cookie': ['cw-lrkswrdjp=dm-Pickup,f-9441,a-1002,s-38; path=/'] } },
      },
      { path: '/api/v1/products/departments', respond: { file: 'woolworths/departments.json' } },
      ww('fruit-veg', 1, '9441-fruit-veg-p1.json'),
      ww('fruit-veg', 2, '9441-fruit-veg-p2.json'),
      ww('fridge-deli', 1, '9441-fridge-deli-p1.json'),
    ], FIX);
    spool = fs.mkdtempSync(path.join(os.tmpdir(), 'freshness-'));
    storeId = (await db.pool.query<{ id: number }>(
      `SELECT s.id FROM store s JOIN retailer r ON r.id = s.retailer_id WHERE r.slug = 'woolworths' AND s.external_id = $1`, [NORTHLANDS],
    )).rows[0].id;
    collectStarted = new Date();
    report = await runCollect(db.pool, {
      retailers: ['woolworths'], stores: [storeId], origin: server.origin, day: TODAY, today: TODAY, progress: false, log: () => {},
      config: {
        contactUrl: 'https://example.org/nz-grocery-prices', concurrency: 1, ratePerSecond: 100, timeoutMs: 5_000, retries: 1,
        retryBaseMs: 5, retryMaxMs: 20, spoolDir: spool, origins: {}, urbanCoresFile: path.join(DATA_DIR, 'l5--nz-cities/urban_cores.csv'),
      },
    });
    await derive();
    // The listings the store showed today: their store span there opened or was seen today.
    seen = (await db.pool.query<{ id: number }>(
      `SELECT DISTINCT listing_id AS id FROM store_price_span WHERE store_id = $1 AND coalesce(seen_day, first_day) = $2 ORDER BY 1`,
      [storeId, TODAY],
    )).rows.map((r) => r.id);
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    if (spool) fs.rmSync(spool, { recursive: true, force: true });
  });

  it('ingests it as a partial collection: the chain is not covered, last_run is the run\'s time', async () => {
    expect(report.chains[0]).toMatchObject({ retailer: 'woolworths', status: 'finished', collected: 1, mode: 'partial' });
    expect(seen.length).toBe(8);
    const r = (await db.pool.query('SELECT last_national_day::text AS last, covered_day::text AS covered, last_run FROM retailer WHERE slug = $1', ['woolworths'])).rows[0];
    expect(r).toMatchObject({ last: TODAY, covered: '2026-07-27' });
    expect(Math.abs(r.last_run.getTime() - collectStarted.getTime())).toBeLessThan(60_000);
    const s = await json('/api/v1/status');
    expect(s.retailers.find((x: Json) => x.slug === 'woolworths')).toMatchObject({ last_day: TODAY, stores_collected: 1, listings_seen: 8 });
  });

  it('makes current only the listings it saw', async () => {
    for (const id of seen) {
      const l = await json(`/api/v1/listings/${id}`);
      expect(l.current.day, `listing ${id}`).toBe(TODAY);
      expect(l.available).toBe(true);
      expect(l.last_seen).toBe(TODAY);
    }
    // A catalogue listing this collection did not look at: last observed 2026-07-27, 128 days
    // before the chain's latest collection, so not current and not claimed available.
    const other = (await db.pool.query<{ id: number }>(
      `SELECT l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id
       JOIN national_price_span n ON n.listing_id = l.id AND n.last_day IS NULL AND n.first_day = '2026-07-27' AND n.seen_day IS NULL
       WHERE r.slug = 'woolworths' AND l.available ORDER BY l.id LIMIT 1`,
    )).rows[0].id;
    const l = await json(`/api/v1/listings/${other}`);
    expect(l.current.day).toBe('2026-07-27');
    expect(l.available).toBe(false);
    expect(l.last_seen).toBe('2026-07-27');
    const h = await json(`/api/v1/listings/${other}/history`);
    expect(h.to.at(-1)).toBe('2026-07-27');
  });

  it('drops the catalogue deals it did not see from the feed', async () => {
    const after = await db.pool.query<{ id: number; day: string }>(
      `SELECT d.listing_id AS id, d.day::text AS day FROM deal d JOIN retailer r ON r.id = d.retailer_id WHERE r.slug = 'woolworths'`,
    );
    expect(dealsBefore.length).toBeGreaterThan(1000);
    expect(after.rows.length).toBeLessThanOrEqual(8);
    for (const d of after.rows) {
      expect(seen).toContain(d.id);
      expect(d.day).toBe(TODAY);
    }
    const feed = await json('/api/v1/deals?retailer=woolworths&limit=96');
    expect(feed.total).toBeLessThanOrEqual(after.rows.length);
    for (const c of feed.listings) expect(seen).toContain(c.id);
  });

  it('counts in the index only what was observed: coverage falls, no carry across the unobserved months, items turn stale', async () => {
    const points = (await json(`/api/v1/index/daily?from=2026-07-27&to=${TODAY}`)) as Json[];
    const at = (d: string) => points.find((p) => p.day === d);
    expect(at('2026-07-27')!.coverage).toBeGreaterThan(0.5);
    // The samples of 2026-08-03 count until 2026-08-17; nothing after, until today.
    const dark = points.filter((p) => p.day >= '2026-08-18' && p.day < TODAY);
    expect(dark.length).toBe(106);
    expect(dark.every((p) => p.coverage === 0)).toBe(true);
    const latest = await json('/api/v1/index/latest');
    expect(latest.as_of <= TODAY).toBe(true);
    expect(latest.coverage.weight).toBeLessThan(0.3);
    expect(latest.coverage.listings).toBeLessThanOrEqual(8);
    const basket = (await json('/api/v1/basket')) as Json[];
    expect(basket.filter((i) => i.stale === true).length).toBeGreaterThan(50);
  });

  it('builds the store\'s panel from what it saw', async () => {
    const panel = await db.pool.query<{ id: number }>('SELECT listing_id AS id FROM store_listing WHERE store_id = $1', [storeId]);
    expect(panel.rows.length).toBeGreaterThan(0);
    for (const r of panel.rows) expect(seen).toContain(r.id);
    const store = await json(`/api/v1/stores/${storeId}`);
    expect(store.listings_priced).toBe(panel.rows.length);
  });
});
