/**
 * Which method produced the stored food-price index (issue 30): the API's reader of
 * index_run.method, written by the index worker (workers/index/compute.ts) with every run. Method
 * names and their parsing: src/domain/index-method.ts.
 */
import type pg from 'pg';
import { DEFAULT_INDEX_METHOD, parseIndexMethod, type IndexMethod } from '../domain/index-method.js';

/**
 * The method of the latest stored index run (`chained-jevons` or `geks-jevons`): the one that
 * produced the rows of index_day and index_item_day; {@link DEFAULT_INDEX_METHOD} before the first
 * run (no index_run row). One SQL statement.
 * @throws IndexMethodError when the stored value is not a known method (the table's CHECK
 *   constraint prevents it); the database's errors.
 */
export async function indexMethod(pool: pg.Pool): Promise<IndexMethod> {
  const { rows } = await pool.query<{ method: string }>('SELECT method FROM index_run WHERE id = 1');
  return rows[0] ? parseIndexMethod(rows[0].method, 'index_run.method') : DEFAULT_INDEX_METHOD;
}
