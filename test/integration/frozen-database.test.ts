/**
 * A hung database (issue 29 #1), on a disposable embedded PostgreSQL of this file's own
 * (test/helpers/disposable-postgres.ts) behind the assembled server with the API's time bounds
 * (src/db/database.ts poolTimeouts 'api'):
 *
 * - with every PostgreSQL process stopped (SIGSTOP: connections are accepted by the kernel and
 *   nothing answers), /healthz, uncached REST, search, /graphql and an MCP tool call each answer
 *   within 5 s — 503 with `no-store` and `Retry-After` where the database is needed (the MCP outage
 *   inside its JSON-RPC result, see docs/http.md "MCP"), 200 from the response cache for an answer
 *   it holds — twice over (the second wave after the pool has given up its connections); once the
 *   processes continue (SIGCONT), everything answers 200 again by itself, without a restart;
 * - a read blocked behind a lock (a live but stuck server) answers 503 within the lock bound.
 *
 * The 5 s figure is the behaviour asked for ("a hung database turns into 503s within seconds"); the
 * bounds themselves are 2 s to connect and 3.5 s for a query, so the margin is 1.5 s.
 */
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { loadEnv } from '../../src/env.js';
import { startDisposablePostgres, type DisposablePostgres } from '../helpers/disposable-postgres.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';

let server: DisposablePostgres;
let db: Database;
let app: FastifyInstance;
let seed: Seeded;

const STACK = /\bat .*:\d+:\d+/;
/** The behaviour asked for: an answer within 5 s while the database is stopped. */
const ANSWER_WITHIN_MS = 5_000;

type Answer = { status: number; headers: Record<string, unknown>; body: string; ms: number };

async function timed(run: () => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>): Promise<Answer> {
  const t0 = Date.now();
  const r = await run();
  return { status: r.statusCode, headers: r.headers, body: r.body, ms: Date.now() - t0 };
}

const get = (url: string) => timed(() => app.inject({ method: 'GET', url }));

const graphql = (query: string) =>
  timed(() =>
    app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      payload: JSON.stringify({ query }),
    }),
  );

/** A 2025-era tools/call (no session: the endpoint is stateless). */
const mcpCall = (name: string, args: Record<string, unknown>) =>
  timed(() =>
    app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } }),
    }),
  );

/** Asserts a 503 outage answer: no-store, Retry-After in seconds, no stack trace. */
function expectOutage(r: Answer, label: string): void {
  expect(r.status, `${label}: ${r.body}`).toBe(503);
  expect(r.headers['cache-control'], label).toBe('no-store');
  expect(String(r.headers['retry-after']), label).toMatch(/^[1-9]\d*$/);
  expect(r.body, label).not.toMatch(STACK);
}

