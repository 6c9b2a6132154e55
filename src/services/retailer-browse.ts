/**
 * Reads of a chain's own category tree (issue 17 item 4; api-spec browse_retailer, RetailerBrowse,
 * CategoryNode). The tree is the derived view written by workers/views/categories.ts: one
 * `retailer_category` row per node with its listing count, and `retailer_category_listing`, each
 * counted listing under every node at or above its own in page order. What counts is
 * {@link COUNTED_LISTING_SQL} (the chain's available listings with a category path), shared with the
 * worker; this module looks a node up, lists its children and pages its listings. Ids only: the
 * listings' cards are resolved by the graph, as search results are.
 *
 * - **Node**: `path` (one label per level, outermost first, exact text) of the chain's tree; `[]`
 *   is the top of the tree. An unknown retailer slug is NotFound (the slug names the resource of
 *   the path, and the contract's Errors list browse_retailer among none of the "unknown slug is a
 *   400" operations), and so is a non-empty path holding no counted listing, whatever `q` is. The
 *   top of a chain with nothing categorised is an empty 200.
 * - **Without q**: `total` is the node's count, `categories` its children, the page an index range
 *   of the node's memberships — all from the view, never a scan of the catalogue.
 * - **With q** (the **words** rule of src/services/text-filter.ts: every word of it, normalised as
 *   search normalises text, occurs in the listing's normalised brand + name: `listing.search_name`,
 *   trigram-indexed): the counts, the children and
 *   the page are computed per request over the chain's matching counted listings at or below the
 *   node (the same rule as the view, read live).
 * - **Order**: categories biggest first, then label in code-point order; listings by lower-cased
 *   name in code-point order, then listing id.
 */
import type pg from 'pg';
import { BadRequest, NotFound } from '../errors.js';
import { allWordsParamsSql, filterText, wordPatterns } from './text-filter.js';
import { BROWSE_LIMIT } from '../domain/limits.js';
/** browse_retailer `limit`, held in src/domain/limits.ts. */
export { BROWSE_LIMIT };

/**
 * SQL condition (listing alias `l`) of a listing counted in its chain's category tree: available
 * (still on the chain's site at the last collection) with a non-empty path and no empty or NULL
 * label. The worker (workers/views/categories.ts) builds the view with it and the `q` counts here
 * use it live, so the two agree.
 */
export const COUNTED_LISTING_SQL = `l.available AND cardinality(l.category_path) > 0
  AND array_position(l.category_path, NULL) IS NULL AND NOT ('' = ANY (l.category_path))`;

/** Most levels a category path may have, and most characters a label may have (the ingest's bounds). */
export const CATEGORY_BOUNDS = { levels: 10, labelLength: 200 } as const;
/** Largest offset (a GraphQL Int). */
const MAX_OFFSET = 2_147_483_647;

/** Arguments of one browse (validated by the facades; checked again here for /graphql). */
export interface BrowseArgs {
  /** Retailer slug. */
  slug: string;
  /** Category path, outermost first; absent or empty: the top of the tree. */
  c?: readonly string[] | null;
  /** Text filter; blank means none. */
  q?: string | null;
  limit?: number | null;
  offset?: number | null;
}

/** A child category of the node (api-spec CategoryNode). */
export interface CategoryCount {
  label: string;
  /** Listings at or below it (matching q when set). */
  listings: number;
}

/** One browse: the node's children, its total and one page of listing ids (api-spec RetailerBrowse). */
export interface RetailerBrowsePage {
  retailerId: number;
  path: string[];
  categories: CategoryCount[];
  total: number;
  limit: number;
  offset: number;
  /** The filter as applied (trimmed), "" when none. */
  q: string;
  /** The page's listing ids, in page order. */
  listingIds: number[];
}

/** Whether text holds an unpaired UTF-16 surrogate. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The checked category path: at most {@link CATEGORY_BOUNDS} levels, each label 1 to 200
 * characters of valid text without NUL.
 * @throws BadRequest naming parameter `c`.
 */
