/**
 * HTTP hardening (issue 13) through the assembled server against a real PostgreSQL holding real
 * prices: exact store filters (no LIKE wildcards), production defaults and no stack traces, invalid
 * text in GraphQL arguments, every framework and socket-level refusal in the contract's Error body,
 * request and header timeouts (slow loris), strict integers, and 405 with `Allow`.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../facades/graphql/depth.js';
import { paramInfo, type AnyOperation } from '../../facades/operation.js';
import { operations } from '../../facades/operations.js';
import { OTHER_METHODS } from '../../facades/rest/methods.js';
import { createServer } from '../../facades/server.js';
import { SHELVES } from '../../src/domain/shelves.js';
import { loadEnv, ROOT_DIR } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { failingPool } from '../helpers/fixtures.js';
import { errorShapeProblems, PROTOTYPE_TEXTS } from '../helpers/fuzz.js';
import { mcpToolCall } from '../helpers/mcp-call.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';

let db: TestDatabase;
let seed: Seeded;
let app: FastifyInstance;
const extra: FastifyInstance[] = [];
const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' });

const STACK = /\bat .*:\d+:\d+/;

/** Asserts the contract's Error body for `status`. */
function expectError(body: string, status: number): { error: { status: number; message: string } } {
  const parsed = JSON.parse(body) as { error: { status: number; message: string } };
  expect(parsed, body).toEqual({ error: { status, message: expect.any(String) } });
  expect(body).not.toMatch(STACK);
  return parsed;
}

async function get(url: string, server: FastifyInstance = app) {
  const r = await server.inject({ method: 'GET', url });
  return { status: r.statusCode, headers: r.headers, body: r.body };
}

async function gql(server: FastifyInstance, query: string, variables?: Record<string, unknown>) {
  const r = await server.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    payload: JSON.stringify({ query, variables }),
  });
  return { status: r.statusCode, raw: r.body, body: r.json() as { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } };
}

/** Starts `server` on a loopback port. */
async function listen(server: FastifyInstance): Promise<number> {
  await server.listen({ port: 0, host: '127.0.0.1' });
  return (server.server.address() as net.AddressInfo).port;
}

/**
 * Sends `text` on a fresh connection and collects what comes back until the server closes it (or
 * `waitMs` passes: then `closed` is false). `drip`: after `text`, one more header byte every
 * `drip` ms (a slow-loris client).
 */
function rawExchange(port: number, text: string, { waitMs = 3000, drip }: { waitMs?: number; drip?: number } = {}) {
  return new Promise<{ response: string; closed: boolean; ms: number }>((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let response = '';
    let timer: NodeJS.Timeout | undefined;
    if (drip) timer = setInterval(() => socket.writable && socket.write('X'), drip);
    const finish = (closed: boolean) => {
      clearInterval(timer);
      clearTimeout(guard);
      socket.destroy();
      resolve({ response, closed, ms: Date.now() - started });
    };
    const guard = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d) => (response += d.toString()));
    socket.on('close', () => finish(true));
    socket.on('error', () => {});
  });
}

/** Status and body of a raw HTTP/1.1 response. */
function parseRaw(response: string): { status: number; headers: string; body: string } {
  const at = response.indexOf('\r\n\r\n');
  const head = response.slice(0, at);
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: response.slice(at + 4) };
}

beforeAll(async () => {
  db = await createTestDatabase('hardening');
  seed = await seedRealPrices(db.pool);
  // Two stores in other places, one of them in a town whose name holds LIKE's metacharacters.
  const [a, b] = [...seed.storeIds.values()];
  await db.pool.query(`UPDATE store SET town = 'Te Awamutu', area = 'Waikato' WHERE id = $1`, [a]);
  await db.pool.query(`UPDATE store SET town = '100% Pure_Town', area = 'Back\\Slash' WHERE id = $1`, [b]);
  app = await createServer({ db, env });
});

afterAll(async () => {
  for (const s of extra) await s.close();
  await app?.close();
  await db?.drop();
});

