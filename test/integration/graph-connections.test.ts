/**
 * The graph for dashboards (issue 20 items 1 and 6) against a real PostgreSQL, through the
 * assembled server's /graphql: Relay connections (first/after, pageInfo, totalCount, stable cursors,
 * malformed arguments refused as BAD_REQUEST), each relation (Retailer.stores, Retailer.listings
 * with its filter, Store.levelSeries, Listing.product, Listing.history, Product.listings,
 * Shelf.products, BasketItem.matches → listing), indexSeries ranges and bad input, a realistic
 * dashboard query inside the depth and cost limits, and automatic persisted queries (register by
 * POST, run by GET with the hash alone, unknown hash, hash mismatch). Rows are built here by SQL.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { addDays, nzToday } from '../../src/domain/days.js';
import { loadEnv } from '../../src/env.js';
import { syncBasket } from '../../workers/index/basket.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let db: TestDatabase;
let app: FastifyInstance;
const TODAY = nzToday();
/** Active Woolworths stores, in the connection's order (name, then id). */
let wwStores: { id: number; name: string }[] = [];
const listings = new Map<string, number>();
let productId: number;
let storeA: number;
let basketItemId: number;
let groupId: number;

async function gql(query: string, variables?: Json): Promise<{ status: number; body: { data?: Json; errors?: Json[] } }> {
  const r = await app.inject({ method: 'POST', url: '/graphql', payload: { query, variables } });
  return { status: r.statusCode, body: r.json() };
}

