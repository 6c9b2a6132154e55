/**
 * The run log and the per-store checkpoints of collection runs (tables `collect_run` and
 * `collect_checkpoint`, migration 20261130000000_collect), and the per-chain collect lock.
 *
 * A scope (a store's external id, or '' for national prices) of a chain's day is `done` once every
 * page was fetched and its rows spooled to a file; the chain's day is ingested once, from every
 * done scope. A re-run of the same day skips the done scopes whose spool file is intact (same
 * SHA-256) and collects the others again from their first page.
 */
import fs from 'node:fs';
import crypto from 'node:crypto';
import type pg from 'pg';
import type { CollectionMode } from '../../src/domain/spans.js';
import { lockSession, unlockSession } from '../../src/db/locks.js';
import { ExpectedError } from '../../src/errors.js';

/** Another collection of the same chain is running (its advisory lock is held). */
export class CollectLockedError extends ExpectedError {
  override name = 'CollectLockedError';
}

/**
 * Takes the chain's collect lock on a dedicated connection; resolves with its release.
 * @throws CollectLockedError when another run of the chain holds it.
 */
export async function lockChain(pool: pg.Pool, retailerId: number, slug: string): Promise<() => Promise<void>> {
  const client = await pool.connect();
  try {
    if (!(await lockSession(client, 'collect', 'try', retailerId))) throw new CollectLockedError(`another collection of ${slug} is running (its advisory lock is held); try again when it has finished`);
  } catch (e) {
    client.release();
    throw e;
  }
  return async () => {
    client.release(!(await unlockSession(client, 'collect', retailerId)));
  };
}

/** Starts a run's log row; resolves with its id. */
export async function startRun(pool: pg.Pool, retailerId: number, day: string, origin: string, scopes: number): Promise<number> {
  const r = await pool.query<{ id: number }>(
    'INSERT INTO collect_run (retailer_id, day, origin, scopes) VALUES ($1, $2, $3, $4) RETURNING id',
    [retailerId, day, origin, scopes],
  );
  return r.rows[0].id;
}

/** The totals and outcome of a run, written when it ends. */
export interface RunOutcome {
  status: 'finished' | 'aborted' | 'failed';
  collected: number;
  resumed: number;
  failed: number;
  pages: number;
  rows: number;
  errors: number;
  mode: CollectionMode | null;
  error: string | null;
}

/**
 * Ends a run's log row. The chain's `retailer.last_run` is not set here: it follows the observation
 * time of what the run ingested (collection.observed_at, workers/ingest/ingest.ts), so a run that
 * ingested nothing does not claim the chain's prices were collected.
 */
export async function endRun(pool: pg.Pool, runId: number, o: RunOutcome): Promise<void> {
  await pool.query(
    `UPDATE collect_run SET finished_at = now(), status = $2, collected = $3, resumed = $4, failed = $5, pages = $6,
       rows = $7, errors = $8, mode = $9, error = $10 WHERE id = $1`,
    [runId, o.status, o.collected, o.resumed, o.failed, o.pages, o.rows, o.errors, o.mode, o.error],
  );
}

/** A done scope's checkpoint. */
export interface DoneScope {
  scope: string;
  pages: number;
  rows: number;
  errors: number;
  spoolFile: string;
  spoolSha256: string;
}

/** The done scopes of a chain's day whose spool file is still there with the recorded digest. */
export async function doneScopes(pool: pg.Pool, retailerId: number, day: string): Promise<Map<string, DoneScope>> {
  const r = await pool.query<{ scope: string; pages: number; rows: number; errors: number; spool_file: string; spool_sha256: string }>(
    `SELECT scope, pages, rows, errors, spool_file, spool_sha256 FROM collect_checkpoint
     WHERE retailer_id = $1 AND day = $2 AND status = 'done'`,
    [retailerId, day],
  );
  const out = new Map<string, DoneScope>();
  for (const c of r.rows) {
    if (!c.spool_file || !fs.existsSync(c.spool_file)) continue;
    if (sha256File(c.spool_file) !== c.spool_sha256) continue;
    out.set(c.scope, { scope: c.scope, pages: c.pages, rows: c.rows, errors: c.errors, spoolFile: c.spool_file, spoolSha256: c.spool_sha256 });
  }
  return out;
}

/** SHA-256 of a file's bytes, lowercase hex. */
export function sha256File(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Marks a scope as being collected by `runId` (a new attempt: counts reset). */
export async function scopeStarted(pool: pg.Pool, retailerId: number, day: string, scope: string, storeId: number | null, runId: number): Promise<void> {
  await pool.query(
    `INSERT INTO collect_checkpoint (retailer_id, day, scope, store_id, run_id, status) VALUES ($1, $2, $3, $4, $5, 'running')
     ON CONFLICT (retailer_id, day, scope) DO UPDATE SET run_id = EXCLUDED.run_id, status = 'running', pages = 0, rows = 0,
       errors = 0, spool_file = NULL, spool_sha256 = NULL, started_at = now(), finished_at = NULL, error = NULL`,
    [retailerId, day, scope, storeId, runId],
  );
}

/** What an attempt at a scope gathered. */
export interface ScopeCounts {
  pages: number;
  rows: number;
  errors: number;
}

/** Marks a scope done: every page fetched, its rows in `spoolFile` (digest `sha256`). */
export async function scopeDone(pool: pg.Pool, retailerId: number, day: string, scope: string, c: ScopeCounts, spoolFile: string, sha256: string): Promise<void> {
  await pool.query(
    `UPDATE collect_checkpoint SET status = 'done', pages = $4, rows = $5, errors = $6, spool_file = $7, spool_sha256 = $8, finished_at = now()
     WHERE retailer_id = $1 AND day = $2 AND scope = $3`,
    [retailerId, day, scope, c.pages, c.rows, c.errors, spoolFile, sha256],
  );
}

/** Marks a scope failed with the error that stopped it. */
export async function scopeFailed(pool: pg.Pool, retailerId: number, day: string, scope: string, c: ScopeCounts, error: string): Promise<void> {
  await pool.query(
    `UPDATE collect_checkpoint SET status = 'failed', pages = $4, rows = $5, errors = $6, error = $7, finished_at = now()
     WHERE retailer_id = $1 AND day = $2 AND scope = $3`,
    [retailerId, day, scope, c.pages, c.rows, c.errors + 1, error],
  );
}
