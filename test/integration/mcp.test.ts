/**
 * POST /mcp through the assembled server (app.inject) against a real PostgreSQL holding real prices
 * (api-spec "Meta" POST /mcp, "Errors" 4, "Versioning" 4): the registry as read-only tools whose
 * results are the REST bodies byte for byte, the resources, the 2026-07-28 validation ladder
 * (header cross-checks, unsupported revisions, unknown methods, malformed JSON), the legacy
 * `initialize` handshake answered as JSON, notifications, 405 for GET/DELETE, and no session ids.
 */
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createExecutor } from '../../facades/execute.js';
import { registerMcp } from '../../facades/mcp/index.js';
import { basketItems, historyTarget, promptDefinitions } from '../../facades/mcp/prompts.js';
import type { MetaDocuments } from '../../facades/meta/index.js';
import { operations } from '../../facades/operations.js';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';

const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' });
const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'vitest', version: '1.0.0' },
};
const ACCEPT = 'application/json, text/event-stream';
const READ_ONLY = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };
const tools = operations.filter((op) => !op.internal);

let db: TestDatabase;
let app: FastifyInstance;
let seed: Seeded;
let nextId = 1;

type Json = Record<string, any>;

interface Answer {
  status: number;
  headers: LightMyRequestResponse['headers'];
  text: string;
  body: Json;
}

/** Every /mcp answer: never a session id, always JSON unless it is empty. */
async function send(target: FastifyInstance, payload: string, headers: Record<string, string>): Promise<Answer> {
  const r = await target.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, payload });
  expect(r.headers['mcp-session-id'], 'no session id is ever issued').toBeUndefined();
  if (r.body.length > 0) expect(String(r.headers['content-type'])).toMatch(/^application\/json/);
  return { status: r.statusCode, headers: r.headers, text: r.body, body: r.body.length ? (r.json() as Json) : {} };
}

/** A 2026-07-28 request: `_meta` envelope plus the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers. */
function modern(method: string, params: Json = {}, opts: { headers?: Record<string, string>; target?: FastifyInstance; notification?: boolean } = {}) {
  const name = method === 'tools/call' || method === 'prompts/get' ? params.name : method === 'resources/read' ? params.uri : undefined;
  const message = { jsonrpc: '2.0', ...(opts.notification ? {} : { id: nextId++ }), method, params: { ...params, _meta: ENVELOPE } };
  const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name !== undefined && { 'mcp-name': String(name) }), ...opts.headers };
  return send(opts.target ?? app, JSON.stringify(message), headers);
}

/** A 2025-era request (no envelope), with the MCP-Protocol-Version header of `version` unless it is `initialize`. */
function legacy(method: string, params: Json = {}, version = '2025-11-25', opts: { notification?: boolean } = {}) {
  const message = { jsonrpc: '2.0', ...(opts.notification ? {} : { id: nextId++ }), method, params };
  return send(app, JSON.stringify(message), method === 'initialize' ? {} : { 'mcp-protocol-version': version });
}

async function rest(url: string) {
  const r = await app.inject({ method: 'GET', url });
  return { status: r.statusCode, text: r.body, body: r.json() as unknown };
}

const listing = (key: string) => {
  const id = seed.listingIds.get(key);
  if (id === undefined) throw new Error(`no listing ${key}`);
  return id;
};