/** The data of a document that must answer without errors. */
async function data(query: string, variables?: Json): Promise<Json> {
  const { body } = await gql(query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data!;
}

/** The first error code of a document that must fail. */
async function errorCode(query: string): Promise<string> {
  const { body } = await gql(query);
  expect(body.errors?.length, query).toBeGreaterThan(0);
  if (process.env.SHOW_ERRORS) console.log(query, JSON.stringify(body.errors));
  return body.errors![0].extensions?.code;
}

async function addListing(slug: string, key: string, name: string, brand: string | null, f: { available?: boolean; product?: number } = {}): Promise<number> {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, brand, first_seen, available, product_id)
     SELECT id, $2, $3, $4, '2024-01-01', $5, $6 FROM retailer WHERE slug = $1 RETURNING id`,
    [slug, key, name, brand, f.available ?? true, f.product ?? null],
  );
  listings.set(key, rows[0].id);
  return rows[0].id;
}

beforeAll(async () => {
  db = await createTestDatabase('graph_connections');
  app = await createServer({ db: { prisma: db.prisma, pool: db.pool }, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
  await syncBasket(db.pool);

  // 25 active Woolworths stores (names out of id order, two sharing a name), one inactive; 2 PAK'nSAVE.
  const names = Array.from({ length: 25 }, (_, i) => `Woolworths ${String((i * 7) % 25).padStart(2, '0')}`);
  names[24] = names[3];
  for (const [i, name] of names.entries()) {
    await db.pool.query(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area, active, last_day, covered_day)
       SELECT id, $1, $2, -36.8, 174.7, 'Auckland', 'Auckland', true, '2025-05-03', '2025-05-03' FROM retailer WHERE slug = 'woolworths'`,
      ['ww' + i, name],
    );
  }
  await db.pool.query(
    `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area, active)
     SELECT id, 'closed', 'Woolworths 00 (closed)', -36.8, 174.7, 'Auckland', 'Auckland', false FROM retailer WHERE slug = 'woolworths'`,
  );
  for (const i of [1, 2]) {
    await db.pool.query(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area, active)
       SELECT id, $1, $2, -41.3, 174.8, 'Wellington', 'Wellington', true FROM retailer WHERE slug = 'paknsave'`,
      ['pns' + i, `PAK'nSAVE ${i}`],
    );
  }
  const { rows } = await db.pool.query<{ id: number; name: string }>(
    `SELECT s.id, s.name FROM store s JOIN retailer r ON r.id = s.retailer_id WHERE r.slug = 'woolworths' AND s.active ORDER BY s.name, s.id`,
  );
  wwStores = rows;
  storeA = wwStores[0].id;
  await db.pool.query(
    `INSERT INTO store_level (store_id, day, level, n_items, groups, spread, listings_priced, club, sale, multibuy)
     VALUES ($1, '2025-05-03', 1.04, 30, '[]', $2, 10, 0, 0, 0)`,
    [storeA, new Array(22).fill(0)],
  );
  await db.pool.query(
    `INSERT INTO store_level_day (store_id, day, level, n_items) SELECT $1, d::date, 1.02, 25 FROM generate_series('2025-04-27'::date, '2025-05-03'::date, '1 day') AS d`,
    [storeA],
  );

  // A product linked across two chains, and a catalogue of 30 Woolworths listings.
  const p = await db.pool.query<{ id: number }>(`INSERT INTO product (name, brand) VALUES ('Apple juice 1L', 'Acme') RETURNING id`);
  productId = p.rows[0].id;
  await addListing('woolworths', 'juice-ww', 'Acme apple juice 1L', 'Acme', { product: productId });
  await addListing('paknsave', 'juice-pns', 'Acme Apple Juice 1 L', 'Acme', { product: productId });
  await addListing('woolworths', 'percent', '100% orange juice', 'Citrus Co');
  await addListing('woolworths', 'percent-like', '100 orange juice (no percent)', 'Citrus Co');
  for (let i = 0; i < 26; i++) await addListing('woolworths', `filler-${i}`, `Filler ${i}`, i % 2 ? 'ACME' : null, { available: i % 3 !== 0 });

  // History: national spans of the linked listing, and spans at store A.
  await db.pool.query(`UPDATE retailer SET last_national_day = '2025-05-03', covered_day = '2025-05-03' WHERE slug = 'woolworths'`);
  const juice = listings.get('juice-ww')!;
  await db.pool.query(
    `INSERT INTO national_price_span (listing_id, first_day, last_day, price) VALUES ($1, '2025-01-01', '2025-01-31', 300), ($1, '2025-02-01', '2025-03-15', 320), ($1, '2025-03-16', NULL, 350)`,
    [juice],
  );
  await db.pool.query(
    `INSERT INTO store_price_span (listing_id, store_id, first_day, last_day, price) VALUES ($1, $2, '2025-02-01', NULL, 299)`,
    [juice, storeA],
  );

  // The index: all food and one group over the last 40 days, and 400 days ago.
  const groups = await db.pool.query<{ id: number }>(`SELECT id FROM basket_group ORDER BY id LIMIT 1`);
  groupId = groups.rows[0].id;
  await db.pool.query(
    `INSERT INTO index_day (group_id, day, raw, anchored, coverage, items, listings)
     SELECT g, $1::date - k, 1000 + k, NULL::float8, 0.5, 10, 20 FROM generate_series(0, 39) AS k, unnest(ARRAY[0, $2::int]) AS g
     UNION ALL SELECT 0, $1::date - 400, 900, NULL, 0.5, 10, 20`,
    [TODAY, groupId],
  );

  // A basket item matching two listings.
  const items = await db.pool.query<{ id: number }>(`SELECT id FROM basket_item WHERE active ORDER BY id LIMIT 1`);
  basketItemId = items.rows[0].id;
  await db.pool.query(
    `INSERT INTO basket_match (item_id, listing_id, origin, valid_from) VALUES ($1, $2, 'manual', '2025-01-01'), ($1, $3, 'manual', '2025-01-01')`,
    [basketItemId, juice, listings.get('juice-pns')],
  );

  // Five linked products on Fresh milk, one unlinked listing between them (not a product node).
  const milk = [productId];
  for (let i = 1; i < 5; i++) milk.push((await db.pool.query<{ id: number }>(`INSERT INTO product (name) VALUES ($1) RETURNING id`, [`Milk ${i}`])).rows[0].id);
  await db.pool.query(
    `INSERT INTO shelf_product (group_key, product_id, listing_id, shelf_slug, kind_slug, name, chains, stores, retailer_ids, listing_ids, shelf_prices,
                                best_prices, promo_kinds, per_units, best_at, price, per_unit, discount, search_doc,
                                rank_popular, rank_price, rank_price_desc, rank_per_unit, rank_per_unit_desc, rank_deal)
     SELECT 'p' || x.id, x.id, NULL, 'fresh-milk', 'milk', 'Milk', 1, 1, ARRAY[1], ARRAY[1], ARRAY[300], ARRAY[300::float8], ARRAY[NULL::smallint],
            ARRAY[300::float8], 1, 300, 300, 0, to_tsvector('simple', 'milk'), x.k * 10, x.k, x.k, x.k, x.k, x.k
     FROM unnest($1::int[]) WITH ORDINALITY AS x(id, k)
     UNION ALL
     SELECT 'l' || $2::int, NULL, $2::int, 'fresh-milk', 'milk', 'Loose milk', 1, 1, ARRAY[1], ARRAY[$2::int], ARRAY[300], ARRAY[300::float8], ARRAY[NULL::smallint],
            ARRAY[300::float8], 1, 300, 300, 0, to_tsvector('simple', 'milk'), 25, 99, 99, 99, 99, 99`,
    [milk, listings.get('filler-0')],
  );
  await db.pool.query(`INSERT INTO shelf_count (slug, products) VALUES ('fresh-milk', 6), ('milk', 6)`);
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('the dashboard query of issue 20', () => {
  it('answers retailers → stores(first: 5) → id, level beside the all-food index series', async () => {
    const d = await data('{ retailers { slug stores(first: 5) { edges { node { id level } } } } indexSeries(group: 0) { day raw } }');
    const ww = d.retailers.find((r: Json) => r.slug === 'woolworths');
    expect(ww.stores.edges.map((e: Json) => e.node.id)).toEqual(wwStores.slice(0, 5).map((s) => s.id));
    expect(ww.stores.edges[0].node.level).toBe(1.04);
    expect(ww.stores.edges[1].node.level).toBeNull();
    expect(d.retailers.find((r: Json) => r.slug === 'paknsave').stores.edges).toHaveLength(2);
    // The default window is the year up to today: the 40 recent days, not the one 400 days ago.
    expect(d.indexSeries).toHaveLength(40);
    expect(d.indexSeries.at(-1)).toEqual({ day: TODAY, raw: 1000 });
    expect(d.indexSeries[0]).toEqual({ day: addDays(TODAY, -39), raw: 1039 });
  });
});

