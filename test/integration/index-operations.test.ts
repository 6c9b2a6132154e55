/**
 * The six food-price-index and basket operations (api-spec "Food price index", "Basket") through
 * the assembled server (app.inject) against a real PostgreSQL: get_index_latest, get_index_daily,
 * get_index_groups, get_index_items, get_basket, get_basket_item. The basket tables are filled by
 * the worker's own sync (workers/index/basket.ts syncBasket); listings, national spans, matches and
 * the index rows (index_run, index_day, index_item_day) are written here by SQL with hand-computable
 * values, so the tests depend on the index worker's output format only, not on its method.
 * Every response is validated against the served OpenAPI document and the operation's zod resource.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../facades/operations.js';
import { createServer } from '../../facades/server.js';
import { loadBasket, type BasketItem } from '../../src/domain/basket.js';
import { addDays, nzToday } from '../../src/domain/days.js';
import { loadEnv } from '../../src/env.js';
import { yearBefore } from '../../src/graph/food-index.js';
import { daysBetween } from '../../src/domain/price-index.js';
import { syncBasket } from '../../workers/index/basket.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { expectError } from '../helpers/shape.js';
import { mcpToolCall } from '../helpers/mcp-call.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The response cache off (CACHE_MAX_BYTES=0): the fixtures write rows by hand between requests,
// which no write job does, so no data version bump tells a cache (response-cache.test.ts covers it).
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });
/** The index's last computed day (the real Woolworths log ends on this day too). */
const LAST = '2025-05-03';
/** Days of the full computed history (phase 2); phase 1 computes only the last ten. */
const HISTORY_DAYS = 400;
const FIRST = addDays(LAST, -(HISTORY_DAYS - 1));
/** All food's raw level on a day: 1000 + days since FIRST (so ratios are hand-computable). */
const raw = (day: string, group = 0) => 1000 + daysFrom(FIRST, day) + group;
/** Anchor factors by group id (group 4 has no official month: anchored null). */
const ANCHOR: Record<number, number | null> = { 0: 1.1, 1: 1.05, 2: 0.95, 3: 1.2, 4: null };

const ROUTES: Record<string, string> = {
  get_index_latest: '/api/v1/index/latest',
  get_index_daily: '/api/v1/index/daily',
  get_index_groups: '/api/v1/index/groups',
  get_index_items: '/api/v1/index/items',
  get_basket: '/api/v1/basket',
  get_basket_item: '/api/v1/basket/{id}',
};

let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
let apples: BasketItem;
let milk: BasketItem;
let restaurant: BasketItem;
/** Listing ids by fixture key. */
const listings = new Map<string, number>();

const daysFrom = daysBetween;

const { get, expect400 } = checkedRequests(() => app, () => responses);

/** Inserts a listing of `slug`; with `span`, one national span (open when `lastDay` is null). */
async function listing(
  key: string,
  slug: string,
  fields: { name: string; brand?: string; size?: string; qty?: number; unit?: string; weighable?: boolean; image?: string },
  span?: { firstDay: string; lastDay: string | null; price: number; promo?: number; kind?: number },
): Promise<number> {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, brand, size_text, qty, unit, weighable, first_seen, image)
     SELECT id, $2, $3, $4, $5, $6, $7, $8, $9, $10 FROM retailer WHERE slug = $1 RETURNING id`,
    [slug, key, fields.name, fields.brand ?? null, fields.size ?? null, fields.qty ?? null, fields.unit ?? null, fields.weighable ?? false, FIRST, fields.image ?? null],
  );
  const id = rows[0].id;
  if (span) {
    await db.pool.query(
      `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind) VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, span.firstDay, span.lastDay, span.price, span.promo ?? null, span.kind ?? null],
    );
  }
  listings.set(key, id);
  return id;
}

