/** Database reachability for the `health` field and GET /healthz. */
import type pg from 'pg';
import { Unavailable } from '../errors.js';

/**
 * Runs a trivial query. @throws Unavailable when the database cannot be reached (closed pool,
 * server down, connection refused).
 */
export async function checkDatabase(pool: pg.Pool): Promise<true> {
  try {
    await pool.query('SELECT 1');
    return true;
  } catch {
    throw new Unavailable('Database unreachable');
  }
}
