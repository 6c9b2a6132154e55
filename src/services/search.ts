/**
 * Catalogue search shared by every backend (api-spec "Search"): parameter rules, barcode digits
 * first, "recently seen" without a query, grouping ranked listings into products, type-ahead and
 * exact barcode lookup. The text ranking itself is the SearchBackend's (src/search). Ids only:
 * names, offers and prices are resolved by the graph from PostgreSQL.
 */
import type pg from 'pg';
import { groupRankedListings, type GroupIds } from '../domain/search-results.js';
import { BadRequest } from '../errors.js';
import { gtinKey, MAX_GTIN_DIGITS } from '../domain/matching.js';
import type { SearchBackend, SuggestionHit } from '../search/backend.js';
import { latestNationalSpanJoin, listingLastSeenSql } from './span-sql.js';
import { suggestViewsCurrent } from '../search/embedded.js';
import { filterText } from './text-filter.js';
import { LISTING_LIMIT, MAX_QUERY_LENGTH, PRODUCT_LIMIT, SUGGEST_LIMIT } from '../domain/limits.js';
/** The search limits, held in src/domain/limits.ts (api-spec Limits). */
export { LISTING_LIMIT, MAX_QUERY_LENGTH, PRODUCT_LIMIT, SUGGEST_LIMIT };

/** Listings per chain in the type-ahead view's recent_listing (workers/views/suggest.ts RECENT_PER_CHAIN). */
export const RECENT_PER_CHAIN = 500;

/** Most digits a GTIN has (GTIN-14). */

/** What the search services read from. */
export interface SearchDeps {
  pool: pg.Pool;
  search: SearchBackend;
}

/** Arguments of the ranked searches (already validated by the facades; checked again here). */
export interface CatalogueSearch {
  /** Text to find; blank or absent lists recently seen items. */
  q?: string | null;
  /** Retailer slug: rank only that chain's catalogue. */
  retailer?: string | null;
  limit?: number | null;
}

/**
 * The id of the retailer with `slug`.
 * @throws BadRequest when no retailer has that slug.
 */
export async function retailerIdBySlug(pool: pg.Pool, slug: string): Promise<number> {
  const { rows } = await pool.query<{ id: number }>('SELECT id FROM retailer WHERE slug = $1', [slug]);
  if (!rows[0]) throw new BadRequest(`Invalid parameter "retailer": unknown retailer slug "${slug}" (see /api/v1/retailers)`);
  return rows[0].id;
}

/** @throws BadRequest when `limit` is not an integer within `bounds`. */
function checkedLimit(limit: number | null | undefined, bounds: { default: number; min: number; max: number }): number {
  const n = limit ?? bounds.default;
  if (!Number.isInteger(n) || n < bounds.min || n > bounds.max) {
    throw new BadRequest(`Invalid parameter "limit": must be an integer from ${bounds.min} to ${bounds.max}`);
  }
  return n;
}


/** Whether a query is a scanned or typed barcode: 8 to 14 digits once spaces and hyphens go. */
function barcodeQuery(text: string): number | null {
  const compact = text.replace(/[\s-]/g, '');
  return /^\d{8,14}$/.test(compact) ? gtinKey(compact) : null;
}

/** Listings carrying `gtin`, optionally of one chain, available first. */
export async function listingIdsByGtin(pool: pg.Pool, gtin: number, retailerId: number | null = null): Promise<number[]> {
  const { rows } = await pool.query<{ id: number }>(
    `SELECT id FROM listing WHERE gtin = $1 AND ($2::int IS NULL OR retailer_id = $2) ORDER BY available DESC, id`,
    [gtin, retailerId],
  );
  return rows.map((r) => r.id);
}

/** The most recently seen listings (by last seen day, src/domain/listings.ts lastSeen; newest first). */
async function recentlySeen(pool: pg.Pool, retailerId: number | null, limit: number): Promise<number[]> {
  // The type-ahead view's newest listings per chain (workers/views/suggest.ts recent_listing, at
  // least RECENT_PER_CHAIN ≥ 500 a chain, the most ids asked for) while they are current.
  if (limit <= RECENT_PER_CHAIN && (await suggestViewsCurrent(pool))) {
    const view = await pool.query<{ id: number }>(
      `SELECT listing_id AS id FROM recent_listing WHERE ($1::int IS NULL OR retailer_id = $1)
       ORDER BY last_seen DESC, listing_id DESC LIMIT $2`,
      [retailerId, limit],
    );
    return view.rows.map((r) => r.id);
  }
  const { rows } = await pool.query<{ id: number }>(
    `SELECT l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id
     ${latestNationalSpanJoin('l', 'r', 'latest')}
     WHERE ($1::int IS NULL OR l.retailer_id = $1)
     ORDER BY ${listingLastSeenSql('l', 'latest')} DESC, l.id DESC
     LIMIT $2`,
    [retailerId, limit],
  );
  return rows.map((r) => r.id);
}

