/**
 * MCP tool calls during a database outage (issue 29 #2), against a PostgreSQL address that refuses
 * connections (a real outage: ECONNREFUSED): in every protocol era the tool's JSON-RPC result is a
 * tool error carrying the contract's 503 Error body, and the HTTP answer is `no-store` with
 * `Retry-After` — never `public, max-age=300` (docs/http.md "MCP" says why the status stays 200).
 * The outage is logged once per call at warn, without a stack; request-determined tool errors
 * (400, 404) keep the contract's caching.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { PrismaPg } from '@prisma/adapter-pg';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../facades/execute.js';
import { registerMcp } from '../../facades/mcp/index.js';
import { registerRestRoutes } from '../../facades/rest/routes.js';
import type { MetaDocuments } from '../../facades/meta/index.js';
import { operations } from '../../facades/operations.js';
import { createServer } from '../../facades/server.js';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { freePort } from '../../src/db/embedded.js';
import { loadEnv } from '../../src/env.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const env = loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' });
let pool: pg.Pool;
let prisma: PrismaClient;
let app: FastifyInstance;
let logged: Json[] = [];
let bare: FastifyInstance;

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'vitest', version: '1' },
};

/** tools/call `name` in `era` (2026-07-28, or a 2025 revision), on `target`. */
async function toolCall(target: FastifyInstance, era: string, name: string, args: Json) {
  const modern = era === '2026-07-28';
  const r = await target.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': era,
      ...(modern && { 'mcp-method': 'tools/call', 'mcp-name': name }),
    },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args, ...(modern && { _meta: META }) } }),
  });
  return { status: r.statusCode, headers: r.headers, body: r.json() as Json };
}

beforeAll(async () => {
  // Nothing listens there: every connection is refused.
  const port = await freePort();
  pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'prices', connectionTimeoutMillis: 2_000 });
  pool.on('error', () => {});
  prisma = new PrismaClient({ adapter: new PrismaPg(pool as never) });
  app = await createServer({ db: { pool, prisma }, env });
  await app.ready();

  // The same endpoint on a bare app whose log is kept, to see how the outage is logged.
  const lines = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l.trim()) logged.push(JSON.parse(l) as Json);
      done();
    },
  });
  bare = Fastify({ loggerInstance: pino({ level: 'debug' }, lines) }) as unknown as FastifyInstance;
  const documents: MetaDocuments = { openapi: {}, openapiJson: '{}', openapiYaml: '', llmsTxt: '', llmsFullTxt: '', exportManifest: async () => null };
  await registerMcp(bare, { run: createExecutor({ pool, prisma }), operations, documents, env });
  registerRestRoutes(bare, createExecutor({ pool, prisma }), operations);
  await bare.ready();
});

afterAll(async () => {
  await app?.close();
  await bare?.close();
  await prisma?.$disconnect();
  await pool?.end().catch(() => {});
});

describe('MCP tool calls while the database is unreachable', () => {
  for (const era of ['2026-07-28', '2025-11-25', '2025-03-26']) {
    it(`${era}: a tool error with the 503 Error body; the HTTP answer is no-store with Retry-After (a 400 tool error stays cacheable)`, async () => {
      // An object body (2025-era results wrap array bodies as {"result": …}).
      const r = await toolCall(app, era, 'get_listing', { id: 1 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.headers['cache-control']).toBe('no-store');
      expect(String(r.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
      expect(r.body.id).toBe(3);
      expect(r.body.result.isError).toBe(true);
      expect(r.body.result.structuredContent).toEqual({ error: { status: 503, message: expect.stringMatching(/retry/i) } });
      expect(JSON.parse(r.body.result.content[0].text)).toEqual(r.body.result.structuredContent);

      // A request-determined tool error (400) keeps the contract's caching.
      const bad = await toolCall(app, era, 'get_listing', { id: 'abc' });
      expect(bad.body.result.structuredContent.error.status).toBe(400);
      expect(bad.headers['cache-control']).toBe('public, max-age=300');
      expect(bad.headers['retry-after']).toBeUndefined();
    });
  }

  it('logs the outage at warn with its one-line reason, no stack', async () => {
    logged = [];
    const r = await toolCall(bare, '2025-11-25', 'get_listing', { id: 1 });
    expect(r.body.result.structuredContent.error.status).toBe(503);
    const outage = logged.filter((l) => l.msg === 'database unavailable');
    expect(outage).toHaveLength(1);
    expect(outage[0]).toMatchObject({ level: 40, operation: 'get_listing', reason: expect.any(String) });
    expect(JSON.stringify(outage[0])).not.toMatch(/"stack"|\bat .*:\d+:\d+/);
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('REST logs the outage the same way: warn, one-line reason, no stack', async () => {
    logged = [];
    const r = await bare.inject({ url: '/api/v1/listings/1' });
    expect(r.statusCode).toBe(503);
    const outage = logged.filter((l) => l.msg === 'database unavailable');
    expect(outage).toHaveLength(1);
    expect(outage[0]).toMatchObject({ level: 40, operation: 'get_listing', reason: expect.any(String) });
    expect(JSON.stringify(outage[0])).not.toMatch(/"stack"|\bat .*:\d+:\d+/);
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
  });
});
