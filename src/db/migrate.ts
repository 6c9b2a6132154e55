/**
 * Applies the hand-written SQL migrations in prisma/migrations/<timestamp>_<name>/migration.sql in
 * order, each in its own transaction, recording them in Prisma's own `_prisma_migrations` table so
 * `prisma migrate deploy` sees the same state wherever its engine is available.
 *
 * Integrity: before applying anything, every migration recorded as applied must still have its
 * folder and the same checksum, or `migrate()` refuses to start (an edited migration would otherwise
 * be skipped silently and the database would differ from what the files say). The checksum is
 * Prisma's: the SHA-256 of the migration.sql file's bytes as 64 lowercase hex digits, and a recorded
 * checksum also matches the file with its line endings converted (CRLF→LF or LF→CRLF, as git may
 * check them out) or in the unpadded hex an old schema engine wrote (prisma-engines
 * schema-engine/connectors/schema-connector/src/checksum.rs: render_checksum, script_matches_checksum).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { ROOT_DIR } from '../env.js';
import { inTransaction } from './transaction.js';
import { lockSession, unlockSession } from './locks.js';
import { ExpectedError } from '../errors.js';

/** The repository's migrations folder (Prisma's layout: `<timestamp>_<name>/migration.sql`). */
export const MIGRATIONS_DIR = path.join(ROOT_DIR, 'prisma', 'migrations');


/** A migration recorded as applied whose file is missing or no longer matches its checksum. */
export class MigrationIntegrityError extends ExpectedError {
  override name = 'MigrationIntegrityError';
  constructor(
    message: string,
    /** The migration's folder name. */
    readonly migration: string,
    /** Checksum recorded in `_prisma_migrations`. */
    readonly recorded: string,
    /** Checksum of the file now, or null when the file is missing. */
    readonly current: string | null,
  ) {
    super(message);
  }
}

function sha256Hex(data: Buffer | string): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/**
 * The checksum Prisma records for a migration script: SHA-256 of its bytes, 64 lowercase hex digits.
 */
export function migrationChecksum(script: Buffer | string): string {
  return sha256Hex(script);
}

/**
 * Whether `script` matches a checksum recorded in `_prisma_migrations`, by Prisma's rule: the
 * script as is, with CRLF turned into LF, or with LF turned into CRLF; a recorded checksum of other
 * than 64 characters is compared in the unpadded hex form of an old engine.
 */
export function scriptMatchesChecksum(script: Buffer, recorded: string): boolean {
  const text = script.toString('utf8');
  const digests = [
    crypto.createHash('sha256').update(script).digest(),
    crypto.createHash('sha256').update(text.replaceAll('\r\n', '\n')).digest(),
    crypto.createHash('sha256').update(text.replaceAll('\n', '\r\n')).digest(),
  ];
  const format = (d: Buffer) =>
    recorded.length !== 0 && recorded.length !== 64 ? [...d].map((b) => b.toString(16)).join('') : d.toString('hex');
  return digests.some((d) => format(d) === recorded);
}

/** Names of the migration folders in `dir` (those holding a migration.sql), in applying order. */
function migrationNames(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => fs.existsSync(path.join(dir, n, 'migration.sql'))).sort();
}

/**
 * Checks every applied migration against its file (see the module comment).
 * @throws MigrationIntegrityError for the first migration whose folder is missing or whose file changed.
 */
function verifyApplied(dir: string, recorded: Map<string, string>): void {
  for (const [name, checksum] of [...recorded].sort(([a], [b]) => a.localeCompare(b))) {
    const file = path.join(dir, name, 'migration.sql');
    if (!fs.existsSync(file)) {
      throw new MigrationIntegrityError(
        `Migration ${name} is recorded as applied (sha256 ${checksum}) but ${file} is missing (current sha256: none): ` +
          'restore that folder from version control; never delete an applied migration, add a new one that undoes it.',
        name, checksum, null,
      );
    }
    const script = fs.readFileSync(file);
    if (!scriptMatchesChecksum(script, checksum)) {
      const current = migrationChecksum(script);
      throw new MigrationIntegrityError(
        `Migration ${name} was edited after it was applied: recorded sha256 ${checksum}, current sha256 ${current} (${file}): ` +
          'restore the applied text and put the change in a new migration, or, for a scratch database, drop and recreate it.',
        name, checksum, current,
      );
    }
  }
}

/**
 * Applies every migration in `dir` not yet applied, after checking the applied ones (see the module
 * comment). Serialised across processes with an advisory lock.
 * @param dir migrations folder, the repository's by default (tests pass a temporary one).
 * @returns names of the migrations applied by this call.
 * @throws MigrationIntegrityError (nothing applied) when an applied migration's folder is missing or
 *   its file no longer matches the recorded checksum; the database error of a failing migration (its
 *   transaction is rolled back, earlier ones of this call stay applied).
 */
export async function migrate(pool: pg.Pool, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await lockSession(client, 'migrate', 'wait');
    await client.query(`CREATE TABLE IF NOT EXISTS _prisma_migrations (
      id VARCHAR(36) PRIMARY KEY, checksum VARCHAR(64) NOT NULL, finished_at TIMESTAMPTZ,
      migration_name VARCHAR(255) NOT NULL, logs TEXT, rolled_back_at TIMESTAMPTZ,
      started_at TIMESTAMPTZ NOT NULL DEFAULT now(), applied_steps_count INTEGER NOT NULL DEFAULT 0)`);
    const recorded = new Map(
      (await client.query<{ migration_name: string; checksum: string }>(
        `SELECT migration_name, checksum FROM _prisma_migrations
         WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY finished_at`,
      )).rows.map((r) => [r.migration_name, r.checksum]),
    );
    verifyApplied(dir, recorded);
    for (const name of migrationNames(dir)) {
      if (recorded.has(name)) continue;
      const script = fs.readFileSync(path.join(dir, name, 'migration.sql'));
      await inTransaction(client, async (tx) => {
        await tx.query(script.toString('utf8'));
        await tx.query(
          `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [crypto.randomUUID(), migrationChecksum(script), name],
        );
      });
      applied.push(name);
    }
  } finally {
    await unlockSession(client, 'migrate');
    client.release();
  }
  return applied;
}
