/**
 * The response cache (facades/http/response-cache.ts) and the data version it keys on
 * (src/db/data-version.ts) through the assembled server against a real PostgreSQL holding real
 * prices: a hit writes the stored bytes without SQL, GraphQL or JSON.stringify; 304 (If-None-Match,
 * If-Modified-Since against the version's Last-Modified) and the gzip
 * variant; the LRU bound; the budget counts hits; hits and misses carry the same headers; an ingest
 * and a derived-views run are seen by the very next request (the test awaits the server's
 * notification, never a sleep); parameters are normalised. An oracle server with the cache off
 * (CACHE_MAX_BYTES=0) on the same database says what the answer must be.
 */
import zlib from 'node:zlib';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { normalizedExecutor } from '@graphql-tools/executor';
import { httpDate } from '../../facades/http/caching.js';
import { createServer } from '../../facades/server.js';
import { bumpDataVersion, readDataVersion } from '../../src/db/data-version.js';
import { loadEnv } from '../../src/env.js';
import { ingestRecords, runJob } from '../helpers/jobs.js';
import { basketMatchJob, indexJob, matchJob, viewsJob } from '../../workers/jobs/catalog.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';

// Count GraphQL executions: the executor facades/execute.ts runs every operation with.
vi.mock('@graphql-tools/executor', async (importOriginal) => {
  const m = await importOriginal<typeof import('@graphql-tools/executor')>();
  return { ...m, normalizedExecutor: vi.fn(m.normalizedExecutor) };
});
const executions = vi.mocked(normalizedExecutor);

let db: TestDatabase;
let seed: Seeded;
/** Cache on (the default bound), statements counted. */
let app: FastifyInstance;
/** Cache off: the truth. */
let oracle: FastifyInstance;
let poolQueries = 0;

const env = (extra: Record<string, string> = {}) => loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', ...extra });
const listingUrl = (key = 'woolworths:42246') => `/api/v1/listings/${seed.listingIds.get(key)}`;