describe('store filters match exactly (issue 13 defect 4)', () => {
  const names = async (query: string) => {
    const r = await get(`/api/v1/stores?${query}`);
    expect(r.status, `${query}: ${r.body}`).toBe(200);
    return (JSON.parse(r.body) as { town: string }[]).map((s) => s.town);
  };

  it('compares town and area case-insensitively but exactly', async () => {
    expect(await names('town=te%20awamutu')).toEqual(['Te Awamutu']);
    expect(await names('town=AUCKLAND')).toHaveLength(4);
    expect(await names('area=waikato')).toEqual(['Te Awamutu']);
    expect(await names('town=Auck')).toEqual([]);
  });

  it('treats %, _ and \\ as themselves, never as wildcards or a malformed pattern', async () => {
    expect(await names('town=%25')).toEqual([]);
    expect(await names('area=%25')).toEqual([]);
    expect(await names('town=Auckl_nd')).toEqual([]);
    expect(await names('town=100%25%20pure_town')).toEqual(['100% Pure_Town']);
    expect(await names('town=100%25%25%20Pure_Town')).toEqual([]);
    expect(await names('town=%5C')).toEqual([]);
    expect(await names('area=back%5Cslash')).toEqual(['100% Pure_Town']);
    expect(await names('area=Back%5C')).toEqual([]);
  });

  it('does the same through /graphql', async () => {
    const r = await gql(app, 'query ($t: String) { stores(town: $t) { town } }', { t: '%' });
    expect(r.body.errors, r.raw).toBeUndefined();
    expect(r.body.data).toEqual({ stores: [] });
    const bs = await gql(app, 'query ($a: String) { stores(area: $a) { town } }', { a: '\\' });
    expect(bs.body.errors, bs.raw).toBeUndefined();
    expect(bs.body.data).toEqual({ stores: [] });
  });
});

describe('production by default, no stack traces (defect 6)', () => {
  it('defaults NODE_ENV to production, in env.ts and in the start script', () => {
    expect(loadEnv({}).NODE_ENV).toBe('production');
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toMatch(/NODE_ENV=\$\{NODE_ENV:-production\}/);
  });

  it('masks unexpected GraphQL errors unless NODE_ENV=development, and never sends a stack trace', async () => {
    // A pool whose every query fails unexpectedly (not an outage): the search backend reads through it.
    const broken = failingPool();
    for (const NODE_ENV of [undefined, 'production', 'test', 'development'] as const) {
      const server = await createServer({ db: { prisma: db.prisma, pool: broken }, env: loadEnv({ LOG_LEVEL: 'silent', ...(NODE_ENV && { NODE_ENV }) }) });
      extra.push(server);
      const r = await gql(server, '{ searchListings(q: "beef") { id } }');
      expect(r.body.errors?.[0].message, r.raw).toBe('Unexpected error.');
      expect(r.raw).not.toMatch(STACK);
      expect(r.raw).not.toMatch(/"stack"/);
      if (NODE_ENV === 'development') expect(r.raw).toMatch(/simulated pool failure/);
      else expect(r.raw, String(NODE_ENV)).not.toMatch(/simulated|originalError/);
      // REST never shows more than "Internal server error".
      const rest = await get('/api/v1/listings?q=beef', server);
      expect(rest.status).toBe(500);
      expect(expectError(rest.body, 500).error.message).toBe('Internal server error');
    }
  });
});

