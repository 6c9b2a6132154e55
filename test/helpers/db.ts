/**
 * Test databases: every test file gets its own fresh database on a real PostgreSQL server
 * (TEST_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres — the server this
 * machine kind runs), created from scratch, migrated, and dropped afterwards. No mocks.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** A migrated, empty database for one test file. */
export interface TestDatabase extends Database {
  /** Drops the database (call in afterAll). */
  drop(): Promise<void>;
  /** SQL texts Prisma ran since the last reset (to count queries). */
  queries: string[];
}

/** Creates and migrates a fresh database named after `label`. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `t_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const queries: string[] = [];
  const db = await openDatabase({ databaseUrl: url.toString(), embeddedDir: '', embeddedPort: 0, onQuery: (q) => queries.push(q) });
  return {
    ...db,
    queries,
    async drop() {
      await db.close();
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/** Real data folder (../shared/data beside the repository) unless DATA_DIR says otherwise. */
export const DATA_DIR = process.env.DATA_DIR ?? new URL('../../../shared/data', import.meta.url).pathname;