/** Asserts the MCP outage answer: the JSON-RPC result carries the 503 Error body; the HTTP answer is no-store with Retry-After. */
function expectMcpOutage(r: Answer): void {
  expect(r.status, r.body).toBe(200);
  expect(r.headers['cache-control']).toBe('no-store');
  expect(String(r.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
  const body = JSON.parse(r.body) as { id: number; result: { isError?: boolean; structuredContent?: { error?: { status?: number } } } };
  expect(body.id).toBe(7);
  expect(body.result.isError).toBe(true);
  expect(body.result.structuredContent?.error?.status).toBe(503);
  expect(r.body).not.toMatch(STACK);
}

beforeAll(async () => {
  server = await startDisposablePostgres();
  // Seeded with the worker's bounds (as the worker would), then served with the API's.
  const seeding = await openDatabase({ databaseUrl: server.url, embeddedDir: '', role: 'worker' });
  seed = await seedRealPrices(seeding.pool);
  await seeding.close();
  db = await openDatabase({ databaseUrl: server.url, embeddedDir: '', role: 'api', migrate: false });
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
  await app.ready();
}, 180_000);

afterAll(async () => {
  server?.thaw();
  await app?.close();
  await db?.close();
  await server?.stop();
});

describe('a hung database (every PostgreSQL process stopped)', () => {
  it('answers every request within 5 s: 503 where the database is needed, 200 from the response cache; recovers by itself after SIGCONT', async () => {
    const cached = '/api/v1/retailers';
    const listing = `/api/v1/listings/${seed.listingIds.get('woolworths:42246')}`;
    const search = '/api/v1/search?q=beef';
    const gql = '{ retailers { slug } }';
    // Warm: the cached answer is in the response cache (its data version known through LISTEN).
    for (let i = 0; i < 50 && app.dataVersion.current() === null; i++) await new Promise((r) => setTimeout(r, 100));
    expect(app.dataVersion.current()).not.toBeNull();
    expect((await get(cached)).status).toBe(200);
    expect((await get(cached)).status).toBe(200);
    expect(app.responseCache?.entries).toBeGreaterThan(0);

    expect(server.freeze()).toBeGreaterThan(1);
    try {
      for (const wave of [1, 2]) {
        const [health, rest, found, graph, tool, hit] = await Promise.all([
          get('/healthz'),
          get(listing),
          get(search),
          graphql(gql),
          mcpCall('get_listing', { id: seed.listingIds.get('woolworths:42246') }),
          get(cached),
        ]);
        const label = (what: string, r: Answer) => `wave ${wave}, ${what} (${r.ms} ms)`;
        for (const [what, r] of [['/healthz', health], ['REST', rest], ['search', found], ['/graphql', graph], ['MCP', tool], ['cached', hit]] as const) {
          expect(r.ms, label(what, r)).toBeLessThan(ANSWER_WITHIN_MS);
        }
        expectOutage(health, label('/healthz', health));
        expect(JSON.parse(health.body)).toEqual({ error: { status: 503, message: expect.any(String) } });
        expectOutage(rest, label('REST', rest));
        expect(JSON.parse(rest.body)).toEqual({ error: { status: 503, message: expect.any(String) } });
        expectOutage(found, label('search', found));
        expectOutage(graph, label('/graphql', graph));
        for (const e of (JSON.parse(graph.body) as { errors: { extensions: { code: string } }[] }).errors) expect(e.extensions.code).toBe('UNAVAILABLE');
        expectMcpOutage(tool);
        expect(hit.status, label('cached', hit)).toBe(200);
        expect(hit.headers['cache-control']).toBe('public, max-age=300');
        console.log(`frozen database, wave ${wave}: healthz ${health.ms} ms, REST ${rest.ms} ms, search ${found.ms} ms, GraphQL ${graph.ms} ms, MCP ${tool.ms} ms, cached ${hit.ms} ms`);
      }
    } finally {
      server.thaw();
    }

    // Recovery by itself: no restart of the server, no new pool.
    const t0 = Date.now();
    while ((await get('/healthz')).status !== 200) {
      expect(Date.now() - t0, '/healthz still 503 20 s after SIGCONT').toBeLessThan(20_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`frozen database: /healthz 200 again ${Date.now() - t0} ms after SIGCONT`);
    for (const url of [listing, search, cached]) {
      const r = await get(url);
      expect(r.status, `${url}: ${r.body}`).toBe(200);
      expect(r.headers['cache-control']).toBe('public, max-age=300');
    }
    expect((await graphql(gql)).status).toBe(200);
    const tool = await mcpCall('get_listing', { id: seed.listingIds.get('woolworths:42246') });
    expect(tool.status).toBe(200);
    expect((JSON.parse(tool.body) as { result: { isError?: boolean } }).result.isError ?? false).toBe(false);
    expect(tool.headers['cache-control']).toBe('public, max-age=300');
  });

  it('answers 503 within the lock bound when a read waits behind a lock, and 200 once it is released', async () => {
    const holder = new pg.Client({ connectionString: server.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE store IN ACCESS EXCLUSIVE MODE');
      // Uncached: a parameter no earlier request used.
      const r = await get('/api/v1/stores?town=Hamilton');
      expect(r.ms, `${r.ms} ms`).toBeLessThan(ANSWER_WITHIN_MS);
      expectOutage(r, '/api/v1/stores behind a lock');
      await holder.query('ROLLBACK');
      const after = await get('/api/v1/stores?town=Hamilton');
      expect(after.status, after.body).toBe(200);
    } finally {
      await holder.end();
    }
  });
});
