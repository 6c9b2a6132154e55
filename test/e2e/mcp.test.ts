/**
 * POST /mcp end to end: the real server (createServer + listen on a free port) over a test database
 * with real prices, driven by the MCP SDK's own client over streamable HTTP in both eras: revision
 * 2026-07-28 (negotiated with `server/discover`, per-request `_meta`) and the legacy 2025-11-25
 * `initialize` handshake. Tool results are compared with the REST answers fetched over HTTP. Also
 * the prompts through the SDK client in both eras, and the request bounds (issue 13 #1) over a real
 * socket: an oversized body, a batch of 100 and a budgeted small batch.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../facades/operations.js';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };

let db: TestDatabase;
let app: FastifyInstance;
let seed: Seeded;
let base: string;

/** Every HTTP exchange a client made: method, status and the response headers that matter. */
interface Seen {
  method: string;
  status: number;
  contentType: string | null;
  sessionId: string | null;
}

async function rest(path: string) {
  const r = await fetch(`${base}${path}`);
  const text = await r.text();
  return { status: r.status, text, body: JSON.parse(text) as unknown };
}

/** An SDK client connected in `mode`, recording every HTTP exchange its transport makes. */
async function connect(mode: 'auto' | 'legacy' | { pin: string }) {
  const seen: Seen[] = [];
  const recording = async (url: string | URL, init?: RequestInit) => {
    const r = await fetch(url, init);
    seen.push({ method: init?.method ?? 'GET', status: r.status, contentType: r.headers.get('content-type'), sessionId: r.headers.get('mcp-session-id') });
    return r;
  };
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { fetch: recording }));
  return { client, seen };
}

/** No exchange carried a session id; every answer was JSON (or empty), never an SSE stream. */
function expectStatelessJson(seen: Seen[]) {
  expect(seen.length).toBeGreaterThan(0);
  for (const s of seen) {
    expect(s.sessionId, `${s.method} ${s.status}`).toBeNull();
    if (s.status !== 202) expect(s.contentType, `${s.method} ${s.status}`).toMatch(/^application\/json/);
  }
}

beforeAll(async () => {
  db = await createTestDatabase('mcp_e2e');
  seed = await seedRealPrices(db.pool);
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

const toolNames = operations.filter((op) => !op.internal).map((op) => op.name).sort();

/**
 * Both eras: the server names itself, lists every registry tool read-only, and list_retailers
 * answers the REST body (as `structured(body)`) plus its exact text.
 */
async function expectToolsAndRetailers(client: Awaited<ReturnType<typeof connect>>['client'], structured: (body: unknown) => unknown) {
  expect(client.getServerVersion()).toMatchObject({ name: 'nz-grocery-prices' });
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(toolNames);
  for (const t of tools) expect(t.annotations, t.name).toEqual(READ_ONLY);
  const retailers = await client.callTool({ name: 'list_retailers', arguments: {} });
  const restRetailers = await rest('/api/v1/retailers');
  expect(retailers.isError ?? false).toBe(false);
  expect(retailers.structuredContent).toEqual(structured(restRetailers.body));
  expect(retailers.content).toEqual([{ type: 'text', text: restRetailers.text }]);
}

describe('2026-07-28 era (server/discover, per-request _meta)', () => {
  it('negotiates 2026-07-28, lists the tools and calls them with REST-identical results', async () => {
    const { client, seen } = await connect('auto');
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await expectToolsAndRetailers(client, (body) => body);

      const id = seed.listingIds.get('woolworths:42246')!;
      const detail = await client.callTool({ name: 'get_listing', arguments: { id } });
      const restDetail = await rest(`/api/v1/listings/${id}`);
      expect(detail.structuredContent).toEqual(restDetail.body);
      expect(detail.content).toEqual([{ type: 'text', text: restDetail.text }]);

      const search = await client.callTool({ name: 'search_listings', arguments: { q: 'beef mince', limit: 5 } });
      expect(search.structuredContent).toEqual((await rest('/api/v1/listings?q=beef%20mince&limit=5')).body);

      const missing = await client.callTool({ name: 'get_listing', arguments: { id: 2_000_000_000 } });
      const restMissing = await rest('/api/v1/listings/2000000000');
      expect(restMissing.status).toBe(404);
      expect(missing.isError).toBe(true);
      expect(missing.content).toEqual([{ type: 'text', text: restMissing.text }]);

      const { contents } = await client.readResource({ uri: 'http://localhost:8080/openapi.json' });
      expect(contents[0]).toMatchObject({ mimeType: 'application/json', text: (await rest('/openapi.json')).text });
    } finally {
      await client.close();
    }
    expectStatelessJson(seen);
    expect(seen.every((s) => s.method === 'POST')).toBe(true);
  });

  it('a client pinned to 2026-07-28 connects without an initialize handshake', async () => {
    const { client, seen } = await connect({ pin: '2026-07-28' });
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.listResources()).resources.map((r) => r.name)).toEqual(['openapi', 'llms-full', 'export-manifest']);
    } finally {
      await client.close();
    }
    expectStatelessJson(seen);
  });
});