beforeAll(async () => {
  db = await createTestDatabase('mcp');
  seed = await seedRealPrices(db.pool);
  app = await createServer({ db, env, rateLimit: { perMinute: 100_000, perDay: 1_000_000 } });
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('tools/list', () => {
  it('lists every non-internal operation by name, read-only, with the registry input schema', async () => {
    const r = await modern('tools/list');
    expect(r.status).toBe(200);
    const listed = r.body.result.tools as Json[];
    expect(listed.map((t) => t.name).sort()).toEqual(tools.map((op) => op.name).sort());
    expect(listed.map((t) => t.name)).not.toContain('healthz');
    for (const op of tools) {
      const t = listed.find((x) => x.name === op.name)!;
      expect(t.annotations, op.name).toEqual(READ_ONLY);
      expect(t.description.startsWith(op.summary), op.name).toBe(true);
      expect(t.inputSchema, op.name).toEqual(z.toJSONSchema(op.params, { io: 'input' }));
      expect(t.inputSchema.type).toBe('object');
      // the SDK stamps `type: 'object'` on a root it can prove is an object (e.g. a $ref to one)
      const output = z.toJSONSchema(op.result, { io: 'output' });
      expect(t.outputSchema, op.name).toEqual(output.type === undefined && t.outputSchema.type === 'object' ? { ...output, type: 'object' } : output);
    }
  });

  it('carries bounds, defaults and lengths of the parameters', async () => {
    const listed = (await modern('tools/list')).body.result.tools as Json[];
    const search = listed.find((t) => t.name === 'search_listings')!.inputSchema;
    expect(search.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(search.properties.q).toMatchObject({ type: 'string', maxLength: 100 });
    expect(search.required ?? []).not.toContain('q');
    const get = listed.find((t) => t.name === 'get_listing')!.inputSchema;
    expect(get.required).toEqual(['id']);
    expect(get.properties.id).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('is a cacheable 2026-07-28 result: resultType, ttlMs and cacheScope, serverInfo in _meta', async () => {
    const { result } = (await modern('tools/list')).body;
    expect(result.resultType).toBe('complete');
    expect(result.ttlMs).toBe(300_000);
    expect(result.cacheScope).toBe('public');
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'nz-grocery-prices' });
  });

  it('wraps array outputs as {result} for 2025-era clients, which require an object root', async () => {
    const listed = (await legacy('tools/list')).body.result.tools as Json[];
    const retailers = listed.find((t) => t.name === 'list_retailers')!;
    expect(retailers.outputSchema).toMatchObject({ type: 'object', required: ['result'], properties: { result: { type: 'array' } } });
    expect(listed.find((t) => t.name === 'get_listing')!.outputSchema.type).toBe('object');
    expect(retailers.annotations).toEqual(READ_ONLY);
  });
});

describe('tools/call', () => {
  /** Calls `name` over 2026-07-28 and checks the result is exactly the REST answer at `url`. */
  async function expectSameAsRest(name: string, args: Json, url: string) {
    const r = await modern('tools/call', { name, arguments: args });
    expect(r.status).toBe(200);
    const expected = await rest(url);
    expect(expected.status).toBe(200);
    const { result } = r.body;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual(expected.body);
    expect(result.content).toEqual([{ type: 'text', text: expected.text }]);
    expect(result.resultType).toBe('complete');
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'nz-grocery-prices' });
    return result;
  }

  it('list_retailers returns the REST body', async () => {
    const result = await expectSameAsRest('list_retailers', {}, '/api/v1/retailers');
    expect(result.structuredContent).toHaveLength(6);
  });

  it('search_listings with q returns the REST body, defaults and coercion included', async () => {
    const all = await expectSameAsRest('search_listings', { q: 'beef mince' }, '/api/v1/listings?q=beef%20mince');
    expect(all.structuredContent.length).toBeGreaterThan(3);
    await expectSameAsRest('search_listings', { q: 'beef', limit: 3 }, '/api/v1/listings?q=beef&limit=3');
    await expectSameAsRest('search_listings', { q: 'beef', limit: '3', retailer: 'paknsave' }, '/api/v1/listings?q=beef&limit=3&retailer=paknsave');
  });

  it('get_listing returns the REST body for a seeded listing (id as number or string)', async () => {
    const id = listing('woolworths:42246');
    const result = await expectSameAsRest('get_listing', { id }, `/api/v1/listings/${id}`);
    expect(result.structuredContent.id).toBe(id);
    await expectSameAsRest('get_listing', { id: String(id) }, `/api/v1/listings/${id}`);
    const history = listing('woolworths:133211');
    await expectSameAsRest('get_listing_history', { id: history }, `/api/v1/listings/${history}/history`);
    await expectSameAsRest('check_special', { id: history }, `/api/v1/listings/${history}/special`);
    await expectSameAsRest('get_product', { id: seed.productId }, `/api/v1/products/${seed.productId}`);
  });

  it('get_product_stores and get_product_spread return the REST body', async () => {
    const stores = await expectSameAsRest('get_product_stores', { id: seed.productId }, `/api/v1/products/${seed.productId}/stores`);
    expect(stores.structuredContent).toHaveLength(5);
    const spread = await expectSameAsRest('get_product_spread', { id: seed.productId }, `/api/v1/products/${seed.productId}/spread`);
    expect(Object.keys(spread.structuredContent)).toEqual(['paknsave', 'woolworths']);
    await expectSameAsRest('get_product_stores', { id: 777777 }, '/api/v1/products/777777/stores');
    await expectSameAsRest('get_product_spread', { id: 777777 }, '/api/v1/products/777777/spread');
  });

  it('plan_shopping_list (beyond api-spec) returns the REST body; an unknown item is its 404', async () => {
    const items = `p${seed.productId}x2,l${listing('woolworths:133211')}`;
    const plan = await expectSameAsRest('plan_shopping_list', { items, member: true, limit: 3 }, `/api/v1/shopping-list?items=${items}&member=true&limit=3`);
    expect(plan.structuredContent.items.map((i: Json) => i.ref)).toEqual(items.split(',').map((t) => t.replace(/x\d+$/, '')));
    const r = await modern('tools/call', { name: 'plan_shopping_list', arguments: { items: 'l2000000000' } });
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.error.status).toBe(404);
  });

  it('browse_retailer returns the REST body for a real category path (c as an array) and with q; a category holding nothing is its 404', async () => {
    const { buildRetailerCategories } = await import('../../workers/views/categories.js');
    const { inTransaction } = await import('../../src/db/transaction.js');
    await inTransaction(db.pool, (client) => buildRetailerCategories(client));
    const { rows } = await db.pool.query<{ path: string[] }>(
      `SELECT c.path FROM retailer_category c JOIN retailer r ON r.id = c.retailer_id
       WHERE r.slug = 'woolworths' AND cardinality(c.path) > 0 ORDER BY cardinality(c.path) DESC, c.listings DESC LIMIT 1`,
    );
    expect(rows.length).toBe(1);
    const c = rows[0].path;
    const query = c.map((l) => `c=${encodeURIComponent(l)}`).join('&');
    const body = await expectSameAsRest('browse_retailer', { slug: 'woolworths', c }, `/api/v1/retailers/woolworths/browse?${query}`);
    expect(body.structuredContent.total).toBeGreaterThan(0);
    await expectSameAsRest('browse_retailer', { slug: 'woolworths', q: 'beef', limit: 3 }, '/api/v1/retailers/woolworths/browse?q=beef&limit=3');
    const r = await modern('tools/call', { name: 'browse_retailer', arguments: { slug: 'woolworths', c: ['No such category'] } });
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.error.status).toBe(404);
  });

  it('an unknown listing is a tool error carrying the REST 404 Error body', async () => {
    const r = await modern('tools/call', { name: 'get_listing', arguments: { id: 2_000_000_000 } });
    expect(r.status).toBe(200);
    const expected = await rest('/api/v1/listings/2000000000');
    expect(expected.status).toBe(404);
    const { result } = r.body;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual(expected.body);
    expect(result.structuredContent.error.status).toBe(404);
    expect(result.content).toEqual([{ type: 'text', text: expected.text }]);
  });

  it('a bad parameter is a tool error carrying the REST 400 Error body', async () => {
    for (const [args, url] of [
      [{ q: 'beef', limit: 0 }, '/api/v1/listings?q=beef&limit=0'],
      [{ q: 'x'.repeat(101) }, `/api/v1/listings?q=${'x'.repeat(101)}`],
      [{ q: 'beef', retailer: 'aldi' }, '/api/v1/listings?q=beef&retailer=aldi'],
    ] as const) {
      const r = await modern('tools/call', { name: 'search_listings', arguments: args });
      const expected = await rest(url);
      expect(expected.status).toBe(400);
      expect(r.body.result.isError).toBe(true);
      expect(r.body.result.structuredContent).toEqual(expected.body);
      expect(r.body.result.content[0].text).toBe(expected.text);
    }
    const notInt = await modern('tools/call', { name: 'get_listing', arguments: { id: 'abc' } });
    expect(notInt.body.result).toMatchObject({ isError: true, structuredContent: { error: { status: 400 } } });
    expect(notInt.body.result.structuredContent.error.message).toContain('id');
  });

  it('an unknown or internal tool is an invalid-params error, never a 500', async () => {
    for (const name of ['drop_tables', 'healthz']) {
      const r = await modern('tools/call', { name, arguments: {} });
      expect(r.status).toBe(200);
      expect(r.body.error).toMatchObject({ code: -32602, message: expect.stringContaining(name) });
    }
  });

  it('2025-era calls get the same JSON, arrays wrapped as {result}', async () => {
    const retailers = await legacy('tools/call', { name: 'list_retailers', arguments: {} });
    const expected = await rest('/api/v1/retailers');
    expect(retailers.status).toBe(200);
    expect(retailers.body.result.structuredContent).toEqual({ result: expected.body });
    expect(retailers.body.result.content).toEqual([{ type: 'text', text: expected.text }]);
    expect(retailers.body.result.resultType).toBeUndefined();

    const id = listing('woolworths:42246');
    const detail = await legacy('tools/call', { name: 'get_listing', arguments: { id } }, '2025-06-18');
    const restDetail = await rest(`/api/v1/listings/${id}`);
    expect(detail.body.result.structuredContent).toEqual(restDetail.body);
    expect(detail.body.result.content[0].text).toBe(restDetail.text);
  });
});

