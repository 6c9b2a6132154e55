/**
 * plan_shopping_list (issue 16 item 7, beyond api-spec: the cheapest place for a whole list) through
 * the assembled server against a real PostgreSQL: REST, GraphQL and MCP on the same rows. The
 * store_listing rows are written here by SQL with hand-computable prices, as workers/views writes
 * them, so these tests depend on the view's format only. Every REST response is validated against
 * the served OpenAPI document and the ShoppingList resource.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { expectError } from '../helpers/shape.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' });
const LAST = '2026-08-03';
/** Auckland city centre. */
const CBD = { lat: -36.8485, lng: 174.7633 };

let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
const ids: Record<string, number> = {};

const { get, expect400 } = checkedRequests(() => app, () => responses);

async function store(key: string, slug: string, name: string, town: string, lat: number, lng: number, active = true) {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area, urban, active, last_day, covered_day)
     SELECT id, $2, $3, $4, $5, $6, 'Auckland', 'major', $7, $8, $8 FROM retailer WHERE slug = $1 RETURNING id`,
    [slug, key, name, lat, lng, town, active, LAST],
  );
  ids[key] = rows[0].id;
}

async function listing(key: string, slug: string, name: string, productKey: string | null) {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, first_seen, product_id)
     SELECT id, $2, $3, '2024-01-01', $4 FROM retailer WHERE slug = $1 RETURNING id`,
    [slug, key, name, productKey === null ? null : ids[productKey]],
  );
  ids[key] = rows[0].id;
}

async function product(key: string, name: string) {
  ids[key] = (await db.pool.query<{ id: number }>('INSERT INTO product (name) VALUES ($1) RETURNING id', [name])).rows[0].id;
}

/** A store_listing row (median = price, so ratio 1). */
async function price(storeKey: string, listingKey: string, p: number, promo: { price?: number; kind: number; qty?: number; set?: number } | null = null) {
  await db.pool.query(
    `INSERT INTO store_listing (store_id, listing_id, day, price, promo_price, promo_kind, median, ratio, multibuy_qty, multibuy_price)
     VALUES ($1, $2, '2026-07-30', $3, $4, $5, $3, 1, $6, $7)`,
    [ids[storeKey], ids[listingKey], p, promo?.price ?? null, promo?.kind ?? null, promo?.qty ?? null, promo?.set ?? null],
  );
}

