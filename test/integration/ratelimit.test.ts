/**
 * The per-IP budget (api-spec "Limits", "Rate-limit headers", "Errors" 429) through the assembled
 * server (app.inject) against a real PostgreSQL and, for the shared store, a real Redis
 * (TEST_REDIS_URL, else a redis-server started on a free port, test/helpers/redis.ts; without
 * either, the Redis tests are skipped with one line saying so). Every Redis test uses its own key
 * prefix and deletes its keys afterwards.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { RateLimitOverrides } from '../../facades/http/ratelimit.js';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { startTestRedis } from '../helpers/redis.js';

const redis = await startTestRedis('test/integration/ratelimit.test.ts Redis store');
const REDIS_URL = redis?.url ?? 'redis://127.0.0.1:1';
/** The stores tested: memory always, Redis when there is one. */
const STORES: Store[] = redis ? ['memory', 'redis'] : ['memory'];
const PUBLIC_URL = 'https://prices.example.nz';
const POLICY = '300;w=60, 10000;w=86400';

let db: TestDatabase;
let admin: Redis;
const apps: FastifyInstance[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase('ratelimit');
  if (redis) admin = new Redis(REDIS_URL);
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  for (const p of prefixes.splice(0)) {
    if (!admin) break; // no Redis: no keys were written
    const keys = await admin.keys(`${p}:*`);
    if (keys.length) await admin.del(...keys);
  }
});

afterAll(async () => {
  admin?.disconnect();
  await redis?.stop();
  await db?.drop();
});

type Store = 'memory' | 'redis';
interface Setup {
  store?: Store;
  redisUrl?: string;
  trustProxy?: string;
  rateLimit?: RateLimitOverrides;
}

const newPrefix = () => {
  const p = `test:rl:${crypto.randomBytes(6).toString('hex')}`;
  prefixes.push(p);
  return p;
};

async function server({ store = 'memory', redisUrl, trustProxy, rateLimit = {} }: Setup = {}): Promise<FastifyInstance> {
  const env = loadEnv({
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    PUBLIC_URL,
    REDIS_URL: redisUrl ?? (store === 'redis' ? REDIS_URL : undefined),
    TRUST_PROXY: trustProxy,
  });
  const app = await createServer({ db, env, rateLimit: { keyPrefix: rateLimit.keyPrefix ?? newPrefix(), ...rateLimit } });
  apps.push(app);
  return app;
}

interface Hit {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  limit: number;
  remaining: number;
  reset: number;
}

async function hit(app: FastifyInstance, url: string, opts: Omit<InjectOptions, 'url'> = {}): Promise<Hit> {
  const r = await app.inject({ method: 'GET', url, ...opts });
  const num = (name: string) => (r.headers[name] === undefined ? NaN : Number(r.headers[name]));
  return {
    status: r.statusCode,
    headers: r.headers,
    body: r.body,
    limit: num('ratelimit-limit'),
    remaining: num('ratelimit-remaining'),
    reset: num('ratelimit-reset'),
  };
}

const mcp = (app: FastifyInstance, remoteAddress?: string) =>
  hit(app, '/mcp', {
    method: 'POST',
    remoteAddress,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });

function expectBudgetHeaders(r: Hit): void {
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
    expect(String(r.headers[name]), name).toMatch(/^\d+$/);
  }
  expect(r.headers['ratelimit-policy']).toBeTypeOf('string');
}

function expectNoBudgetHeaders(r: Hit): void {
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy', 'retry-after']) {
    expect(r.headers[name], name).toBeUndefined();
  }
}