describe('2026-07-28 validation ladder', () => {
  it('server/discover names the revision, capabilities and server, cacheable', async () => {
    const r = await modern('server/discover');
    expect(r.status).toBe(200);
    const { result } = r.body;
    expect(result.supportedVersions).toContain(MODERN);
    expect(result.capabilities).toMatchObject({ tools: {}, resources: {} });
    expect(result.resultType).toBe('complete');
    expect(result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'nz-grocery-prices', version: expect.any(String) });
  });

  it('Mcp-Method or Mcp-Name disagreeing with the body is 400 with -32020', async () => {
    const method = await modern('tools/list', {}, { headers: { 'mcp-method': 'resources/list' } });
    expect(method.status).toBe(400);
    expect(method.body.error.code).toBe(-32020);
    const name = await modern('tools/call', { name: 'list_retailers', arguments: {} }, { headers: { 'mcp-name': 'get_listing' } });
    expect(name.status).toBe(400);
    expect(name.body.error.code).toBe(-32020);
    expect(name.body.result).toBeUndefined();
  });

  it('a protocol-version header disagreeing with the envelope is 400 with -32020', async () => {
    const r = await modern('tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(-32020);
  });

  it('an unsupported revision is 400 with -32022 naming the supported ones', async () => {
    const message = { jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } };
    const r = await send(app, JSON.stringify(message), { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(-32022);
    expect(r.body.error.data.supported).toContain(MODERN);
    expect(r.body.id).toBe(message.id);
  });

  it('an unknown method is 404 with -32601, in both eras', async () => {
    const m = await modern('prices/teleport');
    expect(m.status).toBe(404);
    expect(m.body.error.code).toBe(-32601);
    const l = await legacy('prices/teleport');
    expect(l.status).toBe(404);
    expect(l.body.error.code).toBe(-32601);
  });

  it('malformed JSON is 400 with -32700 (a JSON-RPC error, not the REST Error body)', async () => {
    for (const payload of ['{"jsonrpc": "2.0", "id": 1, "method": ', 'not json at all']) {
      const r = await send(app, payload, { 'mcp-protocol-version': MODERN });
      expect(r.status).toBe(400);
      expect(r.body.jsonrpc).toBe('2.0');
      expect(r.body.error.code).toBe(-32700);
      expect(r.body.id).toBeNull();
    }
  });

  it('a body that is not application/json is 415', async () => {
    const r = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'text/plain', accept: ACCEPT }, payload: '{}' });
    expect(r.statusCode).toBe(415);
    expect(r.json().error.code).toBe(-32000);
  });

  it('a 2025-era request naming a revision outside 2025-03-26..2025-11-25 is 400, a JSON-RPC error', async () => {
    const r = await legacy('tools/list', {}, '2024-11-05');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.stringContaining('2024-11-05') } });
  });

  it('subscriptions/listen is acknowledged with nothing to listen to and ends at once', async () => {
    const message = { jsonrpc: '2.0', id: nextId++, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE } };
    const r = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
      payload: JSON.stringify(message),
    });
    expect(r.statusCode).toBe(200);
    expect(r.headers['mcp-session-id']).toBeUndefined();
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    const events = r.body.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Json);
    expect(events[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { notifications: {} } });
    expect(events.at(-1)).toMatchObject({ id: message.id, result: { resultType: 'complete' } });
  });

  it('notifications are accepted with 202 and no body, in both eras', async () => {
    const m = await modern('notifications/initialized', {}, { notification: true });
    expect(m.status).toBe(202);
    expect(m.text).toBe('');
    const l = await legacy('notifications/initialized', {}, '2025-11-25', { notification: true });
    expect(l.status).toBe(202);
    expect(l.text).toBe('');
  });
});

