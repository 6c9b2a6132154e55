/**
 * One transaction on one pooled connection: the single place that pairs BEGIN with COMMIT, and
 * any error with ROLLBACK before it propagates, so no write is ever left half done.
 */
import type pg from 'pg';

/** Options of {@link inTransaction}. */
export interface TransactionOptions {
  /** `BEGIN READ ONLY` (reads that must see one snapshot or set local settings). */
  readOnly?: boolean;
  /** Statements run first inside the transaction, e.g. `SET LOCAL jit = off` (never user input). */
  setup?: string;
}

/**
 * Runs `fn` inside a transaction on a client from `pool`: commits when `fn` resolves, rolls back
 * and rethrows when it throws, and always releases the client.
 * @throws whatever `fn` or the database throws (after the rollback).
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(`${opts.readOnly ? 'BEGIN READ ONLY' : 'BEGIN'}${opts.setup ? `; ${opts.setup}` : ''}`);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}
