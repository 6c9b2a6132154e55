/**
 * Every REST operation through the assembled server (app.inject) against a real PostgreSQL holding
 * real prices (test/helpers/prices.ts): response shapes, statuses, error bodies and headers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { operations } from '../../facades/operations.js';
import crypto from 'node:crypto';
import { runExport } from '../../workers/export/export.js';
import { PAKNSAVE_STORES, seedRealPrices, STORE_DAY, WOOLWORTHS_STORES, type Seeded } from '../helpers/prices.js';
import {
  CURRENT_PRICE, DAILY_STATS, HISTORY, LISTING_CARD, LISTING_DETAIL, LISTING_STORE_PRICE, OFFER, PRODUCT_DETAIL,
  PRODUCT_STORE_PRICE, RETAILER, SPREAD, STORE, expectError, expectShape,
} from '../helpers/shape.js';

/** A scratch EXPORT_DIR: empty until the get_export_manifest tests run the export worker into it. */
const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzgp-operations-exports-'));
// The response cache off (CACHE_MAX_BYTES=0): cases edit rows by hand between requests, which no
// write job does, so no data version bump tells a cache (test/integration/response-cache.test.ts
// covers the cache over the same operations).
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', EXPORT_DIR: exportDir, CACHE_MAX_BYTES: '0' });
let db: TestDatabase;
let app: FastifyInstance;
let seed: Seeded;

let responses: ResponseValidator;

/** GET through the server; every response of a documented path is validated against /openapi.json. */
const get = async (url: string, headers: Record<string, string> = {}) => {
  const r = await app.inject({ method: 'GET', url, headers });
  const body = String(r.headers['content-type'] ?? '').startsWith('application/json') ? r.json() : r.body;
  let problems: string[] = [];
  try {
    problems = responses.errors('GET', url, r.statusCode, body);
  } catch (e) {
    if (!/no documented path/.test((e as Error).message)) throw e;
  }
  expect(problems, `GET ${url} → ${r.statusCode} against the OpenAPI document`).toEqual([]);
  return { status: r.statusCode, headers: r.headers, body };
};
const listing = (key: string) => {
  const id = seed.listingIds.get(key);
  if (id === undefined) throw new Error(`no listing ${key}`);
  return id;
};
type Card = Record<string, unknown> & { id: number; retailer: string; name: string; price: number | null };

beforeAll(async () => {
  db = await createTestDatabase('operations');
  seed = await seedRealPrices(db.pool);
  app = await createServer({ db, env });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
  fs.rmSync(exportDir, { recursive: true, force: true });
});

