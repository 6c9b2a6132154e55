/**
 * Isolation under load (issue 29 item 3; facades/concurrency.ts) through the assembled server on a
 * real PostgreSQL: searches are held by a search backend that waits until the test lets it go
 * (ContextSource.search, the hook every server already has), so a family is saturated without any
 * timing. With the search family at 1 running and 1 waiting, one more search is answered 503 at once
 * — REST with the Error body, `Retry-After` and `no-store`; MCP as a tool error carrying that body
 * in an HTTP 200 no-store answer with `Retry-After` — while a light operation and a cached search
 * answer 200 at once; the held searches then finish in arrival order. /graphql refuses an execution
 * past its family's bound as an UNAVAILABLE error with HTTP 503. A search that waited past the bound
 * is refused too.
 *
 * Without the limiter each refused request would reach the backend instead: every check races the
 * answer against the backend's next arrival, so such a run fails at once rather than hanging.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { mcpToolRequest } from '../helpers/mcp-call.js';
import { readDataVersion } from '../../src/db/data-version.js';
import { loadEnv } from '../../src/env.js';
import type { SearchBackend, SuggestQuery, TextQuery } from '../../src/search/backend.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A search backend that answers nothing (no listings) and, while closed, holds every call until
 * {@link Gated.open} (after {@link Gated.shut}). It records each call's text in arrival order.
 */
class Gated {
  readonly calls: string[] = [];
  private gate: Promise<void> = Promise.resolve();
  private release: () => void = () => {};
  private arrivals: { n: number; resolve: () => void }[] = [];

  shut(): void {
    this.gate = new Promise((r) => (this.release = r));
  }

  open(): void {
    this.release();
    this.gate = Promise.resolve();
  }

  /** Resolves once the backend has been called `n` times in all. */
  arrived(n: number): Promise<'reached the backend'> {
    return new Promise((resolve) => {
      if (this.calls.length >= n) resolve('reached the backend');
      else this.arrivals.push({ n, resolve: () => resolve('reached the backend') });
    });
  }

  private async wait(text: string): Promise<void> {
    this.calls.push(text);
    for (const a of this.arrivals.filter((x) => this.calls.length >= x.n)) a.resolve();
    await this.gate;
  }

  async searchListings(query: TextQuery): Promise<number[]> {
    await this.wait(query.text);
    return [];
  }

  async suggest(query: SuggestQuery) {
    await this.wait(query.prefix);
    return [];
  }
}

let db: TestDatabase;
const servers: FastifyInstance[] = [];

/** A server over the test database whose searches go through `backend`, with CONCURRENCY_* `extra`. */
async function server(backend: Gated, extra: Record<string, string>): Promise<FastifyInstance> {
  const search: SearchBackend = { name: 'embedded', searchListings: (q) => backend.searchListings(q), suggest: (q) => backend.suggest(q), close: async () => {} };
  const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', ...extra });
  const app = await createServer({ db: { ...db, search }, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
  servers.push(app);
  await app.ready();
  await app.dataVersion.waitFor(await readDataVersion(db.pool), 10_000);
  return app;
}

async function get(app: FastifyInstance, url: string) {
  const r = await app.inject({ method: 'GET', url });
  return { status: r.statusCode, headers: r.headers, body: r.body };
}

async function graphql(app: FastifyInstance, query: string) {
  const r = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query }) });
  return { status: r.statusCode, headers: r.headers, body: r.body };
}

async function mcpSearch(app: FastifyInstance, q: string) {
  const r = await mcpToolRequest(app, 'search_listings', { q });
  return { status: r.statusCode, headers: r.headers, body: r.body };
}

/** Polls `cond` each turn of the event loop (no sleeps) until it holds; fails after 20,000 turns. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (cond()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`never happened: ${what}`);
}

/** Whether `app`'s search family holds `running` and `waiting` requests now, or (no limiter) the backend got `calls` calls. */
const searchState = (app: FastifyInstance, backend: Gated, running: number, waiting: number) => () => {
  const s = app.concurrency?.stats('search');
  return s ? s.running === running && s.waiting === waiting : backend.calls.length >= running + waiting;
};

const SEARCH_REFUSED = { error: { status: 503, message: 'Service unavailable: too many search requests at once; retry shortly' } };

beforeAll(async () => {
  db = await createTestDatabase('concurrency');
});

afterAll(async () => {
  for (const s of servers) await s.close();
  await db?.drop();
});

