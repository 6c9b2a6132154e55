/**
 * get_index_validation (beyond the contract, issue 30 item 4) on the real data: the run's imported
 * copy (test/helpers/real-data.ts: the Woolworths log, the catalogue, the official FPI), then basket
 * matching and the index as the workers run them. The done-when of issue 30: the endpoint's all-food
 * MAE equals what a client computes from GET /api/v1/index/daily month means and the official
 * months (within 0.01 pp). Computed here independently of src/domain/index-validation.ts. Every
 * response is validated against the served OpenAPI document and the operation's zod resource.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { runIndex } from '../../workers/index/compute.js';
import { runBasketMatching } from '../../workers/index/match.js';
import { DATA_DIR, type TestDatabase } from '../helpers/db.js';
import { checkedRequests } from '../helpers/checked-requests.js';
import { mcpToolCall } from '../helpers/mcp-call.js';
import { createResponseValidator, type ResponseValidator } from '../helpers/openapi.js';
import { createRealDataDatabase } from '../helpers/real-data.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' });

let db: TestDatabase;
let app: FastifyInstance;
let responses: ResponseValidator;
const { get } = checkedRequests(() => app, () => responses);

beforeAll(async () => {
  db = await createRealDataDatabase('index_validation');
  await runBasketMatching(db.pool, { progress: false });
  // As the worker runs it: the official monthly FPI is imported from DATA_DIR first.
  const run = await runIndex(db.pool, { progress: false, dataDir: DATA_DIR });
  expect(run.official).toBeGreaterThan(0);
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  responses = createResponseValidator((await app.inject({ url: '/openapi.json' })).json());
}, 600_000);

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

/** Calendar days of `YYYY-MM`. */
const monthDays = (m: string) => new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0)).getUTCDate();
const before = (m: string) => {
  const d = new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)) - 2, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
};

