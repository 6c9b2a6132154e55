/**
 * /graphql hardening through the assembled server (app.inject) against a real PostgreSQL holding
 * real prices: shape limits (depth, cost, aliases, tokens, directives, field suggestions), per-field
 * rate limits per client address, masked errors by NODE_ENV, and every persisted document of the
 * facades running through /graphql within those limits.
 */
import type { FastifyInstance } from 'fastify';
import { getIntrospectionQuery } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE_PER_MINUTE, FIELD_LIMITS, SEARCH_PER_MINUTE, WindowStore } from '../../facades/graphql/field-limits.js';
import { MAX_ALIASES, MAX_COST, MAX_DEPTH, MAX_DIRECTIVES, MAX_TOKENS } from '../../facades/graphql/limits.js';
import { documentText, operations } from '../../facades/operations.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer } from '../../facades/server.js';
import { loadEnv, type Env } from '../../src/env.js';
import { schema } from '../../src/graph/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { failingPool } from '../helpers/fixtures.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';
import { syncBasket } from '../../workers/index/basket.js';

/**
 * EXPORT_DIR with a published manifest written here (a hand-made manifest of one empty file: no
 * prices), so get_export_manifest has something to answer.
 */
const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzgp-graphql-exports-'));
fs.mkdirSync(path.join(exportDir, 'v1'));
fs.writeFileSync(
  path.join(exportDir, 'v1', 'manifest.json'),
  JSON.stringify({
    day: '2026-08-03', licence: 'CC BY 4.0', generated_at: '2026-08-04T04:30:00.000Z',
    files: [{ name: 'basket.csv.gz', bytes: 20, rows: 0, sha256: '0'.repeat(64) }],
  }),
);
fs.symlinkSync('v1', path.join(exportDir, 'latest'));
const envFor = (NODE_ENV: Env['NODE_ENV']) => loadEnv({ LOG_LEVEL: 'silent', NODE_ENV, EXPORT_DIR: exportDir });

let db: TestDatabase;
let seed: Seeded;
let app: FastifyInstance;
/** Closed pool (every raw SQL query fails: a database outage), Prisma still open. */
let closed: pg.Pool;
/** A pool that fails unexpectedly (not an outage). Before issue 13 a closed pool served for this; it is now an outage (503). */
const broken = failingPool();
const extra: FastifyInstance[] = [];

interface GqlError {
  message: string;
  extensions?: Record<string, unknown> & { code?: string };
}
interface Gql {
  status: number;
  headers: Record<string, unknown>;
  raw: string;
  body: { data?: Record<string, unknown> | null; errors?: GqlError[] };
}

/** POSTs a document to /graphql from client address `ip`. */
async function gql(
  server: FastifyInstance,
  query: string,
  { ip = '192.0.2.1', variables, operationName }: { ip?: string; variables?: Record<string, unknown>; operationName?: string } = {},
): Promise<Gql> {
  const r = await server.inject({
    method: 'POST',
    url: '/graphql',
    remoteAddress: ip,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    payload: JSON.stringify({ query, variables, operationName }),
  });
  return { status: r.statusCode, headers: r.headers, raw: r.body, body: r.json() };
}

/** A second server on the same database (`pool`: `broken` fails unexpectedly, `closed` is an outage). */
async function serverFor(NODE_ENV: Env['NODE_ENV'], pool?: 'broken' | 'closed'): Promise<FastifyInstance> {
  const failing = pool === 'broken' ? broken : pool === 'closed' ? closed : null;
  const s = await createServer({ db: failing ? { prisma: db.prisma, pool: failing } : db, env: envFor(NODE_ENV) });
  extra.push(s);
  return s;
}

/** Asserts a refusal by a shape limit: a GraphQL error naming the limit, no data, not a 5xx. */
function expectRefused(r: Gql, pattern: RegExp): void {
  expect(r.status, r.raw).toBeLessThan(500);
  expect(r.body.data ?? null).toBeNull();
  expect(r.body.errors?.map((e) => e.message).join('\n')).toMatch(pattern);
}