beforeAll(async () => {
  db = await createTestDatabase('shopping_list');
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());

  await store('S1', 'woolworths', 'Woolworths Metro Queen St', 'Auckland', CBD.lat, CBD.lng);
  await store('S2', 'paknsave', "PAK'nSAVE Mt Albert", 'Auckland', -36.8860, 174.7190); // ≈ 5.8 km from the CBD
  await store('S3', 'newworld', 'New World Hamilton', 'Hamilton', -37.787, 175.279); // ≈ 115 km
  await store('S4', 'woolworths', 'Woolworths Closed', 'Auckland', CBD.lat, CBD.lng, false);
  await product('P1', 'Milk 2L');
  await product('P2', 'White bread');
  await product('P0', 'Nothing linked');
  await listing('w1', 'woolworths', 'Woolworths Milk 2L', 'P1');
  await listing('k1', 'paknsave', "PAK'nSAVE Milk 2L", 'P1');
  await listing('n1', 'newworld', 'New World Milk 2L', 'P1');
  await listing('w2', 'woolworths', 'Woolworths Bread', 'P2');
  await listing('w2b', 'woolworths', 'Tip Top Bread', 'P2');
  await listing('k2', 'paknsave', "PAK'nSAVE Bread", 'P2');
  await listing('w3', 'woolworths', 'Bananas', null);
  await listing('h1', 'warehouse', 'The Warehouse Milk', 'P1');

  // S1: milk 450, special 400; bread 300, or Tip Top 280 (club 250); bananas 100, 3 for 250.
  await price('S1', 'w1', 450, { price: 400, kind: 1 });
  await price('S1', 'w2', 300);
  await price('S1', 'w2b', 280, { price: 250, kind: 2 });
  await price('S1', 'w3', 100, { price: 84, kind: 3, qty: 3, set: 250 });
  // S2: milk 420, bread 260. S3: milk 380. S4 (inactive): milk 100, never counted.
  await price('S2', 'k1', 420);
  await price('S2', 'k2', 260);
  await price('S3', 'n1', 380);
  await price('S4', 'w1', 100);
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

/** The list of the tests: milk × 2, bread, bananas × 3. */
const list = () => `p${ids.P1}x2,p${ids.P2},l${ids.w3}x3`;
const url = (query: string) => `/api/v1/shopping-list?${query}`;

describe('GET /api/v1/shopping-list', () => {
  it('answers the hand-computed single stores and splits', async () => {
    const r = await get(url(`items=${list()}`), 'plan_shopping_list');
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    const b = r.body as Json;
    expect(b.items).toEqual([
      { ref: `p${ids.P1}`, product_id: ids.P1, listing_id: null, name: 'Milk 2L', qty: 2 },
      { ref: `p${ids.P2}`, product_id: ids.P2, listing_id: null, name: 'White bread', qty: 1 },
      { ref: `l${ids.w3}`, product_id: null, listing_id: ids.w3, name: 'Bananas', qty: 3 },
    ]);
    expect(b.stores_considered).toBe(3);
    // S1: milk 2 × 400 (special) + bread 280 (Tip Top, no club price without member) + bananas 3 for 250 = 1330.
    // S2: milk 840 + bread 260 = 1100, bananas missing. S3: milk 760, bread and bananas missing.
    expect(b.single.map((s: Json) => [s.store.id, s.total, s.missing])).toEqual([
      [ids.S1, 1330, []],
      [ids.S2, 1100, [`l${ids.w3}`]],
      [ids.S3, 760, [`p${ids.P2}`, `l${ids.w3}`]],
    ]);
    expect(b.single[0].store).toEqual({
      id: ids.S1, retailer: 'woolworths', name: 'Woolworths Metro Queen St', town: 'Auckland', lat: CBD.lat, lng: CBD.lng, day: LAST, distance_km: null,
    });
    expect(b.single[0].lines).toEqual([
      { ref: `p${ids.P1}`, store_id: ids.S1, listing_id: ids.w1, qty: 2, price: 450, cost: 800, promo: 'special', since: '2026-07-30' },
      { ref: `p${ids.P2}`, store_id: ids.S1, listing_id: ids.w2b, qty: 1, price: 280, cost: 280, promo: null, since: '2026-07-30' },
      { ref: `l${ids.w3}`, store_id: ids.S1, listing_id: ids.w3, qty: 3, price: 100, cost: 250, promo: 'multibuy', since: '2026-07-30' },
    ]);
    // (S1, S3): milk 760 at S3, bread 280 and bananas 250 at S1 = 1290, saving 800 − 760 = 40.
    // (S1, S2): milk 800 and bananas 250 at S1, bread 260 at S2 = 1310, saving 20.
    // (S2, S3): milk 760 at S3, bread 260 at S2 = 1020, bananas missing; beats S2 (1100) and S3 (two missing); saving 840 − 760 = 80.
    expect(b.split.map((s: Json) => [s.stores.map((x: Json) => x.id), s.total, s.saving, s.missing])).toEqual([
      [[ids.S1, ids.S3], 1290, 40, []],
      [[ids.S1, ids.S2], 1310, 20, []],
      [[ids.S2, ids.S3], 1020, 80, [`l${ids.w3}`]],
    ]);
    expect(b.split[0].lines.map((l: Json) => [l.ref, l.store_id, l.listing_id, l.cost])).toEqual([
      [`p${ids.P1}`, ids.S3, ids.n1, 760],
      [`p${ids.P2}`, ids.S1, ids.w2b, 280],
      [`l${ids.w3}`, ids.S1, ids.w3, 250],
    ]);
  });

  it('counts club prices with member=true, and limits the answer', async () => {
    const b = (await get(url(`items=${list()}&member=true`), 'plan_shopping_list')).body as Json;
    // S1: bread at the club price 250: 800 + 250 + 250 = 1300. (S1, S2) buys everything at S1: not listed.
    expect(b.single.map((s: Json) => [s.store.id, s.total])).toEqual([[ids.S1, 1300], [ids.S2, 1100], [ids.S3, 760]]);
    expect(b.single[0].lines[1]).toMatchObject({ listing_id: ids.w2b, cost: 250, promo: 'member' });
    expect(b.split.map((s: Json) => [s.stores.map((x: Json) => x.id), s.total, s.saving])).toEqual([
      [[ids.S1, ids.S3], 1260, 40],
      [[ids.S2, ids.S3], 1020, 80],
    ]);
    const one = (await get(url(`items=${list()}&member=TRUE&limit=1`), 'plan_shopping_list')).body as Json;
    expect(one.single).toHaveLength(1);
    expect(one.split).toHaveLength(1);
  });

  it('keeps the stores within the radius, with their distance, and one chain with retailer', async () => {
    const b = (await get(url(`items=${list()}&lat=${CBD.lat}&lng=${CBD.lng}&radius_km=20`), 'plan_shopping_list')).body as Json;
    expect(b.stores_considered).toBe(2);
    expect(b.single.map((s: Json) => [s.store.id, s.store.distance_km])).toEqual([[ids.S1, 0], [ids.S2, expect.closeTo(5.75, 0)]]);
    expect(b.split.map((s: Json) => [s.stores.map((x: Json) => x.id), s.total])).toEqual([[[ids.S1, ids.S2], 1310]]);
    // 5 km: S2 (≈ 5.8 km) is out; the default 10 km keeps it; 200 km reaches Hamilton.
    expect((await get(url(`items=${list()}&lat=${CBD.lat}&lng=${CBD.lng}&radius_km=5`))).body.stores_considered).toBe(1);
    expect((await get(url(`items=${list()}&lat=${CBD.lat}&lng=${CBD.lng}`))).body.stores_considered).toBe(2);
    expect((await get(url(`items=${list()}&lat=${CBD.lat}&lng=${CBD.lng}&radius_km=200`))).body.stores_considered).toBe(3);
    const pak = (await get(url(`items=${list()}&retailer=paknsave`), 'plan_shopping_list')).body as Json;
    expect(pak.single.map((s: Json) => s.store.id)).toEqual([ids.S2]);
    expect(pak.split).toEqual([]);
  });

  it('counts no inactive store and no national-only chain; an item priced nowhere is missing everywhere', async () => {
    // The inactive S4 prices milk at 100; S1 at 400 on special.
    const b = (await get(url(`items=l${ids.h1},p${ids.P0},l${ids.w1}`), 'plan_shopping_list')).body as Json;
    expect(b.single.map((s: Json) => [s.store.id, s.total, s.missing])).toEqual([[ids.S1, 400, [`l${ids.h1}`, `p${ids.P0}`]]]);
    expect(b.items[0]).toEqual({ ref: `l${ids.h1}`, product_id: ids.P1, listing_id: ids.h1, name: 'The Warehouse Milk', qty: 1 });
    const none = (await get(url(`items=p${ids.P0}`), 'plan_shopping_list')).body as Json;
    expect(none).toMatchObject({ stores_considered: 0, single: [], split: [] });
  });

  it('answers 400 for a malformed list or value, naming it', async () => {
    await expect400(url(''), /"items": is required/);
    await expect400(url('items=milk'), /"items": "milk" is not an item/);
    await expect400(url(`items=p${ids.P1}x100`), /"items": the quantity of p\d+ must be at most 99/);
    await expect400(url(`items=p${ids.P1}x60,p${ids.P1}x40`), /must be at most 99/);
    await expect400(url(`items=${Array.from({ length: 51 }, (_, i) => `p${i + 1}`).join(',')}`), /at most 50/);
    await expect400(url(`items=${list()}&lat=-36.8`), /"lng": is required with lat/);
    await expect400(url(`items=${list()}&lng=174.7`), /"lat": is required with lng/);
    await expect400(url(`items=${list()}&radius_km=5`), /"radius_km": needs lat and lng/);
    await expect400(url(`items=${list()}&lat=-91&lng=174`), /"lat": must be at least -90/);
    await expect400(url(`items=${list()}&lat=abc&lng=174`), /"lat": must be a decimal number/);
    await expect400(url(`items=${list()}&lat=-36&lng=174&radius_km=0.1`), /"radius_km": must be at least 0.5/);
    await expect400(url(`items=${list()}&limit=21`), /"limit": must be at most 20/);
    await expect400(url(`items=${list()}&member=maybe`), /"member": must be true or false/);
    await expect400(url(`items=${list()}&retailer=aldi`), /"retailer": unknown retailer slug "aldi"/);
    await expect400(url(`items=${list()}&items=p1`), /"items": must be given once/);
  });

  it('answers 404 naming every unknown product and listing', async () => {
    const r = await get(url(`items=p${ids.P1},p999999,l888888,p999998`));
    expect(r.status).toBe(404);
    expectError(r.body, 404);
    expect(r.body.error.message).toBe('No such product 999999, 999998; no such listing 888888 (items p999999, l888888, p999998)');
  });
});

describe('GraphQL shoppingList and the MCP tool', () => {
  async function gql(query: string, variables: Json = {}): Promise<{ data?: Json; errors?: Json[] }> {
    return (await app.inject({ method: 'POST', url: '/graphql', payload: { query, variables } })).json();
  }

  it('gives the same plan on /graphql', async () => {
    const r = await gql(
      `query ($items: [ShoppingItemInput!]!) {
        shoppingList(items: $items, near: { lat: ${CBD.lat}, lng: ${CBD.lng}, radiusKm: 20 }, member: true) {
          storesConsidered single { store { id distanceKm } total missing } split { stores { id } total saving lines { ref storeId cost promo } }
        }
      }`,
      { items: [{ productId: ids.P1, qty: 2 }, { productId: ids.P2 }, { listingId: ids.w3, qty: 3 }] },
    );
    expect(r.errors).toBeUndefined();
    // With member: S1 1300 (bread at the club price), S2 1100 (bananas missing); (S1, S2) buys all at S1: no split.
    expect(r.data!.shoppingList).toEqual({
      storesConsidered: 2,
      single: [
        { store: { id: ids.S1, distanceKm: 0 }, total: 1300, missing: [] },
        { store: { id: ids.S2, distanceKm: expect.closeTo(5.75, 0) }, total: 1100, missing: [`l${ids.w3}`] },
      ],
      split: [],
    });
  });

  it('refuses an item naming both or neither id (BAD_REQUEST) and unknown ids (NOT_FOUND)', async () => {
    const doc = `query ($items: [ShoppingItemInput!]!) { shoppingList(items: $items) { storesConsidered } }`;
    const both = await gql(doc, { items: [{ productId: ids.P1, listingId: ids.w1 }] });
    expect(both.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    expect(both.errors?.[0].message).toMatch(/exactly one of productId and listingId/);
    expect((await gql(doc, { items: [] })).errors?.[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    expect((await gql(doc, { items: [{ listingId: ids.w1, qty: 0 }] })).errors?.[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    const unknown = await gql(doc, { items: [{ listingId: 777777 }] });
    expect(unknown.errors?.[0]).toMatchObject({ message: 'No such listing 777777 (items l777777)', extensions: { code: 'NOT_FOUND' } });
  });

  it('is an MCP tool giving the REST body', async () => {
    const call = async (args: Json) => {
      const r = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'plan_shopping_list', arguments: args } }),
      });
      expect(r.statusCode).toBe(200);
      return r.json().result as Json;
    };
    const result = await call({ items: list(), lat: CBD.lat, lng: CBD.lng, radius_km: 20, member: true, limit: 3 });
    expect(result.isError ?? false).toBe(false);
    const rest = await app.inject({ url: url(`items=${list()}&lat=${CBD.lat}&lng=${CBD.lng}&radius_km=20&member=true&limit=3`) });
    expect(result.structuredContent).toEqual(rest.json());
    const bad = await call({ items: list(), lat: CBD.lat });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toEqual({ error: { status: 400, message: 'Invalid parameter "lng": is required with lat' } });
  });
});