describe('connections', () => {
  const page = (first: number, after?: string) =>
    `{ retailers { slug storeCount stores(first: ${first}${after ? `, after: ${JSON.stringify(after)}` : ''}) {
         totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id name } } } } }`;
  const ww = (d: Json) => d.retailers.find((r: Json) => r.slug === 'woolworths');

  it('pages Retailer.stores with first/after in a stable order (name, then id), with pageInfo and totalCount', async () => {
    const seen: number[] = [];
    let after: string | undefined;
    const pages: Json[] = [];
    for (;;) {
      const s = ww(await data(page(10, after))).stores;
      pages.push(s);
      seen.push(...s.edges.map((e: Json) => e.node.id));
      expect(s.totalCount).toBe(25);
      expect(s.pageInfo.hasPreviousPage).toBe(after !== undefined);
      expect(s.pageInfo.startCursor).toBe(s.edges[0].cursor);
      expect(s.pageInfo.endCursor).toBe(s.edges.at(-1).cursor);
      if (!s.pageInfo.hasNextPage) break;
      after = s.pageInfo.endCursor;
    }
    expect(pages.map((p) => p.edges.length)).toEqual([10, 10, 5]);
    expect(seen).toEqual(wwStores.map((s) => s.id));
    expect(ww(await data(page(10))).storeCount).toBe(25);
    // The same cursor gives the same page again; a cursor in the middle continues right after it.
    const again = ww(await data(page(10, pages[0].pageInfo.endCursor))).stores;
    expect(again.edges).toEqual(pages[1].edges);
    const mid = ww(await data(page(3, pages[0].edges[4].cursor))).stores;
    expect(mid.edges.map((e: Json) => e.node.id)).toEqual(wwStores.slice(5, 8).map((s) => s.id));
    // first: 0 answers an empty page that still knows there are more.
    const none = ww(await data(page(0))).stores;
    expect(none.edges).toEqual([]);
    expect(none.pageInfo.hasNextPage).toBe(true);
  });

  it('refuses a malformed cursor, a page size outside 0 to 100, and backward paging: BAD_REQUEST', async () => {
    for (const bad of ['nonsense', 'R1BDOnN0cmluZw==', 'cmFuazotMQ']) {
      expect(await errorCode(page(5, bad)), bad).toBe('BAD_REQUEST');
    }
    expect(await errorCode('{ retailers { stores(first: 101) { totalCount } } }')).toBe('BAD_REQUEST');
    expect(await errorCode('{ retailers { stores(first: -1) { totalCount } } }')).toBe('BAD_REQUEST');
    expect(await errorCode('{ retailers { stores(last: 2) { totalCount } } }')).toBe('BAD_REQUEST');
    expect(await errorCode('{ shelves { products(after: "bm9wZQ") { totalCount: pageInfo { hasNextPage } } } }')).toBe('BAD_REQUEST');
    expect(await errorCode('{ shelves { products(first: 500) { pageInfo { hasNextPage } } } }')).toBe('BAD_REQUEST');
  });

  it('Retailer.listings(filter): text (wildcards literal), brand, availability and link, with totalCount', async () => {
    const q = async (filter: string) => {
      const d = await data(`{ retailers { slug listings(first: 100, filter: ${filter}) { totalCount edges { node { id name } } } } }`);
      return ww(d).listings;
    };
    const all = await q('{}');
    expect(all.totalCount).toBe(29);
    const ids = all.edges.map((e: Json) => e.node.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect((await q('{ q: "100%" }')).edges.map((e: Json) => e.node.name)).toEqual(['100% orange juice']);
    expect((await q('{ q: "JUICE" }')).totalCount).toBe(3);
    expect((await q('{ brand: "acme" }')).totalCount).toBe(14);
    expect((await q('{ linked: true }')).edges.map((e: Json) => e.node.id)).toEqual([listings.get('juice-ww')]);
    expect((await q('{ available: false }')).totalCount).toBe(9);
    expect((await q('{ linked: false, q: "filler" }')).totalCount).toBe(26);
    expect(await errorCode(`{ retailers { listings(filter: { q: "${'x'.repeat(101)}" }) { totalCount } } }`)).toBe('BAD_REQUEST');
  });
});

describe('relations', () => {
  it('Store.levelSeries and level through Retailer.stores', async () => {
    const d = await data('{ retailers { slug stores(first: 1) { edges { node { id level levelSeries(days: 7) { days level items } } } } } }');
    const node = d.retailers.find((r: Json) => r.slug === 'woolworths').stores.edges[0].node;
    expect(node.id).toBe(storeA);
    expect(node.levelSeries.days).toHaveLength(7);
    expect(node.levelSeries.level.every((l: number) => l === 1.02)).toBe(true);
  });

  it('Listing.product and Product.listings (a connection by id) and back', async () => {
    const d = await data(`{ product(id: ${productId}) { listings(first: 1) { totalCount pageInfo { hasNextPage endCursor } edges { node { id retailerSlug product { id } } } } } }`);
    const c = d.product.listings;
    expect(c.totalCount).toBe(2);
    expect(c.edges).toEqual([{ node: { id: listings.get('juice-ww'), retailerSlug: 'woolworths', product: { id: productId } } }]);
    expect(c.pageInfo.hasNextPage).toBe(true);
    const next = await data(`{ product(id: ${productId}) { listings(after: ${JSON.stringify(c.pageInfo.endCursor)}) { edges { node { id } } pageInfo { hasNextPage } } } }`);
    expect(next.product.listings).toEqual({ edges: [{ node: { id: listings.get('juice-pns') } }], pageInfo: { hasNextPage: false } });
    const none = await data(`{ listing(id: ${listings.get('percent')}) { product { id } } }`);
    expect(none.listing.product).toBeNull();
  });

  it('Listing.history(store, from, to): national or at a store, clipped to the window; BAD_REQUEST for a reversed one', async () => {
    const id = listings.get('juice-ww');
    const d = await data(`{ listing(id: ${id}) {
      all: history { from to price }
      window: history(from: "2025-01-15", to: "2025-02-10") { from to price }
      late: history(from: "2025-04-01") { from to price }
      atStore: history(store: ${storeA}) { from to price }
      elsewhere: history(store: ${wwStores[1].id}) { from }
    } }`);
    expect(d.listing.all).toEqual({ from: ['2025-01-01', '2025-02-01', '2025-03-16'], to: ['2025-01-31', '2025-03-15', '2025-05-03'], price: [300, 320, 350] });
    expect(d.listing.window).toEqual({ from: ['2025-01-15', '2025-02-01'], to: ['2025-01-31', '2025-02-10'], price: [300, 320] });
    expect(d.listing.late).toEqual({ from: ['2025-04-01'], to: ['2025-05-03'], price: [350] });
    expect(d.listing.atStore).toEqual({ from: ['2025-02-01'], to: ['2025-05-03'], price: [299] });
    expect(d.listing.elsewhere).toEqual({ from: [] });
    expect(await errorCode(`{ listing(id: ${id}) { history(from: "2025-03-01", to: "2025-02-01") { from } } }`)).toBe('BAD_REQUEST');
  });

  it('Shelf.products: linked products in the popular order, paged by an opaque cursor; productCount beside it', async () => {
    const q = (after?: string) =>
      `{ shelves { slug productCount products(first: 2${after ? `, after: ${JSON.stringify(after)}` : ''}) { pageInfo { hasNextPage endCursor } edges { cursor node { id name } } } } }`;
    const milk = (d: Json) => d.shelves.find((s: Json) => s.slug === 'fresh-milk');
    const seen: string[] = [];
    let after: string | undefined;
    for (let n = 0; n < 5; n++) {
      const s = milk(await data(q(after)));
      expect(s.productCount).toBe(6);
      seen.push(...s.products.edges.map((e: Json) => e.node.name));
      if (!s.products.pageInfo.hasNextPage) break;
      after = s.products.pageInfo.endCursor;
    }
    expect(seen).toEqual(['Apple juice 1L', 'Milk 1', 'Milk 2', 'Milk 3', 'Milk 4']);
    // A department holds its sub-shelves' products; a shelf without any has an empty connection.
    const d = await data(q());
    expect(d.shelves.find((s: Json) => s.slug === 'milk').products.edges).toHaveLength(2);
    expect(d.shelves.find((s: Json) => s.slug === 'bakery')?.products.edges ?? []).toEqual([]);
  });

  it('BasketItem.matches → listing → product', async () => {
    const d = await data(`{ basketItem(id: ${basketItemId}) { matches { listingId retailer listing { id name product { id } } } } }`);
    expect(d.basketItem.matches.map((m: Json) => [m.listingId, m.listing.id, m.listing.product?.id])).toEqual([
      [listings.get('juice-pns'), listings.get('juice-pns'), productId],
      [listings.get('juice-ww'), listings.get('juice-ww'), productId],
    ]);
  });
});

describe('indexSeries', () => {
  it('answers inclusive ranges of all food or a group; refuses a reversed range, an unknown group or a malformed day', async () => {
    const from = addDays(TODAY, -5);
    const d = await data(`{ all: indexSeries(from: "${from}", to: "${TODAY}") { day raw groupId } group: indexSeries(group: ${groupId}, from: "${from}") { day }
                           old: indexSeries(from: "${addDays(TODAY, -800)}", to: "${addDays(TODAY, -300)}") { day raw } }`);
    expect(d.all.map((p: Json) => p.day)).toEqual(Array.from({ length: 6 }, (_, k) => addDays(from, k)));
    expect(d.all.every((p: Json) => p.groupId === 0)).toBe(true);
    expect(d.group).toHaveLength(6);
    expect(d.old).toEqual([{ day: addDays(TODAY, -400), raw: 900 }]);
    expect(await errorCode(`{ indexSeries(from: "${TODAY}", to: "${from}") { day } }`)).toBe('BAD_REQUEST');
    expect(await errorCode('{ indexSeries(group: 999) { day } }')).toBe('BAD_REQUEST');
    const bad = await gql('{ indexSeries(from: "2025-13-01") { day } }');
    expect(bad.body.errors?.[0].message).toMatch(/not a day/i);
  });
});

describe('a realistic dashboard fits the depth and cost limits', () => {
  it('index groups, chains with their stores and levels, a product history by chain, shelves and deals in one document', async () => {
    const d = await data(`{
      indexSeries(group: 0) { day raw anchored }
      indexGroups(days: 30) { days groups { code name raw } }
      retailers { slug name storeCount stores(first: 50) { totalCount edges { node { id name lat lng town level nItems } } } }
      product(id: ${productId}) { name listings { edges { node { retailerSlug name history(from: "2025-01-01") { from to price promo } } } } }
      shelves { slug label productCount products(first: 3) { edges { node { id name perUnit } } } }
      deals(limit: 10) { total listings { id name retailerSlug current { price promoPrice } } }
    }`);
    expect(d.product.listings.edges).toHaveLength(2);
  });
});

describe('automatic persisted queries', () => {
  const query = 'query Chains($n: Int) { retailers { slug stores(first: $n) { edges { node { id } } } } }';
  const hash = createHash('sha256').update(query).digest('hex');
  const ext = (h: string) => JSON.stringify({ persistedQuery: { version: 1, sha256Hash: h } });
  const getByHash = (h: string, variables: Json) =>
    app.inject({ method: 'GET', url: `/graphql?extensions=${encodeURIComponent(ext(h))}&variables=${encodeURIComponent(JSON.stringify(variables))}` });

  it('registers a query by POST with its hash, then runs it by GET with the hash alone (cacheable)', async () => {
    const before = await getByHash(hash, { n: 2 });
    expect(before.statusCode).toBe(404);
    expect(before.json().errors[0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
    expect(before.headers['cache-control']).toBe('no-store');

    const post = await app.inject({
      method: 'POST', url: '/graphql',
      payload: { query, variables: { n: 2 }, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } },
    });
    expect(post.statusCode).toBe(200);
    const posted = post.json();
    expect(posted.errors).toBeUndefined();

    const get = await getByHash(hash, { n: 2 });
    expect(get.statusCode).toBe(200);
    expect(get.json()).toEqual(posted);
    expect(get.headers['cache-control']).toBe('public, max-age=300');
    const three = (await getByHash(hash, { n: 3 })).json();
    expect(three.data.retailers.find((r: Json) => r.slug === 'woolworths').stores.edges).toHaveLength(3);
  });

  it('refuses a query whose hash does not match (400, nothing stored) and an unknown hash (404)', async () => {
    const wrong = 'a'.repeat(64);
    const r = await app.inject({
      method: 'POST', url: '/graphql',
      payload: { query: '{ health }', extensions: { persistedQuery: { version: 1, sha256Hash: wrong } } },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().errors[0].extensions.code).toBe('PERSISTED_QUERY_MISMATCH');
    expect((await getByHash(wrong, {})).statusCode).toBe(404);
    expect((await getByHash('0'.repeat(64), {})).json().errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses malformed extensions with 400 BAD_REQUEST, as other malformed requests (issue 29: {"persistedQuery":1} answered 200)', async () => {
    const malformed = [
      '{"persistedQuery":1}', '{"persistedQuery":null}', '{"persistedQuery":"x"}', '{"persistedQuery":{}}',
      '{"persistedQuery":{"version":2,"sha256Hash":"' + hash + '"}}', '{"persistedQuery":{"version":1,"sha256Hash":"zz"}}',
      '{"persistedQuery":{"version":1}}', '5', '[]', '"x"',
    ];
    for (const e of malformed) {
      const get = await app.inject({ method: 'GET', url: `/graphql?extensions=${encodeURIComponent(e)}`, headers: { accept: 'application/json' } });
      const post = await app.inject({
        method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', accept: 'application/json' }, payload: `{"query":"{ health }","extensions":${e}}`,
      });
      for (const r of [get, post]) {
        expect(r.statusCode, `${e}: ${r.body}`).toBe(400);
        expect(r.json().errors[0].extensions.code, e).toBe('BAD_REQUEST');
        expect(r.json().errors[0].message, e).toMatch(/^(Malformed persisted query|Unsupported persisted query version|Malformed request: extensions)/);
      }
    }
  });
});
