/**
 * Applies the hand-written SQL migrations in prisma/migrations/<timestamp>_<name>/migration.sql in
 * order, each in its own transaction, recording them in Prisma's own `_prisma_migrations` table so
 * `prisma migrate deploy` sees the same state wherever its engine is available.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { ROOT_DIR } from '../env.js';

const MIGRATIONS_DIR = path.join(ROOT_DIR, 'prisma', 'migrations');

/**
 * Applies every migration not yet applied. Serialised across processes with an advisory lock.
 * @returns names of the migrations applied by this call.
 * @throws the database error of a failing migration (its transaction is rolled back).
 */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock(7242001)');
    await client.query(`CREATE TABLE IF NOT EXISTS _prisma_migrations (
      id VARCHAR(36) PRIMARY KEY, checksum VARCHAR(64) NOT NULL, finished_at TIMESTAMPTZ,
      migration_name VARCHAR(255) NOT NULL, logs TEXT, rolled_back_at TIMESTAMPTZ,
      started_at TIMESTAMPTZ NOT NULL DEFAULT now(), applied_steps_count INTEGER NOT NULL DEFAULT 0)`);
    const done = new Set(
      (await client.query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL'))
        .rows.map((r) => r.migration_name),
    );
    const names = fs.readdirSync(MIGRATIONS_DIR).filter((n) => fs.existsSync(path.join(MIGRATIONS_DIR, n, 'migration.sql'))).sort();
    for (const name of names) {
      if (done.has(name)) continue;
      const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, name, 'migration.sql'), 'utf8');
      const checksum = crypto.createHash('sha256').update(sql).digest('hex');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [crypto.randomUUID(), checksum, name],
        );
        await client.query('COMMIT');
        applied.push(name);
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(7242001)').catch(() => {});
    client.release();
  }
  return applied;
}