export function categoryPath(c: readonly string[] | null | undefined): string[] {
  const path = [...(c ?? [])];
  if (path.length > CATEGORY_BOUNDS.levels) throw new BadRequest(`Invalid parameter "c": at most ${CATEGORY_BOUNDS.levels} levels`);
  for (const label of path) {
    if (typeof label !== 'string' || label === '') throw new BadRequest('Invalid parameter "c": a category label must not be empty');
    if ([...label].length > CATEGORY_BOUNDS.labelLength) {
      throw new BadRequest(`Invalid parameter "c": a category label must be at most ${CATEGORY_BOUNDS.labelLength} characters`);
    }
    if (label.includes('\u0000') || LONE_SURROGATE.test(label)) throw new BadRequest('Invalid parameter "c": must be valid text without NUL characters');
  }
  return path;
}

/**
 * browse_retailer: the node `c` of the chain `slug` with its children, total and one page of
 * listing ids (module comment). Two statements.
 * @throws BadRequest for q over 100 characters, limit outside 1..120, a negative offset or a
 *   malformed path; NotFound for an unknown retailer or a category holding nothing.
 */
export async function browseRetailer(pool: pg.Pool, args: BrowseArgs): Promise<RetailerBrowsePage> {
  const path = categoryPath(args.c);
  const q = filterText(args.q) ?? '';
  const limit = args.limit ?? BROWSE_LIMIT.default;
  if (!Number.isInteger(limit) || limit < BROWSE_LIMIT.min || limit > BROWSE_LIMIT.max) {
    throw new BadRequest(`Invalid parameter "limit": must be an integer from ${BROWSE_LIMIT.min} to ${BROWSE_LIMIT.max}`);
  }
  const offset = args.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET) throw new BadRequest('Invalid parameter "offset": must be an integer of at least 0');

  const found = await pool.query<{ retailer_id: number; node_id: number | null; listings: number | null }>(
    `SELECT r.id AS retailer_id, c.id AS node_id, c.listings
     FROM retailer r LEFT JOIN retailer_category c ON c.retailer_id = r.id AND c.path = $2::text[]
     WHERE r.slug = $1`,
    [args.slug, path],
  );
  const row = found.rows[0];
  if (!row) throw new NotFound(`No retailer with slug "${args.slug}" (see /api/v1/retailers)`);
  const page = { retailerId: row.retailer_id, path, limit, offset, q };
  if (row.node_id === null) {
    if (path.length > 0) throw new NotFound(`No listing of ${args.slug} is in the category ${JSON.stringify(path)}`);
    return { ...page, categories: [], total: 0, listingIds: [] };
  }

  const words = q === '' ? [] : wordPatterns(q);
  if (words.length === 0) {
    const r = await pool.query<{ categories: CategoryCount[]; ids: number[] }>(
      `SELECT
         (SELECT coalesce(json_agg(json_build_object('label', c.label, 'listings', c.listings) ORDER BY c.listings DESC, c.label COLLATE "C"), '[]')
            FROM retailer_category c WHERE c.retailer_id = $1 AND c.parent = $2::text[]) AS categories,
         ARRAY(SELECT m.listing_id FROM retailer_category_listing m WHERE m.category_id = $3
               ORDER BY m.sort_name, m.listing_id LIMIT $4 OFFSET $5) AS ids`,
      [row.retailer_id, path, row.node_id, limit, offset],
    );
    return { ...page, categories: r.rows[0].categories, total: row.listings ?? 0, listingIds: r.rows[0].ids };
  }

  // Words from $6 on: one LIKE each, so the trigram index on search_name can serve every one.
  const match = allWordsParamsSql('l.search_name', 6, words.length);
  const r = await pool.query<{ total: number; categories: CategoryCount[]; ids: number[] }>(
    `WITH m AS (
       SELECT l.id, lower(l.name) COLLATE "C" AS sort_name, l.category_path[$3::int + 1] AS child
       FROM listing l
       WHERE l.retailer_id = $1 AND ${COUNTED_LISTING_SQL} AND l.category_path[1:$3::int] = $2::text[] AND ${match}
     )
     SELECT (SELECT count(*)::int FROM m) AS total,
            (SELECT coalesce(json_agg(json_build_object('label', g.child, 'listings', g.n) ORDER BY g.n DESC, g.child COLLATE "C"), '[]')
               FROM (SELECT child, count(*)::int AS n FROM m WHERE child IS NOT NULL GROUP BY child) g) AS categories,
            ARRAY(SELECT m.id FROM m ORDER BY m.sort_name, m.id LIMIT $4 OFFSET $5) AS ids`,
    [row.retailer_id, path, path.length, limit, offset, ...words],
  );
  const { total, categories, ids } = r.rows[0];
  return { ...page, categories, total, listingIds: ids };
}