const listingId = () => seed.listingIds.get('woolworths:42246') as number;
/** A seeded store (Woolworths Auckland Victoria Street West). */
const storeId = () => seed.storeIds.get('882226') as number;
const nested = (levels: number) => {
  // listing → product → offers → listing → product → offers → …, `levels` fields deep in all.
  const path = ['listing(id: $id)', 'product', 'offers', 'listing', 'product', 'offers', 'listing', 'product', 'offers'];
  const fields = path.slice(0, levels - 1);
  return `query ($id: Int!) { ${fields.map((f) => `${f} { `).join('')}id${' }'.repeat(fields.length)} }`;
};
const STACK = /\bat .*:\d+:\d+/;

beforeAll(async () => {
  db = await createTestDatabase('graphql');
  seed = await seedRealPrices(db.pool);
  closed = new pg.Pool({ connectionString: db.url });
  await closed.end();
  app = await createServer({ db, env: envFor('test') });
});

afterAll(async () => {
  for (const s of extra) await s.close();
  await app?.close();
  await db?.drop();
  fs.rmSync(exportDir, { recursive: true, force: true });
});

describe('shape limits', () => {
  it(`refuses a document deeper than ${MAX_DEPTH} levels before running it, and runs one at the limit`, async () => {
    const atLimit = await gql(app, nested(MAX_DEPTH), { variables: { id: listingId() } });
    expect(atLimit.body.errors, atLimit.raw).toBeUndefined();
    expect(atLimit.body.data?.listing).toBeTruthy();

    const queriesBefore = db.queries.length;
    const r = await gql(app, nested(MAX_DEPTH + 1), { variables: { id: listingId() } });
    expectRefused(r, new RegExp(`depth limit of ${MAX_DEPTH} exceeded, found ${MAX_DEPTH + 1}`));
    expect(r.body.errors?.[0].extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect(r.body.errors?.[0].message).not.toMatch(/^Syntax Error/);
    expect(db.queries.length).toBe(queriesBefore); // nothing reached the database
  });

  it(`refuses a document costing more than ${MAX_COST}`, async () => {
    const full =
      'id name brand sizeText categoryPath current { day price promoPrice promoKind } ' +
      'stores { storeId store lat lng day price promoPrice } stats { day min med max n } retailer { slug name storeCount }';
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `l${i}: listing(id: ${listingId()}) { ${full} }`).join(' ')} }`;
    expect((await gql(app, aliased(1))).body.errors).toBeUndefined();
    // A Relay page counts `first` times (graphql-armor multiplies a literal first): one page of 100
    // stores under the chains fits, three of them do not.
    const pages = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `r${i}: retailers { stores(first: 100) { edges { node { id name lat lng town area level } } } }`).join(' ')} }`;
    expect((await gql(app, `${aliased(1).slice(0, -1)} ${pages(1).slice(1)}`)).body.errors).toBeUndefined();
    const r = await gql(app, pages(3));
    expectRefused(r, new RegExp(`Cost limit of ${MAX_COST} exceeded`));
    expect(r.body.errors?.[0].extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it(`refuses more than ${MAX_ALIASES} aliases`, async () => {
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `h${i}: health`).join(' ')} }`;
    const ok = await gql(app, aliased(MAX_ALIASES));
    expect(ok.body.errors, ok.raw).toBeUndefined();
    expect(Object.keys(ok.body.data ?? {})).toHaveLength(MAX_ALIASES);
    expectRefused(await gql(app, aliased(MAX_ALIASES + 1)), new RegExp(`Aliases limit of ${MAX_ALIASES} exceeded`));
  });

  it(`refuses more than ${MAX_TOKENS} tokens while parsing`, async () => {
    // n operations `query Qi { health }` of 5 tokens each (the first one runs).
    const doc = (n: number) => Array.from({ length: n }, (_, i) => `query Q${i} { health }`).join('\n');
    const ok = await gql(app, doc(MAX_TOKENS / 5), { operationName: 'Q0' });
    expect(ok.body, ok.raw).toEqual({ data: { health: true } });
    const r = await gql(app, doc(MAX_TOKENS / 5 + 1), { operationName: 'Q0' });
    expectRefused(r, new RegExp(`^Token limit of ${MAX_TOKENS} exceeded`));
    expect(r.body.errors?.[0].extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it(`refuses more than ${MAX_DIRECTIVES} directives`, async () => {
    const doc = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `h${i}: health @include(if: true)`).join(' ')} }`;
    const ok = await gql(app, doc(MAX_DIRECTIVES));
    expect(ok.body.errors, ok.raw).toBeUndefined();
    expectRefused(await gql(app, doc(MAX_DIRECTIVES + 1)), new RegExp(`Directives limit of ${MAX_DIRECTIVES} exceeded`));
  });

  it('hides field suggestions in production only', async () => {
    const typo = '{ searchListing(q: "milk") { id } }';
    const dev = await gql(app, typo);
    expect(dev.body.errors?.[0].message).toMatch(/Did you mean "searchListings"/);
    const prod = await gql(await serverFor('production'), typo);
    expect(prod.status).toBeLessThan(500);
    expect(prod.body.errors?.[0].message).toMatch(/Cannot query field "searchListing" on type "Query"/);
    expect(prod.raw).not.toMatch(/Did you mean|searchListings/);
  });

  it('lets GraphiQL in: its page and its introspection query pass', async () => {
    const page = await app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/graphiql/i);
    const r = await gql(app, getIntrospectionQuery());
    expect(r.body.errors, r.raw).toBeUndefined();
    expect((r.body.data?.__schema as { queryType: { name: string } }).queryType.name).toBe('Query');
  });
});

