/**
 * One transaction on one connection: the single place that pairs BEGIN with COMMIT, and any error
 * with ROLLBACK before it propagates, so no write is ever left half done. Callers that already hold
 * a connection (session advisory locks, temporary tables, one transaction per day) pass that client;
 * everyone else passes the pool.
 */
import type pg from 'pg';
import { isDatabaseUnavailable } from '../errors.js';

/** Options of {@link inTransaction}. */
export interface TransactionOptions {
  /** `BEGIN READ ONLY` (reads that must see one snapshot or set local settings). */
  readOnly?: boolean;
  /** Statements run first inside the transaction, e.g. `SET LOCAL jit = off` (never user input). */
  setup?: string;
  /** Roll back even when `fn` resolves (dry runs): `fn`'s result is returned, nothing is kept. */
  rollback?: boolean;
}

/** True for a client checked out of a pool (it has `release`), false for the pool itself. */
function isPoolClient(db: pg.Pool | pg.PoolClient): db is pg.PoolClient {
  return typeof (db as pg.PoolClient).release === 'function';
}

/**
 * Runs `fn` inside a transaction: commits when `fn` resolves (rolls back instead with
 * `opts.rollback`), rolls back and rethrows when it throws. Given the pool, it checks a client out
 * and always releases it; given a client the caller holds, it uses that client and leaves it checked
 * out (session state such as advisory locks and temporary tables stays with the caller).
 * @throws whatever `fn` or the database throws (after the rollback; a failing ROLLBACK does not
 *   mask the original error). A checked-out connection that was lost or timed out, or whose
 *   ROLLBACK failed, is ended instead of going back to the pool (the server rolls back).
 */
export async function inTransaction<T>(
  db: pg.Pool | pg.PoolClient,
  fn: (client: pg.PoolClient) => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  const held = isPoolClient(db);
  const client = held ? db : await db.connect();
  // Set when the connection cannot be trusted any more: it is then ended, not returned to the pool.
  let broken: Error | undefined;
  try {
    await client.query(`${opts.readOnly ? 'BEGIN READ ONLY' : 'BEGIN'}${opts.setup ? `; ${opts.setup}` : ''}`);
    const result = await fn(client);
    await client.query(opts.rollback ? 'ROLLBACK' : 'COMMIT');
    return result;
  } catch (e) {
    if (!held && isDatabaseUnavailable(e)) {
      // A connection lost, or a server that did not answer in time (a stopped server): a ROLLBACK
      // would wait out another time bound. Ending the connection rolls the transaction back.
      broken = e instanceof Error ? e : new Error(String(e));
    } else {
      await client.query('ROLLBACK').catch((r: unknown) => {
        broken = r instanceof Error ? r : new Error(String(r));
      });
    }
    throw e;
  } finally {
    if (!held) client.release(broken);
  }
}
