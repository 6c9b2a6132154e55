/**
 * What is an outage and what is not (issue 29 #3), on real errors: a client closing its connection
 * mid-body on /graphql or /mcp (Node's `aborted`, code ECONNRESET, no system call) is logged as
 * "client closed the connection" at info, not as "database unavailable"; a database socket reset
 * (a real `read ECONNRESET` of a pg client), a statement past `statement_timeout` (57014) and a lock
 * wait past `lock_timeout` (55P03) on the real test server are outages (HTTP 503).
 */
import http from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../facades/server.js';
import { loadEnv } from '../../src/env.js';
import { isClientDisconnect, isDatabaseUnavailable } from '../../src/errors.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

let db: TestDatabase;
let app: FastifyInstance;
let port: number;
/** What the requests logged: level and message. */
const logged: { level: string; msg: string }[] = [];

/** A request logger that records (pino's call shapes: `(obj, msg)` or `(msg)`). */
function recordingLogger(): Record<string, unknown> {
  const at = (level: string) => (a: unknown, b?: unknown) => {
    logged.push({ level, msg: typeof a === 'string' ? a : String(b ?? '') });
  };
  const logger: Record<string, unknown> = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug'), trace: at('trace'), fatal: at('fatal'), level: 'trace' };
  logger.child = () => logger;
  return logger;
}

/** Sends headers promising 1,000 bytes and a part of the body, then closes the connection. */
function abandonMidBody(url: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const head = Object.entries({ Host: 'localhost', 'Content-Type': 'application/json', 'Content-Length': '1000', ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`POST ${url} HTTP/1.1\r\n${head}\r\n{"jsonrpc":"2.0","id":1,"method":`);
      setTimeout(() => socket.destroy(), 100);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => {});
  });
}

/** The error Node's HTTP server gives a request body when the client closes mid-body. */
function realAbortError(): Promise<Error> {
  return new Promise((resolve) => {
    const server = http.createServer((req) => {
      req.on('error', (e) => {
        server.close();
        resolve(e);
      });
      req.resume();
    });
    server.listen(0, '127.0.0.1', () => {
      const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1', () => {
        socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc');
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('error', () => {});
    });
  });
}

/** The error of a pg client whose server resets the connection (a real socket error, `read ECONNRESET`). */
async function realDatabaseReset(): Promise<unknown> {
  const server = net.createServer((s) => s.resetAndDestroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new pg.Client({ host: '127.0.0.1', port: (server.address() as net.AddressInfo).port, user: 'x', database: 'x', connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return null;
  } catch (e) {
    return e;
  } finally {
    server.close();
  }
}

beforeAll(async () => {
  db = await createTestDatabase('client_disconnect');
  app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test' }) });
  app.addHook('onRequest', async (req) => {
    (req as unknown as { log: unknown }).log = recordingLogger();
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('client disconnects are not outages', () => {
  it('logs a client closing mid-body on /graphql and /mcp as "client closed the connection" (info), never "database unavailable"', async () => {
    logged.length = 0;
    await abandonMidBody('/graphql', { Accept: 'application/json' });
    await abandonMidBody('/mcp', { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' });
    for (let i = 0; i < 40 && logged.filter((l) => l.msg === 'client closed the connection').length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(logged.filter((l) => l.msg === 'client closed the connection').map((l) => l.level)).toEqual(['info', 'info']);
    expect(logged.filter((l) => /database unavailable/.test(l.msg))).toEqual([]);
    expect(logged.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    // The server goes on serving.
    const r = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(r.status).toBe(200);
  });

  it('classifies the real errors: a client abort is a disconnect, a database socket reset and the time bounds are outages', async () => {
    const abort = await realAbortError();
    expect(isClientDisconnect(abort)).toBe(true);
    expect(isDatabaseUnavailable(abort)).toBe(false);

    const reset = await realDatabaseReset();
    expect((reset as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    expect(isClientDisconnect(reset)).toBe(false);
    expect(isDatabaseUnavailable(reset)).toBe(true);

    const client = new pg.Client({ connectionString: db.url, statement_timeout: 50, lock_timeout: 50 });
    await client.connect();
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      const slow = await client.query('SELECT pg_sleep(2)').then(() => null, (e: unknown) => e);
      expect((slow as { code?: string }).code).toBe('57014');
      expect(isDatabaseUnavailable(slow)).toBe(true);

      await holder.query('BEGIN');
      await holder.query('LOCK TABLE retailer IN ACCESS EXCLUSIVE MODE');
      const blocked = await client.query('SET statement_timeout = 0').then(() => client.query('SELECT count(*) FROM retailer')).then(() => null, (e: unknown) => e);
      expect((blocked as { code?: string }).code).toBe('55P03');
      expect(isDatabaseUnavailable(blocked)).toBe(true);
      await holder.query('ROLLBACK');
    } finally {
      await client.end();
      await holder.end();
    }
  });
});