describe('legacy initialize handshake', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('%s is answered as JSON with that revision and no session', async (version) => {
    const r = await legacy('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'vitest', version: '1.0.0' } });
    expect(r.status).toBe(200);
    expect(String(r.headers['content-type'])).toMatch(/^application\/json/);
    expect(r.headers['mcp-session-id']).toBeUndefined();
    expect(r.body.result.protocolVersion).toBe(version);
    expect(r.body.result.serverInfo).toMatchObject({ name: 'nz-grocery-prices' });
    expect(r.body.result.capabilities).toMatchObject({ tools: {}, resources: {} });
    expect(r.body.result.resultType).toBeUndefined();
  });

  it('an older revision is counter-offered the newest legacy one', async () => {
    const r = await legacy('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'vitest', version: '1.0.0' } });
    expect(r.status).toBe(200);
    expect(r.body.result.protocolVersion).toBe('2025-11-25');
  });
});

describe('HTTP surface', () => {
  it.each(['GET', 'DELETE'] as const)('%s /mcp is 405 with Allow: POST and the Error body', async (method) => {
    const r = await app.inject({ method, url: '/mcp', headers: { accept: ACCEPT, 'mcp-protocol-version': '2025-11-25' } });
    expect(r.statusCode).toBe(405);
    expect(r.headers.allow).toBe('POST');
    expect(r.headers['mcp-session-id']).toBeUndefined();
    expect(r.json()).toEqual({ error: { status: 405, message: expect.stringContaining(method) } });
  });

  it('is an ordinary route: the app hooks add Cache-Control and the rate-limit headers', async () => {
    const r = await modern('tools/list');
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    expect(r.headers['ratelimit-limit']).toBeDefined();
    expect(r.headers['ratelimit-policy']).toBeDefined();
  });
});

describe('resources', () => {
  const BASE = 'https://prices.example.nz';
  const manifest = { day: '2026-08-03', licence: 'CC BY 4.0', generated_at: '2026-08-03T15:00:00Z', files: [] };
  let bare: FastifyInstance;
  let exported: Record<string, unknown> | null = null;
  const documents: MetaDocuments = {
    openapi: { openapi: '3.1.0' },
    openapiJson: '{"openapi":"3.1.0","info":{"title":"test document"}}',
    openapiYaml: 'openapi: 3.1.0\n',
    llmsTxt: '# index\n',
    llmsFullTxt: '# Full reference\n\nEvery operation, in Markdown.\n',
    exportManifest: async () => exported,
  };

  beforeAll(async () => {
    bare = Fastify();
    await registerMcp(bare, { run: createExecutor(db), operations, documents, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', PUBLIC_URL: `${BASE}/` }) });
    await bare.ready();
  });
  afterAll(async () => bare?.close());

  it('lists the OpenAPI document, llms-full.txt and the export manifest under the public URL', async () => {
    const r = await modern('resources/list', {}, { target: bare });
    expect(r.status).toBe(200);
    const listed = r.body.result.resources as Json[];
    expect(listed.map((x) => [x.uri, x.mimeType])).toEqual([
      [`${BASE}/openapi.json`, 'application/json'],
      [`${BASE}/llms-full.txt`, 'text/markdown'],
      [`${BASE}/data/latest/manifest.json`, 'application/json'],
    ]);
    expect(r.body.result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
  });

  it('reads back exactly the documents it was given', async () => {
    const openapi = await modern('resources/read', { uri: `${BASE}/openapi.json` }, { target: bare });
    expect(openapi.body.result.contents).toEqual([{ uri: `${BASE}/openapi.json`, mimeType: 'application/json', text: documents.openapiJson }]);
    const llms = await modern('resources/read', { uri: `${BASE}/llms-full.txt` }, { target: bare });
    expect(llms.body.result.contents).toEqual([{ uri: `${BASE}/llms-full.txt`, mimeType: 'text/markdown', text: documents.llmsFullTxt }]);
    expect(llms.body.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
  });

  it('the manifest is resource-not-found until an export has run, then its JSON', async () => {
    const uri = `${BASE}/data/latest/manifest.json`;
    exported = null;
    const missing = await modern('resources/read', { uri }, { target: bare });
    expect(missing.status).toBe(200);
    expect(missing.body.error).toMatchObject({ code: -32602, data: { uri } });
    exported = manifest;
    const found = await modern('resources/read', { uri }, { target: bare });
    expect(JSON.parse(found.body.result.contents[0].text)).toEqual(manifest);
    expect(found.body.result.contents[0].mimeType).toBe('application/json');
  });

  it('an unknown resource is an error, never a 500', async () => {
    const r = await modern('resources/read', { uri: `${BASE}/secrets.txt` }, { target: bare });
    expect(r.status).toBeLessThan(500);
    expect(r.body.error.code).toBe(-32602);
  });

  it('the assembled server serves the documents it generated', async () => {
    const r = await modern('resources/read', { uri: 'http://localhost:8080/openapi.json' });
    const served = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(r.body.result.contents[0].text).toBe(served.body);
  });
});

/** A 2025-03-26-style JSON-RPC batch of `n` tools/call list_retailers requests (no envelope). */
function batchOf(n: number, tool = 'list_retailers'): Json[] {
  return Array.from({ length: n }, () => ({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: tool, arguments: {} } }));
}

describe('batches and body size (issue 13 #1: a batch of 100 tools/call cost one unit)', () => {
  let counted: FastifyInstance;
  let calls = 0;

  beforeAll(async () => {
    const run = createExecutor(db);
    counted = Fastify();
    const documents: MetaDocuments = {
      openapi: {},
      openapiJson: '{}',
      openapiYaml: '',
      llmsTxt: '',
      llmsFullTxt: '',
      exportManifest: async () => null,
    };
    await registerMcp(counted, { run: async (op, args) => ((calls += 1), run(op, args)), operations, documents, env });
    await counted.ready();
  });
  afterAll(async () => counted?.close());

  it('a batch of 100 tools/call is refused with 400 and -32600 before any tool runs, in every era', async () => {
    calls = 0;
    const payload = JSON.stringify(batchOf(100));
    for (const headers of [{}, { 'mcp-protocol-version': '2025-03-26' }, { 'mcp-protocol-version': '2025-11-25' }] as Record<string, string>[]) {
      const r = await send(counted, payload, headers);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('batch') } });
    }
    expect(calls).toBe(0);
  });

  it('batches are refused outright for revisions that removed them (2025-06-18 and later)', async () => {
    calls = 0;
    for (const version of ['2025-06-18', '2025-11-25']) {
      const r = await send(counted, JSON.stringify(batchOf(2)), { 'mcp-protocol-version': version });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: -32600, message: expect.stringContaining(version) });
    }
    const modernBatch = batchOf(2).map((m) => ({ ...m, params: { ...m.params, _meta: ENVELOPE } }));
    const m = await send(counted, JSON.stringify(modernBatch), { 'mcp-protocol-version': MODERN });
    expect(m.status).toBe(400);
    expect(m.body.error.code).toBe(-32600);
    const empty = await send(counted, '[]', {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe(-32600);
    expect(calls).toBe(0);
  });

  it('a small 2025-03-26 batch is served, one answer per call', async () => {
    calls = 0;
    const batch = batchOf(3);
    const r = await send(counted, JSON.stringify(batch), {});
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    const answers = r.body as unknown as Json[];
    expect(answers.map((a) => a.id).sort()).toEqual(batch.map((m) => m.id).sort());
    for (const a of answers) expect(a.result.isError ?? false).toBe(false);
    expect(calls).toBe(3);
  });

  it('each call of a batch costs one unit of the per-IP budget: RateLimit-Remaining drops by n', async () => {
    const before = await modern('tools/list');
    const remainingBefore = Number(before.headers['ratelimit-remaining']);
    const r = await send(app, JSON.stringify(batchOf(4)), {});
    expect(r.status).toBe(200);
    expect((r.body as unknown as Json[]).length).toBe(4);
    expect(Number(r.headers['ratelimit-remaining'])).toBe(remainingBefore - 4);
    const after = await modern('tools/list');
    expect(Number(after.headers['ratelimit-remaining'])).toBe(remainingBefore - 5);
  });

  it('a batch exceeding the remaining budget is 429 in the Error shape with Retry-After instead of any answer', async () => {
    const small = await createServer({ db, env, rateLimit: { perMinute: 5, perDay: 1000, keyPrefix: 'mcp-batch' } });
    try {
      const first = await send(small, JSON.stringify(batchOf(3)), {});
      expect(first.status).toBe(200);
      expect(first.headers['ratelimit-remaining']).toBe('2');
      const over = await send(small, JSON.stringify(batchOf(3)), {});
      expect(over.status).toBe(429);
      expect(over.body).toMatchObject({ error: { status: 429, message: expect.any(String), bulk_data: expect.any(String), docs: expect.any(String) } });
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(over.headers['ratelimit-remaining']).toBe('0');
      expect(over.headers['ratelimit-limit']).toBe('5');
    } finally {
      await small.close();
    }
  });

  it('a body over the limit is 413 in the Error shape, budgeted like any request', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'search_listings', arguments: { q: 'x'.repeat(200_000) } } });
    const r = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-11-25' }, payload: big });
    expect(r.statusCode).toBe(413);
    expect(r.json()).toEqual({ error: { status: 413, message: expect.stringContaining('too large') } });
    expect(r.headers['ratelimit-remaining']).toBeDefined();
  });
});

