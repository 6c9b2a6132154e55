/**
 * How old the data is (issue 26; get_data_status, beyond the contract) against a real PostgreSQL:
 * collections of two chains with gaps (test/helpers/collections.ts), read by
 * src/services/data-status.ts with an injected today (per-chain and overall gaps, last days,
 * stores and listings seen, stale/fresh on both sides of the two-day threshold, the newest
 * collector run), then the same through GET /api/v1/status (validated against the OpenAPI document
 * and the DataStatus resource), GraphQL `dataStatus` and the MCP tool, with `Last-Modified`.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { httpDate } from '../../facades/http/caching.js';
import { DataStatus } from '../../facades/resources.js';
import { bumpDataVersion, readDataVersion } from '../../src/db/data-version.js';
import { nzToday } from '../../src/domain/days.js';
import { STALE_DAYS } from '../../src/domain/price-index.js';
import { loadEnv } from '../../src/env.js';
import { readDataStatus } from '../../src/services/data-status.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { insertCollectRun, insertCollections, nationalDays } from '../helpers/collections.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { mcpToolCall } from '../helpers/mcp-call.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { PAKNSAVE_STORES, seedStores, WOOLWORTHS_STORES } from '../helpers/prices.js';

let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
let stores: Map<string, number>;
const { get } = checkedRequests(() => app, () => responses);

/** Woolworths' last run (the newest of all chains: the Last-Modified of every answer). */
const WOOLWORTHS_RUN = '2026-08-06T09:15:42.250Z';
const PAKNSAVE_RUN = '2026-08-03T20:00:00.000Z';

