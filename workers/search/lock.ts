/**
 * One writer per search alias at a time, across processes: the `searchAlias` advisory lock
 * (src/db/locks.ts) keyed by the alias. A full reindex takes it without waiting (a second reindex
 * fails fast); an incremental update waits for it, so upserts made while a reindex was building
 * land in the new index after the swap instead of in the old one that is about to be deleted.
 */
import type pg from 'pg';
import { ExpectedError } from '../../src/errors.js';
import { withSessionLock } from '../../src/db/locks.js';

/** Thrown when another process holds the alias's lock and the caller would not wait. */
export class IndexBusyError extends ExpectedError {}

/**
 * Runs `fn` holding the alias's lock on a dedicated connection, then releases it.
 * @param mode `try`: fail at once when held elsewhere; `wait`: block until it is free.
 * @throws IndexBusyError in `try` mode when the lock is held; whatever `fn` throws.
 */
export async function withIndexLock<T>(pool: pg.Pool, alias: string, mode: 'try' | 'wait', fn: () => Promise<T>): Promise<T> {
  const opts = mode === 'try' ? { mode, busy: () => new IndexBusyError(`another search-reindex of "${alias}" is running`) } : { mode };
  return withSessionLock(pool, 'searchAlias', opts, () => fn(), alias);
}