describe('get_export_manifest and /data/latest/*', () => {
  it('answers 404 before the first export, then the manifest of the published export', async () => {
    const before = await get('/data/latest/manifest.json');
    expect(before.status).toBe(404);
    expectError(before.body, 404, 'no export');
    expect((await get('/data/latest/price_spans.parquet')).status).toBe(404);

    const published = await runExport(db.pool, { dir: exportDir, progress: false });
    const r = await get('/data/latest/manifest.json');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(published.manifest);
    const m = r.body as { day: string; licence: string; files: { name: string; bytes: number; rows: number; sha256: string }[] };
    expect(m.licence).toBe('CC BY 4.0');
    expect(m.files.map((f) => f.name).sort()).toEqual(
      ['basket', 'index_daily', 'listings', 'price_spans', 'stores'].flatMap((t) => [`${t}.csv.gz`, `${t}.parquet`]).sort(),
    );
    const listings = (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM listing')).rows[0].n;
    expect(m.files.find((f) => f.name === 'listings.parquet')?.rows).toBe(listings);
  });

  it('serves the files whole, by range and by ETag, with a long cache lifetime and no budget', async () => {
    const m = (await get('/data/latest/manifest.json')).body as { files: { name: string; bytes: number; sha256: string }[] };
    const entry = m.files.find((f) => f.name === 'price_spans.parquet')!;
    const whole = await app.inject({ url: '/data/latest/price_spans.parquet' });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.length).toBe(entry.bytes);
    expect(crypto.createHash('sha256').update(whole.rawPayload).digest('hex')).toBe(entry.sha256);
    expect(whole.headers['cache-control']).toBe('public, max-age=86400');
    expect(whole.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(whole.headers['ratelimit-limit']).toBeUndefined();

    const part = await app.inject({ url: '/data/latest/price_spans.parquet', headers: { range: 'bytes=0-3' } });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe('PAR1');
    expect(part.headers['content-range']).toBe(`bytes 0-3/${entry.bytes}`);

    const again = await app.inject({ url: '/data/latest/price_spans.parquet', headers: { 'if-none-match': String(whole.headers.etag) } });
    expect(again.statusCode).toBe(304);
    const head = await app.inject({ method: 'HEAD', url: '/data/latest/listings.csv.gz' });
    expect(head.statusCode).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(m.files.find((f) => f.name === 'listings.csv.gz')!.bytes);
    // The attribution sits beside the files.
    const readme = await app.inject({ url: '/data/latest/README.md' });
    expect(readme.statusCode).toBe(200);
    expect(readme.body).toContain('CC BY 4.0');
    // Nothing outside the published folder.
    const escape = await app.inject({ url: '/data/latest/..%2f..%2fpackage.json' });
    expect([403, 404]).toContain(escape.statusCode);
    expectError(escape.json(), escape.statusCode);
  });

  it("follows the switch of latest while serving: the next export's manifest and files", async () => {
    const first = (await get('/data/latest/manifest.json')).body as { generated_at: string };
    const next = await runExport(db.pool, { dir: exportDir, progress: false, now: new Date(Date.parse(first.generated_at) + 60_000) });
    const m = (await get('/data/latest/manifest.json')).body as { generated_at: string; files: { name: string; sha256: string }[] };
    expect(m.generated_at).toBe(next.manifest.generated_at);
    expect(m.generated_at).not.toBe(first.generated_at);
    for (const name of ['listings.csv.gz', 'stores.parquet']) {
      const body = (await app.inject({ url: `/data/latest/${name}` })).rawPayload;
      expect(crypto.createHash('sha256').update(body).digest('hex')).toBe(m.files.find((f) => f.name === name)!.sha256);
    }
  });
});

describe('list_retailers', () => {
  it('lists the six chains, largest catalogue first, with panel sizes', async () => {
    const r = await get('/api/v1/retailers');
    expect(r.status).toBe(200);
    const list = r.body as Record<string, unknown>[];
    expect(list).toHaveLength(6);
    list.forEach((x, i) => expectShape(x, RETAILER, `retailers[${i}]`));
    const sizes = list.map((x) => x.listings as number);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    const { rows } = await db.pool.query<{ slug: string; n: number }>(
      'SELECT r.slug, count(l.id)::int AS n FROM retailer r LEFT JOIN listing l ON l.retailer_id = r.id GROUP BY r.slug',
    );
    for (const row of rows) expect(list.find((x) => x.slug === row.slug)?.listings).toBe(row.n);
    const bySlug = Object.fromEntries(list.map((x) => [x.slug, x]));
    expect(bySlug.woolworths.stores).toBe(3);
    expect(bySlug.paknsave.stores).toBe(3);
    expect(bySlug.newworld).toMatchObject({ listings: 0, stores: 0, last_run: null });
    expect(bySlug.woolworths.last_run).not.toBeNull();
  });
});

describe('list_stores', () => {
  it('lists active stores by chain then name; level and counts from the store_level view, none before it is built', async () => {
    const r = await get('/api/v1/stores');
    expect(r.status).toBe(200);
    const list = r.body as Record<string, unknown>[];
    list.forEach((x, i) => expectShape(x, STORE, `stores[${i}]`));
    expect(list.map((s) => `${s.retailer}/${s.name}`)).toEqual([
      "paknsave/PAK'nSAVE Botany",
      "paknsave/PAK'nSAVE Highland Park",
      "paknsave/PAK'nSAVE Ormiston",
      'woolworths/Woolworths Auckland Quay Street',
      'woolworths/Woolworths Auckland Victoria Street West',
      'woolworths/Woolworths Ponsonby',
    ]);
    // No store_level rows yet: nothing is aggregated per request (the specials placed at Victoria
    // Street West are not counted), level null and zero counts, the day of the last collection.
    expect(seed.specials.size).toBeGreaterThan(0);
    for (const s of list) expect(s).toMatchObject({ level: null, n_items: 0, day: STORE_DAY, club: 0, sale: 0, multibuy: 0 });
    // A row of the view (written as workers/views writes it) is what the list carries.
    const vswId = seed.storeIds.get(WOOLWORTHS_STORES[0])!;
    await db.pool.query(
      `INSERT INTO store_level (store_id, day, level, n_items, groups, spread, listings_priced, club, sale, multibuy)
       VALUES ($1, '2026-08-02', 1.0375, 31, '[]', array_fill(0, ARRAY[22]), 120, 4, $2, 2)`,
      [vswId, seed.specials.size],
    );
    try {
      const after = (await get('/api/v1/stores?retailer=woolworths')).body as Record<string, unknown>[];
      expect(after.find((s) => s.id === vswId)).toMatchObject({ level: 1.0375, n_items: 31, club: 4, sale: seed.specials.size, multibuy: 2, day: '2026-08-02' });
      for (const s of after.filter((x) => x.id !== vswId)) expect(s).toMatchObject({ level: null, n_items: 0, sale: 0, day: STORE_DAY });
    } finally {
      await db.pool.query('DELETE FROM store_level WHERE store_id = $1', [vswId]);
    }
  });

  it('filters by retailer, town, area (case-insensitive) and urban class', async () => {
    const ww = (await get('/api/v1/stores?retailer=woolworths')).body as Record<string, unknown>[];
    expect(ww.map((s) => s.retailer)).toEqual(['woolworths', 'woolworths', 'woolworths']);
    expect(((await get('/api/v1/stores?town=AUCKLAND')).body as unknown[]).length).toBe(6);
    expect(((await get('/api/v1/stores?area=auckland&urban=MAJOR')).body as unknown[]).length).toBe(6);
    expect(((await get('/api/v1/stores?urban=rural')).body as unknown[]).length).toBe(0);
    expect(((await get('/api/v1/stores?town=Dunedin')).body as unknown[]).length).toBe(0);
    expect((await get('/api/v1/stores?retailer=aldi')).body).toEqual([]);
  });

  it('rejects an unknown urban class with 400 naming the parameter', async () => {
    const r = await get('/api/v1/stores?urban=huge');
    expect(r.status).toBe(400);
    expectError(r.body, 400, 'urban');
  });
});

describe('search_listings', () => {
  it('returns ListingCards ranked by match, case-insensitively, best match first', async () => {
    const r = await get('/api/v1/listings?q=BEEF%20MINCE');
    expect(r.status).toBe(200);
    const cards = r.body as Card[];
    expect(cards.length).toBeGreaterThan(1);
    expect(cards.length).toBeLessThanOrEqual(20);
    cards.forEach((c, i) => expectShape(c, LISTING_CARD, `cards[${i}]`));
    // Ranked, not filtered: the best matches hold both words; weaker ones may hold one.
    for (const c of cards.slice(0, 5)) expect(c.name.toLowerCase()).toMatch(/beef.*mince|mince.*beef/);
    for (const c of cards) expect(c.name.toLowerCase()).toMatch(/beef|mince/);
    // PAK'nSAVE names one listing exactly "Beef Mince": exact names rank first.
    expect(cards[0].name.toLowerCase()).toBe('beef mince');
    const lower = (await get('/api/v1/listings?q=beef%20mince')).body as Card[];
    expect(lower.map((c) => c.id)).toEqual(cards.map((c) => c.id));
  });

  it('carries the national price: shelf, special and availability', async () => {
    // full_results.csv: 16.99 at all three Woolworths stores.
    const mince = ((await get('/api/v1/listings?q=grass%20fed%205%25&retailer=woolworths&limit=100')).body as Card[])
      .find((c) => c.id === listing('woolworths:42246'));
    expect(mince).toMatchObject({ retailer: 'woolworths', price: 1699, promo_price: null, available: true });
    // products.sample.csv broccoli: original 3.00, sale 1.99 (a special at one of one stores).
    const broccoli = ((await get('/api/v1/listings?q=broccoli')).body as Card[]).find((c) => c.id === listing('woolworths:281082'));
    expect(broccoli).toMatchObject({ price: 300, promo_price: 199, promo_kind: 1, available: true });
    // Bananas: only in the 2024–25 national history, gone from the 2026-08-03 collection.
    const bananas = ((await get('/api/v1/listings?q=bananas')).body as Card[]).find((c) => c.id === listing('woolworths:133211'));
    expect(bananas).toMatchObject({ available: false, price: 365 });
  });

  it('treats % and _ as text, not wildcards', async () => {
    // Unescaped, '%%' and '_' would match every name.
    expect((await get('/api/v1/listings?q=%25%25')).body).toEqual([]);
    expect((await get('/api/v1/listings?q=_')).body).toEqual([]);
    const pct = (await get('/api/v1/listings?q=5%25%20fat&limit=100')).body as Card[];
    expect(pct.length).toBeGreaterThan(0);
    expect(pct[0].name.toLowerCase()).toContain(' 5% fat');
  });

  it('filters by retailer and honours limit (default 20)', async () => {
    const pk = (await get('/api/v1/listings?q=beef&retailer=paknsave&limit=100')).body as Card[];
    expect(pk.length).toBeGreaterThan(0);
    expect(pk.every((c) => c.retailer === 'paknsave')).toBe(true);
    expect(((await get('/api/v1/listings?q=beef&limit=3')).body as Card[]).length).toBe(3);
    expect(((await get('/api/v1/listings')).body as Card[]).length).toBe(20);
  });

  it('without q lists recently seen listings first', async () => {
    const cards = (await get('/api/v1/listings?limit=100')).body as Card[];
    expect(cards).toHaveLength(100);
    expect(cards.every((c) => c.available)).toBe(true); // all seen on 2026-08-03, the newest day
    // Bananas were last seen in 2025 (national history only): behind every listing seen on STORE_DAY.
    const ww = (await get('/api/v1/listings?retailer=woolworths&limit=100')).body as Card[];
    expect(ww.every((c) => c.retailer === 'woolworths' && c.available)).toBe(true);
    expect(ww.map((c) => c.id)).not.toContain(listing('woolworths:133211'));
  });

  it.each([
    ['q', `q=${'a'.repeat(101)}`, 'at most 100 characters'],
    ['limit', 'limit=0', 'at least 1'],
    ['limit', 'limit=101', 'at most 100'],
    ['limit', 'limit=abc', 'must be an integer'],
    ['limit', 'limit=2.5', 'must be an integer'],
    ['limit', 'limit=1e2', 'must be an integer'],
    ['q', 'q=a&q=b', 'must be given once'],
    ['limit', 'limit=5&limit=6', 'must be given once'],
  ])('400 naming %s for %s', async (param, query, words) => {
    const r = await get(`/api/v1/listings?${query}`);
    expect(r.status).toBe(400);
    expectError(r.body, 400, `"${param}"`, words);
  });

  it('400 for an unknown retailer slug', async () => {
    const r = await get('/api/v1/listings?q=beef&retailer=aldi');
    expect(r.status).toBe(400);
    expectError(r.body, 400, 'aldi');
  });

  it.each([
    ['/api/v1/listings?q=%00', '"q"', 'NUL'],
    ['/api/v1/listings?retailer=%00', '"retailer"', 'NUL'],
    ['/api/v1/stores?town=a%00b', '"town"', 'NUL'],
    ['/api/v1/listings/%', 'not a valid url'],
    ['/api/v1/listings/%2F', '"id"'],
  ])('400 with the Error body, never a 500, for %s', async (url, ...parts) => {
    const r = await get(url);
    expect(r.status).toBe(400);
    expectError(r.body, 400, ...parts);
  });

  it('counts q in characters (code points), not UTF-16 units', async () => {
    expect((await get(`/api/v1/listings?q=${encodeURIComponent('😀'.repeat(100))}`)).status).toBe(200);
    expect((await get(`/api/v1/listings?q=${encodeURIComponent('😀'.repeat(101))}`)).status).toBe(400);
  });

  it('accepts a query of exactly 100 characters', async () => {
    const r = await get(`/api/v1/listings?q=${'a'.repeat(100)}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
  });
});

describe('get_listing', () => {
  it('returns the ListingDetail of a listing priced at stores', async () => {
    const id = listing('woolworths:42246');
    const r = await get(`/api/v1/listings/${id}`);
    expect(r.status).toBe(200);
    const d = r.body as Record<string, any>;
    expectShape(d, LISTING_DETAIL, 'listing');
    expectShape(d.current, CURRENT_PRICE, 'current');
    d.stores.forEach((s: unknown, i: number) => expectShape(s, LISTING_STORE_PRICE, `stores[${i}]`));
    expectShape(d.stats, DAILY_STATS, 'stats');
    expect(d).toMatchObject({
      id,
      retailer: 'Woolworths',
      retailer_slug: 'woolworths',
      external_id: '42246',
      name: 'woolworths nz beef mince grass fed 5% fat',
      size_text: '500g',
      category_path: ['Meat & Poultry'],
      first_seen: '2024-10-14', // price_history.csv first row of SKU 42246 (unix 1728880320)
      last_seen: STORE_DAY,
      available: true,
      stores_total: 3,
      current: { day: STORE_DAY, price: 1699, promo_price: null, promo_kind: null },
    });
    expect(d.stores).toHaveLength(3);
    expect(d.stores.map((s: { price: number }) => s.price)).toEqual([1699, 1699, 1699]);
    expect(d.stores.every((s: { day: string }) => s.day === STORE_DAY)).toBe(true);
    expect(d.stats).toEqual({ day: [STORE_DAY], min: [1699], med: [1699], max: [1699], n: [3] });
  });

  it('orders store prices cheapest first and shows store specials', async () => {
    // PAK'nSAVE "Honest Beef Burgers ..." is at Botany and Highland Park (14.49 both).
    const d = (await get(`/api/v1/listings/${listing('paknsave:5329042-EA-000')}`)).body as Record<string, any>;
    expect(d.stores.map((s: { store: string }) => s.store)).toEqual(["PAK'nSAVE Botany", "PAK'nSAVE Highland Park"]);
    expect(d.product_id).toBe(seed.productId);
    expect(d.stores_total).toBe(3);
    const b = (await get(`/api/v1/listings/${listing('woolworths:281082')}`)).body as Record<string, any>;
    expect(b.stores).toEqual([
      expect.objectContaining({ store_id: seed.storeIds.get(WOOLWORTHS_STORES[0]), price: 300, promo_price: 199, promo_kind: 1 }),
    ]);
    expect(b.gtin).toBe(9414742350858); // products.sample.csv barcode
  });

  it('shows a listing no longer collected as unavailable, with empty stores and stats {}', async () => {
    const d = (await get(`/api/v1/listings/${listing('woolworths:133211')}`)).body as Record<string, any>;
    expectShape(d, LISTING_DETAIL, 'listing');
    expect(d).toMatchObject({ available: false, stores: [], stats: {}, brand: 'fresh fruit' });
    expect(d.last_seen < STORE_DAY).toBe(true);
    expect(d.current.day).toBe(d.last_seen);
  });

  it('404 for an unknown listing, 400 for a malformed id', async () => {
    const nf = await get('/api/v1/listings/999999');
    expect(nf.status).toBe(404);
    expectError(nf.body, 404, '999999');
    for (const bad of ['abc', '0', '-3', '1.5', '99999999999']) {
      const r = await get(`/api/v1/listings/${bad}`);
      expect(r.status, bad).toBe(400);
      expectError(r.body, 400, '"id"');
    }
  });
});

describe('get_listing_history', () => {
  it('returns the national spans oldest first (store 0 by default)', async () => {
    const id = listing('woolworths:42246');
    const r = await get(`/api/v1/listings/${id}/history`);
    expect(r.status).toBe(200);
    const h = r.body as Record<string, any[]>;
    expectShape(h, HISTORY, 'history');
    // price_history.csv: 13.50, 13.70, 13.90 (2024-10-14, 2025-03-03, 2025-03-31), then 16.99 in stores.
    expect(h.price).toEqual([1350, 1370, 1390, 1699]);
    expect(h.from).toEqual(['2024-10-14', '2025-03-03', '2025-03-31', STORE_DAY]);
    expect(h.to[3]).toBe(STORE_DAY);
    for (let i = 0; i < 3; i++) {
      expect(h.to[i] >= h.from[i]).toBe(true);
      expect(h.to[i] < h.from[i + 1]).toBe(true);
    }
    expect(h.promo).toEqual([null, null, null, null]);
    expect((await get(`/api/v1/listings/${id}/history?store=0`)).body).toEqual(h);
  });

  it("returns one store's exact spans", async () => {
    const store = seed.storeIds.get(WOOLWORTHS_STORES[0]);
    const r = await get(`/api/v1/listings/${listing('woolworths:281082')}/history?store=${store}`);
    expect(r.body).toEqual({
      from: [STORE_DAY], to: [STORE_DAY], price: [300], promo: [199], kind: [1], multibuy_qty: [null], multibuy_price: [null],
    });
  });

  it('200 with empty arrays for an unknown listing or a store that never priced it', async () => {
    const empty = { from: [], to: [], price: [], promo: [], kind: [], multibuy_qty: [], multibuy_price: [] };
    expect((await get('/api/v1/listings/999999/history')).body).toEqual(empty);
    const other = seed.storeIds.get(WOOLWORTHS_STORES[1]);
    const r = await get(`/api/v1/listings/${listing('woolworths:281082')}/history?store=${other}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(empty);
    expect((await get(`/api/v1/listings/${listing('woolworths:281082')}/history?store=424242`)).body).toEqual(empty);
  });

  it('400 for a negative or malformed store', async () => {
    for (const q of ['store=-1', 'store=x']) {
      const r = await get(`/api/v1/listings/1/history?${q}`);
      expect(r.status).toBe(400);
      expectError(r.body, 400, '"store"');
    }
  });
});

type Group = { product_id: number | null; name: string; offers: Card[] };

describe('search_products', () => {
  it('groups a linked product with every chain\'s offer, cheapest first, and no duplicate groups', async () => {
    const r = await get('/api/v1/search?q=honest%20beef%20burgers');
    expect(r.status).toBe(200);
    const groups = r.body as Group[];
    const linked = groups.filter((g) => g.product_id === seed.productId);
    expect(linked).toHaveLength(1);
    expect(linked[0].name).toBe('Honest Beef Burgers With Smoky Caramelised Onion');
    expect(new Set(linked[0].offers.map((o) => o.retailer))).toEqual(new Set(['woolworths', 'paknsave']));
    const prices = linked[0].offers.filter((o) => o.available).map((o) => o.price as number);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    const offerIds = linked[0].offers.map((o) => o.id);
    for (const g of groups.filter((x) => x.product_id === null)) expect(offerIds).not.toContain(g.offers[0].id);
  });

  it('keeps every chain\'s offer on a product while ranking only the chosen chain', async () => {
    const r = await get('/api/v1/search?q=honest%20beef%20burgers&retailer=paknsave');
    const groups = r.body as Group[];
    const linked = groups.find((g) => g.product_id === seed.productId);
    expect(linked?.offers.map((o) => o.retailer).sort()).toEqual(['paknsave', 'woolworths']);
    for (const g of groups.filter((x) => x.product_id === null)) expect(g.offers.map((o) => o.retailer)).toEqual(['paknsave']);
    expect((await get('/api/v1/search?q=beef&retailer=aldi')).status).toBe(400);
  });

  it('puts an unlinked listing in its own group with product_id null, exact names first', async () => {
    const groups = (await get('/api/v1/search?q=carrot%20cake')).body as Group[];
    expect(groups.slice(0, 2).map((g) => [g.product_id, g.name, g.offers.length])).toEqual([
      [null, 'Carrot Cake', 1],
      [null, 'Carrot Cake', 1],
    ]);
  });

  it('finds a barcode typed as digits first', async () => {
    for (const q of ['9414742351053', '9414742%20351053', '09414742351053']) {
      const groups = (await get(`/api/v1/search?q=${q}`)).body as Group[];
      expect(groups[0]?.offers[0]?.id, q).toBe(listing('woolworths:135344'));
    }
  });

  it('without q lists recently seen items, at most the default 40 groups', async () => {
    const groups = (await get('/api/v1/search')).body as Group[];
    expect(groups.length).toBeGreaterThan(0);
    expect(groups.length).toBeLessThanOrEqual(40);
    expect((await get('/api/v1/search?limit=101')).status).toBe(400);
  });
});

describe('search ranking (embedded backend)', () => {
  const names = async (q: string, extra = '') =>
    ((await get(`/api/v1/listings?q=${encodeURIComponent(q)}${extra}`)).body as Card[]).map((c) => c.name.toLowerCase());

  it('tolerates typos and partial words', async () => {
    expect((await names('spagheti'))[0]).toContain('spaghetti');
    expect((await names('oniosn')).slice(0, 3).every((n) => n.includes('onion'))).toBe(true);
    expect((await names('tomatoe')).slice(0, 3).every((n) => n.includes('tomato'))).toBe(true);
    expect((await names('spag')).slice(0, 3).every((n) => n.includes('spaghetti'))).toBe(true);
  });

  it('is accent- and punctuation-insensitive', async () => {
    expect(await names('CARAMÉLISED onion burgers')).toEqual(await names('caramelised onion burgers'));
    expect(await names('watties chopped')).toEqual(await names("wattie's chopped"));
    // The two Wattie's chopped tomatoes (in juice, in purée) match equally; either may lead (a tie
    // is broken by listing id, which follows the import's insert order).
    expect((await names("wattie's chopped"))[0]).toMatch(/^watties chopped tomatoes in (juice|purée)$/);
  });

  it('ranks an exact name first', async () => {
    expect((await names('spaghetti'))[0]).toBe('spaghetti');
    expect((await names('Chopped Tomatoes'))[0]).toBe('chopped tomatoes');
  });

  it('expands NZ grocery synonyms', async () => {
    const ground = await names('ground beef');
    expect(ground.slice(0, 3), ground.join(' / ')).toEqual(ground.slice(0, 3).filter((n) => /\bbeef\b.*\bmince\b/.test(n)));
  });

  it('treats query text as text (no SQL or tsquery syntax), never a 500', async () => {
    for (const q of ["'; DROP TABLE listing; --", 'a & | ! ( ) :* <->', '%_\\', '🍝', 'the']) {
      const r = await get(`/api/v1/listings?q=${encodeURIComponent(q)}`);
      expect(r.status, q).toBe(200);
    }
    expect((await get('/api/v1/listings?limit=1')).status).toBe(200);
  });
});

describe('suggest', () => {
  type Suggestion = { kind: string; id: number | null; label: string; href: string; price: number | null };

  it('suggests categories first, then listings with prices and site paths', async () => {
    const r = await get('/api/v1/suggestions?q=spag');
    expect(r.status).toBe(200);
    const list = r.body as Suggestion[];
    expect(list.length).toBeGreaterThan(1);
    expect(list.length).toBeLessThanOrEqual(8);
    expect(list[0]).toMatchObject({ kind: 'category', label: 'Baked Beans & Spaghetti', id: null, href: '/search?q=Baked%20Beans%20%26%20Spaghetti' });
    const listings = list.filter((s) => s.kind === 'listing');
    expect(listings.length).toBeGreaterThan(0);
    for (const s of listings) {
      expect(s.href).toBe(`/listings/${s.id}`);
      expect(s.label.toLowerCase()).toContain('spag');
    }
    expect(listings.some((s) => s.price !== null)).toBe(true);
  });

  it('suggests a linked product rather than its listings', async () => {
    const list = (await get('/api/v1/suggestions?q=honest&limit=12')).body as Suggestion[];
    expect(list.find((s) => s.kind === 'product')).toMatchObject({ id: seed.productId, href: `/products/${seed.productId}` });
    expect(list.filter((s) => s.kind === 'listing').map((s) => s.id)).not.toContain(listing('woolworths:927566'));
  });

  it.each([
    ['', 'q', 'required'],
    [`q=${'a'.repeat(101)}`, 'q', 'at most 100'],
    ['q=ab&limit=13', 'limit', 'at most 12'],
    ['q=ab&limit=0', 'limit', 'at least 1'],
  ])('400 for %s', async (query, param, words) => {
    const r = await get(`/api/v1/suggestions?${query}`);
    expect(r.status).toBe(400);
    expectError(r.body, 400, `"${param}"`, words);
  });
});

describe('lookup_gtin', () => {
  it('finds one item by any GTIN form: leading zeros and non-digits ignored', async () => {
    const carrots = listing('woolworths:135344');
    for (const code of ['9414742351053', '09414742351053', '9414742-351053', '%209414742351053']) {
      const r = await get(`/api/v1/gtin/${code}`);
      expect(r.status, code).toBe(200);
      expect((r.body as Group).offers.map((o) => o.id), code).toEqual([carrots]);
      expect((r.body as Group).product_id).toBeNull();
    }
  });

  it('404 for an unknown barcode, 400 for no digits or more than 14', async () => {
    const nf = await get('/api/v1/gtin/12345670');
    expect(nf.status).toBe(404);
    expectError(nf.body, 404, '12345670');
    for (const bad of ['abc', '123456789012345', '-']) {
      const r = await get(`/api/v1/gtin/${bad}`);
      expect(r.status, bad).toBe(400);
      expectError(r.body, 400, '"gtin"');
    }
  });
});

describe('get_product', () => {
  it('carries the brand owner and parent the matcher records', async () => {
    await db.pool.query("UPDATE product SET brand_owner = 'woolworths', brand_parent = 'Woolworths' WHERE id = $1", [seed.productId]);
    try {
      const p = (await get(`/api/v1/products/${seed.productId}`)).body as Record<string, unknown>;
      expect(p).toMatchObject({ brand_owner: 'woolworths', brand_parent: 'Woolworths' });
    } finally {
      await db.pool.query('UPDATE product SET brand_owner = NULL, brand_parent = NULL WHERE id = $1', [seed.productId]);
    }
  });

  it('returns the ProductDetail with offers available and cheapest first', async () => {
    const r = await get(`/api/v1/products/${seed.productId}`);
    expect(r.status).toBe(200);
    const p = r.body as Record<string, any>;
    expectShape(p, PRODUCT_DETAIL, 'product');
    p.offers.forEach((o: unknown, i: number) => expectShape(o, OFFER, `offers[${i}]`));
    // The seed's product is made by hand, not by the matching worker: no generic yet, so no alternatives.
    expect(p).toMatchObject({
      id: seed.productId, retailers: 2, attributes: [{ key: 'size', label: 'Size', value: '500 g' }], alternatives: [], weighable: false,
      generic_id: null, generic_label: null, compare_unit: null,
    });
    // Aliases: the linked listings' own names where they differ from the product's name.
    const names = (p.offers as { name: string }[]).map((o) => o.name).filter((n) => n.toLowerCase() !== (p.name as string).toLowerCase());
    expect(p.aliases).toEqual([...new Set(names)].sort());
    expect(p.aliases).toContain('silver fern farms honest beef burgers with smoky caramelized onion');
    // full_results.csv: Woolworths 11.90 at 3 stores; PAK'nSAVE 14.49 at 2 of 3.
    expect(p.offers.map((o: Record<string, unknown>) => [o.retailer, o.price, o.stores, o.stores_total])).toEqual([
      ['woolworths', 1190, 3, 3],
      ['paknsave', 1449, 2, 3],
    ]);
    expect(p.offers[0]).toMatchObject({
      retailer_name: 'Woolworths', method: 'name', confidence: 0.9, locked: false, available: true,
      price_day: STORE_DAY, last_seen: STORE_DAY,
    });
  });

  it('builds an empty product (nothing linked)', async () => {
    const { rows } = await db.pool.query<{ id: number }>(`INSERT INTO product (name) VALUES ('unlinked') RETURNING id`);
    const p = (await get(`/api/v1/products/${rows[0].id}`)).body as Record<string, any>;
    expectShape(p, PRODUCT_DETAIL, 'product');
    expect(p).toMatchObject({ offers: [], retailers: 0, gtins: [] });
    expect((await get(`/api/v1/products/${rows[0].id}/history`)).body).toEqual({});
  });

  it('404 for an unknown product, 400 for a malformed id', async () => {
    const r = await get('/api/v1/products/777777');
    expect(r.status).toBe(404);
    expectError(r.body, 404, '777777');
    expectError((await get('/api/v1/products/nope')).body, 400, '"id"');
  });
});

describe('get_product_history', () => {
  it('returns one History per linked chain', async () => {
    const r = await get(`/api/v1/products/${seed.productId}/history`);
    expect(r.status).toBe(200);
    const h = r.body as Record<string, Record<string, unknown[]>>;
    expect(Object.keys(h).sort()).toEqual(['paknsave', 'woolworths']);
    for (const k of Object.keys(h)) expectShape(h[k], HISTORY, k);
    expect(h.paknsave.price).toEqual([1449]);
    expect(h.woolworths.price.at(-1)).toBe(1190);
    expect(h.woolworths.price.length).toBeGreaterThan(1); // national change history of SKU 927566
    const from = h.woolworths.from as string[];
    expect(from).toEqual([...from].sort());
  });

  it('is an empty object for an unknown product', async () => {
    const r = await get('/api/v1/products/777777/history');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
  });
});

describe('get_listing_lows and get_product_lows (beyond the contract, issue 32 item 2)', () => {
  // The rule against a day-by-day reference, outliers, store counts, GraphQL and MCP: test/integration/lows.test.ts.
  it('answers ListingLows and ProductLows on the real data; 404 for an unknown listing or product', async () => {
    const id = listing('woolworths:42246');
    const r = await get(`/api/v1/listings/${id}/lows`);
    expect(r.status).toBe(200);
    // The store day's 16.99 held one observed day: an outlier at the default min_days 2.
    expect(r.body).toMatchObject({ listing_id: id, as_of: STORE_DAY, min_days: 2, last_90_days: null, last_365_days: null });
    expect((r.body as Record<string, any>).all_time).toMatchObject({ price: 1350, stores: null });
    const p = await get(`/api/v1/products/${seed.productId}/lows?min_days=1`);
    expect(p.status).toBe(200);
    const body = p.body as Record<string, any>;
    expect(body).toMatchObject({ product_id: seed.productId, as_of: STORE_DAY, min_days: 1 });
    expect(['woolworths', 'paknsave']).toContain(body.last_90_days.retailer);
    expect(body.all_time.price).toBeLessThanOrEqual(body.last_90_days.price);
    expectError((await get('/api/v1/listings/999999/lows')).body, 404);
    expectError((await get('/api/v1/products/777777/lows')).body, 404);
    expectError((await get(`/api/v1/listings/${id}/lows?min_days=31`)).body, 400);
  });
});

/**
 * Links real listings to a new product (fixture metadata, as seedRealPrices links the burgers).
 * @returns the product id; {@link unlinkProduct} undoes it.
 */
async function linkProduct(name: string, keys: string[]): Promise<number> {
  const { rows } = await db.pool.query<{ id: number }>('INSERT INTO product (name) VALUES ($1) RETURNING id', [name]);
  await db.pool.query(
    `UPDATE listing SET product_id = $1, link_method = 'manual', link_confidence = 1, linked_at = now() WHERE id = ANY($2::int[])`,
    [rows[0].id, keys.map(listing)],
  );
  return rows[0].id;
}

/** Unlinks the listings of a product made by {@link linkProduct}, so later tests see the seed as it was. */
async function unlinkProduct(id: number): Promise<void> {
  await db.pool.query('UPDATE listing SET product_id = NULL, link_method = NULL, link_confidence = NULL, linked_at = NULL WHERE product_id = $1', [id]);
}

/** `day` moved by `n` calendar days (YYYY-MM-DD). */
function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/**
 * Chopped tomatoes, 400 g (full_results.csv, 2026-08-03): Woolworths "watties chopped tomatoes in
 * juice" 1.59 at all three stores; PAK'nSAVE "Chopped Tomatoes" 2.84 at Botany and
 * 2.49 at Ormiston, "Organic Chopped Tomatoes" 2.69 at all three stores. Linking the two PAK'nSAVE
 * listings to one product is this test's choice: each is the cheaper at one store.
 */
const TOMATOES = ['woolworths:295614', 'paknsave:5013580-EA-000', 'paknsave:5026477-EA-000'];

type ListingDetailBody = { stores: { store_id: number; price: number }[]; stats: Record<string, unknown> };
type StoreRow = { store_id: number; store: string; retailer: string; price: number; lat: number | null; lng: number | null };

describe('get_product_stores', () => {
  let tomatoes: number;
  beforeAll(async () => {
    tomatoes = await linkProduct('Chopped Tomatoes 400g', TOMATOES);
  });
  afterAll(async () => unlinkProduct(tomatoes));

  it('lists every store pricing the product, cheapest first, with coordinates', async () => {
    const r = await get(`/api/v1/products/${seed.productId}/stores`);
    expect(r.status).toBe(200);
    const rows = r.body as StoreRow[];
    rows.forEach((x, i) => expectShape(x, PRODUCT_STORE_PRICE, `stores[${i}]`));
    // full_results.csv: the burgers at 11.90 in all three Woolworths stores, 14.49 at two PAK'nSAVEs.
    expect(rows.map((x) => [x.retailer, x.store, x.price])).toEqual([
      ['woolworths', 'Woolworths Auckland Quay Street', 1190],
      ['woolworths', 'Woolworths Auckland Victoria Street West', 1190],
      ['woolworths', 'Woolworths Ponsonby', 1190],
      ['paknsave', "PAK'nSAVE Botany", 1449],
      ['paknsave', "PAK'nSAVE Highland Park", 1449],
    ]);
    const { rows: stores } = await db.pool.query<{ id: number; lat: number; lng: number }>('SELECT id, lat, lng FROM store');
    for (const x of rows) {
      const st = stores.find((s) => s.id === x.store_id);
      expect(x, x.store).toMatchObject({ lat: st?.lat, lng: st?.lng, promo_price: null, promo_kind: null });
    }
    // The same prices as each linked listing's own `stores`.
    const perListing = await Promise.all(
      ['woolworths:927566', 'paknsave:5329042-EA-000'].map(async (k) => ((await get(`/api/v1/listings/${listing(k)}`)).body as ListingDetailBody).stores),
    );
    expect(new Set(rows.map((x) => `${x.store_id}:${x.price}`))).toEqual(new Set(perListing.flat().map((x) => `${x.store_id}:${x.price}`)));
  });

  it('gives a store once, the cheaper of two linked listings of its chain winning', async () => {
    const rows = (await get(`/api/v1/products/${tomatoes}/stores`)).body as StoreRow[];
    rows.forEach((x, i) => expectShape(x, PRODUCT_STORE_PRICE, `stores[${i}]`));
    expect(rows.map((x) => [x.store, x.price])).toEqual([
      ['Woolworths Auckland Quay Street', 159],
      ['Woolworths Auckland Victoria Street West', 159],
      ['Woolworths Ponsonby', 159],
      ["PAK'nSAVE Ormiston", 249], // Chopped Tomatoes 2.49 beats Organic 2.69
      ["PAK'nSAVE Botany", 269], // Organic 2.69 beats Chopped Tomatoes 2.84
      ["PAK'nSAVE Highland Park", 269], // only Organic
    ]);
    expect(new Set(rows.map((x) => x.store_id)).size).toBe(rows.length);
    // Independently: the least open-span price per active store over the linked listings.
    const { rows: expected } = await db.pool.query<{ store_id: number; price: number }>(
      `SELECT sp.store_id, min(sp.price)::int AS price
       FROM listing l JOIN store_price_span sp ON sp.listing_id = l.id JOIN store st ON st.id = sp.store_id
       WHERE l.product_id = $1 AND sp.last_day IS NULL AND st.active GROUP BY sp.store_id`,
      [tomatoes],
    );
    expect(rows.map((x) => ({ store_id: x.store_id, price: x.price })).sort((a, b) => a.store_id - b.store_id)).toEqual(
      expected.sort((a, b) => a.store_id - b.store_id),
    );
  });

  it('leaves out a store that is no longer active', async () => {
    const botany = seed.storeIds.get(PAKNSAVE_STORES[0]) as number // PAK'nSAVE Botany;
    await db.pool.query('UPDATE store SET active = false WHERE id = $1', [botany]);
    try {
      const rows = (await get(`/api/v1/products/${tomatoes}/stores`)).body as StoreRow[];
      expect(rows.map((x) => x.store)).toEqual([
        'Woolworths Auckland Quay Street', 'Woolworths Auckland Victoria Street West', 'Woolworths Ponsonby', "PAK'nSAVE Ormiston", "PAK'nSAVE Highland Park",
      ]);
    } finally {
      await db.pool.query('UPDATE store SET active = true WHERE id = $1', [botany]);
    }
  });

  it('is an empty array when no store prices it, nothing is linked or the product is unknown', async () => {
    // Bananas: only national prices (2024–25 history), no store ever priced them.
    const bananas = await linkProduct('Bananas', ['woolworths:133211']);
    const { rows } = await db.pool.query<{ id: number }>(`INSERT INTO product (name) VALUES ('nothing linked') RETURNING id`);
    try {
      for (const id of [bananas, rows[0].id, 777777]) {
        const r = await get(`/api/v1/products/${id}/stores`);
        expect(r.status, String(id)).toBe(200);
        expect(r.body, String(id)).toEqual([]);
      }
    } finally {
      await unlinkProduct(bananas);
    }
  });

  it('400 for a malformed id', async () => {
    for (const bad of ['abc', '0', '-3', '1.5', '99999999999']) {
      const r = await get(`/api/v1/products/${bad}/stores`);
      expect(r.status, bad).toBe(400);
      expectError(r.body, 400, '"id"');
    }
  });
});

type SpreadBody = Record<string, { day: string[]; min: number[]; med: number[]; max: number[]; n: number[] }>;

describe('get_product_spread', () => {
  // The tomatoes plus a third PAK'nSAVE listing, "Organic Chopped Tomatoes Peeled In Tomato Juice"
  // (2.49 at Ormiston only), so the chain's store counts add up to an even total on 2026-08-03.
  const keys = [...TOMATOES, 'paknsave:5016686-EA-000'];
  const organic = () => listing('paknsave:5026477-EA-000');
  let product: number;
  let ids: number[];

  beforeAll(async () => {
    product = await linkProduct('Chopped Tomatoes 400g', keys);
    ids = keys.map(listing);
    // Copies of the listings' real 2026-08-03 statistics on other days (placing them there is this
    // test's choice): the window is the 365 days ending at the chain's last collection (STORE_DAY).
    const copy = (key: string, day: string) =>
      db.pool.query(
        `INSERT INTO listing_day_stats (listing_id, day, min, med, max, n)
         SELECT listing_id, $2::date, min, med, max, n FROM listing_day_stats WHERE listing_id = $1 AND day = $3::date`,
        [listing(key), day, STORE_DAY],
      );
    await copy('paknsave:5026477-EA-000', addDays(STORE_DAY, -365)); // just outside
    await copy('paknsave:5026477-EA-000', addDays(STORE_DAY, -364)); // first day inside
    await copy('paknsave:5013580-EA-000', addDays(STORE_DAY, 1)); // after the chain's last collection
    await copy('woolworths:295614', addDays(STORE_DAY, -30));
  });

  afterAll(async () => {
    await db.pool.query('DELETE FROM listing_day_stats WHERE listing_id = ANY($1::int[]) AND day <> $2::date', [ids, STORE_DAY]);
    await unlinkProduct(product);
  });

  it("gives one Spread per chain over the last 365 days, oldest first, combining the chain's listings per day", async () => {
    const r = await get(`/api/v1/products/${product}/spread`);
    expect(r.status).toBe(200);
    const body = r.body as SpreadBody;
    expect(Object.keys(body)).toEqual(['paknsave', 'woolworths']);
    for (const k of Object.keys(body)) expectShape(body[k], SPREAD, k);
    expect(body.woolworths).toEqual({ day: [addDays(STORE_DAY, -30), STORE_DAY], min: [159, 159], med: [159, 159], max: [159, 159], n: [3, 3] });
    // 2026-08-03 at PAK'nSAVE: Chopped 2.49–2.84 (median 2.67, 2 stores), Organic 2.69 (3 stores),
    // Organic peeled 2.49 (1 store). min 2.49, max 2.84, n = the largest count (3); the median of
    // the medians weighted by stores: 2.49 ×1, 2.67 ×2, 2.69 ×3 → the 3rd and 4th of six → 2.68.
    expect(body.paknsave).toEqual({
      day: [addDays(STORE_DAY, -364), STORE_DAY],
      min: [269, 249],
      med: [269, 268],
      max: [269, 284],
      n: [3, 3],
    });
    expect(body.paknsave.day).not.toContain(addDays(STORE_DAY, -365));
    expect(body.paknsave.day).not.toContain(addDays(STORE_DAY, 1));
    // One listing's day is that listing's statistics.
    const own = ((await get(`/api/v1/listings/${organic()}`)).body as ListingDetailBody).stats as SpreadBody[string];
    expect(own.day).toEqual(body.paknsave.day);
    expect([own.min[0], own.med[0], own.max[0], own.n[0]]).toEqual([body.paknsave.min[0], body.paknsave.med[0], body.paknsave.max[0], body.paknsave.n[0]]);
  });

  it('agrees with listing_day_stats combined independently', async () => {
    const { rows } = await db.pool.query<{ slug: string; day: string; min: number; med: number; max: number; n: number }>(
      `SELECT r.slug, s.day::text AS day, s.min, s.med, s.max, s.n
       FROM listing_day_stats s JOIN listing l ON l.id = s.listing_id JOIN retailer r ON r.id = l.retailer_id
       WHERE l.product_id = $1 AND s.day BETWEEN r.last_national_day - 364 AND r.last_national_day`,
      [product],
    );
    const expected: SpreadBody = {};
    const days = new Map<string, typeof rows>();
    for (const row of rows) days.set(`${row.slug} ${row.day}`, [...(days.get(`${row.slug} ${row.day}`) ?? []), row]);
    for (const key of [...days.keys()].sort()) {
      const [slug, day] = key.split(' ');
      const group = days.get(key)!;
      // Each listing's median once per store reporting it; the middle one (or two, averaged).
      const medians = group.flatMap((g) => Array<number>(g.n).fill(g.med)).sort((a, b) => a - b);
      const mid = medians.length / 2;
      const med = medians.length % 2 ? medians[Math.floor(mid)] : Math.round((medians[mid - 1] + medians[mid]) / 2);
      const s = (expected[slug] ??= { day: [], min: [], med: [], max: [], n: [] });
      s.day.push(day);
      s.min.push(Math.min(...group.map((g) => g.min)));
      s.med.push(med);
      s.max.push(Math.max(...group.map((g) => g.max)));
      s.n.push(Math.max(...group.map((g) => g.n)));
    }
    expect(Object.keys(expected).length).toBe(2);
    expect((await get(`/api/v1/products/${product}/spread`)).body).toEqual(expected);
  });

  it("is each linked listing's stats for a chain with one linked listing", async () => {
    const body = (await get(`/api/v1/products/${seed.productId}/spread`)).body as SpreadBody;
    expect(Object.keys(body)).toEqual(['paknsave', 'woolworths']);
    expect(body.woolworths).toEqual(((await get(`/api/v1/listings/${listing('woolworths:927566')}`)).body as ListingDetailBody).stats);
    expect(body.paknsave).toEqual(((await get(`/api/v1/listings/${listing('paknsave:5329042-EA-000')}`)).body as ListingDetailBody).stats);
    expect(body.paknsave).toEqual({ day: [STORE_DAY], min: [1449], med: [1449], max: [1449], n: [2] });
  });

  it('is an empty object when nothing linked has store prices, nothing is linked or the product is unknown', async () => {
    const bananas = await linkProduct('Bananas', ['woolworths:133211']);
    const { rows } = await db.pool.query<{ id: number }>(`INSERT INTO product (name) VALUES ('nothing linked') RETURNING id`);
    try {
      for (const id of [bananas, rows[0].id, 777777]) {
        const r = await get(`/api/v1/products/${id}/spread`);
        expect(r.status, String(id)).toBe(200);
        expect(r.body, String(id)).toEqual({});
      }
    } finally {
      await unlinkProduct(bananas);
    }
  });

  it('400 for a malformed id', async () => {
    for (const bad of ['abc', '0', '-3', '1.5', '99999999999']) {
      const r = await get(`/api/v1/products/${bad}/spread`);
      expect(r.status, bad).toBe(400);
      expectError(r.body, 400, '"id"');
    }
  });
});

describe('healthz', () => {
  it('200 ok as text when the database answers', async () => {
    const r = await get('/healthz');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body).toBe('ok');
  });

  it('503 when the database is unreachable', async () => {
    const closed = new pg.Pool({ connectionString: db.url });
    await closed.end();
    const down = await createServer({ db: { prisma: db.prisma, pool: closed }, env });
    try {
      const r = await down.inject({ url: '/healthz' });
      expect(r.statusCode).toBe(503);
      // An outage is not cached, and says when to retry (issue 13).
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers['retry-after']).toMatch(/^\d+$/);
      expectError(r.json(), 503);
      expect(r.body).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
    } finally {
      await down.close();
    }
  });
});