/** Ranked listing ids: barcode matches first, then the backend's ranking; deduplicated. */
async function rankedListingIds(deps: SearchDeps, text: string | null, retailerId: number | null, limit: number): Promise<number[]> {
  if (text === null) return recentlySeen(deps.pool, retailerId, limit);
  const gtin = barcodeQuery(text);
  const [byBarcode, ranked] = await Promise.all([
    gtin === null ? Promise.resolve([]) : listingIdsByGtin(deps.pool, gtin, retailerId),
    deps.search.searchListings({ text, retailerId, limit }),
  ]);
  return [...new Set([...byBarcode, ...ranked])].slice(0, limit);
}

/**
 * search_listings: listing ids, best match first; without `q`, recently seen.
 * @throws BadRequest for `q` over 100 characters, `limit` outside 1..100, an unknown retailer.
 */
export async function searchListingIds(deps: SearchDeps, search: CatalogueSearch): Promise<number[]> {
  const text = filterText(search.q);
  const limit = checkedLimit(search.limit, LISTING_LIMIT);
  const retailerId = search.retailer ? await retailerIdBySlug(deps.pool, search.retailer) : null;
  return rankedListingIds(deps, text, retailerId, limit);
}

/** How many ranked listings search_products reads per group it returns (groups merge listings). */
const GROUP_OVERFETCH = 3;

/**
 * search_products: one group per product (its matching listings merged; a listing not yet linked
 * is its own group), in the order of each group's best listing; without `q`, recently seen.
 * With `retailer`, only that chain's listings are ranked (the graph still shows every chain's offer).
 * @throws BadRequest as {@link searchListingIds} (limit 1..100, default 40).
 */
export async function searchProductGroups(deps: SearchDeps, search: CatalogueSearch): Promise<GroupIds[]> {
  const text = filterText(search.q);
  const limit = checkedLimit(search.limit, PRODUCT_LIMIT);
  const retailerId = search.retailer ? await retailerIdBySlug(deps.pool, search.retailer) : null;
  const ids = await rankedListingIds(deps, text, retailerId, Math.min(limit * GROUP_OVERFETCH, 500));
  if (ids.length === 0) return [];
  const { rows } = await deps.pool.query<{ id: number; product_id: number | null }>(
    'SELECT id, product_id FROM listing WHERE id = ANY($1::int[])',
    [ids],
  );
  return groupRankedListings(ids, new Map(rows.map((r) => [r.id, r.product_id])), limit);
}

/**
 * suggest: categories, brands, products and listings for a prefix, in display order.
 * @throws BadRequest when `q` is blank or over 100 characters, or `limit` is outside 1..12.
 */
export async function suggestions(deps: SearchDeps, args: { q?: string | null; limit?: number | null }): Promise<SuggestionHit[]> {
  const text = filterText(args.q);
  if (text === null) throw new BadRequest('Invalid parameter "q": is required (1 to 100 characters)');
  const limit = checkedLimit(args.limit, SUGGEST_LIMIT);
  return deps.search.suggest({ prefix: text, limit });
}

/**
 * lookup_gtin: the group of every listing carrying the barcode (all chains; its product when one
 * of them is linked), or null when no listing carries it.
 * @throws BadRequest when `gtinText` has no digits or more than 14.
 */
export async function gtinGroup(pool: pg.Pool, gtinText: string): Promise<GroupIds | null> {
  const gtin = gtinKey(gtinText);
  if (gtin === null) throw new BadRequest(`Invalid parameter "gtin": must be 1 to ${MAX_GTIN_DIGITS} digits`);
  const ids = await listingIdsByGtin(pool, gtin);
  if (ids.length === 0) return null;
  const { rows } = await pool.query<{ product_id: number | null }>(
    'SELECT product_id FROM listing WHERE id = ANY($1::int[]) AND product_id IS NOT NULL ORDER BY id LIMIT 1',
    [ids],
  );
  return { productId: rows[0]?.product_id ?? null, listingIds: ids };
}

/** Rows put in the order of `ids` (rows whose id is not listed are dropped). */
export function orderByIds<T extends { id: number }>(ids: readonly number[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [row] : [];
  });
}
