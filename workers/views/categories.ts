/**
 * The retailer category view of the derived-views worker (issue 17 item 4; api-spec
 * browse_retailer): every chain's own category tree from its listings' `category_path`, written to
 * `retailer_category` (one row per node with its listing count) and `retailer_category_listing`
 * (each listing under every node at or above its own, in page order), inside the transaction the
 * orchestrator (workers/views/run.ts) opened. The API then reads a node, its children and a page
 * of its listings by index (src/services/retailer-browse.ts) and never counts a catalogue per request.
 *
 * **Which listings count** (COUNTED_LISTING_SQL, src/services/retailer-browse.ts, shared with the
 * API's per-request `q` counts): a chain's listings that are `available`
 * (still on its site at the last collection) and carry a non-empty path with no empty or NULL
 * label. A listing with path [a, b, c] counts at the top of the tree ('{}'), [a], [a, b] and
 * [a, b, c]: a node's count is its listings "at and below" it. Labels are taken exactly as stored
 * (case and spaces included).
 *
 * Diff-written: nodes no longer present are deleted (their memberships cascade), node counts are
 * updated only when they changed, memberships are deleted and inserted by difference, so a rebuild
 * with nothing changed writes nothing.
 */
import type pg from 'pg';
import { COUNTED_LISTING_SQL } from '../../src/services/retailer-browse.js';


/** What {@link buildRetailerCategories} did. */
export interface CategoriesReport {
  /** Nodes after the build (the top of each chain's tree included) and counted listings. */
  nodes: number;
  listings: number;
  /** Nodes inserted or updated, and deleted. */
  nodesWritten: number;
  nodesDeleted: number;
  /** Membership rows inserted and deleted. */
  membershipsWritten: number;
  membershipsDeleted: number;
  seconds: number;
}

/**
 * Rebuilds the category tree views (module comment) in the caller's transaction.
 * @throws the database's errors.
 */
export async function buildRetailerCategories(client: pg.PoolClient): Promise<CategoriesReport> {
  const t0 = performance.now();
  // Each counted listing at each depth k = 0 … its path's length: the node path[1:k] ('{}' at k = 0).
  await client.query(`CREATE TEMP TABLE rc_member ON COMMIT DROP AS
    SELECT l.retailer_id, l.category_path[1:k] AS path, lower(l.name) COLLATE "C" AS sort_name, l.id AS listing_id
    FROM listing l CROSS JOIN LATERAL generate_series(0, cardinality(l.category_path)) AS k
    WHERE ${COUNTED_LISTING_SQL}`);
  await client.query('ANALYZE rc_member');
  const deletedNodes = await client.query(
    `DELETE FROM retailer_category c
     WHERE NOT EXISTS (SELECT 1 FROM rc_member m WHERE m.retailer_id = c.retailer_id AND m.path = c.path)`,
  );
  const written = await client.query(
    `INSERT INTO retailer_category (retailer_id, path, parent, label, listings)
     SELECT retailer_id, path,
            CASE WHEN cardinality(path) = 0 THEN NULL ELSE path[1:cardinality(path) - 1] END,
            path[cardinality(path)], count(*)::int
     FROM rc_member GROUP BY retailer_id, path
     ON CONFLICT (retailer_id, path) DO UPDATE SET listings = EXCLUDED.listings
     WHERE retailer_category.listings IS DISTINCT FROM EXCLUDED.listings`,
  );
  await client.query(`CREATE TEMP TABLE rc_want ON COMMIT DROP AS
    SELECT c.id AS category_id, m.sort_name, m.listing_id
    FROM rc_member m JOIN retailer_category c ON c.retailer_id = m.retailer_id AND c.path = m.path`);
  await client.query('ANALYZE rc_want');
  const deleted = await client.query(
    `DELETE FROM retailer_category_listing r
     WHERE NOT EXISTS (SELECT 1 FROM rc_want w WHERE w.category_id = r.category_id AND w.sort_name = r.sort_name AND w.listing_id = r.listing_id)`,
  );
  // EXCEPT reads the table whole before the first row is inserted. A NOT EXISTS probe may be planned
  // as a nested loop over a table believed empty, which then rescans every row this statement has
  // already inserted: quadratic, hours for the 360k memberships of the national panel.
  const inserted = await client.query(
    `INSERT INTO retailer_category_listing (category_id, sort_name, listing_id)
     SELECT category_id, sort_name, listing_id FROM rc_want
     EXCEPT SELECT category_id, sort_name, listing_id FROM retailer_category_listing`,
  );
  const totals = await client.query<{ nodes: number; listings: number }>(
    `SELECT (SELECT count(*)::int FROM retailer_category) AS nodes,
            (SELECT coalesce(sum(listings), 0)::int FROM retailer_category WHERE parent IS NULL) AS listings`,
  );
  await client.query('DROP TABLE rc_member, rc_want');
  // Fresh statistics after a bulk change, so the page reads keep to the index order.
  if ((written.rowCount ?? 0) + (deletedNodes.rowCount ?? 0) + (inserted.rowCount ?? 0) + (deleted.rowCount ?? 0) > 0) {
    await client.query('ANALYZE retailer_category, retailer_category_listing');
  }
  return {
    ...totals.rows[0],
    nodesWritten: written.rowCount ?? 0,
    nodesDeleted: deletedNodes.rowCount ?? 0,
    membershipsWritten: inserted.rowCount ?? 0,
    membershipsDeleted: deleted.rowCount ?? 0,
    seconds: (performance.now() - t0) / 1000,
  };
}
