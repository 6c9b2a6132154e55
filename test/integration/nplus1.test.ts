/**
 * No N+1: the number of SQL statements an operation runs does not grow with the size of its result.
 * Prisma statements are recorded by the TestDatabase (`queries`); statements the services send
 * through the pg pool are counted by wrapping `pool.query`. Each case runs the same operation on a
 * small and a large result and compares the counts.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';
import { syncBasket } from '../../workers/index/basket.js';

let db: TestDatabase;
let app: FastifyInstance;
let seed: Seeded;
let poolQueries: string[] = [];
let probeProductId: number;

/** The pool with `query` recorded (everything else passes through). */
function countingPool(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (...args: unknown[]) => {
          poolQueries.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string }).text));
          return (target.query as (...a: unknown[]) => unknown)(...args);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

interface Count {
  prisma: number;
  pool: number;
  /** Items in the response (to show the two runs differ in size). */
  size: number;
}

async function measure(run: () => Promise<unknown>, size: (body: any) => number): Promise<Count> {
  db.queries.length = 0;
  poolQueries = [];
  const body = await run();
  if (process.env.SHOW_QUERIES) console.log([...db.queries, ...poolQueries].map((q) => q.replace(/\s+/g, ' ').slice(0, 140)).join('\n'));
  return { prisma: db.queries.length, pool: poolQueries.length, size: size(body) };
}

const rest = (url: string) => async () => {
  const r = await app.inject({ url });
  expect(r.statusCode, url).toBe(200);
  return r.json();
};

const graphql = (query: string) => async () => {
  const r = await app.inject({ method: 'POST', url: '/graphql', payload: { query } });
  const body = r.json();
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
};

/** A product linking the listings `keys` (fixture metadata); made once per key set. */
const linked = new Map<string, number>();
async function linkedProduct(keys: string[]): Promise<number> {
  const known = linked.get(keys.join());
  if (known !== undefined) return known;
  const { rows } = await db.pool.query<{ id: number }>(`INSERT INTO product (name) VALUES ('n+1 small') RETURNING id`);
  const ids = keys.map((k) => seed.listingIds.get(k));
  const r = await db.pool.query(`UPDATE listing SET product_id = $1, link_method = 'manual' WHERE id = ANY($2::int[]) AND product_id IS NULL`, [rows[0].id, ids]);
  expect(r.rowCount).toBe(keys.length);
  linked.set(keys.join(), rows[0].id);
  return rows[0].id;
}

/** Asserts equal query counts for a small and a large result. */
function expectFlat(small: Count, large: Count): void {
  expect(large.size).toBeGreaterThan(small.size);
  expect({ prisma: large.prisma, pool: large.pool }).toEqual({ prisma: small.prisma, pool: small.pool });
}

