/**
 * The chain and deals operations of issue 16 (api-spec "Retailers": compare_retailers,
 * get_retailer_levels; "Deals": list_deals) through the assembled server (app.inject) against a
 * real PostgreSQL, and the same graph through /graphql and MCP. The derived views they read
 * (chain_item_price, chain_level_day, deal) are written here by SQL with hand-chosen values, so
 * the tests pin how the API reads and arranges those rows, not how the worker computes them. The
 * basket tables come from the index worker's own sync (workers/index/basket.ts syncBasket).
 * Every response is validated against the served OpenAPI document and the operation's zod resource.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../facades/operations.js';
import { createServer } from '../../facades/server.js';
import { loadBasket, type BasketItem } from '../../src/domain/basket.js';
import { addDays } from '../../src/domain/days.js';
import { loadEnv } from '../../src/env.js';
import { syncBasket } from '../../workers/index/basket.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { mcpToolCall } from '../helpers/mcp-call.js';
import {
  COMPARE, COMPARE_GROUP, COMPARE_ITEM, DEALS, expectError, expectShape, LEVEL_SERIES, LISTING_CARD, RETAILER_LEVELS,
} from '../helpers/shape.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The response cache off (CACHE_MAX_BYTES=0): the fixtures write rows by hand between requests,
// which no write job does, so no data version bump tells a cache (response-cache.test.ts covers it).
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });
/** The index's last computed day and the chain levels' latest day. */
const LAST = '2025-05-03';
/** The index computed the ten days ending at LAST. */
const FIRST = addDays(LAST, -9);

const ROUTES: Record<string, string> = {
  compare_retailers: '/api/v1/retailers/compare',
  get_retailer_levels: '/api/v1/retailers/levels',
  list_deals: '/api/v1/deals',
};

let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
let apples: BasketItem;
let beef: BasketItem;
let milk: BasketItem;
let rolls: BasketItem;
let babyFood: BasketItem;
/** Listing ids by fixture key. */
const ids = new Map<string, number>();

const { get, expect400 } = checkedRequests(() => app, () => responses);

/** POST /graphql. */
async function gql(query: string): Promise<{ data: Json; errors?: Json[] }> {
  const r = await app.inject({ method: 'POST', url: '/graphql', payload: { query } });
  return r.json();
}

/** An MCP tools/call of `name`; the JSON-RPC result. */
const mcpCall = (name: string, args: Json): Promise<Json> => mcpToolCall(app, name, args);

