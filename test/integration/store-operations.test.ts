/**
 * The store and area operations (api-spec "Stores and areas"; issue 16): get_store,
 * get_store_listings, get_store_levels, list_areas, and list_stores carrying the precomputed level
 * and counts, through the assembled server (app.inject) against a real PostgreSQL. The derived views
 * (store_level, store_level_day, store_listing, area_level) are written here by SQL with
 * hand-computable values, as workers/views writes them, so these tests depend on the views' format
 * only, not on the worker's method. Every response is validated against the served OpenAPI document
 * and the operation's zod resource; REST, GraphQL and MCP are compared on the same rows.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../facades/operations.js';
import { createServer } from '../../facades/server.js';
import { addDays } from '../../src/domain/days.js';
import { loadEnv } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { mcpToolCall } from '../helpers/mcp-call.js';
import {
  AREA, AREAS, BIN, GROUP_LEVEL, LISTING_CARD, STORE, STORE_DETAIL, STORE_LEVELS, STORE_LISTING, STORE_LISTINGS, expectError, expectShape,
} from '../helpers/shape.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The response cache off (CACHE_MAX_BYTES=0): the fixtures write rows by hand between requests,
// which no write job does, so no data version bump tells a cache (response-cache.test.ts covers it).
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });
/** The latest collection day of the seeded stores (well before today: windows end at the data, not today). */
const LAST = '2025-05-03';

const ROUTES: Record<string, string> = {
  list_stores: '/api/v1/stores',
  get_store: '/api/v1/stores/{id}',
  get_store_listings: '/api/v1/stores/{id}/listings',
  get_store_levels: '/api/v1/stores/{id}/levels',
  list_areas: '/api/v1/areas',
};

let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
/** Store ids by fixture key. */
const stores = new Map<string, number>();
/** Store A's listings: i (1..31) → id, price, promo. */
const atA: { i: number; id: number; price: number; promo: number | null; ratio: number }[] = [];
/** Store D's deal listings by key. */
const atD = new Map<string, number>();

const { get, expect400 } = checkedRequests(() => app, () => responses);

/** Expects a 404 Error body naming the store. */
async function expect404(url: string): Promise<void> {
  const r = await get(url);
  expect(r.status, url).toBe(404);
  expectError(r.body, 404, 'no store');
}

/** POSTs a GraphQL document. */
async function gql(query: string): Promise<{ data?: Json; errors?: Json[] }> {
  const r = await app.inject({ method: 'POST', url: '/graphql', payload: { query } });
  return r.json();
}

async function store(key: string, slug: string, f: { name: string; town: string; area: string; urban: string | null; lastDay: string | null; active?: boolean }) {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO store (retailer_id, external_id, name, region, lat, lng, town, area, urban, active, last_day, covered_day)
     SELECT id, $2, $3, 'R1', -40.5, 172.5, $4, $5, $6, $7, $8, $8 FROM retailer WHERE slug = $1 RETURNING id`,
    [slug, key, f.name, f.town, f.area, f.urban, f.active ?? true, f.lastDay],
  );
  stores.set(key, rows[0].id);
  return rows[0].id;
}

async function listing(slug: string, key: string, f: { name: string; brand: string | null; size?: string; image?: string | null }): Promise<number> {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, brand, size_text, image, first_seen)
     SELECT id, $2, $3, $4, $5, $6, '2024-01-01' FROM retailer WHERE slug = $1 RETURNING id`,
    [slug, key, f.name, f.brand, f.size ?? null, f.image ?? null],
  );
  return rows[0].id;
}

/** A store_listing row; ratio = price ÷ median as the view stores it. */
async function storeListing(
  storeId: number, listingId: number,
  r: { day: string; price: number; median: number; promo?: number | null; kind?: number | null; mbQty?: number; mbPrice?: number },
) {
  await db.pool.query(
    `INSERT INTO store_listing (store_id, listing_id, day, price, promo_price, promo_kind, multibuy_qty, multibuy_price, median, ratio)
     VALUES ($1, $2, $3, $4::int, $5, $6, $8, $9, $7::int, $4::int::float8 / $7::int)`,
    [storeId, listingId, r.day, r.price, r.promo ?? null, r.kind ?? null, r.median, r.mbQty ?? null, r.mbPrice ?? null],
  );
}