function expect429(r: Hit): void {
  expect(r.status).toBe(429);
  expect(String(r.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
  expectBudgetHeaders(r);
  expect(r.remaining).toBe(0);
  const body = JSON.parse(r.body) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['bulk_data', 'docs', 'message', 'status']);
  expect(body.error.status).toBe(429);
  expect(String(body.error.message).toLowerCase()).toContain('rate limit');
  expect(body.error.bulk_data).toBe(`${PUBLIC_URL}/data/latest/manifest.json`);
  expect(body.error.docs).toBe(`${PUBLIC_URL}/llms.txt`);
}

describe.each<Store>(STORES)('per-IP budget (%s store)', (store) => {
  it('puts the RateLimit headers on every /api/v1 response, counting down', async () => {
    const app = await server({ store });
    const seen: Hit[] = [];
    for (let i = 0; i < 3; i++) seen.push(await hit(app, '/api/v1/retailers'));
    for (const r of seen) {
      expect(r.status).toBe(200);
      expectBudgetHeaders(r);
      expect(r.limit).toBe(300);
      expect(r.headers['ratelimit-policy']).toBe(POLICY);
      expect(r.reset).toBeGreaterThanOrEqual(1);
      expect(r.reset).toBeLessThanOrEqual(60);
      expect(r.headers['retry-after']).toBeUndefined();
    }
    expect(seen.map((r) => r.remaining)).toEqual([299, 298, 297]);

    // Errors carry them too, and count.
    const bad = await hit(app, '/api/v1/listings/abc');
    expect(bad.status).toBe(400);
    expect(bad.remaining).toBe(296);
    const missing = await hit(app, '/api/v1/no-such-thing');
    expect(missing.status).toBe(404);
    expect(missing.remaining).toBe(295);
    expect(missing.headers['ratelimit-policy']).toBe(POLICY);
    // Readable by browser scripts on other origins.
    expect(String(missing.headers['access-control-expose-headers'])).toContain('RateLimit-Remaining');
    expect(String(missing.headers['access-control-expose-headers'])).toContain('Retry-After');
  });

  it('refuses the 301st request of a minute with 429, Retry-After and the Error body', async () => {
    const app = await server({ store });
    for (let i = 1; i <= 300; i++) {
      const r = await hit(app, i % 2 ? '/api/v1/retailers' : '/api/v1/stores');
      expect(r.status, `request ${i}`).toBe(200);
      expect(r.remaining).toBe(300 - i);
    }
    const refused = await hit(app, '/api/v1/retailers');
    expect429(refused);
    expect(refused.limit).toBe(300);
    expect(refused.headers['ratelimit-policy']).toBe(POLICY);
    const retry = Number(refused.headers['retry-after']);
    expect(retry).toBeLessThanOrEqual(60);
    expect(refused.reset).toBe(retry);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    // A refusal is for this client and this moment: no cache may keep it (issue 13).
    expect(refused.headers['cache-control']).toBe('no-store');
    // Still refused, whatever the path under the budget.
    expect429(await hit(app, '/api/v1/no-such-thing'));
    expect429(await mcp(app));
  });

  it('counts POST /mcp against the same budget as /api/v1', async () => {
    const app = await server({ store, rateLimit: { perMinute: 4 } });
    expect((await hit(app, '/api/v1/retailers')).remaining).toBe(3);
    const first = await mcp(app);
    expect(first.status).not.toBe(429);
    expectBudgetHeaders(first);
    expect(first.remaining).toBe(2);
    expect((await mcp(app)).remaining).toBe(1);
    expect((await hit(app, '/api/v1/retailers')).remaining).toBe(0);
    expect429(await hit(app, '/api/v1/retailers'));
    expect429(await mcp(app));
  });

  it('never limits /data/latest/* and leaves other paths out of the budget; /healthz and /graphql show it uncharged', async () => {
    const app = await server({ store, rateLimit: { perMinute: 2 } });
    for (const url of ['/data/latest/manifest.json', '/data/latest/x', '/openapi.json', '/llms.txt']) {
      expectNoBudgetHeaders(await hit(app, url));
    }
    // /healthz and /graphql show the client's budget without spending it.
    for (const url of ['/healthz', '/graphql?query=%7B__typename%7D']) {
      const r = await hit(app, url);
      expectBudgetHeaders(r);
      expect(r.remaining, url).toBe(2);
    }
    // None of those consumed anything.
    expect((await hit(app, '/api/v1/retailers')).remaining).toBe(1);
    expect((await hit(app, '/healthz')).remaining).toBe(1);
    expect((await hit(app, '/api/v1/retailers')).remaining).toBe(0);
    expect429(await hit(app, '/api/v1/retailers'));
    // A client over budget is still told so on /healthz, and never refused there.
    const probe = await hit(app, '/healthz');
    expect(probe.status).toBe(200);
    expect(probe.remaining).toBe(0);
    for (let i = 0; i < 5; i++) {
      for (const url of ['/data/latest/x', '/data/latest/price_spans.parquet', '/data/latest/manifest.json']) {
        const r = await hit(app, url);
        expect(r.status, url).not.toBe(429);
        expectNoBudgetHeaders(r);
      }
    }
  });

  it('applies the day window: 429 with Retry-After near the day reset', async () => {
    const app = await server({ store, rateLimit: { perDay: 5 } });
    for (let i = 1; i <= 5; i++) {
      const r = await hit(app, '/api/v1/retailers');
      expect(r.status).toBe(200);
      // The day window is the tighter one (fewer remaining than the minute's 300 - i).
      expect(r.limit).toBe(5);
      expect(r.remaining).toBe(5 - i);
      expect(r.reset).toBeGreaterThan(86_400 - 60);
      expect(r.headers['ratelimit-policy']).toBe('300;w=60, 5;w=86400');
    }
    const refused = await hit(app, '/api/v1/retailers');
    expect429(refused);
    expect(refused.limit).toBe(5);
    const retry = Number(refused.headers['retry-after']);
    expect(retry).toBeGreaterThan(86_400 - 60);
    expect(retry).toBeLessThanOrEqual(86_400);
    expect(JSON.parse(refused.body).error.message).toContain('per day');
  });

  it('gives the day reset as Retry-After when the minute refuses a request that emptied the day', async () => {
    const app = await server({ store, rateLimit: { perMinute: 2, perDay: 3 } });
    expect((await hit(app, '/api/v1/retailers')).status).toBe(200);
    expect((await hit(app, '/api/v1/retailers')).status).toBe(200);
    const refused = await hit(app, '/api/v1/retailers'); // over the minute; the day has just run out
    expect429(refused);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(86_400 - 60);
    expect(refused.limit).toBe(3); // both windows at 0: the one resetting later is shown
    expect(refused.reset).toBe(Number(refused.headers['retry-after']));
  });

  it('resets the minute window, and counts refused requests in the day window too', async () => {
    const app = await server({ store, rateLimit: { perMinute: 2, perDay: 4, minuteSeconds: 1 } });
    expect((await hit(app, '/api/v1/retailers')).status).toBe(200);
    expect((await hit(app, '/api/v1/retailers')).status).toBe(200);
    const refused = await hit(app, '/api/v1/retailers'); // 3rd: refused by the minute, still counted by the day
    expect429(refused);
    expect(refused.headers['retry-after']).toBe('1');
    await new Promise((r) => setTimeout(r, 1300));
    const after = await hit(app, '/api/v1/retailers'); // minute reset; 4th request of the day
    expect(after.status).toBe(200);
    expect(after.limit).toBe(4);
    expect(after.remaining).toBe(0);
    const dayRefused = await hit(app, '/api/v1/retailers');
    expect429(dayRefused);
    expect(Number(dayRefused.headers['retry-after'])).toBeGreaterThan(86_400 - 60);
  });

  it('keeps separate budgets per client address (IPv6 by /64)', async () => {
    const app = await server({ store, rateLimit: { perMinute: 2 } });
    const from = (remoteAddress: string) => hit(app, '/api/v1/retailers', { remoteAddress });
    expect((await from('203.0.113.1')).remaining).toBe(1);
    expect((await from('203.0.113.1')).remaining).toBe(0);
    expect429(await from('203.0.113.1'));
    expect429(await from('::ffff:203.0.113.1')); // the same IPv4 client, IPv4-mapped
    expect((await from('203.0.113.2')).remaining).toBe(1);
    expect((await from('2001:db8:1:2::1')).remaining).toBe(1);
    expect((await from('2001:db8:1:2:ffff::9')).remaining).toBe(0); // same /64
    expect429(await from('2001:db8:1:2::abcd'));
    expect((await from('2001:db8:1:3::1')).remaining).toBe(1); // next /64
  });

  it('ignores X-Forwarded-For by default', async () => {
    const app = await server({ store, rateLimit: { perMinute: 2 } });
    const from = (xff: string) => hit(app, '/api/v1/retailers', { remoteAddress: '10.1.1.1', headers: { 'x-forwarded-for': xff } });
    expect((await from('198.51.100.1')).remaining).toBe(1);
    expect((await from('198.51.100.2')).remaining).toBe(0);
    expect429(await from('198.51.100.3'));
  });

  it('honours X-Forwarded-For with TRUST_PROXY=true', async () => {
    const app = await server({ store, trustProxy: 'true', rateLimit: { perMinute: 2 } });
    const from = (xff: string) => hit(app, '/api/v1/retailers', { remoteAddress: '10.1.1.1', headers: { 'x-forwarded-for': xff } });
    expect((await from('198.51.100.1')).remaining).toBe(1);
    expect((await from('198.51.100.1')).remaining).toBe(0);
    expect429(await from('198.51.100.1'));
    expect((await from('198.51.100.2')).remaining).toBe(1);
    // Without the header the proxy itself is the client.
    expect((await hit(app, '/api/v1/retailers', { remoteAddress: '10.1.1.1' })).remaining).toBe(1);
  });

  it('does not count CORS preflight', async () => {
    const app = await server({ store, rateLimit: { perMinute: 2 } });
    for (let i = 0; i < 4; i++) {
      const pre = await hit(app, '/api/v1/retailers', {
        method: 'OPTIONS',
        headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
      });
      expect(pre.status).toBe(204);
      expectNoBudgetHeaders(pre);
      // A bare OPTIONS (not a preflight; @fastify/cors routes it) is not counted either.
      const bare = await hit(app, '/api/v1/retailers', { method: 'OPTIONS' });
      expect(bare.status).not.toBe(429);
      expectNoBudgetHeaders(bare);
    }
    const r = await hit(app, '/api/v1/retailers', { headers: { origin: 'https://example.org' } });
    expect(r.status).toBe(200);
    expect(r.remaining).toBe(1);
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });

  it('counts a 304 and puts the RateLimit headers on it', async () => {
    const app = await server({ store });
    const first = await hit(app, '/api/v1/retailers');
    const etag = String(first.headers.etag);
    const again = await hit(app, '/api/v1/retailers', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expectBudgetHeaders(again);
    expect(again.remaining).toBe(first.remaining - 1);
  });
});

describe.skipIf(!redis)('per-IP budget shared through Redis', () => {
  it('keeps its counters in Redis under the key prefix; the memory store leaves Redis alone', async () => {
    const keyPrefix = newPrefix();
    const app = await server({ store: 'redis', rateLimit: { keyPrefix } });
    await hit(app, '/api/v1/retailers', { remoteAddress: '192.0.2.7' });
    await hit(app, '/api/v1/retailers', { remoteAddress: '192.0.2.7' });
    expect(await admin.get(`${keyPrefix}:60:192.0.2.7`)).toBe('2');
    expect(await admin.get(`${keyPrefix}:86400:192.0.2.7`)).toBe('2');
    const ttl = await admin.ttl(`${keyPrefix}:86400:192.0.2.7`);
    expect(ttl).toBeGreaterThan(86_400 - 60);

    const memoryPrefix = newPrefix();
    const mem = await server({ store: 'memory', rateLimit: { keyPrefix: memoryPrefix } });
    await hit(mem, '/api/v1/retailers');
    expect(await admin.keys(`${memoryPrefix}:*`)).toEqual([]);
  });

  it('shares one budget between two server instances', async () => {
    const keyPrefix = newPrefix();
    const a = await server({ store: 'redis', rateLimit: { keyPrefix, perMinute: 6 } });
    const b = await server({ store: 'redis', rateLimit: { keyPrefix, perMinute: 6 } });
    const remaining: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await hit(i % 2 ? b : a, '/api/v1/retailers');
      expect(r.status).toBe(200);
      remaining.push(r.remaining);
    }
    expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);
    expect429(await hit(a, '/api/v1/retailers'));
    expect429(await mcp(b));
    // Memory stores, by contrast, are per instance.
    const c = await server({ store: 'memory', rateLimit: { keyPrefix, perMinute: 6 } });
    expect((await hit(c, '/api/v1/retailers')).remaining).toBe(5);
  });

  it('falls back to memory when Redis goes away mid-flight, logs it, and shares again when it is back', async () => {
    // A TCP relay in front of Redis that the test can cut.
    const sockets = new Set<net.Socket>();
    const relay = net.createServer((client) => {
      const upstream = net.connect(Number(new URL(REDIS_URL).port || 6379), new URL(REDIS_URL).hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => s.destroy());
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const port = (relay.address() as net.AddressInfo).port;
    const keyPrefix = newPrefix();
    let warn: MockInstance | undefined;
    try {
      const app = await server({ redisUrl: `redis://127.0.0.1:${port}`, rateLimit: { keyPrefix, perMinute: 5 } });
      warn = vi.spyOn(app.log, 'warn');
      expect((await hit(app, '/api/v1/retailers')).remaining).toBe(4);
      expect(await admin.get(`${keyPrefix}:60:127.0.0.1`)).toBe('1');

      // Cut Redis off.
      await new Promise<void>((r) => {
        relay.close(() => r());
        for (const s of sockets) s.destroy();
      });
      await new Promise((r) => setTimeout(r, 100));
      const during: Hit[] = [];
      for (let i = 0; i < 6; i++) during.push(await hit(app, '/api/v1/retailers'));
      // Served from memory (a fresh count): no failures, headers present, the limit still enforced.
      expect(during.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(during.slice(0, 5).map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0]);
      expect429(during[5]);
      expect(warn.mock.calls.map((c) => c.map(String).join(' ')).join('\n')).toMatch(/Redis command failed; counting this client in process memory/);
      expect(await admin.get(`${keyPrefix}:60:127.0.0.1`)).toBe('1'); // Redis untouched meanwhile

      // Bring Redis back on the same port: the shared count resumes.
      await new Promise<void>((r) => relay.listen(port, '127.0.0.1', r));
      await waitFor(async () => {
        await hit(app, '/api/v1/stores', { remoteAddress: '192.0.2.99' }); // a probe client
        return (await admin.get(`${keyPrefix}:60:192.0.2.99`)) !== null;
      }, 10_000);
      expect((await hit(app, '/api/v1/retailers')).remaining).toBe(3); // Redis had 1 for this client; this is the 2nd
    } finally {
      warn?.mockRestore();
      for (const s of sockets) s.destroy();
      relay.close();
    }
  });

  it('starts and serves from memory when Redis is unreachable, and closes its client on app.close', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const started = Date.now();
    const app = await server({ redisUrl: `redis://127.0.0.1:${port}`, rateLimit: { perMinute: 2 } });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await hit(app, '/api/v1/retailers')).remaining).toBe(1);
    expect((await hit(app, '/api/v1/retailers')).remaining).toBe(0);
    expect429(await hit(app, '/api/v1/retailers'));
  });

  it('closes its Redis connection when the app closes', async () => {
    const keyPrefix = newPrefix();
    const named = async () =>
      ((await admin.client('LIST')) as string).split('\n').filter((l) => l.includes(` name=ratelimit:${keyPrefix} `)).length;
    const app = await server({ store: 'redis', rateLimit: { keyPrefix } });
    await hit(app, '/api/v1/retailers');
    expect(await named()).toBe(1);
    await app.close();
    apps.splice(apps.indexOf(app), 1);
    await waitFor(async () => (await named()) === 0);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