describe('GET /api/v1/index/validation on the real data', () => {
  let body: Json;
  beforeAll(async () => {
    const r = await get('/api/v1/index/validation', 'get_index_validation');
    expect(r.status).toBe(200);
    body = r.body;
  });

  it('answers all food and the four observable groups; restaurant meals are listed as unobservable', () => {
    // The stored run's method (index_run.method; INDEX_METHOD selects), by its label.
    expect(body.method).toBe('chained Jevons');
    expect(body.first_days).toBe(15);
    expect(body.aggregates.map((a: Json) => a.code)).toEqual(['all', 'fruit_veg', 'meat_poultry_fish', 'grocery_food', 'beverages']);
    expect(body.unobservable.map((g: Json) => g.code)).toEqual(['restaurant']);
    expect(body.unobservable[0].reason).toMatch(/restaurant/i);
    const all = body.aggregates[0];
    expect(all.series_ref).toBe('CPIM.SE901');
    expect(all.summary.months).toBeGreaterThanOrEqual(5);
    for (const key of ['nowcast_mae', 'first_days_mae', 'flat_mae']) expect(all.summary[key]).toBeGreaterThan(0);
    // The method earns its keep on all food: closer than the flat forecast.
    expect(all.summary.nowcast_mae).toBeLessThan(all.summary.flat_mae);
  });

  it("all food's MAE equals a client's computation from GET /api/v1/index/daily month means and the official months (0.01 pp)", async () => {
    const daily = await get('/api/v1/index/daily?from=2000-01-01&to=2099-12-31&group=0', 'get_index_daily');
    expect(daily.status).toBe(200);
    const months = new Map<string, { n: number; covered: number; sum: number }>();
    for (const p of daily.body as Json[]) {
      const m = months.get(p.day.slice(0, 7)) ?? { n: 0, covered: 0, sum: 0 };
      m.n += 1;
      m.sum += p.raw;
      if (p.coverage > 0) m.covered += 1;
      months.set(p.day.slice(0, 7), m);
    }
    const official = new Map(
      (await db.pool.query<{ month: string; value: number }>(`SELECT month, value FROM official_index WHERE series_ref = 'CPIM.SE901'`)).rows.map((r) => [r.month, r.value]),
    );
    const errors: number[] = [];
    const flat: number[] = [];
    for (const [m, v] of months) {
      const prev = months.get(before(m));
      const o = official.get(m);
      const op = official.get(before(m));
      if (v.covered !== monthDays(m) || !prev || o == null || op == null) continue;
      const off = (o / op - 1) * 100;
      errors.push(Math.abs(((v.sum / v.n) / (prev.sum / prev.n) - 1) * 100 - off));
      flat.push(Math.abs(off));
    }
    expect(errors.length).toBeGreaterThanOrEqual(5);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const all = body.aggregates[0];
    expect(all.summary.months).toBe(errors.length);
    expect(Math.abs(all.summary.nowcast_mae - mean(errors))).toBeLessThan(0.01);
    expect(Math.abs(all.summary.flat_mae - mean(flat))).toBeLessThan(0.01);
    // The same figures as `npm run validate:index` prints (summary, whole months and first 15 days; one formula).
    expect([all.summary.nowcast_mae, all.summary.first_days_mae, all.summary.flat_mae].map((x: number) => x.toFixed(2))).toEqual(['0.35', '0.44', '0.63']);
    const fv = body.aggregates[1].summary;
    expect([fv.nowcast_mae, fv.first_days_mae, fv.flat_mae].map((x: number) => x.toFixed(2))).toEqual(['1.31', '1.81', '2.17']);
    console.log(
      `index/validation on the real data: ${body.aggregates.map((a: Json) => `${a.code} ${a.summary.months} months: nowcast ${a.summary.nowcast_mae?.toFixed(2)}, first 15 days ${a.summary.first_days_mae?.toFixed(2)}, flat ${a.summary.flat_mae?.toFixed(2)}`).join('; ')}`,
    );
  });

  it("the latest month's estimate: the same-day change a client computes from index/daily, with a 90 % interval from past months' errors", async () => {
    const daily = (await get('/api/v1/index/daily?from=2000-01-01&to=2099-12-31&group=0', 'get_index_daily')).body as Json[];
    const e = body.aggregates[0].estimate;
    const last = daily.at(-1)!.day as string;
    // The latest month with index days is in progress on its last observed day (the real data end on its 3rd).
    expect(e).toMatchObject({ month: last.slice(0, 7), as_of: last, final: false, through_day: Number(last.slice(8, 10)), level: 0.9 });
    const partial = (m: string) => {
      const xs = daily.filter((p) => p.day.startsWith(m) && Number(p.day.slice(8, 10)) <= e.through_day).map((p) => p.raw as number);
      return xs.reduce((s, x) => s + x, 0) / xs.length;
    };
    expect(Math.abs(e.change - (partial(e.month) / partial(before(e.month)) - 1) * 100)).toBeLessThan(0.01);
    expect(e.past_months).toBeGreaterThanOrEqual(3);
    expect(e.low).toBeLessThan(e.change);
    expect(e.high).toBeGreaterThan(e.change);
    expect(e.high - e.change).toBeCloseTo(e.change - e.low, 10);
    // Its official change is shown once Stats NZ has published the month (and the one before).
    const published = (await db.pool.query(`SELECT count(*)::int AS n FROM official_index WHERE series_ref = 'CPIM.SE901' AND month IN ($1, $2)`, [e.month, before(e.month)])).rows[0].n === 2;
    if (published) expect(e.error).toBeCloseTo(e.change - e.official, 10);
    else expect([e.official, e.error]).toEqual([null, null]);
    console.log(`index/validation estimate on the real data: ${body.aggregates.map((a: Json) => `${a.code} ${a.estimate.month} through day ${a.estimate.through_day}: ${a.estimate.change?.toFixed(2)} % [${a.estimate.low?.toFixed(2)}, ${a.estimate.high?.toFixed(2)}] from ${a.estimate.past_months} months, official ${a.estimate.official?.toFixed(2)}`).join('; ')}`);
  });

  it('the MCP tool answers the same as REST', async () => {
    const result = await mcpToolCall(app, 'get_index_validation', {});
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual(body);
  });
});