describe('a saturated family (search: 1 running, 1 waiting)', () => {
  it('refuses one more search with 503, Retry-After and no-store (REST and MCP), while a light operation and a cached search answer at once', async () => {
    const backend = new Gated();
    const app = await server(backend, { CONCURRENCY_SEARCH: '1', CONCURRENCY_QUEUE: '1', CONCURRENCY_WAIT_MS: '60000' });
    // A search answered once, while nothing is held: the response cache keeps it.
    expect((await get(app, '/api/v1/listings?q=cached')).status).toBe(200);
    expect(app.responseCache?.entries).toBe(1);

    backend.shut();
    const first = get(app, '/api/v1/listings?q=first');
    await until(searchState(app, backend, 1, 0), 'the first search running');
    const second = get(app, '/api/v1/listings?q=second');
    await until(searchState(app, backend, 1, 1), 'the second search waiting');
    expect(backend.calls).toEqual(['cached', 'first']);

    // One more: refused at once, never reaching the backend.
    const third = await Promise.race([get(app, '/api/v1/listings?q=third'), backend.arrived(3)]);
    expect(third, 'the third search reached the backend: nothing bounded the family').not.toBe('reached the backend');
    if (typeof third === 'string') return;
    expect(third.status).toBe(503);
    expect(JSON.parse(third.body)).toEqual(SEARCH_REFUSED);
    expect(third.headers['retry-after']).toBe('60');
    expect(third.headers['cache-control']).toBe('no-store');
    expect(third.headers['access-control-allow-origin']).toBe('*');

    // The same refusal as an MCP tool: a tool error carrying the Error body, HTTP 200, no-store, Retry-After.
    const tool = await Promise.race([mcpSearch(app, 'fourth'), backend.arrived(3)]);
    expect(tool, 'the MCP search reached the backend').not.toBe('reached the backend');
    if (typeof tool === 'string') return;
    expect(tool.status).toBe(200);
    expect(tool.headers['cache-control']).toBe('no-store');
    expect(tool.headers['retry-after']).toBe('60');
    const result = (JSON.parse(tool.body) as Json).result as Json;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(SEARCH_REFUSED);
    expect(JSON.parse(result.content[0].text)).toEqual(SEARCH_REFUSED);

    // Another family answers at once (and the unbounded probe), and so does a search the response cache holds.
    expect((await get(app, '/api/v1/status')).status).toBe(200);
    expect((await get(app, '/healthz')).status).toBe(200);
    const hit = await get(app, '/api/v1/listings?q=cached');
    expect(hit.status).toBe(200);
    expect(hit.body).toBe('[]');
    expect(hit.headers['cache-control']).toBe('public, max-age=300');
    const toolHit = await mcpSearch(app, 'cached');
    expect((JSON.parse(toolHit.body) as Json).result).toMatchObject({ structuredContent: [] });
    expect(toolHit.headers['cache-control']).toBe('public, max-age=300');
    expect(app.concurrency?.stats('search')).toEqual({ running: 1, waiting: 1, refusedFull: 2, refusedWait: 0 });

    // Let go: the held searches finish, in the order they came; the refused ones never ran.
    backend.open();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(backend.calls).toEqual(['cached', 'first', 'second']);
    expect((await get(app, '/api/v1/listings?q=after')).status).toBe(200);
  });

  it('refuses a search that waited past CONCURRENCY_WAIT_MS', async () => {
    const backend = new Gated();
    const app = await server(backend, { CONCURRENCY_SEARCH: '1', CONCURRENCY_QUEUE: '8', CONCURRENCY_WAIT_MS: '50' });
    backend.shut();
    const first = get(app, '/api/v1/search?q=first');
    await until(searchState(app, backend, 1, 0), 'the first search running');
    // The first is held until after the second's answer, so the second can only wait out its bound.
    const second = await Promise.race([get(app, '/api/v1/search?q=second'), backend.arrived(2)]);
    expect(second, 'the second search reached the backend: nothing bounded the family').not.toBe('reached the backend');
    if (typeof second === 'string') return;
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('1');
    expect(second.headers['cache-control']).toBe('no-store');
    expect(app.concurrency?.stats('search')).toMatchObject({ running: 1, waiting: 0, refusedWait: 1 });
    backend.open();
    expect((await first).status).toBe(200);
  });
});

describe('/graphql at its bound (1 running, none waiting)', () => {
  it('refuses one more execution as UNAVAILABLE with HTTP 503, Retry-After and no-store; REST is not held', async () => {
    const backend = new Gated();
    const app = await server(backend, { CONCURRENCY_GRAPHQL: '1', CONCURRENCY_QUEUE: '0', CONCURRENCY_WAIT_MS: '2000' });
    backend.shut();
    const first = graphql(app, '{ searchListings(q: "first") { id } }');
    await until(() => backend.calls.length === 1, 'the first execution in the backend');
    const second = await Promise.race([graphql(app, '{ searchListings(q: "second") { id } }'), backend.arrived(2)]);
    expect(second, 'the second execution reached the backend: nothing bounded /graphql').not.toBe('reached the backend');
    if (typeof second === 'string') return;
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('2');
    expect(second.headers['cache-control']).toBe('no-store');
    const body = JSON.parse(second.body) as Json;
    expect(body.data ?? null).toBeNull();
    expect(body.errors).toEqual([{ message: 'Service unavailable: too many GraphQL requests at once; retry shortly', extensions: { code: 'UNAVAILABLE' } }]);
    // A malformed query is refused before execution: never held, never counted.
    const invalid = await graphql(app, '{ nosuchfield }');
    expect(invalid.status).not.toBe(503);
    expect(invalid.body).toContain('Cannot query field');
    // REST runs in the registry's families, not in /graphql's.
    expect((await get(app, '/api/v1/stores')).status).toBe(200);
    expect(app.concurrency?.stats('graphql')).toMatchObject({ running: 1, waiting: 0, refusedFull: 1 });
    backend.open();
    const done = await first;
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body)).toEqual({ data: { searchListings: [] } });
  });
});