/** An open (or, with `validTo`, ended) basket match. */
async function match(key: string, item: BasketItem, m: { origin?: string; locked?: boolean; confidence?: number | null; validFrom?: string; validTo?: string; ref?: number | null; linked?: number | null }) {
  await db.pool.query(
    `INSERT INTO basket_match (item_id, listing_id, origin, locked, confidence, valid_from, valid_to, ref_price, linked_relative)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [item.id, listings.get(key), m.origin ?? 'auto', m.locked ?? false, m.confidence === undefined ? 0.9 : m.confidence, m.validFrom ?? FIRST, m.validTo ?? null, m.ref ?? null, m.linked ?? null],
  );
}

/** index_day rows of groups 0–4 for every day from `from` to `to` (the raw formula above; coverage 0.5 + group / 10). */
async function computeDays(from: string, to: string): Promise<void> {
  const rows: unknown[][] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) {
    for (const g of [0, 1, 2, 3, 4]) {
      const r = raw(day, g);
      rows.push([g, day, r, ANCHOR[g] === null ? null : r * (ANCHOR[g] as number), 0.5 + g / 10, 40 + g, 300 + g]);
    }
  }
  await db.pool.query(
    `INSERT INTO index_day (group_id, day, raw, anchored, coverage, items, listings)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(g int, d date, r float8, a float8, c float8, i int, l int)`,
    [JSON.stringify(rows.map(([g, d, r, a, c, i, l]) => ({ g, d, r, a, c, i, l })))],
  );
}

/** The index_run row: computed from `first` to LAST. */
async function indexRun(first: string): Promise<void> {
  await db.pool.query(
    `INSERT INTO index_run (id, first_day, last_day, anchor, basket_digest, state) VALUES (1, $1, $2, '{}', 'test', '{}')
     ON CONFLICT (id) DO UPDATE SET first_day = EXCLUDED.first_day, last_day = EXCLUDED.last_day, computed_at = now()`,
    [first, LAST],
  );
}

beforeAll(async () => {
  db = await createTestDatabase('index_operations');
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
  const basket = loadBasket();
  apples = basket.items.find((i) => i.name === 'Apples, 1kg')!;
  milk = basket.items.find((i) => i.name === 'Milk - standard homogenised, 2 litres')!;
  restaurant = basket.items.find((i) => i.group === 'restaurant')!;
  expect(apples.per_unit).toBe(true);
  expect(milk.per_unit).toBe(false);
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('before any basket or index', () => {
  it('get_index_latest is 404 with the Error body; groups, items and daily are empty; the basket is empty', async () => {
    const r = await get('/api/v1/index/latest', 'get_index_latest');
    expect(r.status).toBe(404);
    expectError(r.body, 404, 'No food price index');
    expect((await get('/api/v1/index/daily?from=2025-01-01&to=2025-12-31', 'get_index_daily')).body).toEqual([]);
    const groups = await get('/api/v1/index/groups', 'get_index_groups');
    expect(groups.status).toBe(200);
    expect(groups.body).toEqual({ days: [], groups: [{ id: 0, code: 'all', name: 'All food', weight: 100, anchored: [], raw: [], coverage: [] }] });
    expect((await get('/api/v1/index/items', 'get_index_items')).body).toEqual({ days: [], items: [] });
    expect((await get('/api/v1/basket', 'get_basket')).body).toEqual([]);
    expect((await get('/api/v1/basket/1', 'get_basket_item')).status).toBe(404);
  });
});

describe('the basket', () => {
  beforeAll(async () => {
    await syncBasket(db.pool);
    await db.pool.query(`UPDATE retailer SET last_national_day = $1, covered_day = $1 WHERE slug IN ('woolworths', 'paknsave')`, [LAST]);
    const open = { firstDay: addDays(LAST, -40), lastDay: null };
    // Apples (per kg): a loose listing, a bag on special, a bag with a club price, a stale bag, an unpriced one, an ended match.
    await listing('w-loose', 'woolworths', { name: 'Apples Royal Gala loose', weighable: true, unit: 'each', image: '/img/a.avif' }, { ...open, price: 399 });
    await listing('w-bag', 'woolworths', { name: 'Apples Envy bag', brand: 'Envy', size: '1.5kg', qty: 1500, unit: 'g' }, { ...open, price: 600, promo: 450, kind: 1 });
    await listing('p-club', 'paknsave', { name: 'Apples Jazz bag', size: '1kg', qty: 1000, unit: 'g' }, { ...open, price: 350, promo: 300, kind: 2 });
    await listing('p-stale', 'paknsave', { name: 'Apples Granny Smith bag', size: '2kg', qty: 2000, unit: 'g' }, { firstDay: addDays(LAST, -60), lastDay: addDays(LAST, -20), price: 500 });
    await listing('w-unpriced', 'woolworths', { name: 'Apples Pink Lady bag', size: '1kg', qty: 1000, unit: 'g' });
    await listing('w-ended', 'woolworths', { name: 'Apples Braeburn bag', size: '1kg', qty: 1000, unit: 'g' }, { ...open, price: 330 });
    await match('w-loose', apples, { ref: 380.4, linked: 1, confidence: 0.95 });
    await match('w-bag', apples, { ref: 410.6, linked: 1.02, origin: 'manual', locked: true, confidence: null });
    await match('p-club', apples, { ref: 350, linked: 0.98 });
    await match('p-stale', apples, { ref: 260, linked: 1 });
    await match('w-unpriced', apples, { ref: null, linked: null, validFrom: addDays(LAST, 1) });
    await match('w-ended', apples, { validTo: addDays(LAST, -10), ref: 320, linked: 1 });
    // Milk (per pack).
    await listing('w-milk', 'woolworths', { name: 'Woolworths Standard Milk', brand: 'Woolworths', size: '2L', qty: 2000, unit: 'ml' }, { ...open, price: 495 });
    await match('w-milk', milk, { ref: 480, linked: 1 });
  });

  it('get_basket: every active item by group id then name, weights in percent, API units, open-match counts', async () => {
    const r = await get('/api/v1/basket', 'get_basket');
    expect(r.status).toBe(200);
    const items = r.body as Json[];
    const basket = loadBasket();
    expect(items).toHaveLength(basket.items.length);
    const groupIds = items.map((i) => ['fruit_veg', 'meat_poultry_fish', 'grocery_food', 'beverages', 'restaurant'].indexOf(i.group_code));
    expect(groupIds).toEqual([...groupIds].sort((a, b) => a - b));
    for (let k = 1; k < items.length; k++) {
      if (items[k].group_code === items[k - 1].group_code) expect(items[k - 1].name < items[k].name, `${items[k - 1].name} before ${items[k].name}`).toBe(true);
    }
    const a = items.find((i) => i.id === apples.id)!;
    expect(a).toEqual({
      id: apples.id,
      code: apples.code,
      name: 'Apples, 1kg',
      group_code: 'fruit_veg',
      group_name: 'Fruit and vegetables',
      group_weight: 13,
      weight: Number((apples.weight * 100).toPrecision(12)),
      observable: true,
      per_unit: true,
      keywords: apples.keywords,
      exclude: apples.exclusions,
      matches: 5, // the ended match does not count
      spec: '1kg',
      unit: 'g',
      qty_min: apples.qty_min! * 1000,
      qty_max: apples.qty_max! * 1000,
      relative: null,
      stale: null,
    });
    expect(Object.keys(a)).not.toContain('match_list');
    expect(items.find((i) => i.id === milk.id)).toMatchObject({ matches: 1, unit: 'ml', per_unit: false, group_code: 'grocery_food', group_weight: 34 });
    expect(items.find((i) => i.id === restaurant.id)).toMatchObject({ observable: false, matches: 0, group_weight: 27 });
    const total = items.reduce((s, i) => s + i.weight, 0);
    expect(total).toBeCloseTo(100, 6);
  });

  it('get_basket?include=matches embeds match_list: open matches only, latest national prices, rounded ref_price', async () => {
    const r = await get('/api/v1/basket?include=matches', 'get_basket');
    expect(r.status).toBe(200);
    const a = (r.body as Json[]).find((i) => i.id === apples.id)!;
    const byKey = (key: string) => a.match_list.find((m: Json) => m.listing_id === listings.get(key));
    expect(a.match_list.map((m: Json) => m.listing_id)).toEqual(['p-stale', 'p-club', 'w-bag', 'w-loose', 'w-unpriced'].map((k) => listings.get(k)));
    expect(byKey('w-ended')).toBeUndefined();
    expect(byKey('w-bag')).toEqual({
      listing_id: listings.get('w-bag'), retailer: 'woolworths', name: 'Apples Envy bag', brand: 'Envy', size_text: '1.5kg', origin: 'manual',
      locked: true, valid_from: FIRST, price: 600, promo_price: 450, confidence: null, ref_price: 411, linked_relative: 1.02, image: null,
    });
    expect(byKey('w-loose')).toMatchObject({ price: 399, promo_price: null, ref_price: 380, confidence: 0.95, image: '/img/a.avif', origin: 'auto', locked: false });
    expect(byKey('p-club')).toMatchObject({ retailer: 'paknsave', price: 350, promo_price: 300 });
    expect(byKey('w-unpriced')).toMatchObject({ price: null, promo_price: null, ref_price: null, linked_relative: null, valid_from: addDays(LAST, 1) });
    expect((r.body as Json[]).find((i) => i.id === restaurant.id)!.match_list).toEqual([]);
    // Case-insensitive, like every enum parameter; anything else is a 400.
    expect((await get('/api/v1/basket?include=MATCHES', 'get_basket')).status).toBe(200);
    await expect400('/api/v1/basket?include=foo', /Invalid parameter "include": must be one of matches/);
  });

  it('get_basket_item: every open match by retailer then basis price (unpriced last); stale listings returned', async () => {
    const r = await get(`/api/v1/basket/${apples.id}`, 'get_basket_item');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: apples.id, name: 'Apples, 1kg', group: 'fruit_veg', group_name: 'Fruit and vegetables', per_unit: true, spec: '1kg', unit: 'g' });
    expect(r.body.weight).toBe(Number((apples.weight * 100).toPrecision(12)));
    const rows = r.body.listings as Json[];
    // paknsave: stale bag 500/2 kg = 250, club bag 350 (a club price does not count);
    // woolworths: bag on special 450/1.5 kg = 300, loose 399/kg, unpriced.
    expect(rows.map((l) => [l.retailer, l.basis_price])).toEqual([
      ['paknsave', 250],
      ['paknsave', 350],
      ['woolworths', 300],
      ['woolworths', 399],
      ['woolworths', null],
    ]);
    expect(rows[0]).toEqual({
      listing_id: listings.get('p-stale'), retailer: 'paknsave', name: 'Apples Granny Smith bag', weighable: false, valid_from: FIRST, origin: 'auto',
      available: false, brand: null, size_text: '2kg', qty: 2000, unit: 'g', price: 500, promo_price: null, basis_price: 250,
      priced_on: addDays(LAST, -20), image: null,
    });
    expect(rows[1]).toMatchObject({ listing_id: listings.get('p-club'), price: 350, promo_price: 300, priced_on: LAST, available: true });
    expect(rows[2]).toMatchObject({ listing_id: listings.get('w-bag'), price: 600, promo_price: 450, origin: 'manual', priced_on: LAST });
    expect(rows[3]).toMatchObject({ listing_id: listings.get('w-loose'), weighable: true, price: 399, priced_on: LAST, available: true });
    expect(rows[4]).toMatchObject({ listing_id: listings.get('w-unpriced'), price: null, basis_price: null, priced_on: null, available: false });
    expect(rows.map((l) => l.listing_id)).not.toContain(listings.get('w-ended'));

    // A per-pack item: the basis is the pack price.
    const m = await get(`/api/v1/basket/${milk.id}`, 'get_basket_item');
    expect(m.body).toMatchObject({ per_unit: false, unit: 'ml', spec: '2 litres' });
    expect(m.body.listings.map((l: Json) => [l.name, l.basis_price])).toEqual([['Woolworths Standard Milk', 495]]);
    // A restaurant item: no listings.
    expect((await get(`/api/v1/basket/${restaurant.id}`, 'get_basket_item')).body.listings).toEqual([]);
  });

  it('get_basket_item: 404 for an unknown or retired item, 400 for a malformed id', async () => {
    const unknown = await get('/api/v1/basket/9999', 'get_basket_item');
    expect(unknown.status).toBe(404);
    expectError(unknown.body, 404, 'No basket item 9999');
    await db.pool.query('UPDATE basket_item SET active = false WHERE id = $1', [milk.id]);
    try {
      expect((await get(`/api/v1/basket/${milk.id}`, 'get_basket_item')).status).toBe(404);
      expect(((await get('/api/v1/basket', 'get_basket')).body as Json[]).map((i) => i.id)).not.toContain(milk.id);
    } finally {
      await db.pool.query('UPDATE basket_item SET active = true WHERE id = $1', [milk.id]);
    }
    await expect400('/api/v1/basket/abc', /Invalid parameter "id": must be an integer written in digits/);
    await expect400('/api/v1/basket/0', /Invalid parameter "id": must be at least 1/);
  });
});

describe('the index', () => {
  it('get_index_latest with ten computed days: anchored headline, d1; d30 and yoy null; sparkline from the first day', async () => {
    await computeDays(addDays(LAST, -9), LAST);
    await indexRun(addDays(LAST, -9));
    const r = await get('/api/v1/index/latest', 'get_index_latest');
    expect(r.status).toBe(200);
    const l = r.body;
    expect(l.as_of).toBe(LAST);
    expect(l.headline.value).toBeCloseTo(1399 * 1.1, 9);
    expect(l.headline.d1).toBeCloseTo((1399 / 1398 - 1) * 100, 9);
    expect(l.headline.d30).toBeNull();
    expect(l.headline.yoy).toBeNull();
    expect(l.coverage).toEqual({ weight: 0.5, listings: 300, items: 40 });
    // The observable groups by id; group 4 has no anchor: its raw level.
    expect(l.groups.map((g: Json) => g.code)).toEqual(['fruit_veg', 'meat_poultry_fish', 'grocery_food', 'beverages']);
    expect(l.groups[0]).toEqual({ code: 'fruit_veg', name: 'Fruit and vegetables', value: 1400 * 1.05, coverage: 0.6 });
    expect(l.groups[3].value).toBe(1403);
    expect(l.sparkline.t0).toBe(addDays(LAST, -9));
    expect(l.sparkline.v).toHaveLength(10);
    expect(l.sparkline.v[9]).toBeCloseTo(l.headline.value, 9);
  });

  it('get_index_latest has an ETag, and If-None-Match gives 304 while unchanged and 200 once the index changes', async () => {
    const first = await app.inject({ url: '/api/v1/index/latest' });
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^(W\/)?"/);
    const again = await app.inject({ url: '/api/v1/index/latest', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // Phase 2: the whole history computed; the body (and so its ETag) changes.
    await computeDays(FIRST, addDays(LAST, -10));
    await indexRun(FIRST);
    const changed = await app.inject({ url: '/api/v1/index/latest', headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('get_index_latest with a year of history: d30 and yoy on the same series, a 90-day sparkline', async () => {
    const l = (await get('/api/v1/index/latest', 'get_index_latest')).body;
    expect(l.headline.d30).toBeCloseTo((1399 / 1369 - 1) * 100, 9);
    expect(l.headline.yoy).toBeCloseTo((1399 / 1034 - 1) * 100, 9);
    expect(l.sparkline.t0).toBe(addDays(LAST, -89));
    expect(l.sparkline.v).toHaveLength(90);
    expect(l.sparkline.v[0]).toBeCloseTo(1310 * 1.1, 9);
    // A missing day: the sparkline starts after it.
    await db.pool.query(`DELETE FROM index_day WHERE group_id = 0 AND day = $1`, [addDays(LAST, -5)]);
    try {
      const gap = (await get('/api/v1/index/latest', 'get_index_latest')).body;
      expect(gap.sparkline.t0).toBe(addDays(LAST, -4));
      expect(gap.sparkline.v).toHaveLength(5);
    } finally {
      await computeDaysFor0(addDays(LAST, -5));
    }
  });

  it('get_index_daily: points oldest first for all food or one group; defaults; restaurant meals empty', async () => {
    const r = await get(`/api/v1/index/daily?from=${addDays(LAST, -2)}&to=${LAST}`, 'get_index_daily');
    expect(r.body).toEqual([-2, -1, 0].map((k) => {
      const day = addDays(LAST, k);
      return { day, group_id: 0, raw: raw(day), anchored: raw(day) * 1.1, coverage: 0.5 };
    }));
    const g4 = await get(`/api/v1/index/daily?group=4&from=${LAST}&to=${LAST}`, 'get_index_daily');
    expect(g4.body).toEqual([{ day: LAST, group_id: 4, raw: raw(LAST, 4), anchored: null, coverage: 0.9 }]);
    // Restaurant meals (group 5) is a basket group with no points.
    expect((await get(`/api/v1/index/daily?group=5&from=${FIRST}&to=${LAST}`, 'get_index_daily')).body).toEqual([]);
    // The whole history; a range beyond it returns only computed days.
    const all = (await get(`/api/v1/index/daily?from=2020-01-01&to=2030-12-31`, 'get_index_daily')).body as Json[];
    expect(all).toHaveLength(HISTORY_DAYS);
    expect(all[0].day).toBe(FIRST);
    expect(all.at(-1)!.day).toBe(LAST);
    // Defaults: to = today in New Zealand, from = a year before to; from alone runs to today.
    const today = nzToday();
    const byDefault = (await get('/api/v1/index/daily', 'get_index_daily')).body;
    expect(byDefault).toEqual((await get(`/api/v1/index/daily?from=${yearBefore(today)}&to=${today}&group=0`, 'get_index_daily')).body);
    expect((await get(`/api/v1/index/daily?from=${addDays(LAST, -1)}`, 'get_index_daily')).body.map((p: Json) => p.day)).toEqual([addDays(LAST, -1), LAST]);
    expect((await get(`/api/v1/index/daily?to=${LAST}`, 'get_index_daily')).body).toHaveLength(366);
    expect(yearBefore('2024-02-29')).toBe('2023-02-28');
    expect(yearBefore('2025-05-03')).toBe('2024-05-03');
  });

  it('get_index_daily: 400 for malformed or impossible days, a reversed range and an unknown group', async () => {
    await expect400(`/api/v1/index/daily?from=${LAST}&to=${addDays(LAST, -1)}`, /Invalid parameter "from": must not be after "to"/);
    await expect400('/api/v1/index/daily?from=2025-02-30', /Invalid parameter "from": must be a real calendar day/);
    await expect400('/api/v1/index/daily?to=2025-5-3', /Invalid parameter "to": must be a day written YYYY-MM-DD/);
    await expect400('/api/v1/index/daily?from=yesterday', /Invalid parameter "from"/);
    await expect400('/api/v1/index/daily?from=2025-05-03T00:00:00Z', /Invalid parameter "from"/);
    await expect400('/api/v1/index/daily?group=6', /Invalid parameter "group": no index group 6/);
    await expect400('/api/v1/index/daily?group=-1', /Invalid parameter "group"/);
    await expect400('/api/v1/index/daily?group=1.5', /Invalid parameter "group": must be an integer written in digits/);
    // Only a default `to` (today) before `from`.
    await expect400('/api/v1/index/daily?from=2999-01-01', /must not be after "to"/);
  });

  it('get_index_groups: all food first, then every group by id; arrays aligned with the computed days of the window', async () => {
    const r = await get('/api/v1/index/groups', 'get_index_groups');
    const { days, groups } = r.body as { days: string[]; groups: Json[] };
    expect(days).toHaveLength(365);
    expect(days[0]).toBe(addDays(LAST, -364));
    expect(days.at(-1)).toBe(LAST);
    expect(groups.map((g) => [g.id, g.code, g.weight])).toEqual([
      [0, 'all', 100], [1, 'fruit_veg', 13], [2, 'meat_poultry_fish', 15], [3, 'grocery_food', 34], [4, 'beverages', 11], [5, 'restaurant', 27],
    ]);
    expect(groups[0].name).toBe('All food');
    for (const g of groups) for (const k of ['anchored', 'raw', 'coverage']) expect(g[k], `${g.code}.${k}`).toHaveLength(365);
    expect(groups[0].raw[364]).toBe(raw(LAST));
    expect(groups[2].anchored[0]).toBeCloseTo(raw(days[0], 2) * 0.95, 9);
    expect(groups[4].anchored.every((v: unknown) => v === null)).toBe(true);
    expect(groups[4].raw.every((v: unknown) => typeof v === 'number')).toBe(true);
    for (const k of ['anchored', 'raw', 'coverage']) expect(groups[5][k].every((v: unknown) => v === null)).toBe(true);

    const week = (await get('/api/v1/index/groups?days=7', 'get_index_groups')).body;
    expect(week.days).toEqual([-6, -5, -4, -3, -2, -1, 0].map((k) => addDays(LAST, k)));
    expect(week.groups[1].coverage).toEqual(Array(7).fill(0.6));
    // The longest window holds the whole history.
    expect((await get('/api/v1/index/groups?days=3650', 'get_index_groups')).body.days).toHaveLength(HISTORY_DAYS);
    await expect400('/api/v1/index/groups?days=6', /Invalid parameter "days": must be at least 7/);
    await expect400('/api/v1/index/groups?days=3651', /Invalid parameter "days": must be at most 3650/);
  });

  it('get_index_items: one series per observable active item, relative and n aligned with days, null where missing', async () => {
    // Apples: every day of the last week but one; milk: only the last day, carried forward.
    const rows: unknown[][] = [];
    for (const k of [-6, -5, -4, -2, -1, 0]) rows.push([apples.id, addDays(LAST, k), 1 + k / 100, 4, false]);
    rows.push([milk.id, LAST, 0.97, 0, true]);
    for (const [item, day, relative, n, stale] of rows) {
      await db.pool.query('INSERT INTO index_item_day (item_id, day, relative, n, stale) VALUES ($1, $2, $3, $4, $5)', [item, day, relative, n, stale]);
    }
    const r = await get('/api/v1/index/items?days=7', 'get_index_items');
    const { days, items } = r.body as { days: string[]; items: Json[] };
    expect(days).toEqual([-6, -5, -4, -3, -2, -1, 0].map((k) => addDays(LAST, k)));
    const observable = loadBasket().items.filter((i) => i.observable);
    expect(items).toHaveLength(observable.length);
    expect(items.map((i) => i.id)).not.toContain(restaurant.id);
    expect(items.find((i) => i.id === apples.id)).toEqual({
      id: apples.id, name: 'Apples, 1kg', group: 'fruit_veg', weight: Number((apples.weight * 100).toPrecision(12)), per_unit: true, spec: '1kg', unit: 'g',
      relative: [0.94, 0.95, 0.96, null, 0.98, 0.99, 1], n: [4, 4, 4, null, 4, 4, 4],
    });
    expect(items.find((i) => i.id === milk.id)).toMatchObject({ unit: 'ml', relative: [null, null, null, null, null, null, 0.97], n: [null, null, null, null, null, null, 0] });
    for (const i of items) expect(i.relative).toHaveLength(7);
    expect((await get('/api/v1/index/items', 'get_index_items')).body.days).toHaveLength(365);
    await expect400('/api/v1/index/items?days=6', /must be at least 7/);
    await expect400('/api/v1/index/items?days=3651', /must be at most 3650/);

    // get_basket reads the latest row: relative and stale.
    const basket = (await get('/api/v1/basket', 'get_basket')).body as Json[];
    expect(basket.find((i) => i.id === apples.id)).toMatchObject({ relative: 1, stale: false });
    expect(basket.find((i) => i.id === milk.id)).toMatchObject({ relative: 0.97, stale: true });
  });
});

/** Restores all food's index_day row of `day` (deleted by the sparkline gap test). */
async function computeDaysFor0(day: string): Promise<void> {
  await db.pool.query(
    `INSERT INTO index_day (group_id, day, raw, anchored, coverage, items, listings) VALUES (0, $1, $2, $3, 0.5, 40, 300)`,
    [day, raw(day), raw(day) * 1.1],
  );
}

describe('the other facades', () => {
  it('the MCP tool returns the REST body byte for byte (get_basket_item)', async () => {
    const result = await mcpToolCall(app, 'get_basket_item', { id: apples.id });
    const rest = await app.inject({ url: `/api/v1/basket/${apples.id}` });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual(rest.json());
    expect(result.content).toEqual([{ type: 'text', text: rest.body }]);
    expect(result.structuredContent.listings).toHaveLength(5);
  });

  it('GraphQL composes the index and the basket for a dashboard in one request', async () => {
    const query = `{
      indexLatest { asOf headline { value yoy } }
      indexSeries(group: 1, from: "${addDays(LAST, -1)}", to: "${LAST}") { day groupId raw anchored items listings }
      basketItem(id: ${apples.id}) { name groupId weight matchCount matches { retailer basisPrice pricedOn promoKind available } }
      missing: basketItem(id: 9999) { id }
    }`;
    const r = await app.inject({ method: 'POST', url: '/graphql', payload: { query } });
    const body = r.json();
    expect(body.data.indexLatest.asOf).toBe(LAST);
    expect(body.data.indexSeries.map((p: Json) => p.day)).toEqual([addDays(LAST, -1), LAST]);
    expect(body.data.indexSeries[1]).toMatchObject({ groupId: 1, raw: raw(LAST, 1), items: 41, listings: 301 });
    expect(body.data.basketItem).toMatchObject({ name: 'Apples, 1kg', groupId: 1, matchCount: 5 });
    expect(body.data.basketItem.matches.map((m: Json) => m.basisPrice)).toEqual([250, 350, 300, 399, null]);
    expect(body.data.basketItem.matches[2].promoKind).toBe(1);
    expect(body.data.missing).toBeNull();
    expect(body.errors.map((e: Json) => e.extensions.code)).toEqual(['NOT_FOUND']);
    const bad = await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ indexSeries(group: 77) { day } }' } });
    expect(bad.json().errors[0].extensions.code).toBe('BAD_REQUEST');
    const window = await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ indexGroups(days: 6) { days } }' } });
    expect(window.json().errors[0]).toMatchObject({ message: 'Invalid parameter "days": must be an integer from 7 to 3650', extensions: { code: 'BAD_REQUEST' } });
  });

  it('validated a 200 of each of the six operations against the OpenAPI document', () => {
    for (const [name, route] of Object.entries(ROUTES)) {
      const op = operations.find((o) => o.name === name)!;
      expect(op.path, name).toBe(route);
      expect(responses.seen.get(`GET ${route}`), `${name} was never validated`).toContain(200);
    }
  });
});