/** Inserts a listing of `slug` with one open national span (its current price). */
async function listing(
  key: string,
  slug: string,
  fields: { name: string; brand?: string; size?: string },
  span: { price: number; promo?: number; kind?: number; mbQty?: number; mbPrice?: number },
): Promise<number> {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, brand, size_text, first_seen)
     SELECT id, $2, $3, $4, $5, $6 FROM retailer WHERE slug = $1 RETURNING id`,
    [slug, key, fields.name, fields.brand ?? null, fields.size ?? null, addDays(LAST, -30)],
  );
  const id = rows[0].id;
  await db.pool.query(
    `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
     VALUES ($1, $2, NULL, $3, $4, $5, $6, $7)`,
    [id, addDays(LAST, -5), span.price, span.promo ?? null, span.kind ?? null, span.mbQty ?? null, span.mbPrice ?? null],
  );
  ids.set(key, id);
  return id;
}

/** A row of the deals view. */
async function deal(kind: string, key: string, d: { price: number; saving: number; pct: number }): Promise<void> {
  await db.pool.query(
    `INSERT INTO deal (kind, listing_id, retailer_id, day, price, saving, saving_pct)
     SELECT $1, l.id, l.retailer_id, $3, $4, $5, $6 FROM listing l WHERE l.id = $2`,
    [kind, ids.get(key), LAST, d.price, d.saving, d.pct],
  );
}

/** chain_item_price rows: item → slug → cents. */
async function chainPrices(item: BasketItem, prices: Record<string, number>): Promise<void> {
  for (const [slug, price] of Object.entries(prices)) {
    await db.pool.query(
      `INSERT INTO chain_item_price (item_id, retailer_id, price, listings) SELECT $1, id, $3, 1 FROM retailer WHERE slug = $2`,
      [item.id, slug, price],
    );
  }
}

/** chain_level_day rows of one chain and group: [day, level or null, items]. */
async function chainLevels(slug: string, group: number, rows: [string, number | null, number][]): Promise<void> {
  for (const [day, level, items] of rows) {
    await db.pool.query(
      `INSERT INTO chain_level_day (retailer_id, group_id, day, level, items) SELECT id, $2, $3, $4, $5 FROM retailer WHERE slug = $1`,
      [slug, group, day, level, items],
    );
  }
}

/** Woolworths' all-food level k days after FIRST (0.93 … 1.02 on LAST). */
const wwLevel = (k: number) => 0.93 + k / 100;

beforeAll(async () => {
  db = await createTestDatabase('chain_operations');
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
  const basket = loadBasket();
  const byName = (name: string) => basket.items.find((i) => i.name === name)!;
  apples = byName('Apples, 1kg');
  beef = byName('Beef - mince, 1kg');
  milk = byName('Milk - standard homogenised, 2 litres');
  rolls = byName('Bread rolls, hamburger buns, 6 pack');
  babyFood = byName('Baby food, 110g');
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('before any view is built', () => {
  it('compare_retailers, get_retailer_levels and list_deals answer empty, in their shapes', async () => {
    const c = await get('/api/v1/retailers/compare', 'compare_retailers');
    expect(c.status).toBe(200);
    expect(c.body).toEqual({ retailers: [], headline: {}, groups: [], items: [] });
    const l = await get('/api/v1/retailers/levels', 'get_retailer_levels');
    expect(l.body).toEqual({ days: [], retailers: [] });
    const d = await get('/api/v1/deals', 'list_deals');
    expect(d.body).toEqual({ kind: 'special', total: 0, listings: [] });
    expect(c.headers['cache-control']).toBe('public, max-age=300');
  });
});

describe('with the views built', () => {
  beforeAll(async () => {
    await syncBasket(db.pool);
    await db.pool.query(`UPDATE basket_item SET active = false WHERE id = $1`, [babyFood.id]);
    await db.pool.query(`UPDATE retailer SET last_national_day = $1, covered_day = $1`, [LAST]);

    // Listings: catalogue sizes woolworths 5, paknsave 2, newworld 1 (list_retailers order).
    await listing('W1', 'woolworths', { name: 'Tasty Cheddar 1kg', brand: 'Mainland', size: '1kg' }, { price: 500, promo: 350, kind: 1 });
    await listing('P2', 'paknsave', { name: 'Greek Yoghurt', brand: 'Fresh n Fruity', size: '1kg' }, { price: 667, promo: 467, kind: 1 });
    await listing('W3', 'woolworths', { name: 'Salted Butter', brand: 'Mainland', size: '500g' }, { price: 667, promo: 467, kind: 1 });
    await listing('N4', 'newworld', { name: 'Bananas', size: 'kg' }, { price: 500, promo: 450, kind: 1 });
    await listing('W5', 'woolworths', { name: 'Butter 50%_off block', brand: 'Anchor', size: '500g' }, { price: 200, promo: 100, kind: 1 });
    await listing('W6', 'woolworths', { name: 'Coffee beans', brand: 'Havana' }, { price: 400, promo: 320, kind: 2 });
    await listing('W7', 'woolworths', { name: 'Sparkling water', brand: 'Pump' }, { price: 300, kind: 3, mbQty: 2, mbPrice: 450 });
    await listing('P8', 'paknsave', { name: 'Plain flour', brand: 'Edmonds' }, { price: 350 });

    // Deals: special ranked by share, then cents, then id: W5 (50 %), P2 and W3 (30 %, 200 c; by id), W1 (30 %, 150 c), N4 (10 %).
    await deal('special', 'W1', { price: 500, saving: 150, pct: 0.3 });
    await deal('special', 'P2', { price: 667, saving: 200, pct: 0.3 });
    await deal('special', 'W3', { price: 667, saving: 200, pct: 0.3 });
    await deal('special', 'N4', { price: 500, saving: 50, pct: 0.1 });
    await deal('special', 'W5', { price: 200, saving: 100, pct: 0.5 });
    await deal('member', 'W6', { price: 400, saving: 80, pct: 0.2 });
    await deal('member', 'W1', { price: 500, saving: 60, pct: 0.12 });
    await deal('multibuy', 'W7', { price: 300, saving: 75, pct: 0.25 });

    // Chain item prices; freshchoice prices nothing (it has a level row, so it is not compared);
    // the retired baby food and an unpriced item stay out.
    await chainPrices(apples, { woolworths: 399, paknsave: 350, newworld: 420 });
    await chainPrices(beef, { paknsave: 1400, woolworths: 1500 });
    await chainPrices(milk, { woolworths: 495, paknsave: 470 });
    await chainPrices(rolls, { newworld: 289 });
    await chainPrices(babyFood, { woolworths: 150 });

    // The index computed FIRST..LAST.
    await db.pool.query(
      `INSERT INTO index_run (id, first_day, last_day, anchor, basket_digest, state) VALUES (1, $1, $2, '{}', 'test', '{}')`,
      [FIRST, LAST],
    );
    await db.pool.query(
      `INSERT INTO index_day (group_id, day, raw, anchored, coverage, items, listings)
       SELECT 0, d::date, 1000, NULL, 0.5, 10, 20 FROM generate_series($1::date, $2::date, '1 day') AS d`,
      [FIRST, LAST],
    );
    // All-food chain levels: woolworths every day; paknsave the last five; newworld two days (null
    // on LAST: too few items); freshchoice on LAST and on a day the index never computed;
    // warehouse once, eight days before LAST.
    await chainLevels('woolworths', 0, Array.from({ length: 10 }, (_, k) => [addDays(FIRST, k), wwLevel(k), 25]));
    await chainLevels('paknsave', 0, Array.from({ length: 5 }, (_, k) => [addDays(LAST, k - 4), 0.92, 30]));
    await chainLevels('newworld', 0, [[addDays(LAST, -1), 1.1, 20], [LAST, null, 5]]);
    await chainLevels('freshchoice', 0, [[addDays(LAST, -15), 1.2, 21], [LAST, 1.1, 21]]);
    await chainLevels('warehouse', 0, [[addDays(LAST, -8), 0.97, 22]]);
    // Group levels on LAST (and an older fruit_veg row that must not show).
    await chainLevels('woolworths', 1, [[LAST, 1.01, 3], [addDays(LAST, -1), 1.5, 3]]);
    await chainLevels('paknsave', 1, [[LAST, 0.95, 3]]);
    await chainLevels('newworld', 1, [[LAST, 1.05, 1]]);
    await chainLevels('woolworths', 2, [[LAST, 1, 2]]);
    await chainLevels('paknsave', 2, [[LAST, 1, 2]]);
    await chainLevels('woolworths', 3, [[LAST, 1.03, 10]]);
    await chainLevels('paknsave', 3, [[LAST, 0.9, 12]]);
    await chainLevels('newworld', 3, [[LAST, null, 0]]);
  });

  it('compare_retailers: chains with prices in list_retailers order, headline and group maps of [level, items], items by group then name', async () => {
    const r = await get('/api/v1/retailers/compare', 'compare_retailers');
    expect(r.status).toBe(200);
    expectShape(r.body, COMPARE, 'Compare');
    for (const g of r.body.groups) expectShape(g, COMPARE_GROUP, 'Compare.groups[]');
    for (const i of r.body.items) expectShape(i, COMPARE_ITEM, 'Compare.items[]');
    expect(r.body).toEqual({
      retailers: ['woolworths', 'paknsave', 'newworld'],
      // newworld's level is null on LAST: left out of the map; freshchoice prices nothing.
      headline: { woolworths: [1.02, 25], paknsave: [0.92, 30] },
      groups: [
        { code: 'fruit_veg', name: 'Fruit and vegetables', weight: 13, levels: { woolworths: [1.01, 3], paknsave: [0.95, 3], newworld: [1.05, 1] } },
        { code: 'meat_poultry_fish', name: 'Meat, poultry, and fish', weight: 15, levels: { woolworths: [1, 2], paknsave: [1, 2] } },
        { code: 'grocery_food', name: 'Grocery food', weight: 34, levels: { woolworths: [1.03, 10], paknsave: [0.9, 12] } },
        { code: 'beverages', name: 'Non-alcoholic beverages', weight: 11, levels: {} },
      ],
      items: [
        { id: apples.id, name: 'Apples, 1kg', group: 'fruit_veg', per_unit: true, prices: { woolworths: 399, paknsave: 350, newworld: 420 }, spec: '1kg', unit: 'g' },
        { id: beef.id, name: 'Beef - mince, 1kg', group: 'meat_poultry_fish', per_unit: true, prices: { woolworths: 1500, paknsave: 1400 }, spec: '1kg', unit: 'g' },
        { id: rolls.id, name: 'Bread rolls, hamburger buns, 6 pack', group: 'grocery_food', per_unit: false, prices: { newworld: 289 }, spec: '6 pack', unit: 'each' },
        { id: milk.id, name: 'Milk - standard homogenised, 2 litres', group: 'grocery_food', per_unit: false, prices: { woolworths: 495, paknsave: 470 }, spec: '2 litres', unit: 'ml' },
      ],
    });
    // Map keys follow the chain order.
    expect(Object.keys(r.body.items[0].prices)).toEqual(['woolworths', 'paknsave', 'newworld']);
  });

  it('get_retailer_levels: the index days of the window ending at its last day; per chain aligned arrays, null where no value', async () => {
    const r = await get('/api/v1/retailers/levels', 'get_retailer_levels');
    expect(r.status).toBe(200);
    expectShape(r.body, RETAILER_LEVELS, 'RetailerLevels');
    const days = Array.from({ length: 10 }, (_, k) => addDays(FIRST, k));
    expect(r.body.days).toEqual(days);
    const nulls = (n: number) => Array<null>(n).fill(null);
    expect(r.body.retailers).toEqual([
      { retailer: 'woolworths', level: days.map((_, k) => wwLevel(k)), items: days.map(() => 25) },
      { retailer: 'paknsave', level: [...nulls(5), ...Array(5).fill(0.92)], items: [...nulls(5), ...Array(5).fill(30)] },
      { retailer: 'newworld', level: [...nulls(8), 1.1, null], items: [...nulls(8), 20, 5] },
      // The row on a day the index did not compute is not shown.
      { retailer: 'freshchoice', level: [...nulls(9), 1.1], items: [...nulls(9), 21] },
      { retailer: 'warehouse', level: [null, 0.97, ...nulls(8)], items: [null, 22, ...nulls(8)] },
    ]);
    for (const s of r.body.retailers) expectShape(s, LEVEL_SERIES, 'LevelSeries');
    // days=7: the last seven index days; warehouse has no row there.
    const week = await get('/api/v1/retailers/levels?days=7', 'get_retailer_levels');
    expect(week.body.days).toEqual(days.slice(3));
    expect(week.body.retailers.map((s: Json) => s.retailer)).toEqual(['woolworths', 'paknsave', 'newworld', 'freshchoice']);
    expect(week.body.retailers[0].level).toEqual(days.slice(3).map((_, k) => wwLevel(k + 3)));
    expect((await get('/api/v1/retailers/levels?days=3650', 'get_retailer_levels')).body).toEqual(r.body);
  });

  it('get_retailer_levels: 400 for days outside 7 to 3650 or not an integer', async () => {
    await expect400('/api/v1/retailers/levels?days=6', /Invalid parameter "days": must be at least 7/);
    await expect400('/api/v1/retailers/levels?days=3651', /Invalid parameter "days": must be at most 3650/);
    await expect400('/api/v1/retailers/levels?days=1.5', /Invalid parameter "days": must be an integer written in digits/);
    await expect400('/api/v1/retailers/levels?days=abc', /Invalid parameter "days"/);
  });

  it('list_deals: specials by saving share, then cents, then listing id, with the true total; ListingCards with current prices', async () => {
    const r = await get('/api/v1/deals', 'list_deals');
    expect(r.status).toBe(200);
    expectShape(r.body, DEALS, 'Deals');
    expect(r.body.kind).toBe('special');
    expect(r.body.total).toBe(5);
    expect(r.body.listings.map((l: Json) => l.id)).toEqual(['W5', 'P2', 'W3', 'W1', 'N4'].map((k) => ids.get(k)));
    for (const card of r.body.listings) expectShape(card, LISTING_CARD, 'ListingCard');
    expect(r.body.listings[0]).toEqual({
      id: ids.get('W5'), retailer: 'woolworths', name: 'Butter 50%_off block', brand: 'Anchor', size_text: '500g', price: 200, promo_price: 100,
      promo_kind: 1, multibuy_qty: null, multibuy_price: null, image: null, available: true, product_id: null,
    });
    // A page: the total is still the whole feed.
    const page = await get('/api/v1/deals?limit=2', 'list_deals');
    expect(page.body.listings.map((l: Json) => l.id)).toEqual([ids.get('W5'), ids.get('P2')]);
    expect(page.body.total).toBe(5);
    expect((await get('/api/v1/deals?limit=1', 'list_deals')).body.total).toBe(5);
  });

  it('list_deals: kinds, retailer and q filters (case-insensitive, literal) with their totals', async () => {
    const ids_ = async (url: string) => {
      const b = (await get(url, 'list_deals')).body;
      return { kind: b.kind, total: b.total, ids: b.listings.map((l: Json) => l.id) };
    };
    expect(await ids_('/api/v1/deals?kind=member')).toEqual({ kind: 'member', total: 2, ids: [ids.get('W6'), ids.get('W1')] });
    expect(await ids_('/api/v1/deals?kind=MULTIBUY')).toEqual({ kind: 'multibuy', total: 1, ids: [ids.get('W7')] });
    const multibuy = (await get('/api/v1/deals?kind=multibuy', 'list_deals')).body.listings[0];
    expect(multibuy).toMatchObject({ price: 300, promo_price: null, promo_kind: 3, multibuy_qty: 2, multibuy_price: 450 });
    expect(await ids_('/api/v1/deals?kind=special')).toMatchObject({ total: 5 });
    expect(await ids_('/api/v1/deals?kind=')).toMatchObject({ kind: 'special', total: 5 });
    expect(await ids_('/api/v1/deals?retailer=woolworths')).toEqual({ kind: 'special', total: 3, ids: ['W5', 'W3', 'W1'].map((k) => ids.get(k)) });
    expect(await ids_('/api/v1/deals?retailer=paknsave&kind=member')).toEqual({ kind: 'member', total: 0, ids: [] });
    // q: name or brand, case-insensitive; %, _ and \ are literal.
    expect(await ids_('/api/v1/deals?q=anchor')).toEqual({ kind: 'special', total: 1, ids: [ids.get('W5')] });
    expect(await ids_('/api/v1/deals?q=BUTTER')).toEqual({ kind: 'special', total: 2, ids: [ids.get('W5'), ids.get('W3')] });
    expect(await ids_('/api/v1/deals?q=mainland&limit=1')).toEqual({ kind: 'special', total: 2, ids: [ids.get('W3')] });
    expect(await ids_(`/api/v1/deals?q=${encodeURIComponent('50%')}`)).toMatchObject({ total: 1, ids: [ids.get('W5')] });
    expect(await ids_(`/api/v1/deals?q=${encodeURIComponent('%')}`)).toMatchObject({ total: 1 });
    expect(await ids_('/api/v1/deals?q=_')).toMatchObject({ total: 1 });
    expect(await ids_(`/api/v1/deals?q=${encodeURIComponent('\\')}`)).toMatchObject({ total: 0 });
    expect(await ids_(`/api/v1/deals?q=${'x'.repeat(100)}`)).toMatchObject({ total: 0 });
    expect(await ids_('/api/v1/deals?q=butter&retailer=woolworths&limit=96')).toEqual({ kind: 'special', total: 2, ids: [ids.get('W5'), ids.get('W3')] });
  });

  it('list_deals: 400 for an unknown kind or retailer, limit outside 1 to 96, q over 100 characters', async () => {
    await expect400('/api/v1/deals?kind=foo', /Invalid parameter "kind": must be one of special, member, multibuy/);
    await expect400('/api/v1/deals?retailer=nope', /Invalid parameter "retailer": unknown retailer slug "nope"/);
    await expect400('/api/v1/deals?limit=97', /Invalid parameter "limit": must be at most 96/);
    await expect400('/api/v1/deals?limit=0', /Invalid parameter "limit": must be at least 1/);
    await expect400(`/api/v1/deals?q=${'x'.repeat(101)}`, /Invalid parameter "q": must be at most 100 characters/);
  });

  it('the MCP tools return the REST bodies', async () => {
    for (const [name, args, url] of [
      ['compare_retailers', {}, '/api/v1/retailers/compare'],
      ['get_retailer_levels', { days: 7 }, '/api/v1/retailers/levels?days=7'],
      ['list_deals', { kind: 'member', limit: 1 }, '/api/v1/deals?kind=member&limit=1'],
    ] as const) {
      const result = await mcpCall(name, args);
      expect(result.isError ?? false, name).toBe(false);
      const rest = await app.inject({ url });
      expect(result.structuredContent, name).toEqual(rest.json());
    }
    const bad = await mcpCall('list_deals', { kind: 'foo' });
    expect(bad.isError).toBe(true);
  });

  it('GraphQL: retailers with their level, group levels and level series; compare, retailerLevels and deals in one request', async () => {
    const { data, errors } = await gql(`{
      retailers { slug level { retailer level items } groupLevels { groupId code level items day } levelSeries(days: 7) { retailer days level items } }
      compare { day retailers headline { retailer level items } items { name prices { retailer price listings } } }
      retailerLevels(days: 7) { days retailers { retailer } }
      deals(kind: member) { kind total listings { id retailerSlug current { promoPrice } deals { kind day price saving savingPct } } }
    }`);
    expect(errors).toBeUndefined();
    const byslug = new Map(data.retailers.map((r: Json) => [r.slug, r]));
    const days = Array.from({ length: 7 }, (_, k) => addDays(LAST, k - 6));
    expect(byslug.get('woolworths')).toEqual({
      slug: 'woolworths',
      level: { retailer: 'woolworths', level: 1.02, items: 25 },
      groupLevels: [
        { groupId: 1, code: 'fruit_veg', level: 1.01, items: 3, day: LAST },
        { groupId: 2, code: 'meat_poultry_fish', level: 1, items: 2, day: LAST },
        { groupId: 3, code: 'grocery_food', level: 1.03, items: 10, day: LAST },
      ],
      levelSeries: { retailer: 'woolworths', days, level: days.map((_, k) => wwLevel(k + 3)), items: days.map(() => 25) },
    });
    // The graph keeps a null level (REST leaves the chain out of the map).
    expect(byslug.get('newworld')).toMatchObject({ level: { level: null, items: 5 } });
    expect(byslug.get('supervalue')).toEqual({
      slug: 'supervalue', level: null, groupLevels: [], levelSeries: { retailer: 'supervalue', days, level: Array(7).fill(null), items: Array(7).fill(null) },
    });
    expect(data.compare.day).toBe(LAST);
    expect(data.compare.headline).toEqual([
      { retailer: 'woolworths', level: 1.02, items: 25 },
      { retailer: 'paknsave', level: 0.92, items: 30 },
      { retailer: 'newworld', level: null, items: 5 },
    ]);
    expect(data.compare.items[0].prices[0]).toEqual({ retailer: 'woolworths', price: 399, listings: 1 });
    expect(data.retailerLevels.days).toEqual(days);
    expect(data.deals).toEqual({
      kind: 'member',
      total: 2,
      listings: [
        { id: ids.get('W6'), retailerSlug: 'woolworths', current: { promoPrice: 320 }, deals: [{ kind: 'member', day: LAST, price: 400, saving: 80, savingPct: 0.2 }] },
        {
          id: ids.get('W1'),
          retailerSlug: 'woolworths',
          current: { promoPrice: 350 },
          deals: [
            { kind: 'special', day: LAST, price: 500, saving: 150, savingPct: 0.3 },
            { kind: 'member', day: LAST, price: 500, saving: 60, savingPct: 0.12 },
          ],
        },
      ],
    });
    const none = await gql(`{ listing(id: ${ids.get('P8')}) { deals { kind } } }`);
    expect(none.data.listing.deals).toEqual([]);
  });

  it('GraphQL: BAD_REQUEST for a window or page out of range and an unknown retailer; an unknown kind fails validation', async () => {
    const codes = async (query: string) => (await gql(query)).errors?.map((e) => [e.message, e.extensions?.code]);
    expect(await codes('{ retailerLevels(days: 6) { days } }')).toEqual([['Invalid parameter "days": must be an integer from 7 to 3650', 'BAD_REQUEST']]);
    // On a Retailer field (non-null: the error reaches the root, which GraphQL reports once).
    const series = await gql('{ retailers { levelSeries(days: 3651) { days } } }');
    expect(series.data).toBeNull();
    expect(series.errors?.[0]).toMatchObject({ message: 'Invalid parameter "days": must be an integer from 7 to 3650', extensions: { code: 'BAD_REQUEST' } });
    expect(await codes('{ deals(limit: 97) { total } }')).toEqual([['Invalid parameter "limit": must be an integer from 1 to 96', 'BAD_REQUEST']]);
    expect(await codes('{ deals(retailer: "nope") { total } }')).toEqual([
      ['Invalid parameter "retailer": unknown retailer slug "nope" (see /api/v1/retailers)', 'BAD_REQUEST'],
    ]);
    expect(await codes(`{ deals(q: "${'x'.repeat(101)}") { total } }`)).toEqual([['Invalid parameter "q": must be at most 100 characters', 'BAD_REQUEST']]);
    const kind = await gql('{ deals(kind: foo) { total } }');
    expect(kind.errors?.[0].message).toMatch(/DealKind/);
  });

  it('validated a 200 of each of the three operations against the OpenAPI document', () => {
    for (const [name, route] of Object.entries(ROUTES)) {
      const op = operations.find((o) => o.name === name)!;
      expect(op.path, name).toBe(route);
      expect(responses.seen.get(`GET ${route}`), `${name} was never validated`).toContain(200);
    }
  });
});

describe('derivedViews (GraphQL only): how fresh each view is', () => {
  it('lists each view_run row by name with its data version, build time and duration; empty before the first build', async () => {
    await db.pool.query('DELETE FROM view_run');
    expect((await gql('{ derivedViews { name } }')).data).toEqual({ derivedViews: [] });
    await db.pool.query(
      `INSERT INTO view_run (name, data_version, built_at, seconds) VALUES
         ('stores', 'v-stores', '2026-11-27T01:02:03Z', 1.5), ('deals', 'v-deals', '2026-11-27T01:02:04Z', 0.25)`,
    );
    const r = await gql('{ derivedViews { name dataVersion builtAt seconds } }');
    expect(r.errors).toBeUndefined();
    expect(r.data.derivedViews).toEqual([
      { name: 'deals', dataVersion: 'v-deals', builtAt: '2026-11-27T01:02:04.000Z', seconds: 0.25 },
      { name: 'stores', dataVersion: 'v-stores', builtAt: '2026-11-27T01:02:03.000Z', seconds: 1.5 },
    ]);
  });
});