describe('invalid text in GraphQL arguments (defect 7)', () => {
  const refused = (r: Awaited<ReturnType<typeof gql>>) => {
    expect(r.status, r.raw).toBeLessThan(500);
    expect(r.body.errors?.[0].extensions?.code, r.raw).toBe('BAD_USER_INPUT');
    expect(r.raw).not.toMatch(STACK);
    expect(r.raw).not.toMatch(/INTERNAL_SERVER_ERROR|invalid byte sequence/);
  };

  it('refuses a NUL in a string literal or a variable before it reaches PostgreSQL', async () => {
    const before = db.queries.length;
    refused(await gql(app, '{ searchListings(q: "milk\\u0000") { id } }'));
    refused(await gql(app, 'query ($q: String) { searchProducts(q: $q) { productId } }', { q: 'a\u0000b' }));
    refused(await gql(app, 'query ($q: String!) { suggest(q: $q) { label } }', { q: '\u0000' }));
    refused(await gql(app, 'query ($t: String) { stores(town: $t) { id } }', { t: 'Auck\u0000land' }));
    refused(await gql(app, '{ gtin(gtin: "94\\u000014") { productId } }'));
    expect(db.queries.length).toBe(before);
    const r = await gql(app, '{ searchListings(q: "a\\u0000") { id } }');
    expect(r.body.errors?.[0].message).toMatch(/"q".*NUL/);
  });

  it('refuses an unpaired surrogate in a variable', async () => {
    refused(await gql(app, 'query ($q: String) { searchListings(q: $q) { id } }', { q: 'milk\uD800' }));
  });

  it('still runs valid text, accents and emoji included', async () => {
    const r = await gql(app, 'query ($q: String) { searchListings(q: $q, limit: 1) { id } }', { q: 'crème 🥛' });
    expect(r.body.errors, r.raw).toBeUndefined();
  });

  it('REST refuses NUL in q, and in town, with 400', async () => {
    for (const url of ['/api/v1/search?q=a%00b', '/api/v1/stores?town=a%00']) {
      const r = await get(url);
      expect(r.status, url).toBe(400);
      expect(expectError(r.body, 400).error.message).toMatch(/NUL/);
    }
  });
});

describe('every refusal in the Error body (defect 8)', () => {
  let port: number;
  beforeAll(async () => {
    const server = await createServer({ db, env });
    extra.push(server);
    port = await listen(server);
  });

  it('431 for headers too large, on the raw socket', async () => {
    const { response, closed } = await rawExchange(port, `GET /api/v1/retailers HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(closed).toBe(true);
    const r = parseRaw(response);
    expect(r.status).toBe(431);
    expect(r.headers).toMatch(/content-type: application\/json/);
    expect(r.headers).toMatch(/cache-control: no-store/);
    expectError(r.body, 431);
  });

  it('400 for malformed HTTP, on the raw socket', async () => {
    const r = parseRaw((await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n')).response);
    expect(r.status).toBe(400);
    expectError(r.body, 400);
  });

  it('400 for a request without Host', async () => {
    const r = parseRaw((await rawExchange(port, 'GET /api/v1/retailers HTTP/1.1\r\nConnection: close\r\n\r\n')).response);
    expect(r.status).toBe(400);
    expect(expectError(r.body, 400).error.message).toMatch(/Host/);
    // HTTP/1.0 may omit it.
    expect(parseRaw((await rawExchange(port, 'GET /healthz HTTP/1.0\r\n\r\n')).response).status).toBe(200);
  });

  it('400 and 415 for bodies Fastify cannot parse', async () => {
    const bad = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: '{bad' });
    expect(bad.statusCode).toBe(400);
    expectError(bad.body, 400);
    const type = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/x-nope' }, payload: 'x' });
    expect(type.statusCode).toBe(415);
    expectError(type.body, 415);
    expect(type.headers['cache-control']).toBe('no-store');
  });

  it('400 for an OPTIONS that is not a CORS preflight; a preflight still gets 204', async () => {
    for (const headers of [{}, { origin: 'https://example.org' }, { 'access-control-request-method': 'GET' }]) {
      const r = await app.inject({ method: 'OPTIONS', url: '/api/v1/retailers', headers });
      expect(r.statusCode, JSON.stringify(headers)).toBe(400);
      expectError(r.body, 400);
      expect(r.headers['access-control-allow-origin']).toBe('*');
    }
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/api/v1/retailers',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
    });
    expect(pre.statusCode).toBe(204);
  });

  it('400 for a malformed URL, with the usual headers', async () => {
    const r = await get('/api/v1/listings/%');
    expect(r.status).toBe(400);
    expectError(r.body, 400);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['cache-control']).toBe('public, max-age=300');
  });
});

describe('timeouts (defect 9)', () => {
  it('has finite defaults, documented limits and a consistent pair', () => {
    const d = loadEnv({});
    expect(d.HTTP_HEADERS_TIMEOUT_MS).toBeGreaterThan(0);
    expect(d.HTTP_HEADERS_TIMEOUT_MS).toBeLessThanOrEqual(d.HTTP_REQUEST_TIMEOUT_MS);
    expect(d.HTTP_REQUEST_TIMEOUT_MS).toBeLessThanOrEqual(60_000);
    expect(d.HTTP_KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(0);
    expect(d.HTTP_CONNECTION_TIMEOUT_MS).toBeGreaterThan(0);
    expect(() => loadEnv({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS/);
    const readme = fs.readFileSync(path.join(ROOT_DIR, 'README.md'), 'utf8');
    for (const v of ['HTTP_REQUEST_TIMEOUT_MS', 'HTTP_HEADERS_TIMEOUT_MS', 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 'HTTP_CONNECTION_TIMEOUT_MS']) {
      expect(readme.includes(`| \`${v}\``), `${v} in the README's Configuration table`).toBe(true);
    }
  });

  it('closes a connection that sends its headers slowly within the bound, with a 408 Error body', async () => {
    const server = await createServer({
      db,
      env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_REQUEST_TIMEOUT_MS: '1000' }),
    });
    extra.push(server);
    const port = await listen(server);
    const { response, closed, ms } = await rawExchange(port, 'GET /api/v1/retailers HTTP/1.1\r\nHost: x\r\nX-Slow: ', { drip: 100, waitMs: 5000 });
    expect(closed).toBe(true);
    expect(ms).toBeLessThan(2000);
    const r = parseRaw(response);
    expect(r.status).toBe(408);
    expectError(r.body, 408);
    // A connection that never sends anything is closed too.
    const idle = await rawExchange(port, '', { waitMs: 5000 });
    expect(idle.closed).toBe(true);
    expect(idle.ms).toBeLessThan(2000);
    // A prompt request on the same server is served.
    const ok = parseRaw((await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).response);
    expect(ok.status).toBe(200);
  });
});