describe('legacy era (2025-11-25 initialize handshake)', () => {
  it('initializes statelessly, lists the tools and calls them with REST-identical results', async () => {
    const { client, seen } = await connect('legacy');
    try {
      expect(client.getProtocolEra()).toBe('legacy');
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      // 2025-era structuredContent must be an object: the SDK wraps an array body as {result}.
      await expectToolsAndRetailers(client, (body) => ({ result: body }));

      const id = seed.listingIds.get('woolworths:133211')!;
      const detail = await client.callTool({ name: 'get_listing', arguments: { id: String(id) } });
      const restDetail = await rest(`/api/v1/listings/${id}`);
      expect(detail.structuredContent).toEqual(restDetail.body);
      expect(detail.content).toEqual([{ type: 'text', text: restDetail.text }]);

      const bad = await client.callTool({ name: 'search_listings', arguments: { limit: 1000 } });
      const restBad = await rest('/api/v1/listings?limit=1000');
      expect(restBad.status).toBe(400);
      expect(bad.isError).toBe(true);
      expect(bad.content).toEqual([{ type: 'text', text: restBad.text }]);
    } finally {
      await client.close();
    }
    expectStatelessJson(seen);
    // the 2025 client may try the standalone GET stream; a stateless server refuses it with 405
    for (const s of seen.filter((x) => x.method !== 'POST')) expect(s.status).toBe(405);
  });
});

const PROMPTS = ['compare_basket', 'is_special_real', 'price_history', 'cheapest_near_me', 'has_it_shrunk'];

describe('prompts through the SDK client', () => {
  it.each(['auto', 'legacy'] as const)('%s: lists the prompts and gets one naming registry tools', async (mode) => {
    const { client, seen } = await connect(mode);
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(PROMPTS);
      expect(prompts[0].arguments?.map((a) => [a.name, a.required])).toEqual([['items', true], ['area', false]]);
      const got = await client.getPrompt({ name: 'is_special_real', arguments: { id: String(seed.listingIds.get('woolworths:42246')) } });
      const message = got.messages[0];
      expect(message.role).toBe('user');
      const text = message.content.type === 'text' ? message.content.text : '';
      expect(text).toContain('`get_listing_history`');
      for (const [, name] of text.matchAll(/`([a-z_]+)`/g)) if (operations.some((op) => op.name === name)) expect(toolNames).toContain(name);
      await expect(client.getPrompt({ name: 'compare_basket', arguments: {} })).rejects.toThrow(/compare_basket/);
    } finally {
      await client.close();
    }
    expectStatelessJson(seen.filter((s) => s.status < 400));
  });
});

describe('request bounds over a socket (issue 13 #1)', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
  const call = (i: number) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'list_retailers', arguments: {} } });

  it('a body over 64 KiB is 413 with the Error body', async () => {
    const r = await post(JSON.stringify({ ...call(1), params: { name: 'search_listings', arguments: { q: 'x'.repeat(100_000) } } }), { 'mcp-protocol-version': '2025-11-25' });
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual({ error: { status: 413, message: expect.stringContaining('too large') } });
  });

  it('a batch of 100 tools/call is 400 with -32600; a batch of 3 costs 3 units', async () => {
    const hundred = await post(JSON.stringify(Array.from({ length: 100 }, (_, i) => call(i + 1))));
    expect(hundred.status).toBe(400);
    expect(await hundred.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    const before = Number(hundred.headers.get('ratelimit-remaining'));
    const three = await post(JSON.stringify([call(1), call(2), call(3)]));
    expect(three.status).toBe(200);
    expect(((await three.json()) as unknown[]).length).toBe(3);
    expect(Number(three.headers.get('ratelimit-remaining'))).toBe(before - 3);
  });
});