/** The pool with `query` counted (everything else passes through), as nplus1.test.ts does. */
function countingPool(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (...args: unknown[]) => {
          poolQueries += 1;
          return (target.query as (...a: unknown[]) => unknown)(...args);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

async function get(server: FastifyInstance, url: string, opts: Omit<InjectOptions, 'url'> = {}) {
  const r = await server.inject({ method: 'GET', url, ...opts });
  return { status: r.statusCode, headers: r.headers, raw: r.rawPayload, body: r.body };
}

/** What one request costs: SQL statements (Prisma and pool), GraphQL executions, JSON.stringify calls. */
async function cost<T>(fn: () => Promise<T>): Promise<{ result: T; sql: number; graphql: number; stringify: number }> {
  db.queries.length = 0;
  poolQueries = 0;
  executions.mockClear();
  const spy = vi.spyOn(JSON, 'stringify');
  try {
    const result = await fn();
    return { result, sql: db.queries.length + poolQueries, graphql: executions.mock.calls.length, stringify: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

/** Waits until `server` has heard of the database's current data version (the NOTIFY of the last bump). */
async function caughtUp(server: FastifyInstance): Promise<void> {
  await server.responseCache!.watch.waitFor(await readDataVersion(db.pool), 10_000);
}

/** Headers without the ones that differ per request by nature (date, the budget's countdown). */
function stable(headers: Record<string, unknown>): Record<string, unknown> {
  const { date: _d, 'ratelimit-remaining': _r, 'ratelimit-reset': _t, ...rest } = headers;
  return rest;
}

const servers: FastifyInstance[] = [];
async function server(extra: Record<string, string> = {}, rateLimit?: { perMinute: number }) {
  const s = await createServer({ db: { ...db, pool: countingPool(db.pool) }, env: env(extra), rateLimit: rateLimit ?? { perMinute: 100_000, perDay: 1_000_000 } });
  servers.push(s);
  return s;
}

beforeAll(async () => {
  db = await createTestDatabase('response_cache');
  seed = await seedRealPrices(db.pool);
  app = await server();
  oracle = await server({ CACHE_MAX_BYTES: '0' });
});

afterAll(async () => {
  for (const s of servers) await s.close();
  await db?.drop();
});

describe('the data version', () => {
  it('is bumped after an ingest job (once, by the job runner) and known to the server at start-up', async () => {
    const v = await readDataVersion(db.pool);
    expect(v.version).toBeGreaterThan(0); // the seed's ingests
    expect(v.what).toMatch(/^ingest /);
    expect(app.responseCache!.watch.current()).toEqual(v);
    expect(oracle.responseCache).toBeNull();
  });

  it('moves with a commit only: a rolled-back bump is never seen', async () => {
    const before = await readDataVersion(db.pool);
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await bumpDataVersion(client, 'rolled back');
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await readDataVersion(db.pool)).toEqual(before);
    const after = await bumpDataVersion(db.pool, 'test bump');
    expect(after?.version).toBe(before.version + 1);
    await expect(app.responseCache!.watch.waitFor(after!)).resolves.toMatchObject({ version: before.version + 1, what: 'test bump' });
  });
});

describe('a hit', () => {
  it('writes byte-identical bodies without SQL, GraphQL or JSON.stringify', async () => {
    const url = listingUrl();
    const miss = await cost(() => get(app, url));
    expect(miss.result.status).toBe(200);
    expect(miss.sql).toBeGreaterThan(0);
    expect(miss.graphql).toBe(1);
    const hits = app.responseCache!.stats.hits;
    const hit = await cost(() => get(app, url));
    expect(hit.result.status).toBe(200);
    expect(app.responseCache!.stats.hits).toBe(hits + 1);
    expect(hit.sql).toBe(0);
    expect(hit.graphql).toBe(0);
    expect(hit.stringify).toBe(0);
    expect(Buffer.compare(hit.result.raw, miss.result.raw)).toBe(0);
    expect(hit.result.body).toBe((await get(oracle, url)).body);
  });

  it('carries exactly the headers of the miss (CORS, Cache-Control, RateLimit-*, ETag, Vary, types)', async () => {
    const url = '/api/v1/retailers';
    const headers = { origin: 'https://example.org' };
    const miss = await cost(() => get(app, url, { headers }));
    const hit = await cost(() => get(app, url, { headers }));
    expect(miss.graphql).toBe(1);
    expect(hit.graphql).toBe(0);
    expect(stable(hit.result.headers)).toEqual(stable(miss.result.headers));
    const h = hit.result.headers;
    expect(h['access-control-allow-origin']).toBe('*');
    expect(h['cache-control']).toBe('public, max-age=300');
    expect(h.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(h.vary).toMatch(/Accept-Encoding/);
    expect(h['content-type']).toBe('application/json; charset=utf-8');
    for (const k of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy']) expect(h[k], k).toBeDefined();
    expect(Number(hit.result.headers['ratelimit-remaining'])).toBe(Number(miss.result.headers['ratelimit-remaining']) - 1);
    // The same body and tag as the server without a cache.
    const truth = await get(oracle, url);
    expect(hit.result.body).toBe(truth.body);
    expect(h.etag).toBe(truth.headers.etag);
  });

  it('answers If-None-Match with 304 and no body, still without SQL or GraphQL', async () => {
    const url = listingUrl('woolworths:71205');
    const first = await get(app, url);
    const etag = first.headers.etag as string;
    const r = await cost(() => get(app, url, { headers: { 'if-none-match': etag } }));
    expect(r.result.status).toBe(304);
    expect(r.result.body).toBe('');
    expect(r.result.headers.etag).toBe(etag);
    expect(r.result.headers['cache-control']).toBe('public, max-age=300');
    expect(r.result.headers['ratelimit-remaining']).toMatch(/^\d+$/);
    expect(r.sql).toBe(0);
    expect(r.graphql).toBe(0);
  });

  it('carries Last-Modified (the version\'s observation time) and answers If-Modified-Since with 304, still without SQL or GraphQL', async () => {
    const url = listingUrl('woolworths:927566');
    const { rows } = await db.pool.query<{ at: Date }>('SELECT max(last_run) AS at FROM retailer');
    const lm = httpDate(rows[0].at);
    const miss = await get(app, url);
    expect(miss.headers['last-modified']).toBe(lm);
    const hit = await cost(() => get(app, url));
    expect(hit.graphql).toBe(0);
    expect(hit.sql).toBe(0);
    expect(hit.result.headers['last-modified']).toBe(lm);
    // The server without a cache states the same date: it watches the same data version.
    expect((await get(oracle, url)).headers['last-modified']).toBe(lm);
    const r = await cost(() => get(app, url, { headers: { 'if-modified-since': lm } }));
    expect(r.result.status).toBe(304);
    expect(r.result.body).toBe('');
    expect(r.result.headers['last-modified']).toBe(lm);
    expect(r.sql).toBe(0);
    expect(r.graphql).toBe(0);
    const before = new Date(Date.parse(lm) - 1000).toUTCString();
    expect((await get(app, url, { headers: { 'if-modified-since': before } })).status).toBe(200);
  });

  it('sends the gzip variant when Accept-Encoding allows it, with its own tag', async () => {
    // The first of these answering more than 1 KB (gzip starts there).
    let url = '';
    let plain: Awaited<ReturnType<typeof get>> | null = null;
    for (const u of [`${listingUrl()}/history`, '/api/v1/basket', '/api/v1/shelves', '/api/v1/stores', '/api/v1/listings?q=a&limit=100']) {
      plain = await get(app, u);
      url = u;
      if (plain.status === 200 && plain.raw.length > 1024) break;
    }
    if (!plain) throw new Error('unreachable');
    expect(plain.raw.length, url).toBeGreaterThan(1024);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await cost(() => get(app, url, { headers: { 'accept-encoding': 'br;q=1, gzip;q=0.8' } }));
    expect(zipped.graphql).toBe(0); // the variant is stored with the entry
    const z = zipped.result;
    expect(z.headers['content-encoding']).toBe('gzip');
    expect(z.headers.vary).toMatch(/Accept-Encoding/);
    expect(Number(z.headers['content-length'])).toBe(z.raw.length);
    expect(z.raw.length).toBeLessThan(plain.raw.length);
    expect(zlib.gunzipSync(z.raw).equals(plain.raw)).toBe(true);
    expect(z.headers.etag).toBe(`${(plain.headers.etag as string).slice(0, -1)}-gz"`);
    const again = await get(app, url, { headers: { 'accept-encoding': 'gzip' } });
    expect(again.raw.equals(z.raw)).toBe(true);
    const notModified = await get(app, url, { headers: { 'accept-encoding': 'gzip', 'if-none-match': z.headers.etag as string } });
    expect(notModified.status).toBe(304);
    // Refused or absent gzip: the identity bytes.
    for (const ae of ['gzip;q=0', 'identity', 'br', '*;q=0']) {
      const r = await get(app, url, { headers: { 'accept-encoding': ae } });
      expect(r.headers['content-encoding'], ae).toBeUndefined();
      expect(r.raw.equals(plain.raw), ae).toBe(true);
    }
    expect((await get(app, url, { headers: { 'accept-encoding': '*' } })).headers['content-encoding']).toBe('gzip');
  });
});

describe('the key', () => {
  it('normalises parameters: the default and the same value given, any order, share one entry; other values do not', async () => {
    const cache = app.responseCache!;
    const entries = cache.entries;
    const first = await get(app, '/api/v1/listings?q=beef&retailer=woolworths');
    expect(cache.entries).toBe(entries + 1);
    const hits = cache.stats.hits;
    for (const url of ['/api/v1/listings?q=beef&retailer=woolworths&limit=20', '/api/v1/listings?limit=20&retailer=woolworths&q=beef', '/api/v1/listings?retailer=woolworths&q=beef']) {
      const r = await cost(() => get(app, url));
      expect(r.graphql, url).toBe(0);
      expect(r.result.raw.equals(first.raw), url).toBe(true);
    }
    expect(cache.stats.hits).toBe(hits + 3);
    expect(cache.entries).toBe(entries + 1);
    await get(app, '/api/v1/listings?q=beef&retailer=woolworths&limit=5');
    await get(app, '/api/v1/listings?q=lamb&retailer=woolworths');
    expect(cache.entries).toBe(entries + 3);
  });

  it('caches no error, and answers bad parameters as without a cache', async () => {
    const cache = app.responseCache!;
    const entries = cache.entries;
    for (const url of ['/api/v1/listings/2000000000', '/api/v1/listings?limit=0', '/api/v1/listings?limit=1&limit=2']) {
      const a = await cost(() => get(app, url));
      const b = await cost(() => get(app, url));
      const truth = await get(oracle, url);
      expect(a.result.status, url).toBe(truth.status);
      expect(b.result.body, url).toBe(truth.body);
      expect(b.result.headers['cache-control'], url).toBe(truth.headers['cache-control']);
      expect(a.result.status, url).toBeGreaterThanOrEqual(400);
    }
    expect(cache.entries).toBe(entries);
    // healthz reaches the database every time.
    const h = await cost(() => get(app, '/healthz'));
    expect(h.result.status).toBe(200);
    expect((await cost(() => get(app, '/healthz'))).graphql).toBe(1);
  });
});

describe('bounds and budget', () => {
  it('keeps at most CACHE_MAX_BYTES (LRU: the oldest entry goes first)', async () => {
    const max = 12_000;
    const small = await server({ CACHE_MAX_BYTES: String(max) });
    const cache = small.responseCache!;
    const urls = [...seed.listingIds.values()].slice(0, 40).map((id) => `/api/v1/listings/${id}`);
    let sent = 0;
    for (const url of urls) {
      const r = await get(small, url);
      expect(r.status, url).toBe(200);
      sent += r.raw.length;
      expect(cache.bytes).toBeLessThanOrEqual(max);
    }
    expect(sent).toBeGreaterThan(max);
    expect(cache.entries).toBeLessThan(urls.length);
    expect(cache.entries).toBeGreaterThan(0);
    // The newest is still there, the first was evicted.
    const last = await cost(() => get(small, urls.at(-1)!));
    expect(last.graphql).toBe(0);
    const firstAgain = await cost(() => get(small, urls[0]));
    expect(firstAgain.graphql).toBe(1);
    // A body larger than the whole bound is answered, not kept.
    const tiny = await server({ CACHE_MAX_BYTES: '100' });
    const r = await get(tiny, urls[0]);
    expect(r.status).toBe(200);
    expect(tiny.responseCache!.entries).toBe(0);
  });

  it('counts hits against the per-IP budget: the request after the budget is 429 though cached', async () => {
    const limited = await server({}, { perMinute: 3 });
    const url = listingUrl();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(limited, url));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    expect(limited.responseCache!.stats.hits).toBe(2);
    expect(answers[3].headers['cache-control']).toBe('no-store');
    expect(answers[3].headers['retry-after']).toMatch(/^\d+$/);
  });
});

describe('invalidation', () => {
  it('a derived-views run: the next request sees the rebuilt deals', async () => {
    const url = '/api/v1/deals?kind=special';
    const before = await get(app, url);
    expect(before.status).toBe(200);
    expect((await cost(() => get(app, url))).graphql).toBe(0); // cached
    const report = await runJob(db.pool, viewsJob, {});
    expect(Object.values(report.views).some((v) => v.built)).toBe(true);
    expect((await readDataVersion(db.pool)).what).toMatch(/^views /);
    await caughtUp(app);
    const after = await cost(() => get(app, url));
    expect(after.graphql).toBe(1);
    const truth = await get(oracle, url);
    expect(after.result.body).toBe(truth.body);
    expect(after.result.body).not.toBe(before.body);
    expect(after.result.headers.etag).not.toBe(before.headers.etag);
  });

  it('an ingest of a new day: the next request sees the new price', async () => {
    const url = listingUrl();
    const before = await get(app, url);
    expect((await cost(() => get(app, url))).graphql).toBe(0); // cached
    const { rows } = await db.pool.query<{ day: string; price: number }>(
      `SELECT (r.last_national_day + 1)::text AS day, s.price FROM listing l JOIN retailer r ON r.id = l.retailer_id
       JOIN national_price_span s ON s.listing_id = l.id AND s.last_day IS NULL WHERE l.id = $1`,
      [seed.listingIds.get('woolworths:42246')],
    );
    const { day, price } = rows[0];
    const result = await ingestRecords(db.pool, [
      { line: 2, record: { day, retailer: 'woolworths', store: '', external_id: '42246', price: price + 111 } },
    ], { mode: 'changes', source: 'response-cache.test.ts' });
    expect(result.merged).toEqual([day]);
    await caughtUp(app);
    const after = await get(app, url);
    const truth = await get(oracle, url);
    expect(after.body).toBe(truth.body);
    expect(after.body).not.toBe(before.body);
    expect(after.body).toContain(String(price + 111));
    // Last-Modified follows the version: the newest last_run after the ingest.
    const { rows: runs } = await db.pool.query<{ at: Date }>('SELECT max(last_run) AS at FROM retailer');
    expect(after.headers['last-modified']).toBe(httpDate(runs[0].at));
    // And it is cached again under the new version.
    const again = await cost(() => get(app, url));
    expect(again.graphql).toBe(0);
    expect(again.result.raw.equals(after.raw)).toBe(true);
  });

  it('a job run that wrote nothing leaves the version (and every entry) alone', async () => {
    // Catch up with the ingest above, in the order the workers run.
    await runJob(db.pool, matchJob, {});
    await runJob(db.pool, basketMatchJob, {});
    await runJob(db.pool, indexJob, {});
    await runJob(db.pool, viewsJob, {});
    const v = await readDataVersion(db.pool);
    await caughtUp(app);
    await get(app, listingUrl());
    await get(app, '/api/v1/retailers');
    const entries = app.responseCache!.entries;
    expect(entries).toBe(2);
    for (const [name, job] of [
      ['views', () => runJob(db.pool, viewsJob, {})],
      ['match', () => runJob(db.pool, matchJob, {})],
      ['basket-match', () => runJob(db.pool, basketMatchJob, {})],
      ['index', () => runJob(db.pool, indexJob, {})],
    ] as const) {
      await job();
      expect(await readDataVersion(db.pool), name).toEqual(v);
    }
    await caughtUp(app);
    expect(app.responseCache!.entries).toBe(entries);
  });
});
