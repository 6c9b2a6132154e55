/**
 * The data version a derived view is built from (issue 16 "Each view records the data version it
 * was built from"): a short digest of everything the views read that can change — collections
 * (every ingest adds one), basket matches (matcher and curators), the index run (its last day and
 * computation time), stores and the basket weights. Equal versions mean equal inputs, so a view
 * whose stored version equals the current one is not rebuilt.
 */
import crypto from 'node:crypto';
import type pg from 'pg';

/** The current data version (16 hex digits) and its parts, read in the caller's transaction. */
export async function dataVersion(db: pg.Pool | pg.PoolClient): Promise<{ version: string; parts: Record<string, string> }> {
  const { rows } = await db.query<Record<string, string>>(`SELECT
      (SELECT coalesce(max(id), 0) || '/' || count(*) FROM collection) AS collections,
      (SELECT coalesce(max(id), 0) || '/' || count(*) || '/' || count(valid_to) || '/' || coalesce(sum(confidence), 0) FROM basket_match) AS matches,
      (SELECT coalesce(max(last_day::text || ' ' || computed_at::text), '-') FROM index_run) AS index_run,
      (SELECT count(*) || '/' || coalesce(max(last_day)::text, '-') || '/' || count(*) FILTER (WHERE active) FROM store) AS stores,
      (SELECT coalesce(sum(weight), 0) || '/' || count(*) FILTER (WHERE active) FROM basket_item) AS basket`);
  const parts = rows[0];
  const version = crypto.createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
  return { version, parts };
}