/** A store_level row. */
async function storeLevel(storeId: number, r: { day: string | null; level: number | null; nItems: number; groups?: unknown[]; spread?: number[]; priced?: number; club?: number; sale?: number; multibuy?: number }) {
  await db.pool.query(
    `INSERT INTO store_level (store_id, day, level, n_items, groups, spread, listings_priced, club, sale, multibuy)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [storeId, r.day, r.level, r.nItems, JSON.stringify(r.groups ?? []), r.spread ?? new Array(22).fill(0), r.priced ?? 0, r.club ?? 0, r.sale ?? 0, r.multibuy ?? 0],
  );
}

/** Store A's level series: day j days before LAST has level 1 + (j mod 10)/100 and 25 items, except j ≡ 3 (mod 7): 15 items, level null. */
const seriesAt = (j: number) => (j % 7 === 3 ? { level: null, items: 15 } : { level: 1 + (j % 10) / 100, items: 25 });
/** Days (j before LAST) store A has no row for. */
const GAPS = new Set([3, 100]);
/** Rows of store A's series: 400 days. */
const SERIES_DAYS = 400;

/** Store A's spread (sum 31 = its listings priced). */
const SPREAD_A = Array.from({ length: 22 }, (_, b) => ({ 0: 2, 5: 3, 10: 10, 11: 10, 15: 4, 21: 2 })[b] ?? 0);
const GROUPS_A = [
  { code: 'fruit-veg', name: 'Fruit and vegetables', level: 1.02, n: 8 },
  { code: 'meat', name: 'Meat, poultry and fish', level: null, n: 2 },
  { code: 'grocery', name: 'Grocery food', level: 1.07, n: 15 },
];

beforeAll(async () => {
  db = await createTestDatabase('store_operations');
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());

  await store('A', 'woolworths', { name: 'Woolworths Ponsonby', town: 'Auckland', area: 'Auckland', urban: 'major', lastDay: LAST });
  await store('B', 'woolworths', { name: 'Woolworths Timaru', town: 'Timaru', area: 'Canterbury', urban: 'medium', lastDay: LAST });
  await store('C', 'paknsave', { name: "PAK'nSAVE Rural", town: 'Rural Canterbury', area: 'Canterbury', urban: 'rural', lastDay: '2025-05-01' });
  await store('D', 'paknsave', { name: "PAK'nSAVE Riccarton", town: 'Christchurch', area: 'Canterbury', urban: 'major', lastDay: LAST });
  await store('E', 'woolworths', { name: 'Woolworths Closed', town: 'Auckland', area: 'Auckland', urban: 'major', lastDay: '2024-12-01', active: false });

  // Store A: 31 listings priced 700 + 25(i − 1) cents against a median of 1000 (ratio 0.70 … 1.425;
  // i = 13 exactly 1.0; i = 31 ties i = 30), specials on i ≤ 26 saving 5i cents.
  const names: Record<number, { name: string; brand: string; size?: string }> = {
    5: { name: "Wattie's Baked Beans", brand: "Wattie's", size: '420g' },
    6: { name: 'Crème Fraîche', brand: 'Anchor', size: '250ml' },
    7: { name: '100% Juice', brand: 'Just' },
  };
  for (let i = 1; i <= 31; i++) {
    const f = names[i] ?? { name: `Store Item ${i}`, brand: 'Acme' };
    const id = await listing('woolworths', `A${i}`, { ...f, image: `/images/a${i}.avif` });
    const price = 700 + 25 * (Math.min(i, 30) - 1);
    const promo = i <= 26 ? price - 5 * i : null;
    await storeListing(stores.get('A')!, id, { day: LAST, price, median: 1000, promo, kind: promo === null ? null : 1 });
    atA.push({ i, id, price, promo, ratio: price / 1000 });
  }
  await storeLevel(stores.get('A')!, { day: LAST, level: 1.05, nItems: 25, groups: GROUPS_A, spread: SPREAD_A, priced: 31, club: 3, sale: 26, multibuy: 1 });
  await storeLevel(stores.get('B')!, { day: '2025-05-02', level: null, nItems: 12, sale: 1 });
  await storeLevel(stores.get('D')!, { day: LAST, level: 0.97, nItems: 22, priced: 6, club: 1, sale: 3, multibuy: 1 });

  // Store D: deals of every kind, and promotions that are not deals.
  const deal = async (key: string, price: number, promo: number | null, kind: number | null, national: 'open' | 'closed' | null, mb?: [qty: number, total: number]) => {
    const id = await listing('paknsave', key, { name: `Deal ${key}`, brand: null, size: '1kg' });
    await storeListing(stores.get('D')!, id, { day: LAST, price, median: price, promo, kind, mbQty: mb?.[0], mbPrice: mb?.[1] });
    if (national) {
      await db.pool.query(
        `INSERT INTO national_price_span (listing_id, first_day, last_day, price) VALUES ($1, '2025-04-01', $2, $3)`,
        [id, national === 'open' ? null : '2025-04-20', price],
      );
    }
    atD.set(key, id);
    return id;
  };
  await deal('L1', 500, 400, 1, 'open'); // special: saves 100 of 500 (20 %)
  await deal('L2', 2000, 1700, 2, 'closed'); // club: saves 300 of 2000 (15 %); off the site nationally
  // 2 for 500: saves 50 a unit of 300 (16.7 %); store_listing keeps the terms of the span in force (the worker copies them).
  const multibuy = await deal('L3', 300, null, 3, 'open', [2, 500]);
  await deal('L4', 500, 100, 4, 'open'); // clearance: not a deal
  await deal('L5', 500, 500, 1, 'open'); // no saving: not a deal
  await deal('L6', 1000, 800, 1, 'open'); // special: 20 % like L1 but 200 cents
  // Its spans (history): the earlier terms (3 for 600) must not show.
  await db.pool.query(
    `INSERT INTO store_price_span (listing_id, store_id, first_day, last_day, price, promo_kind, multibuy_qty, multibuy_price) VALUES
       ($1, $2, '2025-04-01', '2025-04-25', 300, 3, 3, 600), ($1, $2, '2025-04-26', NULL, 300, 3, 2, 500)`,
    [multibuy, stores.get('D')],
  );
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('before the derived views hold areas or series', () => {
  it('list_areas answers empty lists; get_store_levels empty arrays', async () => {
    const r = await get('/api/v1/areas', 'list_areas');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ regions: [], urban: [], towns: [] });
    const levels = await get(`/api/v1/stores/${stores.get('A')}/levels`, 'get_store_levels');
    expect(levels.body).toEqual({ days: [], level: [], items: [] });
  });
});

describe('list_stores', () => {
  it('carries level, n_items, counts and day from store_level; zeros, null level and the collection day without a row', async () => {
    const r = await get('/api/v1/stores', 'list_stores');
    expect(r.status).toBe(200);
    const list = r.body as Json[];
    list.forEach((s, i) => expectShape(s, STORE, `stores[${i}]`));
    // Active stores only, by chain slug then name.
    expect(list.map((s) => s.name)).toEqual(["PAK'nSAVE Riccarton", "PAK'nSAVE Rural", 'Woolworths Ponsonby', 'Woolworths Timaru']);
    const by = Object.fromEntries(list.map((s) => [s.name, s]));
    expect(by['Woolworths Ponsonby']).toEqual({
      id: stores.get('A'), retailer: 'woolworths', name: 'Woolworths Ponsonby', region: 'R1', lat: -40.5, lng: 172.5, distance_km: null,
      level: 1.05, n_items: 25, club: 3, sale: 26, multibuy: 1, day: LAST, town: 'Auckland', area: 'Auckland', urban: 'major',
    });
    expect(by['Woolworths Timaru']).toMatchObject({ level: null, n_items: 12, club: 0, sale: 1, multibuy: 0, day: '2025-05-02' });
    expect(by["PAK'nSAVE Rural"]).toMatchObject({ level: null, n_items: 0, club: 0, sale: 0, multibuy: 0, day: '2025-05-01' });
    expect(by["PAK'nSAVE Riccarton"]).toMatchObject({ level: 0.97, n_items: 22, club: 1, sale: 3, multibuy: 1 });
  });

  it('filters still work beside the levels', async () => {
    const names = async (q: string) => ((await get(`/api/v1/stores?${q}`, 'list_stores')).body as Json[]).map((s) => s.name);
    expect(await names('retailer=paknsave')).toEqual(["PAK'nSAVE Riccarton", "PAK'nSAVE Rural"]);
    expect(await names('area=CANTERBURY')).toEqual(["PAK'nSAVE Riccarton", "PAK'nSAVE Rural", 'Woolworths Timaru']);
    expect(await names('town=timaru')).toEqual(['Woolworths Timaru']);
    expect(await names('urban=major')).toEqual(["PAK'nSAVE Riccarton", 'Woolworths Ponsonby']);
    expect(await names('urban=major&retailer=woolworths')).toEqual(['Woolworths Ponsonby']);
    expect(((await get('/api/v1/stores?urban=major')).body as Json[]).map((s) => s.level)).toEqual([0.97, 1.05]);
  });
});

describe('get_store', () => {
  it('StoreDetail: the store as list_stores gives it, groups with a level, eight dearer and cheaper, all 22 bins, listings priced', async () => {
    const r = await get(`/api/v1/stores/${stores.get('A')}`, 'get_store');
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    const d = r.body as Json;
    expectShape(d, STORE_DETAIL, 'detail');
    expectShape(d.store, STORE, 'detail.store');
    const listed = ((await get('/api/v1/stores?retailer=woolworths')).body as Json[]).find((s) => s.id === stores.get('A'));
    expect(d.store).toEqual(listed);
    // A group without a level is left out (GroupLevel.level is a number).
    d.groups.forEach((g: Json, i: number) => expectShape(g, GROUP_LEVEL, `groups[${i}]`));
    expect(d.groups).toEqual([GROUPS_A[0], GROUPS_A[2]]);
    // Biggest markups: ratio above 1, highest first, ties (i = 30, 31) by listing id.
    for (const l of [...d.dearer, ...d.cheaper]) expectShape(l, STORE_LISTING, 'store listing');
    const id = (i: number) => atA.find((x) => x.i === i)!.id;
    expect(d.dearer.map((l: Json) => l.id)).toEqual([30, 31, 29, 28, 27, 26, 25, 24].map(id));
    expect(d.dearer[0]).toEqual({
      id: id(30), name: 'Store Item 30', brand: 'Acme', size_text: null, image: '/images/a30.avif', price: 1425, promo_price: null, promo_kind: null,
      median: 1000, ratio: 1.425,
    });
    // Biggest markdowns: ratio below 1, lowest first; i = 13 (exactly the median) is in neither.
    expect(d.cheaper.map((l: Json) => l.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map(id));
    expect(d.cheaper[4]).toEqual({
      id: id(5), name: "Wattie's Baked Beans", brand: "Wattie's", size_text: '420g', image: '/images/a5.avif', price: 800, promo_price: 775,
      promo_kind: 1, median: 1000, ratio: 0.8,
    });
    d.spread.forEach((b: Json, i: number) => expectShape(b, BIN, `spread[${i}]`));
    expect(d.spread).toEqual(SPREAD_A.map((n, bucket) => ({ bucket, n })));
    expect(d.listings_priced).toBe(31);
  });

  it('deals: capped at 24, biggest saving as a share of the shelf price first, with the store\'s own prices', async () => {
    const d = (await get(`/api/v1/stores/${stores.get('A')}`, 'get_store')).body as Json;
    d.deals.forEach((c: Json, i: number) => expectShape(c, LISTING_CARD, `deals[${i}]`));
    const expected = atA
      .filter((x) => x.promo !== null)
      .map((x) => ({ ...x, saving: x.price - x.promo! }))
      .sort((a, b) => b.saving / b.price - a.saving / a.price || b.saving - a.saving || a.id - b.id)
      .slice(0, 24);
    expect(d.deals.map((c: Json) => c.id)).toEqual(expected.map((x) => x.id));
    expect(d.deals[0]).toEqual({
      id: expected[0].id, retailer: 'woolworths', name: `Store Item ${expected[0].i}`, brand: 'Acme', size_text: null,
      price: expected[0].price, promo_price: expected[0].promo, promo_kind: 1, multibuy_qty: null, multibuy_price: null,
      image: `/images/a${expected[0].i}.avif`, available: false, product_id: null,
    });
  });

  it('deals: specials, club prices and multibuys (per unit, terms of the span in force); clearance and no-saving rows left out; available from the national span', async () => {
    const d = (await get(`/api/v1/stores/${stores.get('D')}`, 'get_store')).body as Json;
    expect(d.deals.map((c: Json) => c.name)).toEqual(['Deal L6', 'Deal L1', 'Deal L3', 'Deal L2']);
    const card = (key: string) => d.deals.find((c: Json) => c.id === atD.get(key));
    expect(card('L3')).toEqual({
      id: atD.get('L3'), retailer: 'paknsave', name: 'Deal L3', brand: null, size_text: '1kg', price: 300, promo_price: null, promo_kind: 3,
      multibuy_qty: 2, multibuy_price: 500, image: null, available: true, product_id: null,
    });
    expect(card('L2')).toMatchObject({ price: 2000, promo_price: 1700, promo_kind: 2, multibuy_qty: null, available: false });
    expect(card('L6')).toMatchObject({ price: 1000, promo_price: 800, promo_kind: 1, available: true });
    // Every ratio is 1: no markups or markdowns.
    expect([d.dearer, d.cheaper]).toEqual([[], []]);
  });

  it('a store without a store_level row: level null, zeros, no groups, 22 empty bins; an inactive store is still found', async () => {
    const d = (await get(`/api/v1/stores/${stores.get('C')}`, 'get_store')).body as Json;
    expect(d.store).toMatchObject({ level: null, n_items: 0, club: 0, sale: 0, multibuy: 0, day: '2025-05-01' });
    expect(d).toMatchObject({ groups: [], dearer: [], cheaper: [], deals: [], listings_priced: 0 });
    expect(d.spread).toEqual(Array.from({ length: 22 }, (_, bucket) => ({ bucket, n: 0 })));
    const closed = await get(`/api/v1/stores/${stores.get('E')}`, 'get_store');
    expect(closed.status).toBe(200);
    expect(closed.body.store).toMatchObject({ name: 'Woolworths Closed', level: null, day: '2024-12-01' });
  });

  it('404 for an unknown store, 400 for a malformed id', async () => {
    await expect404('/api/v1/stores/999999');
    await expect400('/api/v1/stores/abc', /id/);
    await expect400('/api/v1/stores/0', /id/);
  });
});

describe('get_store_listings', () => {
  /** Store A's listing ids in the operation's order: ratio descending, then listing id. */
  const ordered = () => [...atA].sort((a, b) => b.ratio - a.ratio || a.id - b.id).map((x) => x.id);

  it('pages every listing priced at the store, dearest against the median first, with the true total', async () => {
    const first = (await get(`/api/v1/stores/${stores.get('A')}/listings`, 'get_store_listings')).body as Json;
    expectShape(first, STORE_LISTINGS, 'page');
    first.listings.forEach((l: Json, i: number) => expectShape(l, STORE_LISTING, `listings[${i}]`));
    expect({ total: first.total, limit: first.limit, offset: first.offset }).toEqual({ total: 31, limit: 24, offset: 0 });
    expect(first.listings.map((l: Json) => l.id)).toEqual(ordered().slice(0, 24));
    const rest = (await get(`/api/v1/stores/${stores.get('A')}/listings?offset=24&limit=96`, 'get_store_listings')).body as Json;
    expect(rest).toMatchObject({ total: 31, limit: 96, offset: 24 });
    expect(rest.listings.map((l: Json) => l.id)).toEqual(ordered().slice(24));
    const past = (await get(`/api/v1/stores/${stores.get('A')}/listings?offset=500`, 'get_store_listings')).body as Json;
    expect(past).toEqual({ total: 31, limit: 24, offset: 500, listings: [] });
    const one = (await get(`/api/v1/stores/${stores.get('A')}/listings?limit=1&offset=30`, 'get_store_listings')).body as Json;
    expect(one.listings).toEqual([
      { id: atA[0].id, name: 'Store Item 1', brand: 'Acme', size_text: null, image: '/images/a1.avif', price: 700, promo_price: 695, promo_kind: 1, median: 1000, ratio: 0.7 },
    ]);
  });

  it('q: every word in brand or name, case-, accent- and apostrophe-insensitive; LIKE characters are literal', async () => {
    const ids = async (q: string) => {
      const body = (await get(`/api/v1/stores/${stores.get('A')}/listings?q=${encodeURIComponent(q)}`, 'get_store_listings')).body as Json;
      expect(body.listings).toHaveLength(Math.min(body.total, 24));
      return body.listings.map((l: Json) => l.id);
    };
    const id = (i: number) => atA.find((x) => x.i === i)!.id;
    expect(await ids("WATTIE'S beans")).toEqual([id(5)]);
    expect(await ids('beans watties')).toEqual([id(5)]);
    expect(await ids('creme')).toEqual([id(6)]);
    expect(await ids('fraîche ANCHOR')).toEqual([id(6)]);
    expect(await ids('%')).toEqual([id(7)]);
    expect(await ids('_')).toEqual([]);
    expect(await ids('beans juice')).toEqual([]);
    expect(await ids('zzz')).toEqual([]);
    // A word matches inside words: "item 1" is Store Item 1, 10 … 19, 21 and 31, dearest first (31 ties 30's ratio, 21 next).
    expect(await ids('item 1')).toEqual([31, 21, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1].map(id));
    // Blank q is no filter; 100 characters are accepted.
    expect(await ids('   ')).toHaveLength(24);
    expect(await ids('x'.repeat(100))).toEqual([]);
  });

  it('a store with nothing priced gives an empty page; 404 for an unknown store; 400 for q, limit and offset out of range', async () => {
    expect((await get(`/api/v1/stores/${stores.get('C')}/listings`, 'get_store_listings')).body).toEqual({ total: 0, limit: 24, offset: 0, listings: [] });
    await expect404('/api/v1/stores/999999/listings');
    const a = stores.get('A');
    await expect400(`/api/v1/stores/${a}/listings?limit=97`, /limit/);
    await expect400(`/api/v1/stores/${a}/listings?limit=0`, /limit/);
    await expect400(`/api/v1/stores/${a}/listings?offset=-1`, /offset/);
    await expect400(`/api/v1/stores/${a}/listings?q=${'x'.repeat(101)}`, /q/);
  });
});

describe('get_store_levels', () => {
  beforeAll(async () => {
    const rows: Json[] = [];
    for (let j = 0; j < SERIES_DAYS; j++) {
      if (GAPS.has(j)) continue;
      const s = seriesAt(j);
      rows.push({ s: stores.get('A'), d: addDays(LAST, -j), l: s.level, n: s.items });
    }
    // Store B's series ends a day earlier (its own last computed day).
    for (let j = 1; j <= 13; j++) rows.push({ s: stores.get('B'), d: addDays(LAST, -j), l: 0.99, n: 21 });
    await db.pool.query(
      `INSERT INTO store_level_day (store_id, day, level, n_items)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(s int, d date, l float8, n int)`,
      [JSON.stringify(rows)],
    );
  });

  /** Store A's expected series over the `days` calendar days ending at LAST. */
  const expectedA = (days: number) => {
    const js = Array.from({ length: days }, (_, k) => days - 1 - k).filter((j) => !GAPS.has(j));
    return { days: js.map((j) => addDays(LAST, -j)), level: js.map((j) => seriesAt(j).level), items: js.map((j) => seriesAt(j).items) };
  };

  it('aligned days, level and items over the window ending at the store\'s last computed day; null level under 20 items', async () => {
    const r = await get(`/api/v1/stores/${stores.get('A')}/levels`, 'get_store_levels');
    expect(r.status).toBe(200);
    expectShape(r.body, STORE_LEVELS, 'levels');
    expect(r.body).toEqual(expectedA(365));
    expect(r.body.days).toHaveLength(363);
    expect(r.body.days[0]).toBe(addDays(LAST, -364));
    const week = (await get(`/api/v1/stores/${stores.get('A')}/levels?days=7`, 'get_store_levels')).body;
    expect(week).toEqual(expectedA(7));
    expect(week.days).toEqual([6, 5, 4, 2, 1, 0].map((j) => addDays(LAST, -j)));
    expect(week.level).toEqual([1.06, 1.05, 1.04, 1.02, 1.01, 1]);
    expect((await get(`/api/v1/stores/${stores.get('A')}/levels?days=3650`, 'get_store_levels')).body).toEqual(expectedA(SERIES_DAYS));
    // A null level keeps its item count.
    const j = 10; // 10 ≡ 3 (mod 7)
    const at = r.body.days.indexOf(addDays(LAST, -j));
    expect([r.body.level[at], r.body.items[at]]).toEqual([null, 15]);
    // Each store's window ends at its own last row.
    const b = (await get(`/api/v1/stores/${stores.get('B')}/levels?days=7`, 'get_store_levels')).body;
    expect(b.days).toEqual([7, 6, 5, 4, 3, 2, 1].map((k) => addDays(LAST, -k)));
    expect(b.level).toEqual(new Array(7).fill(0.99));
    // No rows: empty arrays.
    expect((await get(`/api/v1/stores/${stores.get('C')}/levels`, 'get_store_levels')).body).toEqual({ days: [], level: [], items: [] });
  });

  it('400 for days outside 7 to 3650; 404 for an unknown store', async () => {
    const a = stores.get('A');
    await expect400(`/api/v1/stores/${a}/levels?days=6`, /days.*at least 7/);
    await expect400(`/api/v1/stores/${a}/levels?days=3651`, /days.*at most 3650/);
    await expect400(`/api/v1/stores/${a}/levels?days=1.5`, /days/);
    await expect404('/api/v1/stores/999999/levels');
  });
});

describe('list_areas', () => {
  beforeAll(async () => {
    // Inserted out of order: the answer follows `ord` within each scope, not the key.
    await db.pool.query(
      `INSERT INTO area_level (scope, key, label, ord, level, stores, chains, towns) VALUES
         ('urban', 'rural', 'Rural', 4, NULL, 1, '{paknsave}', '{Rural Canterbury}'),
         ('region', 'auckland', 'Auckland', 1, 1.05, 1, '{woolworths}', '{Auckland}'),
         ('urban', 'medium', 'Medium urban areas', 2, NULL, 1, '{woolworths}', '{Timaru}'),
         ('town', 'timaru', 'Timaru', 2, NULL, 1, '{woolworths}', '{Timaru}'),
         ('urban', 'major', 'Major urban areas', 0, 1.0087, 2, '{paknsave,woolworths}', '{Auckland,Christchurch}'),
         ('region', 'canterbury', 'Canterbury', 0, 0.97, 3, '{paknsave,woolworths}', '{Christchurch,Rural Canterbury,Timaru}'),
         ('town', 'auckland', 'Auckland', 0, 1.05, 1, '{woolworths}', '{Auckland}'),
         ('urban', 'large', 'Large urban areas', 1, NULL, 0, '{}', '{}'),
         ('town', 'christchurch', 'Christchurch', 1, 0.97, 1, '{paknsave}', '{Christchurch}')`,
    );
  });

  it('regions, urban classes (main centres first) and towns in the view\'s order, with levels, counts, chains and towns', async () => {
    const r = await get('/api/v1/areas', 'list_areas');
    expect(r.status).toBe(200);
    const a = r.body as Json;
    expectShape(a, AREAS, 'areas');
    for (const area of [...a.regions, ...a.urban, ...a.towns]) expectShape(area, AREA, 'area');
    expect(a.regions.map((x: Json) => x.key)).toEqual(['canterbury', 'auckland']);
    expect(a.urban.map((x: Json) => x.key)).toEqual(['major', 'large', 'medium', 'rural']);
    expect(a.towns.map((x: Json) => x.key)).toEqual(['auckland', 'christchurch', 'timaru']);
    expect(a.regions[0]).toEqual({
      key: 'canterbury', label: 'Canterbury', level: 0.97, stores: 3, chains: ['paknsave', 'woolworths'], towns: ['Christchurch', 'Rural Canterbury', 'Timaru'],
    });
    expect(a.urban[1]).toEqual({ key: 'large', label: 'Large urban areas', level: null, stores: 0, chains: [], towns: [] });
  });
});

describe('the other facades', () => {
  it('the MCP tools return the REST body (get_store, get_store_listings with q)', async () => {
    const call = (name: string, args: Json) => mcpToolCall(app, name, args);
    const detail = await call('get_store', { id: stores.get('D') });
    expect(detail.isError ?? false).toBe(false);
    expect(detail.structuredContent).toEqual((await get(`/api/v1/stores/${stores.get('D')}`)).body);
    const page = await call('get_store_listings', { id: stores.get('A'), q: 'beans', limit: 5 });
    expect(page.structuredContent).toEqual((await get(`/api/v1/stores/${stores.get('A')}/listings?q=beans&limit=5`)).body);
    const missing = await call('get_store_levels', { id: 999999 });
    expect(missing.isError).toBe(true);
  });

  it('GraphQL composes stores with levels, groups, series, listings and deals, and the areas, in one request', async () => {
    const body = await gql(`{
      stores(retailer: "woolworths") {
        id level nItems sale day
        groups { code level n }
        levelSeries(days: 7) { days level items }
        listings(q: "beans", limit: 2) { total listings { id ratio available } }
        dearer { id ratio }
        deals { id promoPrice promoKind multibuyQty }
      }
      store(id: ${stores.get('D')}) { name deals { id multibuyQty multibuyPrice } spread { bucket n } }
      areas { regions { key level } urban { key } }
    }`);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const [a, b] = body.data!.stores;
    expect(a).toMatchObject({ id: stores.get('A'), level: 1.05, nItems: 25, sale: 26, day: LAST, groups: [{ code: 'fruit-veg' }, { code: 'grocery' }] });
    expect(a.levelSeries.level).toEqual([1.06, 1.05, 1.04, 1.02, 1.01, 1]);
    expect(a.listings).toEqual({ total: 1, listings: [{ id: atA[4].id, ratio: 0.8, available: false }] });
    expect(a.dearer).toHaveLength(8);
    expect(a.deals).toHaveLength(24);
    expect(b).toMatchObject({ id: stores.get('B'), level: null, nItems: 12, groups: [], deals: [], listings: { total: 0, listings: [] } });
    expect(b.levelSeries.days).toHaveLength(7);
    expect(body.data!.store.deals.find((d: Json) => d.id === atD.get('L3'))).toMatchObject({ multibuyQty: 2, multibuyPrice: 500 });
    expect(body.data!.store.spread).toHaveLength(22);
    expect(body.data!.areas.regions).toEqual([{ key: 'canterbury', level: 0.97 }, { key: 'auckland', level: 1.05 }]);

    const bad = await gql(`{
      s1: store(id: ${stores.get('A')}) { levelSeries(days: 6) { days } }
      s2: store(id: ${stores.get('A')}) { listings(limit: 97) { total } }
      missing: store(id: 999999) { id }
    }`);
    expect(bad.errors!.map((e) => [e.extensions.code, e.message]).sort()).toEqual([
      ['BAD_REQUEST', 'Invalid parameter "days": must be an integer from 7 to 3650'],
      ['BAD_REQUEST', 'Invalid parameter "limit": must be an integer from 1 to 96'],
      ['NOT_FOUND', 'No store 999999'],
    ]);
    const offset = await gql(`{ store(id: ${stores.get('A')}) { listings(offset: -1, q: "${'y'.repeat(101)}") { total } } }`);
    expect(offset.errors![0].extensions.code).toBe('BAD_REQUEST');
  });

  it('validated a 200 of each of the five operations against the OpenAPI document', () => {
    for (const [name, route] of Object.entries(ROUTES)) {
      const op = operations.find((o) => o.name === name)!;
      expect(op.path, name).toBe(route);
      expect(responses.seen.get(`GET ${route}`), `${name} was never validated`).toContain(200);
    }
  });
});