describe('strict integers, 405 (defect 10)', () => {
  it(`accepts only integers written in digits`, async () => {
    const id = seed.listingIds.get('woolworths:42246') as number;
    for (const bad of [' 5', '5 ', '+5', '007', '05', '5.0', '1e1', '0x10', '-0', '５']) {
      const r = await get(`/api/v1/listings?limit=${encodeURIComponent(bad)}`);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(expectError(r.body, 400).error.message).toBe('Invalid parameter "limit": must be an integer written in digits');
      const byId = await get(`/api/v1/listings/${encodeURIComponent(bad.trim() === bad ? bad : ` ${id}`)}`);
      expect(byId.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await get(`/api/v1/listings/0${id}`)).status).toBe(400);
    expect((await get(`/api/v1/listings/${id}`)).status).toBe(200);
    expect((await get('/api/v1/listings?limit=5')).status).toBe(200);
    const zero = await get('/api/v1/listings?limit=0');
    expect(expectError(zero.body, 400).error.message).toBe('Invalid parameter "limit": must be at least 1');
    const huge = await get(`/api/v1/listings/${'9'.repeat(40)}`);
    expect(expectError(huge.body, 400).error.message).toMatch(/must be at most/);
  });

  it('answers another method on a known path with 405, Allow and the Error body', async () => {
    const id = seed.listingIds.get('woolworths:42246') as number;
    for (const url of ['/api/v1/retailers', `/api/v1/listings/${id}`, '/healthz', '/openapi.json', '/data/latest/manifest.json']) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        const r = await app.inject({ method, url });
        expect(r.statusCode, `${method} ${url}`).toBe(405);
        expect(r.headers.allow, `${method} ${url}`).toBe('GET, HEAD');
        expect(expectError(r.body, 405).error.message).toContain(method);
      }
    }
    const gq = await app.inject({ method: 'PUT', url: '/graphql' });
    expect(gq.statusCode).toBe(405);
    expect(gq.headers.allow).toBe('GET, HEAD, POST');
    // Under the budget like any other /api/v1 response.
    const budgeted = await app.inject({ method: 'DELETE', url: '/api/v1/retailers' });
    expect(budgeted.headers['ratelimit-policy']).toBeDefined();
    // Unknown paths stay 404.
    expect((await app.inject({ method: 'POST', url: '/api/v1/nothing' })).statusCode).toBe(404);
  });
});