describe('prompts (issue 13, "MCP prompts")', () => {
  const PROMPTS = ['compare_basket', 'is_special_real', 'price_history', 'cheapest_near_me', 'has_it_shrunk'];
  const definitions = promptDefinitions(operations);
  /** The tools a rendered message names: backquoted names of registry operations, internal ones included. */
  const named = (text: string) => [...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((w) => operations.some((op) => op.name === w));

  it('prompts/list shows them with titles, descriptions and their arguments, in both eras', async () => {
    for (const r of [await modern('prompts/list'), await legacy('prompts/list'), await legacy('prompts/list', {}, '2025-03-26')]) {
      expect(r.status).toBe(200);
      const listed = r.body.result.prompts as Json[];
      expect(listed.map((p) => p.name)).toEqual(PROMPTS);
      for (const p of listed) {
        expect(p.title, p.name).toEqual(expect.any(String));
        expect(p.description.length, p.name).toBeGreaterThan(20);
        for (const a of p.arguments) expect(a.description, `${p.name}.${a.name}`).toEqual(expect.any(String));
      }
      const args = (name: string) => (listed.find((p) => p.name === name)!.arguments as Json[]).map((a) => [a.name, a.required]);
      expect(args('compare_basket')).toEqual([['items', true], ['area', false]]);
      expect(args('is_special_real')).toEqual([['id', true], ['kind', false]]);
      expect(args('price_history')).toEqual([['query', true]]);
      expect(args('cheapest_near_me')).toEqual([['items', true], ['lat', true], ['lng', true], ['radius_km', false]]);
      expect(args('has_it_shrunk')).toEqual([['query', true]]);
    }
  });

  it('prompts/list is a cacheable 2026-07-28 result and the capability is announced in both eras', async () => {
    const { result } = (await modern('prompts/list')).body;
    expect(result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
    expect((await modern('server/discover')).body.result.capabilities.prompts).toEqual({ listChanged: false });
    const init = await legacy('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'vitest', version: '1.0.0' } });
    expect(init.body.result.capabilities.prompts).toEqual({ listChanged: false });
    expect(init.body.result.instructions).toContain('compare_basket');
  });

  it('every tool a prompt names is a published tool of the registry (tools/list)', async () => {
    const listed = ((await modern('tools/list')).body.result.tools as Json[]).map((t) => t.name);
    expect(definitions.map((d) => d.name)).toEqual(PROMPTS);
    for (const d of definitions) {
      expect(d.tools.length, d.name).toBeGreaterThan(0);
      for (const op of d.tools) expect(listed, `${d.name} → ${op.name}`).toContain(op.name);
    }
  });

  it('a prompt naming a tool the registry does not publish fails when the server is built', () => {
    expect(() => promptDefinitions(operations.filter((op) => op.name !== 'get_listing_history'))).toThrow(/is_special_real.*get_listing_history/);
    const internal = operations.map((op) => (op.name === 'search_products' ? { ...op, internal: true } : op));
    expect(() => promptDefinitions(internal)).toThrow(/search_products/);
  });

  it.each([
    ['compare_basket', { items: 'milk 2L, white bread , bananas,, Milk 2L', area: 'Canterbury' }, ['search_products', 'get_product_stores', 'list_stores', 'plan_shopping_list'], ['"milk 2L"', '"white bread"', '"bananas"', 'Canterbury']],
    ['compare_basket', { items: 'butter' }, ['search_products', 'get_product_stores', 'plan_shopping_list'], ['"butter"']],
    ['is_special_real', { id: '42' }, ['check_special', 'get_listing', 'get_listing_history'], ['listing 42']],
    ['is_special_real', { id: '7', kind: 'product' }, ['check_special', 'get_product', 'get_product_history'], ['product 7']],
    ['price_history', { query: 'anchor butter 500g' }, ['search_products', 'get_product', 'get_product_history', 'get_listing', 'get_listing_history', 'get_product_spread'], ['anchor butter 500g']],
    ['price_history', { query: '9414400000000' }, ['lookup_gtin', 'get_product_history', 'get_listing_history'], ['9414400000000']],
    ['price_history', { query: 'listing:12' }, ['get_listing', 'get_listing_history'], ['listing 12']],
    ['price_history', { query: 'product:5' }, ['get_product', 'get_product_history'], ['product 5']],
    ['cheapest_near_me', { items: 'milk 2L, bread', lat: '-36.8485', lng: '174.7633', radius_km: '3' }, ['list_stores', 'search_products', 'plan_shopping_list'], ['"milk 2L"', '"bread"', '`lat` -36.8485, `lng` 174.7633 and `radius_km` 3', 'within 3 km']],
    ['cheapest_near_me', { items: 'eggs', lat: '-43.53', lng: '172.63' }, ['list_stores', 'search_products', 'plan_shopping_list'], ['"eggs"', '`radius_km` 10', 'within 10 km']],
    ['has_it_shrunk', { query: 'dark chocolate 250g' }, ['search_listings', 'list_shrinkflation', 'get_listing', 'get_listing_history'], ['"dark chocolate 250g"', '`days` 730']],
    ['has_it_shrunk', { query: 'listing:42' }, ['list_shrinkflation', 'get_listing', 'get_listing_history'], ['listing 42']],
    ['has_it_shrunk', { query: 'product:7' }, ['get_product', 'list_shrinkflation'], ['`id` 7']],
    ['has_it_shrunk', { query: '9414400000000' }, ['lookup_gtin', 'list_shrinkflation'], ['9414400000000']],
  ] as const)('prompts/get %s %j returns a user message naming existing tools, in both eras', async (name, args, tools, mentions) => {
    const listed = ((await modern('tools/list')).body.result.tools as Json[]).map((t) => t.name);
    const answers = [await modern('prompts/get', { name, arguments: args }), await legacy('prompts/get', { name, arguments: args })];
    for (const r of answers) {
      expect(r.status).toBe(200);
      const { messages } = r.body.result;
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatchObject({ role: 'user', content: { type: 'text', text: expect.any(String) } });
      const text = messages[0].content.text as string;
      const used = named(text);
      for (const tool of tools) expect(used, tool).toContain(tool);
      for (const tool of used) expect(listed, tool).toContain(tool);
      for (const m of mentions) expect(text).toContain(m);
      expect(text).toContain('cents');
    }
    expect(answers[0].body.result.content).toBeUndefined();
    expect(answers[0].body.result.description).toEqual(answers[1].body.result.description);
  });

  it('a basket lists each item once', async () => {
    const text = (await modern('prompts/get', { name: 'compare_basket', arguments: { items: 'milk, Milk ,bread' } })).body.result.messages[0].content.text as string;
    expect(text.match(/"milk"/gi)).toHaveLength(1);
    expect(basketItems(' a , b,,A, c ')).toEqual(['a', 'b', 'c']);
    expect(historyTarget('Product # 12')).toEqual({ kind: 'product', id: 12 });
    expect(historyTarget('12345678')).toEqual({ kind: 'barcode', gtin: '12345678' });
    expect(historyTarget('1234')).toEqual({ kind: 'search', q: '1234' });
  });

  it('a missing or bad argument is a JSON-RPC invalid-params error, not a 500, in both eras', async () => {
    const bad: [string, Json][] = [
      ['compare_basket', {}],
      ['compare_basket', { items: ' , ,' }],
      ['compare_basket', { items: Array.from({ length: 13 }, (_, i) => `item ${i}`).join(',') }],
      ['is_special_real', {}],
      ['is_special_real', { id: 'abc' }],
      ['is_special_real', { id: '99999999999' }],
      ['is_special_real', { id: '3', kind: 'store' }],
      ['price_history', { query: '' }],
      ['cheapest_near_me', { items: 'milk', lat: '-36.8' }],
      ['cheapest_near_me', { items: 'milk', lng: '174.7' }],
      ['cheapest_near_me', { items: '', lat: '-36.8', lng: '174.7' }],
      ['cheapest_near_me', { items: 'milk', lat: '-91', lng: '174.7' }],
      ['cheapest_near_me', { items: 'milk', lat: '-36.8', lng: '1e2' }],
      ['cheapest_near_me', { items: 'milk', lat: '-36.8', lng: '174.7', radius_km: '0.4' }],
      ['cheapest_near_me', { items: 'milk', lat: '-36.8', lng: '174.7', radius_km: '201' }],
      ['has_it_shrunk', {}],
      ['has_it_shrunk', { query: '  ' }],
    ];
    for (const [name, args] of bad) {
      for (const r of [await modern('prompts/get', { name, arguments: args }), await legacy('prompts/get', { name, arguments: args })]) {
        expect(r.status, `${name} ${JSON.stringify(args)}`).toBe(200);
        expect(r.body.error, `${name} ${JSON.stringify(args)}`).toMatchObject({ code: -32602, message: expect.stringContaining(name) });
      }
    }
    const missing = await modern('prompts/get', { name: 'compare_basket' });
    expect(missing.body.error.code).toBe(-32602);
    const unknown = await modern('prompts/get', { name: 'teleport', arguments: {} });
    expect(unknown.status).toBeLessThan(500);
    expect(unknown.body.error.code).toBe(-32602);
  });
});
