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
  app = await createServer({ db: { prisma: db.prisma, pool: countingPool(db.pool) }, env: loadEnv({ LOG_LEVEL: 'silent' }) });
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
        retailer { slug listings stores }
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