describe('prototype words in every text parameter (issue 29 item 1)', () => {
  // Its own server with an unbounded budget: a 429 would hide the answer under test.
  let server: FastifyInstance;
  beforeAll(async () => {
    server = await createServer({ db, env, rateLimit: { perMinute: 1e9, perDay: 1e9, keyPrefix: `proto-${process.pid}-${Date.now()}` } });
    extra.push(server);
  });

  /** A value the operation accepts for path parameter `name` (seeded rows; the first shelf; a chain). */
  const validPath = (op: AnyOperation, name: string): string => {
    if (name === 'slug') return op.path.startsWith('/api/v1/shelves/') ? SHELVES[0].slug : 'woolworths';
    if (name === 'gtin') return '9400000000000';
    if (op.path.startsWith('/api/v1/products/')) return String(seed.productId);
    if (op.path.startsWith('/api/v1/stores/')) return String([...seed.storeIds.values()][0]);
    if (op.path.startsWith('/api/v1/listings/')) return String([...seed.listingIds.values()][0]);
    return '1';
  };
  const pathOf = (op: AnyOperation, given: Record<string, string> = {}) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => given[name] ?? validPath(op, name));

  it('answers every prototype word in every text parameter of every registry operation without a 5xx, in the Error body', async () => {
    const problems: string[] = [];
    let sent = 0;
    for (const op of operations) {
      const text = paramInfo(op).filter((p) => p.schema.type === 'string' || p.schema.type === 'array');
      for (const p of text) {
        for (const { label, value } of PROTOTYPE_TEXTS) {
          const encoded = encodeURIComponent(value);
          const url = p.in === 'path' ? pathOf(op, { [p.name]: encoded }) : `${pathOf(op)}?${p.name}=${encoded}`;
          const r = await server.inject({ method: 'GET', url });
          sent++;
          if (r.statusCode >= 500 || r.statusCode === 429) problems.push(`${op.name} ${p.name} (${label}): HTTP ${r.statusCode} ${r.body.slice(0, 200)}`);
          else if (r.statusCode >= 400) {
            for (const problem of errorShapeProblems(JSON.parse(r.body), r.statusCode)) problems.push(`${op.name} ${p.name} (${label}): ${problem}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    // Every operation with text (q, retailer, slug, town…) was reached: 20-odd parameters × the words.
    expect(sent).toBeGreaterThan(20 * PROTOTYPE_TEXTS.length);
  });

  it('list_shelves q=constructor names no shelf over REST, GraphQL and MCP (it answered 500)', async () => {
    for (const q of ['constructor', 'Constructor', 'milk constructor', '__proto__', 'toString']) {
      const rest = await get(`/api/v1/shelves?q=${encodeURIComponent(q)}`, server);
      expect(rest.status, `${q}: ${rest.body}`).toBe(200);
      expect(JSON.parse(rest.body)).toEqual([]);
      const graph = await gql(server, 'query ($q: String) { shelves(q: $q) { slug } }', { q });
      expect(graph.body, graph.raw).toEqual({ data: { shelves: [] } });
      const tool = await mcpToolCall(server, 'list_shelves', { q });
      expect(tool.isError ?? false, JSON.stringify(tool)).toBe(false);
      expect(tool.structuredContent).toEqual([]);
    }
  });
});

describe('deep JSON in /graphql (issue 29 item 2)', () => {
  const post = (payload: string) =>
    app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', accept: 'application/json' }, payload });
  const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const nestedArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const tooDeep = (r: { statusCode: number; body: string }, what: 'variables' | 'extensions') => {
    expect(r.statusCode, r.body).toBe(400);
    const body = JSON.parse(r.body) as { errors?: { message: string; extensions?: { code?: string } }[] };
    expect(body.errors?.[0], r.body).toEqual({ message: `Malformed request: ${what} nest deeper than ${MAX_JSON_DEPTH} levels`, extensions: { code: 'BAD_REQUEST' } });
    expect(r.body).not.toMatch(STACK);
  };

  it('refuses variables nested 4,000 to 100,000 deep with 400 BAD_REQUEST (they answered 500: the text walk ran out of stack)', async () => {
    const used = JSON.stringify('query ($v: String) { searchListings(q: $v) { id } }');
    for (const depth of [4_000, 8_000, 20_000, 100_000]) {
      tooDeep(await post(`{"query":${used},"variables":{"v":${nestedObject(depth)}}}`), 'variables');
      tooDeep(await post(`{"query":${used},"variables":{"v":${nestedArray(depth)}}}`), 'variables');
    }
    // Over GET too, and in extensions.
    tooDeep(await app.inject({ method: 'GET', url: `/graphql?query=${encodeURIComponent('{ health }')}&variables=${encodeURIComponent(`{"v":${nestedArray(8_000)}}`)}` }), 'variables');
    tooDeep(await post(`{"query":"{ health }","extensions":{"x":${nestedObject(8_000)}}}`), 'extensions');
  });

  it('lets variables up to the bound through to GraphQL, which refuses their type as before', async () => {
    // {"v": 62 arrays} is 63 levels with the variables object; the depth check lets it pass.
    const r = await post(`{"query":"query ($v: String) { searchListings(q: $v) { id } }","variables":{"v":${nestedArray(MAX_JSON_DEPTH - 2)}}}`);
    expect(r.statusCode, r.body).toBe(400);
    expect(r.body).toMatch(/String cannot represent a non string value/);
    const ok = await gql(app, 'query ($q: String) { searchListings(q: $q, limit: 1) { id } }', { q: 'milk' });
    expect(ok.body.errors, ok.raw).toBeUndefined();
  });
});

describe('odd methods and Expect (issue 29 item 4)', () => {
  let port: number;
  beforeAll(async () => {
    const server = await createServer({ db, env, rateLimit: { perMinute: 1e9, perDay: 1e9, keyPrefix: `odd-${process.pid}-${Date.now()}` } });
    extra.push(server);
    port = await listen(server);
  });

  it('answers TRACE, PROPFIND and every other method Node parses on a known path with 405, Allow and the Error body (they answered 404)', async () => {
    expect(OTHER_METHODS).toEqual(expect.arrayContaining(['TRACE', 'PROPFIND', 'QUERY', 'PURGE', 'MKCOL', 'M-SEARCH']));
    for (const [url, allow] of [['/api/v1/retailers', 'GET, HEAD'], ['/graphql', 'GET, HEAD, POST'], ['/mcp', 'POST'], ['/healthz', 'GET, HEAD']]) {
      for (const method of OTHER_METHODS) {
        const r = parseRaw((await rawExchange(port, `${method} ${url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).response);
        expect(r.status, `${method} ${url}`).toBe(405);
        expect(r.headers, `${method} ${url}`).toContain(`allow: ${allow.toLowerCase()}`);
        expect(expectError(r.body, 405).error.message).toContain(`${method} ${url}`);
      }
    }
    // Unknown paths stay 404, whatever the method.
    const unknown = parseRaw((await rawExchange(port, 'TRACE /api/v1/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).response);
    expect(unknown.status).toBe(404);
    expectError(unknown.body, 404);
  });

  it('answers an Expect other than 100-continue with 417 in the Error body (Node sent it bare); 100-continue still works', async () => {
    for (const expectation of ['999-bogus', '200-ok', 'x'.repeat(2000)]) {
      const { response, closed } = await rawExchange(port, `GET /api/v1/retailers HTTP/1.1\r\nHost: x\r\nExpect: ${expectation}\r\n\r\n`);
      expect(closed).toBe(true);
      const r = parseRaw(response);
      expect(r.status).toBe(417);
      expect(r.headers).toMatch(/content-type: application\/json/);
      expect(r.headers).toMatch(/cache-control: no-store/);
      expectError(r.body, 417);
    }
    const body = '{"query":"{ health }"}';
    const cont = await rawExchange(port, `POST /graphql HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect(cont.response).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });
});
