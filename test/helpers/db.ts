/**
 * Test databases: every test file gets its own fresh database on a real PostgreSQL server
 * (TEST_DATABASE_URL: the embedded server test/global-setup.ts starts for the run, or the server
 * the variable names), created from scratch, migrated, and dropped afterwards. No mocks.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';

/**
 * URL of the test server's maintenance database (TEST_DATABASE_URL, set by test/global-setup.ts
 * when the caller did not set it).
 * @throws Error when unset: the file did not run under vitest's global setup.
 */
export const ADMIN_URL: string = process.env.TEST_DATABASE_URL ?? (() => {
  throw new Error('TEST_DATABASE_URL is unset: run the tests with `npm test` (test/global-setup.ts starts a PostgreSQL), or set it');
})();

/** A migrated, empty database for one test file. */
export interface TestDatabase extends Database {
  /** Drops the database (call in afterAll). */
  drop(): Promise<void>;
  /** SQL texts Prisma ran since the last reset (to count queries). */
  queries: string[];
}

/** A new database name for `label` (letters, digits and underscores, a random suffix). */
function databaseName(label: string): string {
  return `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${crypto.randomBytes(4).toString('hex')}`;
}

/** Runs `fn` with a connection to the test server's maintenance database, closing it after. */
export async function withAdmin<T>(fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/** URL of database `name` on the test server. */
export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Creates and migrates a fresh database named after `label`; with `template`, a copy of that
 * database (CREATE DATABASE … TEMPLATE: a file copy, no connection may be open to the template).
 */
export async function createTestDatabase(label: string, opts: { template?: string } = {}): Promise<TestDatabase> {
  const name = databaseName(label);
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}${opts.template ? ` TEMPLATE ${opts.template}` : ''}`));
  const queries: string[] = [];
  const db = await openDatabase({ databaseUrl: databaseUrl(name), embeddedDir: '', embeddedPort: 0, onQuery: (q) => queries.push(q) });
  return {
    ...db,
    queries,
    async drop() {
      await db.close();
      await withAdmin((a) => a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Real data folder (../shared/data beside the repository) unless DATA_DIR says otherwise. */
export const DATA_DIR = process.env.DATA_DIR ?? new URL('../../../shared/data', import.meta.url).pathname;
