/**
 * One writer per search alias at a time, across processes: a PostgreSQL session advisory lock
 * keyed by the alias. A full reindex takes it without waiting (a second reindex fails fast); an
 * incremental update waits for it, so upserts made while a reindex was building land in the new
 * index after the swap instead of in the old one that is about to be deleted.
 */
import type pg from 'pg';

/** First key of the advisory lock (the second is `hashtext(alias)`). */
const LOCK_CLASS = 7242003;

/** Thrown when another process holds the alias's lock and the caller would not wait. */
export class IndexBusyError extends Error {}

/**
 * Runs `fn` holding the alias's lock on a dedicated connection, then releases it.
 * @param mode `try`: fail at once when held elsewhere; `wait`: block until it is free.
 * @throws IndexBusyError in `try` mode when the lock is held; whatever `fn` throws.
 */
export async function withIndexLock<T>(pool: pg.Pool, alias: string, mode: 'try' | 'wait', fn: () => Promise<T>): Promise<T> {
  const conn = await pool.connect();
  let broken = false;
  try {
    if (mode === 'try') {
      const { rows } = await conn.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_CLASS, alias]);
      if (!rows[0].ok) throw new IndexBusyError(`another search-reindex of "${alias}" is running`);
    } else {
      await conn.query('SELECT pg_advisory_lock($1, hashtext($2))', [LOCK_CLASS, alias]);
    }
    try {
      return await fn();
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, alias]).catch(() => {
        broken = true; // closing the session releases the lock
      });
    }
  } finally {
    conn.release(broken);
  }
}