beforeAll(async () => {
  db = await createTestDatabase('nplus1');
  seed = await seedRealPrices(db.pool);
  // A second product linking twelve more real Woolworths listings (the link is fixture metadata).
  const ids = [...seed.listingIds].filter(([k]) => k.startsWith('woolworths:')).slice(0, 12).map(([, id]) => id);
  const { rows } = await db.pool.query<{ id: number }>(`INSERT INTO product (name) VALUES ('n+1 probe') RETURNING id`);
  probeProductId = rows[0].id;
  await db.pool.query(`UPDATE listing SET product_id = $1, link_method = 'manual' WHERE id = ANY($2::int[]) AND product_id IS NULL`, [
    probeProductId,
    ids,
  ]);
  // The response cache off (CACHE_MAX_BYTES=0): these cases count the statements of running the
  // operations, and edit rows by hand between requests (no write job, so no data version bump).
  app = await createServer({ db: { prisma: db.prisma, pool: countingPool(db.pool) }, env: loadEnv({ LOG_LEVEL: 'silent', CACHE_MAX_BYTES: '0' }) });
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('query counts do not grow with result size', () => {
  it('search_listings', async () => {
    const small = await measure(rest('/api/v1/listings?limit=2'), (b) => b.length);
    const large = await measure(rest('/api/v1/listings?limit=100'), (b) => b.length);
    expectFlat(small, large);
    expect(large.prisma + large.pool).toBeLessThanOrEqual(6);
  });

  it('search_listings with q and retailer', async () => {
    const small = await measure(rest('/api/v1/listings?q=beef&retailer=paknsave&limit=2'), (b) => b.length);
    const large = await measure(rest('/api/v1/listings?q=beef&retailer=paknsave&limit=50'), (b) => b.length);
    expectFlat(small, large);
  });

  it('search_products (groups and their offers)', async () => {
    const small = await measure(rest('/api/v1/search?q=beef&limit=2'), (b) => b.length);
    const large = await measure(rest('/api/v1/search?q=beef&limit=60'), (b) => b.length);
    expectFlat(small, large);
    // Without q (recently seen): a different path, flat too.
    expectFlat(await measure(rest('/api/v1/search?limit=50'), (b) => b.length), await measure(rest('/api/v1/search?limit=100'), (b) => b.length));
  });

  it('suggest', async () => {
    const small = await measure(rest('/api/v1/suggestions?q=beef&limit=4'), (b) => b.length);
    const large = await measure(rest('/api/v1/suggestions?q=beef&limit=12'), (b) => b.length);
    expectFlat(small, large);
  });

  it('list_stores', async () => {
    const small = await measure(rest('/api/v1/stores?retailer=woolworths'), (b) => b.length);
    const large = await measure(rest('/api/v1/stores'), (b) => b.length);
    expectFlat(small, large);
  });

  it('list_retailers (one statement for counts)', async () => {
    const c = await measure(rest('/api/v1/retailers'), (b) => b.length);
    expect(c.size).toBe(6);
    expect(c.prisma + c.pool).toBeLessThanOrEqual(2);
  });

  it('get_listing with many or few store prices', async () => {
    const few = await measure(rest(`/api/v1/listings/${seed.listingIds.get('woolworths:281082')}`), (b) => b.stores.length);
    const many = await measure(rest(`/api/v1/listings/${seed.listingIds.get('woolworths:42246')}`), (b) => b.stores.length);
    expectFlat(few, many);
  });

  it('get_product with 2 or 12 offers', async () => {
    const small = await measure(rest(`/api/v1/products/${seed.productId}`), (b) => b.offers.length);
    const large = await measure(rest(`/api/v1/products/${probeProductId}`), (b) => b.offers.length);
    expectFlat(small, large);
  });

  it('get_product with 0 or 8 alternatives', async () => {
    // Fixture metadata: one generic holding the seed's product and eight one-listing products of
    // real, still unlinked Pantry listings (the generic is this test's, not the classifier's).
    const { rows: k } = await db.pool.query<{ id: number }>(
      `INSERT INTO kind (slug, label, compare_unit) VALUES ('n-plus-1', 'N+1 probe', 'kg') RETURNING id`,
    );
    const { rows: g } = await db.pool.query<{ id: number }>(
      `INSERT INTO generic (kind_id, key, label) VALUES ($1, 'n-plus-1||', 'N+1 probe') RETURNING id`,
      [k[0].id],
    );
    const free = [...seed.listingIds].filter(([key]) => key.startsWith('woolworths:')).slice(20, 28).map(([key]) => key);
    const alternatives = await Promise.all(free.map((key) => linkedProduct([key])));
    await db.pool.query('UPDATE product SET generic_id = $1 WHERE id = ANY($2::int[])', [g[0].id, [seed.productId, ...alternatives]]);
    const none = await measure(rest(`/api/v1/products/${probeProductId}`), (b) => b.alternatives.length);
    const many = await measure(rest(`/api/v1/products/${seed.productId}`), (b) => b.alternatives.length);
    expect(many.size).toBe(8);
    expectFlat(none, many);
  });

  it('get_product_stores with one or many stores (and 12 linked listings)', async () => {
    // One PAK'nSAVE listing priced at one store (Ormiston) vs the burgers at five stores of two chains.
    const one = await linkedProduct(['paknsave:5016686-EA-000']);
    const small = await measure(rest(`/api/v1/products/${one}/stores`), (b) => b.length);
    const large = await measure(rest(`/api/v1/products/${seed.productId}/stores`), (b) => b.length);
    expect(small.size).toBe(1);
    expectFlat(small, large);
    expect(large).toMatchObject({ prisma: 0, pool: 1 });
    // Twelve linked listings cost the same one statement.
    expect(await measure(rest(`/api/v1/products/${probeProductId}/stores`), (b) => b.length)).toMatchObject({ prisma: 0, pool: 1 });
  });

  it('plan_shopping_list with 1 or 13 items priced at 1 or 6 stores: two statements, with or without retailer and location', async () => {
    // store_listing rows (the view the plan reads) from the seeded open store spans of 12 listings; removed afterwards.
    const { rows } = await db.pool.query<{ store_id: number; listing_id: number }>(
      `INSERT INTO store_listing (store_id, listing_id, day, price, promo_price, promo_kind, median, ratio)
       SELECT sp.store_id, sp.listing_id, sp.first_day, sp.price, sp.promo_price, sp.promo_kind, sp.price, 1
       FROM store_price_span sp WHERE sp.last_day IS NULL AND sp.price > 0
         AND sp.listing_id IN (SELECT DISTINCT listing_id FROM store_price_span WHERE last_day IS NULL ORDER BY listing_id LIMIT 12)
       ON CONFLICT DO NOTHING RETURNING store_id, listing_id`,
    );
    try {
      const listings = [...new Set(rows.map((r) => r.listing_id))];
      expect(listings.length).toBeGreaterThan(5);
      const size = (b: { single: unknown[]; split: unknown[] }) => b.single.length + b.split.length;
      // The small list: the listing priced at the fewest stores (whatever ids the seed drew).
      const storesOf = (id: number) => rows.filter((r) => r.listing_id === id).length;
      const fewest = listings.reduce((a, b) => (storesOf(b) < storesOf(a) ? b : a));
      const small = await measure(rest(`/api/v1/shopping-list?items=l${fewest}`), size);
      const items = [`p${seed.productId}x2`, ...listings.map((id) => `l${id}x3`)].join(',');
      const large = await measure(rest(`/api/v1/shopping-list?items=${items}&member=true&limit=20`), size);
      expect(large.size).toBeGreaterThan(small.size);
      expectFlat(small, large);
      expect(large).toMatchObject({ prisma: 0, pool: 2 });
      const near = await measure(rest(`/api/v1/shopping-list?items=${items}&retailer=woolworths&lat=-36.85&lng=174.76&radius_km=50`), size);
      expect(near).toMatchObject({ prisma: 0, pool: 2 });
    } finally {
      await db.pool.query(
        'DELETE FROM store_listing s USING unnest($1::int[], $2::int[]) AS x(store_id, listing_id) WHERE s.store_id = x.store_id AND s.listing_id = x.listing_id',
        [rows.map((r) => r.store_id), rows.map((r) => r.listing_id)],
      );
    }
  });

  it('get_product_spread with one or two chains (and 12 linked listings)', async () => {
    const one = await linkedProduct(['paknsave:5016686-EA-000']);
    const days = (b: Record<string, { day: string[] }>) => Object.values(b).reduce((sum, s) => sum + s.day.length, 0);
    const small = await measure(rest(`/api/v1/products/${one}/spread`), days);
    const large = await measure(rest(`/api/v1/products/${seed.productId}/spread`), days);
    expectFlat(small, large);
    expect(large).toMatchObject({ prisma: 0, pool: 1 });
    expect(await measure(rest(`/api/v1/products/${probeProductId}/spread`), days)).toMatchObject({ prisma: 0, pool: 1 });
  });

  it('productStores and productSpread under aliases: one statement each, batched', async () => {
    const doc = (ids: number[]) =>
      `{ ${ids.map((id, i) => `s${i}: productStores(id: ${id}) { storeId price } p${i}: productSpread(id: ${id}) { retailer spread { day n } }`).join(' ')} }`;
    const size = (d: Record<string, unknown[]>) => Object.values(d).reduce((sum, v) => sum + v.length, 0);
    const small = await measure(graphql(doc([seed.productId])), size);
    const large = await measure(graphql(doc([seed.productId, probeProductId, 777777])), size);
    expectFlat(small, large);
    expect(large).toMatchObject({ prisma: 0, pool: 2 });
  });

  it('get_basket with include=matches: 2 or 14 matched listings over several items, one statement per level', async () => {
    // Fixture metadata: real Woolworths listings matched to basket items (the matcher's output is not under test).
    await syncBasket(db.pool);
    const woolworths = [...seed.listingIds].filter(([k]) => k.startsWith('woolworths:')).map(([, id]) => id);
    const matchTo = (itemId: number, listingIds: number[]) =>
      db.pool.query(
        `INSERT INTO basket_match (item_id, listing_id, origin, valid_from, ref_price, linked_relative)
         SELECT $1, unnest($2::int[]), 'auto', '2025-01-01', 250, 1`,
        [itemId, listingIds],
      );
    await matchTo(1, woolworths.slice(0, 2));
    const matched = (b: { match_list?: unknown[] }[]) => b.reduce((sum, i) => sum + (i.match_list?.length ?? 0), 0);
    const small = await measure(rest('/api/v1/basket?include=matches'), matched);
    await matchTo(2, woolworths.slice(2, 6));
    await matchTo(40, woolworths.slice(6, 10));
    await matchTo(100, woolworths.slice(10, 14));
    const large = await measure(rest('/api/v1/basket?include=matches'), matched);
    expect([small.size, large.size]).toEqual([2, 14]);
    expectFlat(small, large);
    // The items, their matches, the matched listings' latest national spans.
    expect(large).toMatchObject({ prisma: 0, pool: 3 });
    // Without include, the items alone; one basket item with its listings: the same three.
    expect(await measure(rest('/api/v1/basket'), (b) => b.length)).toMatchObject({ prisma: 0, pool: 1, size: 155 });
    const one = await measure(rest('/api/v1/basket/1'), (b) => b.listings.length);
    const four = await measure(rest('/api/v1/basket/40'), (b) => b.listings.length);
    expectFlat(one, four);
    expect(four).toMatchObject({ prisma: 0, pool: 3 });
  });

  it('nested GraphQL: listings with retailer, product, offers, stores and stats', async () => {
    // The small run reaches every level with cache misses: one linked burger listing whose product
    // also offers the other chain's listing, which the offer-level loaders fetch in a second batch.
    // Loader batches are per level, so the large run may only save statements (offers it already
    // loaded as listings come from the dataloader cache).
    const query = (q: string, n: number) => `{
      searchListings(q: "${q}", limit: ${n}) {
        id retailerSlug retailerName storesTotal storeCount available lastSeen
        retailer { slug listingCount storeCount }
        current { price promoPrice }
        stores { storeId price }
        stats { day n }
        product { id retailers gtins offers { id retailerSlug available stores storesTotal current { price } } }
      }
    }`;
    const linked = (d: any) => d.searchListings.filter((l: { product: unknown }) => l.product).length;
    const small = await measure(graphql(query('honest beef burgers with smok', 1)), (d) => {
      expect(linked(d)).toBe(1);
      return d.searchListings.length;
    });
    const large = await measure(graphql(query('beef', 100)), (d) => {
      expect(linked(d)).toBeGreaterThan(1);
      return d.searchListings.length;
    });
    expect(large.size).toBeGreaterThan(small.size);
    expect(large.prisma).toBe(small.prisma);
    expect(large.pool).toBeLessThanOrEqual(small.pool);
  });
});

describe('query counts of the store-level views do not grow with result size', () => {
  /** Store ids: PAK'nSAVE's three (the small run) and all six (the large one). */
  let paknsave: number[];
  let all: number[];
  /** Real listings of a chain (ids), to fill store_listing with. */
  const chainListings = (slug: string) => [...seed.listingIds].filter(([k]) => k.startsWith(`${slug}:`)).map(([, id]) => id);

  /** Fixture metadata: the views' rows as workers/views writes them (values arbitrary, not under test). */
  beforeAll(async () => {
    const { rows } = await db.pool.query<{ id: number; slug: string }>(
      `SELECT s.id, r.slug FROM store s JOIN retailer r ON r.id = s.retailer_id WHERE s.active ORDER BY s.id`,
    );
    all = rows.map((r) => r.id);
    paknsave = rows.filter((r) => r.slug === 'paknsave').map((r) => r.id);
    expect([paknsave.length, all.length]).toEqual([3, 6]);
    await db.pool.query(
      `INSERT INTO store_level (store_id, day, level, n_items, groups, spread, listings_priced, club, sale, multibuy)
       SELECT id, '2026-08-03', 1 + id / 100.0, 20 + id,
              '[{"code":"fruit","name":"Fruit","level":1.01,"n":5},{"code":"meat","name":"Meat","level":0.98,"n":6}]',
              array_fill(id, ARRAY[22]), 22 * id, 1, 2, 3
       FROM unnest($1::int[]) AS id`,
      [all],
    );
    await db.pool.query(
      `INSERT INTO store_level_day (store_id, day, level, n_items)
       SELECT id, d::date, 1.01, 25 FROM unnest($1::int[]) AS id, generate_series('2026-05-01'::date, '2026-08-03'::date, '1 day') AS d`,
      [all],
    );
    // Every store prices up to 40 of its chain's listings; one in three on a special, one in five a multibuy.
    for (const { id, slug } of rows) {
      await db.pool.query(
        `INSERT INTO store_listing (store_id, listing_id, day, price, promo_price, promo_kind, median, ratio)
         SELECT $1, l, '2026-08-03', 100 + k * 7, CASE WHEN k % 3 = 0 THEN 90 + k * 6 END, CASE WHEN k % 3 = 0 THEN 1 WHEN k % 5 = 0 THEN 3 END,
                140, (100 + k * 7) / 140.0
         FROM unnest($2::int[]) WITH ORDINALITY AS x(l, k)`,
        [id, chainListings(slug).slice(0, 40)],
      );
    }
  });

  it('list_stores with levels: PAK\'nSAVE (3) or all (6) stores, one statement for the stores and one for their panels', async () => {
    const small = await measure(rest('/api/v1/stores?retailer=paknsave'), (b) => b.length);
    const large = await measure(rest('/api/v1/stores'), (b) => {
      expect(b.every((s: { level: number | null }) => s.level !== null)).toBe(true);
      return b.length;
    });
    expectFlat(small, large);
    expect(large.pool).toBe(1);
  });

  it('get_store with few or many priced listings and deals', async () => {
    const size = (b: { dearer: unknown[]; cheaper: unknown[]; deals: unknown[] }) => b.dearer.length + b.cheaper.length + b.deals.length;
    await db.pool.query(`DELETE FROM store_listing WHERE store_id = $1 AND listing_id NOT IN (SELECT listing_id FROM store_listing WHERE store_id = $1 ORDER BY listing_id LIMIT 4)`, [paknsave[0]]);
    const few = await measure(rest(`/api/v1/stores/${paknsave[0]}`), size);
    const many = await measure(rest(`/api/v1/stores/${all.find((id) => !paknsave.includes(id))}`), size);
    expectFlat(few, many);
    // The store (Prisma), its panel, extremes, deals, and the deal cards' latest national spans.
    expect(many.prisma + many.pool).toBeLessThanOrEqual(6);
    const pages = (n: number) => measure(rest(`/api/v1/stores/${all[0]}/listings?limit=${n}`), (b) => b.listings.length);
    expectFlat(await pages(2), await pages(40));
    const levels = (n: number) => measure(rest(`/api/v1/stores/${all[0]}/levels?days=${n}`), (b) => b.days.length);
    expectFlat(await levels(7), await levels(90));
  });

  it('GraphQL: 3 or 6 stores with levels, groups, spread, extremes, deals, a page of listings and a level series each', async () => {
    const doc = (retailer: string | null) => `{
      stores${retailer ? `(retailer: "${retailer}")` : ''} {
        id level nItems club sale multibuy day listingsPriced
        groups { code level n }
        spread { bucket n }
        dearer { id ratio available }
        cheaper { id ratio }
        deals { id promoPrice multibuyQty available }
        listings(limit: 5) { total listings { id ratio } }
        a: levelSeries(days: 7) { days level }
        b: levelSeries(days: 30) { items }
      }
      areas { regions { key level } }
    }`;
    const size = (d: { stores: { deals: unknown[]; listings: { listings: unknown[] } }[] }) =>
      d.stores.reduce((n, s) => n + 1 + s.deals.length + s.listings.listings.length, 0);
    const small = await measure(graphql(doc('paknsave')), size);
    const large = await measure(graphql(doc(null)), size);
    expectFlat(small, large);
  });
});

describe('query counts of the chain and deals views do not grow with result size', () => {
  /** Fixture metadata: the views' rows as workers/views writes them (values arbitrary, not under test). */
  beforeAll(async () => {
    await syncBasket(db.pool);
    await db.pool.query(
      `INSERT INTO index_run (id, first_day, last_day, anchor, basket_digest, state) VALUES (1, '2024-01-01', '2025-05-03', '{}', 'test', '{}')
       ON CONFLICT (id) DO NOTHING`,
    );
    await db.pool.query(
      `INSERT INTO index_day (group_id, day, raw, anchored, coverage, items, listings)
       SELECT 0, d::date, 1000, NULL, 0.5, 10, 20 FROM generate_series('2024-01-01'::date, '2025-05-03'::date, '1 day') AS d
       ON CONFLICT DO NOTHING`,
    );
  });

  it('list_deals: 2 or 40 deals, with retailer and q; the GraphQL feed with each listing\'s deals', async () => {
    const { rows } = await db.pool.query<{ id: number }>(
      `SELECT l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id
       WHERE r.slug = 'woolworths' AND EXISTS (SELECT 1 FROM national_price_span n WHERE n.listing_id = l.id) ORDER BY l.id LIMIT 40`,
    );
    expect(rows).toHaveLength(40);
    await db.pool.query(
      `INSERT INTO deal (kind, listing_id, retailer_id, day, price, saving, saving_pct)
       SELECT k, l.id, l.retailer_id, '2025-05-03', 500, 100 + l.id % 7, 0.2 FROM listing l, unnest(ARRAY['special', 'member']) AS k WHERE l.id = ANY($1::int[])`,
      [rows.map((r) => r.id)],
    );
    const size = (b: { listings: unknown[] }) => b.listings.length;
    expectFlat(await measure(rest('/api/v1/deals?limit=2'), size), await measure(rest('/api/v1/deals?limit=40'), size));
    const small = await measure(rest('/api/v1/deals?limit=2&retailer=woolworths&q=a'), size);
    const large = await measure(rest('/api/v1/deals?limit=96&retailer=woolworths&q=a'), size);
    expectFlat(small, large);
    // The slug, the feed, the cards' listing rows (Prisma), their latest national spans.
    expect(large.prisma + large.pool).toBeLessThanOrEqual(5);
    const doc = (n: number) => `{ deals(limit: ${n}) { total listings { id retailerSlug available current { price } deals { kind saving } retailer { slug level { level } } } } }`;
    expectFlat(await measure(graphql(doc(2)), (d) => d.deals.listings.length), await measure(graphql(doc(40)), (d) => d.deals.listings.length));
  });

  it('browse_retailer: 2 or 120 listings, at the top, in a category and with q (two statements and the prices); the GraphQL browse with prices', async () => {
    const { buildRetailerCategories } = await import('../../workers/views/categories.js');
    const { inTransaction } = await import('../../src/db/transaction.js');
    await inTransaction(db.pool, (client) => buildRetailerCategories(client));
    const { rows } = await db.pool.query<{ path: string[] }>(
      `SELECT c.path FROM retailer_category c JOIN retailer r ON r.id = c.retailer_id
       WHERE r.slug = 'woolworths' AND cardinality(c.path) = 1 ORDER BY c.listings DESC LIMIT 1`,
    );
    const c = `c=${encodeURIComponent(rows[0].path[0])}`;
    const size = (b: { listings: unknown[] }) => b.listings.length;
    for (const query of ['', `${c}&`, 'q=a&']) {
      const small = await measure(rest(`/api/v1/retailers/woolworths/browse?${query}limit=2`), size);
      const large = await measure(rest(`/api/v1/retailers/woolworths/browse?${query}limit=120`), size);
      expectFlat(small, large);
      // The node, the children and page (one statement) and the cards' latest national spans (pool);
      // the browse's retailer, the cards' listing rows and their retailers (Prisma).
      expect(large.pool, query).toBe(3);
      expect(large.prisma + large.pool, query).toBeLessThanOrEqual(6);
    }
    const doc = (n: number) => `{ retailerBrowse(slug: "woolworths", limit: ${n}) { total retailer { slug listingCount } categories { label listings } listings { id available current { price } retailer { slug } } } }`;
    expectFlat(
      await measure(graphql(doc(2)), (d) => d.retailerBrowse.listings.length),
      await measure(graphql(doc(120)), (d) => d.retailerBrowse.listings.length),
    );
  });

  it('check_special with 0 or 2 checks (two statements); the GraphQL deals feed with each deal\'s check and listing\'s checks', async () => {
    const { rows } = await db.pool.query<{ id: number }>(
      `SELECT l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id
       WHERE r.slug = 'woolworths' AND EXISTS (SELECT 1 FROM national_price_span n WHERE n.listing_id = l.id) ORDER BY l.id LIMIT 40`,
    );
    const ids = rows.map((r) => r.id);
    await db.pool.query(
      `INSERT INTO deal (kind, listing_id, retailer_id, day, price, saving, saving_pct)
       SELECT k, l.id, l.retailer_id, '2025-05-03', 500, 100 + l.id % 7, 0.2 FROM listing l, unnest(ARRAY['special', 'member']) AS k WHERE l.id = ANY($1::int[])
       ON CONFLICT DO NOTHING`,
      [ids],
    );
    await db.pool.query(
      `INSERT INTO special_check (kind, listing_id, promo_price, shelf_price, promo_since, window_from, window_to, days_observed, promo_days,
                                  usual_price, lowest_price, lowest_shelf_price, rise_from, rise_to, rise_day, saving_vs_usual, verdict)
       SELECT d.kind, d.listing_id, 400, 500, '2025-04-01', '2025-01-01', '2025-03-31', 90, 0, 500, 500, 500, 450, 500, '2025-03-20', 100, 'genuine'
       FROM deal d WHERE d.listing_id = ANY($1::int[]) ON CONFLICT DO NOTHING`,
      [ids],
    );
    const none = await db.pool.query<{ id: number }>(`SELECT id FROM listing WHERE id <> ALL($1::int[]) ORDER BY id LIMIT 1`, [ids]);
    const size = (b: { checks: unknown[] }) => b.checks.length;
    const small = await measure(rest(`/api/v1/listings/${none.rows[0].id}/special`), size);
    const large = await measure(rest(`/api/v1/listings/${ids[0]}/special`), size);
    expect([small.size, large.size]).toEqual([0, 2]);
    expectFlat(small, large);
    // The listing row (Prisma) and its checks.
    expect(large.prisma + large.pool).toBeLessThanOrEqual(2);
    const doc = (n: number) => `{ deals(limit: ${n}) { listings { id deals { kind check { verdict shelfRise { from } } } specialChecks { kind promoPrice } } } }`;
    expectFlat(await measure(graphql(doc(2)), (d) => d.deals.listings.length), await measure(graphql(doc(40)), (d) => d.deals.listings.length));
  });

  it('compare_retailers with 1 or 20 priced items (five statements)', async () => {
    await db.pool.query(
      `INSERT INTO chain_level_day (retailer_id, group_id, day, level, items)
       SELECT r.id, g, '2025-05-03', 1, 20 FROM retailer r, generate_series(0, 4) AS g WHERE r.slug IN ('woolworths', 'paknsave')`,
    );
    const price = (items: number) =>
      db.pool.query(
        `INSERT INTO chain_item_price (item_id, retailer_id, price, listings)
         SELECT i.id, r.id, 100 + i.id, 1 FROM (SELECT id FROM basket_item ORDER BY id LIMIT $1) i, retailer r
         WHERE r.slug IN ('woolworths', 'paknsave') ON CONFLICT DO NOTHING`,
        [items],
      );
    await price(1);
    const small = await measure(rest('/api/v1/retailers/compare'), (b) => b.items.length);
    await price(20);
    const large = await measure(rest('/api/v1/retailers/compare'), (b) => b.items.length);
    expectFlat(small, large);
    expect(large).toMatchObject({ prisma: 0, pool: 5 });
  });

  it('get_retailer_levels over 7 or 365 days (two statements); retailers with level, group levels and series batched', async () => {
    await db.pool.query(
      `INSERT INTO chain_level_day (retailer_id, group_id, day, level, items)
       SELECT r.id, 0, d::date, 1, 20 FROM retailer r, generate_series('2024-06-01'::date, '2025-05-02'::date, '1 day') AS d
       WHERE r.slug IN ('woolworths', 'paknsave') ON CONFLICT DO NOTHING`,
    );
    const small = await measure(rest('/api/v1/retailers/levels?days=7'), (b) => b.days.length);
    const large = await measure(rest('/api/v1/retailers/levels?days=365'), (b) => b.days.length);
    expectFlat(small, large);
    expect(large).toMatchObject({ prisma: 0, pool: 2 });
    // Six chains, each with its latest levels and two series: one read of the levels, one window read per distinct window.
    const doc = (days: number) => `{ retailers { slug level { level } groupLevels { code level } a: levelSeries(days: ${days}) { level } b: levelSeries(days: 30) { items } } }`;
    const few = await measure(graphql(doc(7)), (d) => d.retailers.reduce((s: number, r: { a: { level: unknown[] } }) => s + r.a.level.length, 0));
    const many = await measure(graphql(doc(365)), (d) => d.retailers.reduce((s: number, r: { a: { level: unknown[] } }) => s + r.a.level.length, 0));
    expectFlat(few, many);
    expect(many.pool).toBe(1 + 2 * 2);
  });
});

describe('query counts of the shelves view do not grow with result size', () => {
  it('browse_shelf: 2 or 40 products, with filters; list_shelves; nested GraphQL shelves and a page with offers, shelves and unit prices', async () => {
    // shelf_product rows (the view browse_shelf reads) for 40 real listings with a national span, as
    // unlinked groups on Fresh milk; shelf_count as the worker writes it. Removed afterwards.
    const { rows } = await db.pool.query<{ id: number; generic_id: number | null; product_id: number | null; product_generic: number | null }>(
      `SELECT l.id, l.generic_id, l.product_id, (SELECT p.generic_id FROM product p WHERE p.id = l.product_id) AS product_generic FROM listing l WHERE EXISTS (SELECT 1 FROM national_price_span n WHERE n.listing_id = l.id)
       ORDER BY l.product_id IS NULL, l.id LIMIT 40`,
    );
    expect(rows).toHaveLength(40);
    // Every one of them of a generic of kind milk (its shelf is loaded), restored afterwards; linked listings first in the
    // popular order (rank), so the small page loads a product's view row as the large one does.
    const { rows: kind } = await db.pool.query<{ id: number }>(
      `INSERT INTO kind (slug, label, compare_unit, shelf_slug, shelf_label) VALUES ('milk', 'Milk', 'l', 'fresh-milk', 'Fresh milk')
       ON CONFLICT (slug) DO UPDATE SET shelf_slug = 'fresh-milk' RETURNING id`,
    );
    const { rows: generic } = await db.pool.query<{ id: number }>(
      `INSERT INTO generic (kind_id, key, label) VALUES ($1, 'milk|n+1|1l', 'Milk, 1 L') RETURNING id`,
      [kind[0].id],
    );
    await db.pool.query(`UPDATE listing SET generic_id = $1 WHERE id = ANY($2::int[])`, [generic[0].id, rows.map((r) => r.id)]);
    const products = rows.filter((r) => r.product_id !== null);
    await db.pool.query(`UPDATE product SET generic_id = $1 WHERE id = ANY($2::int[])`, [generic[0].id, products.map((r) => r.product_id)]);
    // Linked listings first (most stores: first in the popular order), so the small page has a product too.
    await db.pool.query(
      `INSERT INTO shelf_product (group_key, listing_id, shelf_slug, kind_slug, name, chains, stores, retailer_ids, listing_ids, shelf_prices,
                                  best_prices, promo_kinds, per_units, best_at, price, per_unit, discount, search_doc,
                                  rank_popular, rank_price, rank_price_desc, rank_per_unit, rank_per_unit_desc, rank_deal)
       SELECT 'l' || l.id, l.id, 'fresh-milk', 'milk', l.name, 1, CASE WHEN l.product_id IS NULL THEN l.id % 3 ELSE 10 END, ARRAY[l.retailer_id], ARRAY[l.id], ARRAY[500 + l.id % 50],
              ARRAY[(450 + l.id % 50)::float8], ARRAY[1::smallint], ARRAY[(100 + l.id % 9)::float8], 1, 450 + l.id % 50, 100 + l.id % 9,
              0.1, to_tsvector('simple', l.name), array_position($1::int[], l.id), l.id, l.id, l.id, l.id, l.id
       FROM listing l WHERE l.id = ANY($1::int[])`,
      [rows.map((r) => r.id)],
    );
    await db.pool.query(`INSERT INTO shelf_count (slug, products) VALUES ('fresh-milk', 40), ('milk-cream', 40), ('fridge-deli', 40)`);
    await db.pool.query(
      `INSERT INTO shelf_facet (kind_slug, retailer_id, products, deals)
       SELECT 'milk', r, count(*), count(*) FROM shelf_product, unnest(retailer_ids || 0) AS r GROUP BY r`,
    );
    try {
      const size = (b: { products: unknown[] }) => b.products.length;
      expectFlat(await measure(rest('/api/v1/shelves/fresh-milk?limit=2'), size), await measure(rest('/api/v1/shelves/fresh-milk?limit=40'), size));
      const small = await measure(rest('/api/v1/shelves/fridge-deli?limit=2&sort=per_unit&retailer=woolworths&deals=1&kind=milk'), size);
      const large = await measure(rest('/api/v1/shelves/fridge-deli?limit=40&sort=per_unit&retailer=woolworths&deals=1&kind=milk'), size);
      expectFlat(small, large);
      // Pool: the retailer slug, the stored facet counts and the page (two statements), the shelf counts, the latest spans; Prisma: the groups' offer rows
      // and products with their retailers and generics (as search_products reads them).
      expect(large.pool).toBe(5);
      expect(large.prisma).toBeLessThanOrEqual(7);
      expect(await measure(rest('/api/v1/shelves'), (b: unknown[]) => b.length)).toMatchObject({ prisma: 0, pool: 1 });
      const doc = (n: number) => `{ shelves { slug productCount children { slug productCount crumbs { slug productCount } children { slug productCount } } }
        shelf(slug: "fridge-deli", limit: ${n}) { total shelf { productCount } crumbs { productCount } children { productCount }
          products { productId best { price } perUnit offers { id perUnit current { price } shelf { slug productCount crumbs { slug } }
            product { id perUnit shelf { slug productCount } } } } } }`;
      expectFlat(await measure(graphql(doc(2)), (d) => d.shelf.products.length), await measure(graphql(doc(40)), (d) => d.shelf.products.length));
    } finally {
      await db.pool.query(`DELETE FROM shelf_product; DELETE FROM shelf_count; DELETE FROM shelf_facet`);
      await db.pool.query(
        `UPDATE listing l SET generic_id = x.g FROM unnest($1::int[], $2::int[]) AS x(id, g) WHERE l.id = x.id`,
        [rows.map((r) => r.id), rows.map((r) => r.generic_id)],
      );
      await db.pool.query(
        `UPDATE product p SET generic_id = x.g FROM unnest($1::int[], $2::int[]) AS x(id, g) WHERE p.id = x.id`,
        [products.map((r) => r.product_id), products.map((r) => r.product_generic)],
      );
      await db.pool.query(`DELETE FROM generic WHERE id = $1`, [generic[0].id]);
    }
  });
});

describe('query counts of nested dashboard queries (issue 20) do not grow with result size', () => {
  /** 20 more active Woolworths stores with level panels (fixture metadata), removed afterwards. */
  let added: number[] = [];
  beforeAll(async () => {
    const { rows } = await db.pool.query<{ id: number }>(
      `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area, active, last_day, covered_day)
       SELECT r.id, 'n+1-' || k, 'N+1 store ' || k, -36.8, 174.7, 'Auckland', 'Auckland', true, '2025-05-03', '2025-05-03'
       FROM retailer r, generate_series(1, 20) AS k WHERE r.slug = 'woolworths' RETURNING id`,
    );
    added = rows.map((r) => r.id);
    await db.pool.query(
      `INSERT INTO store_level (store_id, day, level, n_items, groups, spread, listings_priced, club, sale, multibuy)
       SELECT id, '2025-05-03', 1 + id % 5 / 100.0, 25, '[]', array_fill(0, ARRAY[22]), 0, 0, 0, 0 FROM unnest($1::int[]) AS id`,
      [added],
    );
    await db.pool.query(
      `INSERT INTO index_day (group_id, day, raw, anchored, coverage, items, listings)
       SELECT 0, d::date, 1000, NULL::float8, 0.5, 10, 20 FROM generate_series('2025-04-01'::date, '2025-05-03'::date, '1 day') AS d
       ON CONFLICT DO NOTHING`,
    );
  });
  afterAll(async () => {
    await db.pool.query(`DELETE FROM store_level WHERE store_id = ANY($1::int[])`, [added]);
    await db.pool.query(`DELETE FROM store WHERE id = ANY($1::int[])`, [added]);
  });

  const edges = (c: { edges: unknown[] }) => c.edges.length;

  it('retailers → stores(first: 2 or 20) → id, level (and its series) beside the index series', async () => {
    const issue = (n: number) => `{ retailers { slug stores(first: ${n}) { edges { node { id level } } } } indexSeries(group: 0) { day raw } }`;
    const size = (d: { retailers: { stores: { edges: unknown[] } }[] }) => d.retailers.reduce((s, r) => s + edges(r.stores), 0);
    const small = await measure(graphql(issue(2)), size);
    const large = await measure(graphql(issue(20)), size);
    expectFlat(small, large);
    // Prisma: the chains with their stores' pages (one statement each); pool: the level panels, the index series.
    expect(large.prisma + large.pool).toBeLessThanOrEqual(5);
    const fuller = (n: number) => `{ retailers { slug storeCount stores(first: ${n}) { totalCount pageInfo { hasNextPage endCursor }
        edges { node { id name day level nItems groups { code level } levelSeries(days: 7) { level } } } } }
      indexSeries(group: 0, from: "2025-04-01", to: "2025-05-03") { day raw } }`;
    expectFlat(await measure(graphql(fuller(2)), size), await measure(graphql(fuller(20)), size));
  });

  it('a chain\'s listings (2 or 50) and a product\'s listings (2 or 12) with prices, histories, deals and products', async () => {
    const chain = (n: number) => `{ retailers { slug listings(first: ${n}, filter: { available: true }) { totalCount
        edges { node { id name current { price } history(from: "2025-01-01") { from price } deals { kind } product { id name } } } } } }`;
    const size = (d: { retailers: { listings: { edges: unknown[] } }[] }) => d.retailers.reduce((s, r) => s + edges(r.listings), 0);
    const small = await measure(graphql(chain(2)), size);
    const large = await measure(graphql(chain(50)), size);
    expectFlat(small, large);
    const product = (n: number) => `{ product(id: ${probeProductId}) { name listings(first: ${n}) { totalCount
        edges { node { id retailerSlug current { price } history { price } atStore: history(store: 1) { price } stores { price } } } } } }`;
    expectFlat(
      await measure(graphql(product(2)), (d) => edges(d.product.listings)),
      await measure(graphql(product(12)), (d) => edges(d.product.listings)),
    );
  });

  it('lows (issue 32): 2 or 50 listings of a search and their products with Listing.lows and Product.lows, two minDays', async () => {
    const low = '{ price day days stores listingId retailer }';
    const lows = (args: string) => `lows${args} { asOf minDays last90Days ${low} last365Days ${low} allTime ${low} }`;
    const search = (n: number) => `{ searchListings(limit: ${n}) { id ${lows('')} one: ${lows('(minDays: 1)')} product { id ${lows('')} } } }`;
    const size = (d: { searchListings: unknown[] }) => d.searchListings.length;
    const lowsStatements = () => poolQueries.filter((q) => q.includes('AS paid') && q.includes('national_price_span sp')).length;
    const small = await measure(graphql(search(2)), size);
    const smallLows = lowsStatements();
    const large = await measure(graphql(search(50)), size);
    expect(large.size).toBeGreaterThan(small.size);
    // One lows statement per kind and minDays (listings at 2, at 1, products at 2) however many rows;
    // the two recent listings may have no product (then one statement fewer), so the totals are not compared.
    expect(lowsStatements()).toBe(3);
    expect(smallLows).toBeLessThanOrEqual(3);
    expect(large.prisma).toBe(small.prisma);
    expect(large.pool).toBeLessThanOrEqual(small.pool + 1);
    // REST: the listing row (Prisma) and one lows statement; a product likewise.
    const id = seed.listingIds.get('woolworths:42246');
    const listing = await measure(rest(`/api/v1/listings/${id}/lows`), () => 1);
    expect(listing.prisma + listing.pool).toBeLessThanOrEqual(2);
    const product = await measure(rest(`/api/v1/products/${probeProductId}/lows`), () => 1);
    expect(product.prisma + product.pool).toBeLessThanOrEqual(2);
  });

  it('the basket\'s matches with their listings and products (one item or every item)', async () => {
    const { rows } = await db.pool.query<{ id: number }>(`SELECT id FROM basket_item WHERE active ORDER BY id LIMIT 3`);
    const { rows: ls } = await db.pool.query<{ id: number }>(
      `SELECT id FROM listing WHERE product_id IS NOT NULL AND id NOT IN (SELECT listing_id FROM basket_match) ORDER BY id LIMIT 6`,
    );
    await db.pool.query(
      `INSERT INTO basket_match (item_id, listing_id, origin, valid_from) SELECT ($1::int[])[1 + ((k - 1) % 3)::int], l, 'manual', '2025-01-01'
       FROM unnest($2::int[]) WITH ORDINALITY AS x(l, k)`,
      [rows.map((r) => r.id), ls.map((r) => r.id)],
    );
    try {
      const doc = (id: number) => `{ basketItem(id: ${id}) { matches { listingId price listing { id name retailerSlug product { id name } } } } }`;
      const all = `{ basket { id matches { listingId price listing { id name retailerSlug product { id name } } } } }`;
      const one = await measure(graphql(doc(rows[0].id)), (d) => d.basketItem.matches.length);
      const every = await measure(graphql(all), (d) => d.basket.reduce((s: number, i: { matches: unknown[] }) => s + i.matches.length, 0));
      expect(every.size).toBeGreaterThan(one.size);
      expect(every.prisma).toBe(one.prisma);
      expect(every.prisma + every.pool).toBeLessThanOrEqual(one.prisma + one.pool + 1);
    } finally {
      await db.pool.query(`DELETE FROM basket_match WHERE listing_id = ANY($1::int[])`, [ls.map((r) => r.id)]);
    }
  });
});