describe('HTTP conventions', () => {
  it('sends Cache-Control on every response, errors included', async () => {
    for (const url of ['/api/v1/retailers', '/api/v1/listings?limit=0', '/api/v1/listings/999999', '/nowhere', '/healthz']) {
      expect((await get(url)).headers['cache-control'], url).toBe('public, max-age=300');
    }
  });

  it('is open to every origin without credentials', async () => {
    const r = await get('/api/v1/retailers', { origin: 'https://example.org' });
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    expect(r.headers['set-cookie']).toBeUndefined();
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/api/v1/listings?q=milk',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers unknown routes with a 404 Error body, other methods of a known path with 405', async () => {
    const r = await get('/api/v1/nothing/here');
    expect(r.status).toBe(404);
    expectError(r.body, 404);
    // 405 with Allow since issue 13 (was 404).
    const post = await app.inject({ method: 'POST', url: '/api/v1/retailers' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expectError(post.json(), 405);
  });

  it('serves the same graph at /graphql, with coded errors and GraphiQL', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: '{ retailers { slug listingCount } listing(id: 999999) { id } }' },
    });
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    const body = r.json();
    expect(body.data.retailers).toHaveLength(6);
    expect(body.data.listing).toBeNull();
    expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
    const gi = await app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(gi.statusCode).toBe(200);
    expect(gi.body.toLowerCase()).toContain('graphiql');
  });
});

