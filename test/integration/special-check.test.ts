/**
 * "Is this special real?" (issue 16 item 6, beyond the contract) against a real PostgreSQL: the
 * derived-views worker (workers/views/deals.ts) writes `special_check` beside `deal` from national
 * spans built here with hand-computable histories (made-up prices), idempotently; check_special
 * answers it through REST (validated against the served OpenAPI document and the zod resource),
 * GraphQL (Deal.check, Listing.specialChecks) and MCP, with 404 and 400.
 *
 * Every promotion starts on 2025-04-01: the window is 2025-01-01 … 2025-03-31 (90 days) and the
 * shelf-rise look-back starts 2025-03-02. Woolworths' last national day is 2025-04-10.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { inTransaction } from '../../src/db/transaction.js';
import { loadEnv } from '../../src/env.js';
import { buildDeals } from '../../workers/views/deals.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { mcpToolCall } from '../helpers/mcp-call.js';
import { expectError } from '../helpers/shape.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The response cache off (CACHE_MAX_BYTES=0): the fixtures write rows by hand between requests,
// which no write job does, so no data version bump tells a cache (response-cache.test.ts covers it).
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });
const LAST = '2025-04-10';

let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
const ids = new Map<string, number>();
const { get, expect400 } = checkedRequests(() => app, () => responses);
const id = (key: string) => ids.get(key)!;
const runDeals = () => inTransaction(db.pool, (c) => buildDeals(c));

async function listing(key: string): Promise<number> {
  const { rows } = await db.pool.query<{ id: number }>(
    `INSERT INTO listing (retailer_id, external_id, name, brand, first_seen)
     SELECT id, $1, $2, 'Acme', '2024-12-01' FROM retailer WHERE slug = 'woolworths' RETURNING id`,
    [key, `Item ${key}`],
  );
  ids.set(key, rows[0].id);
  return rows[0].id;
}

/** A national span; promo = [promo_price, promo_kind], multi = [qty, total]. */
async function span(listingId: number, from: string, to: string | null, price: number, promo?: [number, number], multi?: [number, number]) {
  await db.pool.query(
    `INSERT INTO national_price_span (listing_id, first_day, last_day, price, promo_price, promo_kind, multibuy_qty, multibuy_price)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [listingId, from, to, price, promo?.[0] ?? null, promo?.[1] ?? null, multi?.[0] ?? null, multi?.[1] ?? null],
  );
}

/** An MCP tools/call of `name`; the JSON-RPC result. */
const mcpCall = (name: string, args: Json): Promise<Json> => mcpToolCall(app, name, args);

async function gql(query: string): Promise<{ data?: Json; errors?: Json[] }> {
  return (await app.inject({ method: 'POST', url: '/graphql', payload: { query } })).json();
}

beforeAll(async () => {
  db = await createTestDatabase('special_check');
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
  await db.pool.query(`UPDATE retailer SET last_national_day = $1, covered_day = $1 WHERE slug = 'woolworths'`, [LAST]);

  const genuine = await listing('genuine'); // 90 days at 500, then 400: genuine, saves 100
  await span(genuine, '2024-12-01', '2025-03-31', 500);
  await span(genuine, '2025-04-01', null, 500, [400, 1]);
  const inflated = await listing('inflated'); // 400, up to 480 on 03-16, special back at 400
  await span(inflated, '2024-12-01', '2025-03-15', 400);
  await span(inflated, '2025-03-16', '2025-03-31', 480);
  await span(inflated, '2025-04-01', null, 480, [400, 1]);
  const recurring = await listing('recurring'); // 350 special in February: not the lowest
  await span(recurring, '2024-12-01', '2025-02-14', 500);
  await span(recurring, '2025-02-15', '2025-02-28', 500, [350, 1]);
  await span(recurring, '2025-03-01', '2025-03-31', 500);
  await span(recurring, '2025-04-01', null, 500, [400, 1]);
  const young = await listing('young'); // 22 days of history
  await span(young, '2025-03-10', '2025-03-31', 500);
  await span(young, '2025-04-01', null, 500, [400, 1]);
  const multi = await listing('multi'); // 3 for 1000 on a 500 shelf price
  await span(multi, '2024-12-01', '2025-03-31', 500);
  await span(multi, '2025-04-01', null, 500, [333, 3], [3, 1000]);
  const member = await listing('member'); // club 270 on 300
  await span(member, '2024-12-01', '2025-03-31', 300);
  await span(member, '2025-04-01', null, 300, [270, 2]);
  const plain = await listing('plain'); // on no deal
  await span(plain, '2024-12-01', null, 500);
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('the worker', () => {
  it('checks every deal beside it, idempotently, and follows the prices', async () => {
    expect((await get(`/api/v1/listings/${id('genuine')}/special`, 'check_special')).body).toEqual({ listing_id: id('genuine'), checks: [] });
    const r = await runDeals();
    expect(r).toMatchObject({ deals: 6, written: 6, checks: { written: 6, deleted: 0 } });
    expect(r.checks.byVerdict).toEqual({ insufficient_history: 1, no_usual_price: 0, inflated: 1, above_usual: 0, not_lowest: 1, genuine: 3 });
    const rows = async () => (await db.pool.query('SELECT * FROM special_check ORDER BY kind, listing_id')).rows;
    const before = await rows();
    expect(await runDeals()).toMatchObject({ written: 0, deleted: 0, checks: { written: 0, deleted: 0 } });
    expect(await rows()).toEqual(before);

    // The young special deepens (a new span: the run goes on), the plain listing goes on special.
    await db.pool.query(`UPDATE national_price_span SET last_day = '2025-04-05' WHERE listing_id = $1 AND last_day IS NULL`, [id('young')]);
    await span(id('young'), '2025-04-06', null, 500, [300, 1]);
    await db.pool.query(`UPDATE national_price_span SET last_day = '2025-04-05' WHERE listing_id = $1 AND last_day IS NULL`, [id('plain')]);
    await span(id('plain'), '2025-04-06', null, 500, [450, 1]);
    const again = await runDeals();
    expect(again).toMatchObject({ deals: 7, checks: { written: 2, deleted: 0 } });
    const young = (await get(`/api/v1/listings/${id('young')}/special`, 'check_special')).body.checks[0];
    expect(young).toMatchObject({ promo_price: 300, promo_since: '2025-04-01', days_observed: 22, verdict: 'insufficient_history' });
    // Plain: 500 from 2024-12-01 (window 2025-01-06 … 2025-04-05, 90 days at 500).
    expect((await get(`/api/v1/listings/${id('plain')}/special`, 'check_special')).body.checks).toEqual([
      expect.objectContaining({ promo_since: '2025-04-06', window_from: '2025-01-06', window_to: '2025-04-05', days_observed: 90, usual_price: 500, verdict: 'genuine' }),
    ]);
    // Plain's special ends: the deal and its check go (deleted by the diff, and the foreign key cascades).
    await db.pool.query(`UPDATE national_price_span SET last_day = '2025-04-08' WHERE listing_id = $1 AND last_day IS NULL`, [id('plain')]);
    await span(id('plain'), '2025-04-09', null, 500);
    expect(await runDeals()).toMatchObject({ deals: 6, deleted: 1 });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM special_check')).rows[0].n).toBe(6);
  });
});

describe('check_special (REST)', () => {
  it('genuine: every field, hand-computed', async () => {
    const r = await get(`/api/v1/listings/${id('genuine')}/special`, 'check_special');
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    expect(r.body).toEqual({
      listing_id: id('genuine'),
      checks: [{
        kind: 'special', verdict: 'genuine', promo_price: 400, shelf_price: 500, promo_since: '2025-04-01', window_from: '2025-01-01',
        window_to: '2025-03-31', days_observed: 90, promo_days: 0, usual_price: 500, lowest_price: 500, lowest_shelf_price: 500,
        shelf_rise: null, saving_vs_usual: 100,
      }],
    });
  });

  it('inflated, not_lowest, member and multibuy', async () => {
    const check = async (key: string) => (await get(`/api/v1/listings/${id(key)}/special`, 'check_special')).body.checks[0];
    expect(await check('inflated')).toMatchObject({
      verdict: 'inflated', usual_price: 400, lowest_price: 400, shelf_price: 480, shelf_rise: { from: 400, to: 480, day: '2025-03-16' }, saving_vs_usual: 0,
    });
    expect(await check('recurring')).toMatchObject({ verdict: 'not_lowest', promo_days: 14, usual_price: 500, lowest_price: 350, lowest_shelf_price: 500 });
    expect(await check('member')).toMatchObject({ kind: 'member', verdict: 'genuine', promo_price: 270, saving_vs_usual: 30 });
    const m = await check('multi');
    expect(m).toMatchObject({ kind: 'multibuy', verdict: 'genuine', usual_price: 500 });
    expect(m.promo_price).toBeCloseTo(1000 / 3, 9);
    expect(m.saving_vs_usual).toBeCloseTo(500 - 1000 / 3, 9);
  });

  it('200 with no checks for a listing on no deal; 404 for an unknown listing; 400 for a bad id', async () => {
    expect((await get(`/api/v1/listings/${id('plain')}/special`, 'check_special')).body).toEqual({ listing_id: id('plain'), checks: [] });
    const missing = await get('/api/v1/listings/99999999/special');
    expect(missing.status).toBe(404);
    expectError(missing.body, 404, 'listing');
    await expect400('/api/v1/listings/abc/special', /id/);
    await expect400('/api/v1/listings/0/special', /at least 1/);
    await expect400('/api/v1/listings/2147483648/special', /at most/);
  });

  it('is marked beyond the contract in OpenAPI', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    const op = doc.paths['/api/v1/listings/{id}/special'].get;
    expect(op.operationId).toBe('check_special');
    expect(op['x-beyond-contract']).toBe('issue 16');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
  });
});

describe('the other facades', () => {
  it('GraphQL: Deal.check and Listing.specialChecks agree with REST', async () => {
    const body = await gql(`{
      deals(kind: special, limit: 96) { listings { id deals { kind check { verdict promoPrice promoSince usualPrice shelfRise { from to day } } } specialChecks { kind verdict } } }
      listing(id: ${id('plain')}) { specialChecks { kind } deals { kind } }
    }`);
    expect(body.errors).toBeUndefined();
    const by = new Map<number, Json>(body.data!.deals.listings.map((l: Json) => [l.id, l]));
    expect(by.get(id('inflated'))).toEqual({
      id: id('inflated'),
      deals: [{ kind: 'special', check: { verdict: 'inflated', promoPrice: 400, promoSince: '2025-04-01', usualPrice: 400, shelfRise: { from: 400, to: 480, day: '2025-03-16' } } }],
      specialChecks: [{ kind: 'special', verdict: 'inflated' }],
    });
    expect(by.get(id('genuine'))!.deals[0].check.verdict).toBe('genuine');
    expect(body.data!.listing).toEqual({ specialChecks: [], deals: [] });
  });

  it('MCP: the check_special tool returns the REST body; an unknown listing is a tool error', async () => {
    const r = await mcpCall('check_special', { id: id('recurring') });
    expect(r.isError ?? false).toBe(false);
    expect(r.structuredContent).toEqual((await get(`/api/v1/listings/${id('recurring')}/special`)).body);
    const missing = await mcpCall('check_special', { id: 99999999 });
    expect(missing.isError).toBe(true);
  });
});