beforeAll(async () => {
  db = await createTestDatabase('data_status');
  stores = await seedStores(db.pool);
  // A PAK'nSAVE store left the panel: not active, not counted.
  await db.pool.query('UPDATE store SET active = false WHERE id = $1', [stores.get(PAKNSAVE_STORES[2])]);
  const ww = WOOLWORTHS_STORES.map((s) => stores.get(s)!);
  const ps = PAKNSAVE_STORES.map((s) => stores.get(s)!);
  await insertCollections(db.pool, [
    // Woolworths: 1, 2 and 6 August (3–5 missing); 6 August with listings recorded, two of three stores.
    ...nationalDays('woolworths', ['2026-08-01', '2026-08-02'], { rows: 250 }),
    { retailer: 'woolworths', day: '2026-08-06', rows: 300, listings: 120 },
    ...ww.map((store) => ({ retailer: 'woolworths', day: '2026-08-02', store, rows: 80 })),
    ...ww.slice(0, 2).map((store) => ({ retailer: 'woolworths', day: '2026-08-06', store, rows: 90 })),
    // PAK'nSAVE: 1 and 3 August (2 missing); listings not recorded on its last day (rows count then).
    ...nationalDays('paknsave', ['2026-08-01', '2026-08-03'], { rows: 40 }),
    { retailer: 'paknsave', day: '2026-08-03', store: ps[0], rows: 40 },
  ]);
  await db.pool.query(`UPDATE retailer SET last_run = $1 WHERE slug = 'woolworths'`, [WOOLWORTHS_RUN]);
  await db.pool.query(`UPDATE retailer SET last_run = $1 WHERE slug = 'paknsave'`, [PAKNSAVE_RUN]);
  // Woolworths' collector: a finished run, then a newer failed one.
  await insertCollectRun(db.pool, {
    retailer: 'woolworths', day: '2026-08-06', status: 'finished', startedAt: '2026-08-06T09:00:00Z', finishedAt: WOOLWORTHS_RUN, scopes: 4, collected: 3, failed: 1,
  });
  await insertCollectRun(db.pool, {
    retailer: 'woolworths', day: '2026-08-07', status: 'failed', startedAt: '2026-08-07T09:00:00Z', finishedAt: '2026-08-07T09:01:00Z', scopes: 4, failed: 4, error: 'origin unreachable',
  });
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('readDataStatus (src/services/data-status.ts)', () => {
  it('gives each chain its days, gaps, stores and listings seen, and the newest run', async () => {
    const s = await readDataStatus(db.pool, { today: '2026-08-08' });
    expect(s.today).toBe('2026-08-08');
    expect(s.newest_day).toBe('2026-08-06');
    expect(s.stale_after_days).toBe(2);
    expect(s.cap_days).toBe(STALE_DAYS);
    // No chain on 4 and 5 August (3 August was PAK'nSAVE's).
    expect(s.gaps).toEqual([{ from: '2026-08-04', to: '2026-08-05', days: 2 }]);
    expect(s.retailers.map((r) => r.slug)).toEqual(['freshchoice', 'newworld', 'paknsave', 'supervalue', 'warehouse', 'woolworths']);
    const by = new Map(s.retailers.map((r) => [r.slug, r]));

    expect(by.get('woolworths')).toEqual({
      slug: 'woolworths',
      name: 'Woolworths',
      first_day: '2026-08-01',
      last_day: '2026-08-06',
      last_run: new Date(WOOLWORTHS_RUN),
      days_since: 2,
      stale: false, // exactly two days: not yet
      stores_active: 3,
      stores_collected: 2,
      listings_seen: 120,
      run: {
        status: 'failed',
        day: '2026-08-07',
        started_at: new Date('2026-08-07T09:00:00Z'),
        finished_at: new Date('2026-08-07T09:01:00Z'),
        scopes: 4,
        collected: 0,
        failed: 4,
        error: 'origin unreachable',
      },
      gaps: [{ from: '2026-08-03', to: '2026-08-05', days: 3 }],
    });
    expect(by.get('paknsave')).toMatchObject({
      first_day: '2026-08-01',
      last_day: '2026-08-03',
      days_since: 5,
      stale: true,
      stores_active: 2,
      stores_collected: 1,
      listings_seen: 40, // no listings recorded: the national row's rows
      run: null,
      gaps: [{ from: '2026-08-02', to: '2026-08-02', days: 1 }],
    });
    // Never collected: stale, nothing seen; a national-only chain has no stores.
    expect(by.get('warehouse')).toEqual({
      slug: 'warehouse',
      name: 'The Warehouse',
      first_day: null,
      last_day: null,
      last_run: null,
      days_since: null,
      stale: true,
      stores_active: 0,
      stores_collected: 0,
      listings_seen: 0,
      run: null,
      gaps: [],
    });
    // One collected chain stale: not fresh.
    expect(s.fresh).toBe(false);
  });

  it('is fresh once every collected chain is within two days; a later today makes the same data stale', async () => {
    await insertCollections(db.pool, [{ retailer: 'paknsave', day: '2026-08-07', rows: 41, listings: 39 }]);
    try {
      const s = await readDataStatus(db.pool, { today: '2026-08-08' });
      expect(s.fresh).toBe(true); // chains never collected do not count
      const ps = s.retailers.find((r) => r.slug === 'paknsave')!;
      expect(ps).toMatchObject({ last_day: '2026-08-07', days_since: 1, stale: false, stores_collected: 0, listings_seen: 39 });
      expect(ps.gaps).toEqual([
        { from: '2026-08-02', to: '2026-08-02', days: 1 },
        { from: '2026-08-04', to: '2026-08-06', days: 3 },
      ]);
      // 7 August: PAK'nSAVE only, so the overall gap is still 4–5 August.
      expect(s.newest_day).toBe('2026-08-07');
      expect(s.gaps).toEqual([{ from: '2026-08-04', to: '2026-08-05', days: 2 }]);

      const later = await readDataStatus(db.pool, { today: '2026-08-09' });
      expect(later.retailers.find((r) => r.slug === 'woolworths')).toMatchObject({ days_since: 3, stale: true });
      expect(later.fresh).toBe(false);
    } finally {
      await db.pool.query(`DELETE FROM collection WHERE day = '2026-08-07'`);
    }
  });

  it('is not fresh before anything was collected', async () => {
    const empty = await createTestDatabase('data_status_empty');
    try {
      const s = await readDataStatus(empty.pool, { today: '2026-08-08' });
      expect(s).toMatchObject({ newest_day: null, fresh: false, gaps: [] });
      expect(s.retailers).toHaveLength(6);
      expect(s.retailers.every((r) => r.stale && r.last_day === null && r.gaps.length === 0)).toBe(true);
    } finally {
      await empty.drop();
    }
  });
});

describe('GET /api/v1/status (get_data_status)', () => {
  it('answers the service\'s status for today in New Zealand, valid against DataStatus, with Last-Modified', async () => {
    await bumpDataVersion(db.pool, 'test: fixtures written by hand');
    await app.dataVersion.waitFor(await readDataVersion(db.pool));
    const before = nzToday();
    const r = await get('/api/v1/status', 'get_data_status');
    expect(r.status).toBe(200);
    expect(DataStatus.safeParse(r.body).success).toBe(true);
    expect([before, nzToday()]).toContain(r.body.today);
    expect(r.body).toEqual(JSON.parse(JSON.stringify(await readDataStatus(db.pool, { today: r.body.today }))));
    expect(r.body.retailers.find((x: { slug: string }) => x.slug === 'woolworths').last_run).toBe(WOOLWORTHS_RUN);
    // When the data was observed: the newest last_run, in whole seconds.
    expect(r.headers['last-modified']).toBe('Thu, 06 Aug 2026 09:15:42 GMT');
    expect(r.headers['last-modified']).toBe(httpDate(WOOLWORTHS_RUN));
    expect(r.headers.etag).toBeDefined();
  });

  it('ignores an unknown query parameter, as every operation does', async () => {
    const plain = await get('/api/v1/status');
    const odd = await get('/api/v1/status?zzz=1&retailer=woolworths');
    expect(odd.status).toBe(200);
    expect(odd.body).toEqual(plain.body);
    // The same as list_retailers, an operation without parameters of the contract.
    expect((await get('/api/v1/retailers?zzz=1')).status).toBe(200);
  });

  it('is the same through GraphQL dataStatus and the MCP tool get_data_status', async () => {
    const rest = (await get('/api/v1/status')).body;
    const gql = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      payload: { query: '{ dataStatus { today newestDay fresh capDays gaps { from to days } retailers { slug lastDay storesCollected run { status } } } }' },
    });
    expect(gql.statusCode).toBe(200);
    const data = gql.json().data.dataStatus;
    expect(data).toMatchObject({ today: rest.today, newestDay: rest.newest_day, fresh: rest.fresh, capDays: STALE_DAYS, gaps: rest.gaps });
    expect(data.retailers.find((x: { slug: string }) => x.slug === 'woolworths')).toEqual({
      slug: 'woolworths', lastDay: '2026-08-06', storesCollected: 2, run: { status: 'failed' },
    });
    const tool = await mcpToolCall(app, 'get_data_status', {});
    expect(tool.isError).toBeFalsy();
    expect(tool.structuredContent).toEqual(rest);
  });
});