describe('OpenAPI conformance', () => {
  /**
   * Operations whose 200s are validated against the document in their own file
   * (test/integration/index-operations.test.ts, test/integration/chain-operations.test.ts).
   */
  const ELSEWHERE = new Set([
    'get_index_latest', 'get_index_daily', 'get_index_groups', 'get_index_items', 'get_basket', 'get_basket_item',
    'compare_retailers', 'get_retailer_levels', 'list_deals',
  ]);
  // The store and area operations are validated in test/integration/store-operations.test.ts (levels seeded there).
  // check_special (beyond the contract) is validated in test/integration/special-check.test.ts (deals checked there).
  ELSEWHERE.add('check_special');
  // plan_shopping_list (beyond api-spec): validated in test/integration/shopping-list.test.ts (store_listing rows seeded there).
  ELSEWHERE.add('plan_shopping_list');
  // browse_retailer (the categories view built there): validated in test/integration/retailer-browse.test.ts.
  ELSEWHERE.add('browse_retailer');
  // list_shelves and browse_shelf (the shelves view built there): validated in test/integration/shelves.test.ts.
  ELSEWHERE.add('list_shelves');
  ELSEWHERE.add('browse_shelf');
  for (const name of ['get_store', 'get_store_listings', 'get_store_levels', 'list_areas']) ELSEWHERE.add(name);
  // get_data_status (beyond the contract, issue 26): validated in test/integration/data-status.test.ts (collections built there).
  ELSEWHERE.add('get_data_status');
  // get_index_validation (beyond the contract, issue 30): validated on the real data in test/integration/index-validation.test.ts.
  ELSEWHERE.add('get_index_validation');
  // list_price_changes (beyond the contract, issue 32 item 3): validated on the real data in test/integration/price-changes.test.ts.
  ELSEWHERE.add('list_price_changes');
  // list_shrinkflation (beyond the contract, issue 32 item 4): validated in test/integration/shrinkflation.test.ts (a SYNTHETIC size history ingested there).
  ELSEWHERE.add('list_shrinkflation');

  it('validated a 200 of every operation in the registry against the document (tests above, or in the file named)', () => {
    for (const op of operations.filter((o) => !ELSEWHERE.has(o.name))) {
      expect(responses.seen.get(`${op.method} ${op.path}`), `${op.name} was never validated`).toContain(200);
    }
  });
});