describe('per-field rate limits', () => {
  it('limits every root field but health', () => {
    const fields = Object.keys(schema.getQueryType()?.getFields() ?? {});
    expect(Object.keys(FIELD_LIMITS).sort()).toEqual(fields.filter((f) => f !== 'health').sort());
    for (const max of Object.values(FIELD_LIMITS)) expect(max).toBeGreaterThanOrEqual(10);
  });

  it(`trips after ${CATALOGUE_PER_MINUTE} retailers calls a minute for one address, not for another`, async () => {
    const query = '{ retailers { slug } }';
    for (let i = 0; i < CATALOGUE_PER_MINUTE; i++) {
      const r = await gql(app, query, { ip: '198.51.100.7' });
      expect(r.status, `call ${i + 1}: ${r.raw}`).toBe(200);
      expect(r.body.data?.retailers).toHaveLength(6);
    }
    const over = await gql(app, query, { ip: '198.51.100.7' });
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('60');
    expect(over.body.data ?? null).toBeNull();
    expect(over.body.errors).toHaveLength(1);
    expect(over.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(new RegExp(`Too many retailers calls: at most ${CATALOGUE_PER_MINUTE} a minute`)),
      extensions: { code: 'RATE_LIMITED' },
    });
    expect(over.raw).not.toMatch(/"http"/); // transport details are not echoed

    // Another address has its own budget; the limited address may still use other fields.
    const other = await gql(app, query, { ip: '198.51.100.8' });
    expect(other.status).toBe(200);
    expect(other.body.data?.retailers).toHaveLength(6);
    const health = await gql(app, '{ health }', { ip: '198.51.100.7' });
    expect(health.body).toEqual({ data: { health: true } });
  });

  it('counts every aliased selection of a field', async () => {
    // Requests of ten aliased searches each: the budget is gone after a tenth as many requests.
    const search = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `s${i}: searchListings(q: "beef", limit: 1) { id }`).join(' ')} }`;
    for (let used = 0; used < SEARCH_PER_MINUTE; used += 10) {
      const r = await gql(app, search(Math.min(10, SEARCH_PER_MINUTE - used)), { ip: '203.0.113.9' });
      expect(r.status, r.raw).toBe(200);
      expect(r.body.errors).toBeUndefined();
    }
    const over = await gql(app, search(1), { ip: '203.0.113.9' });
    expect(over.status).toBe(429);
    expect(over.body.errors?.[0].message).toMatch(/Too many searchListings calls/);
  });

  it('keeps a bounded, expiring set of counters', () => {
    const store = new WindowStore(3);
    const now = Date.now();
    for (let i = 0; i < 5; i++) store.setForIdentity({ contextIdentity: `ip${i}`, fieldIdentity: 'stores' }, [now], 60_000);
    expect(store.size).toBe(3);
    expect(store.getForIdentity({ contextIdentity: 'ip0', fieldIdentity: 'stores' })).toEqual([]);
    expect(store.getForIdentity({ contextIdentity: 'ip4', fieldIdentity: 'stores' })).toEqual([now]);
    store.setForIdentity({ contextIdentity: 'old', fieldIdentity: 'stores' }, [now - 120_000], 60_000);
    expect(store.getForIdentity({ contextIdentity: 'old', fieldIdentity: 'stores' })).toEqual([]);
  });
});

describe('errors', () => {
  const failing = '{ searchListings(q: "beef") { id } }';

  it('masks an unexpected error in production, showing coded errors in full', async () => {
    const prod = await serverFor('production', 'broken');
    const r = await gql(prod, failing);
    // GraphQL over HTTP (application/json): a field error is a 200 with `data: null` and `errors`.
    expect(r.status).toBe(200);
    expect(r.body.data).toBeNull();
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors?.[0].message).toBe('Unexpected error.');
    expect(r.body.errors?.[0].extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
    expect(r.raw).not.toMatch(STACK);
    expect(r.raw).not.toMatch(/pool|originalError|stack/i);

    const missing = await gql(prod, '{ listing(id: 999999) { id } }');
    expect(missing.body.errors?.[0]).toMatchObject({ message: 'No listing 999999', extensions: { code: 'NOT_FOUND' } });
    const down = await gql(prod, '{ health }');
    expect(down.body.errors?.[0]).toMatchObject({ message: 'Database unreachable', extensions: { code: 'UNAVAILABLE' } });
    const bad = await gql(await serverFor('production'), '{ searchListings(retailer: "aldi") { id } }');
    expect(bad.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    expect(bad.body.errors?.[0].message).toMatch(/aldi/);
    expect(missing.raw + down.raw + bad.raw).not.toMatch(STACK);
  });

  it('shows the message of an unexpected error in development, never its stack trace', async () => {
    const r = await gql(await serverFor('development', 'broken'), failing);
    expect(r.body.errors?.[0].message).toBe('Unexpected error.');
    const original = r.body.errors?.[0].extensions?.originalError as { message: string; stack?: string };
    expect(original.message).toMatch(/pool/i);
    // Issue 13: no stack trace in any response body, development included (it was sent before).
    expect(original.stack).toBeUndefined();
    expect(r.raw).not.toMatch(STACK);
    // Other NODE_ENVs (test here) mask it entirely.
    const t = await gql(await serverFor('test', 'broken'), failing);
    expect(t.body.errors?.[0].extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
  });

  it('answers a database outage with 503, Retry-After and UNAVAILABLE, not a masked error', async () => {
    const r = await gql(await serverFor('production', 'closed'), failing);
    expect(r.status, r.raw).toBe(503);
    expect(r.headers['retry-after']).toMatch(/^\d+$/);
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.body.errors?.[0]).toMatchObject({ extensions: { code: 'UNAVAILABLE' } });
    expect(r.raw).not.toMatch(STACK);
    expect(r.raw).not.toMatch(/"http"|originalError/);
  });
});

describe('persisted documents', () => {
  beforeAll(async () => {
    // The basket, and a one-day index so get_index_latest has something to answer (rows as workers/index writes them).
    await syncBasket(db.pool);
    await db.pool.query(`INSERT INTO index_run (id, first_day, last_day, anchor, basket_digest, state) VALUES (1, '2025-05-03', '2025-05-03', '{}', 'test', '{}')`);
    await db.pool.query(
      `INSERT INTO index_day (group_id, day, raw, anchored, coverage, items, listings)
       SELECT g, '2025-05-03', 1000, NULL, 0.5, 10, 20 FROM generate_series(0, 4) AS g`,
    );
  });

  /** Raw (string) parameters for each operation, as REST would receive them. */
  const inputs = (): Record<string, Record<string, string>> => ({
    search_products: { q: 'beef', limit: '100' },
    search_listings: { q: 'beef', limit: '100' },
    suggest: { q: 'spag', limit: '12' },
    lookup_gtin: { gtin: '9414742351053' },
    get_product: { id: String(seed.productId) },
    get_product_history: { id: String(seed.productId) },
    get_product_lows: { id: String(seed.productId), min_days: '2' },
    get_product_stores: { id: String(seed.productId) },
    get_product_spread: { id: String(seed.productId) },
    get_listing: { id: String(listingId()) },
    get_listing_history: { id: String(listingId()), store: '0' },
    get_listing_lows: { id: String(listingId()) },
    check_special: { id: String(listingId()) },
    list_retailers: {},
    list_stores: { retailer: 'woolworths' },
    browse_retailer: { slug: 'woolworths', q: 'beef', limit: '120', offset: '0' },
    list_shelves: { q: 'milk' },
    browse_shelf: { slug: 'fridge-deli', sort: 'per_unit', retailer: 'woolworths', deals: 'true', kind: 'milk', q: 'milk', limit: '96', offset: '0' },
    compare_retailers: {},
    get_retailer_levels: { days: '3650' },
    list_deals: { kind: 'member', retailer: 'woolworths', q: 'milk', limit: '96' },
    plan_shopping_list: { items: `p${seed.productId}x2,l${listingId()}`, lat: '-36.85', lng: '174.76', radius_km: '200', member: 'true', limit: '20' },
    get_store: { id: String(storeId()) },
    get_store_listings: { id: String(storeId()), q: 'beef', limit: '96', offset: '0' },
    get_store_levels: { id: String(storeId()), days: '3650' },
    list_areas: {},
    get_index_latest: {},
    get_index_daily: { from: '2025-01-01', to: '2025-12-31', group: '0' },
    get_index_groups: { days: '3650' },
    get_index_items: { days: '3650' },
    get_index_validation: {},
    get_basket: { include: 'matches' },
    get_basket_item: { id: '1' },
    get_export_manifest: {},
    get_data_status: {},
    healthz: {},
    list_price_changes: { retailer: 'woolworths', kind: 'special', direction: 'any', days: '90', limit: '100' },
    list_shrinkflation: { retailer: 'woolworths', shelf: 'fridge-deli', listing: String(listingId()), days: '730', limit: '200' },
  });

  it('runs every registry document through /graphql within the limits, giving the contract shape', async () => {
    const given = inputs();
    expect(Object.keys(given).sort()).toEqual(operations.map((op) => op.name).sort());
    for (const op of operations) {
      const params = op.params.parse(given[op.name]);
      const r = await gql(app, documentText(op.name), { ip: '192.0.2.200', variables: op.variables(params), operationName: op.name });
      expect(r.status, `${op.name}: ${r.raw}`).toBe(200);
      expect(r.body.errors, `${op.name}: ${r.raw}`).toBeUndefined();
      const result = op.result.safeParse(op.shape(r.body.data, params));
      expect(result.success, `${op.name}: ${result.error?.message}`).toBe(true);
    }
  });
});
