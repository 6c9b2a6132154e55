/**
 * Reads of the deals feed (api-spec "Deals", list_deals): current promotions, biggest saving first.
 * The rows are written by the derived-views worker (workers/views: the `deal` table, one row per
 * listing and kind with its saving per unit in cents and as a share of the shelf price); nothing
 * here decides what a deal or a saving is, it only filters, orders and counts. Ids only: the
 * listings' cards (names, current prices) are resolved by the graph, as search results are.
 *
 * Kinds: `special` (everyone), `member` (the chain's loyalty card), `multibuy` (only if the set is
 * taken; saving per unit). Order: saving_pct descending, then saving descending, then listing id
 * (deal_rank_idx). `total` is the size of the whole filtered feed, not of the page.
 */
import type pg from 'pg';
import { DEAL_KINDS, type DealKind } from '../domain/deals.js';
import { BadRequest } from '../errors.js';
import { groupRows } from './prices.js';
import { retailerIdBySlug } from './search.js';
import { filterText, nameOrBrandSql, substringPattern } from './text-filter.js';
import { DEAL_LIMIT } from '../domain/limits.js';
/** list_deals `limit`, held in src/domain/limits.ts. */
export { DEAL_LIMIT };

/** The deal kinds (api-spec Deals `kind`) and their type, from the domain rules that define them. */
export { DEAL_KINDS, type DealKind };
/** The default kind of list_deals. */
export const DEFAULT_DEAL_KIND: DealKind = 'special';

/** Arguments of the feed (validated by the facades; checked again here for /graphql). */
export interface DealFeedArgs {
  kind?: string | null;
  /** Retailer slug: only that chain's deals. */
  retailer?: string | null;
  /** Case-insensitive substring of the listing's name or brand (src/services/text-filter.ts **substring** rule); blank means none. */
  q?: string | null;
  limit?: number | null;
}

/** One page of the feed. */
export interface DealFeed {
  kind: DealKind;
  /** Deals matching the filters (the whole feed, not the page). */
  total: number;
  /** The page's listing ids, in feed order. */
  listingIds: number[];
}

/**
 * list_deals: one page of current deals of `kind`, biggest saving first (saving_pct, then saving,
 * then listing id), with the true total of the filtered feed. One statement (two with `retailer`);
 * without `q` the listing table is not read.
 * @throws BadRequest for an unknown kind, `q` over 100 characters, `limit` outside 1..96, or an
 *   unknown retailer slug.
 */
export async function dealFeed(pool: pg.Pool, args: DealFeedArgs): Promise<DealFeed> {
  const kind = (args.kind ?? DEFAULT_DEAL_KIND) as DealKind;
  if (!DEAL_KINDS.includes(kind)) throw new BadRequest(`Invalid parameter "kind": must be one of ${DEAL_KINDS.join(', ')}`);
  const q = filterText(args.q);
  const limit = args.limit ?? DEAL_LIMIT.default;
  if (!Number.isInteger(limit) || limit < DEAL_LIMIT.min || limit > DEAL_LIMIT.max) {
    throw new BadRequest(`Invalid parameter "limit": must be an integer from ${DEAL_LIMIT.min} to ${DEAL_LIMIT.max}`);
  }
  const retailerId = args.retailer ? await retailerIdBySlug(pool, args.retailer) : null;
  if (q === null) {
    // Without a name filter the listing table is not needed: the count is an index-only scan of
    // deal_retailer_idx / deal_pkey and the page a top-N read along deal_rank_idx (issue 31: the
    // window count over every deal of the kind took 98 ms at 15,000 SYNTHETIC specials).
    const { rows } = await pool.query<{ total: number; ids: number[] }>(
      `SELECT (SELECT count(*)::int FROM deal d WHERE d.kind = $1 AND ($2::int IS NULL OR d.retailer_id = $2)) AS total,
         ARRAY(SELECT d.listing_id FROM deal d WHERE d.kind = $1 AND ($2::int IS NULL OR d.retailer_id = $2)
               ORDER BY d.saving_pct DESC, d.saving DESC, d.listing_id LIMIT $3) AS ids`,
      [kind, retailerId, limit],
    );
    return { kind, total: rows[0].total, listingIds: rows[0].ids };
  }
  const { rows } = await pool.query<{ listing_id: number; total: number }>(
    `SELECT d.listing_id, count(*) OVER ()::int AS total
     FROM deal d JOIN listing l ON l.id = d.listing_id
     WHERE d.kind = $1 AND ($2::int IS NULL OR d.retailer_id = $2) AND ${nameOrBrandSql('l', '$3')}
     ORDER BY d.saving_pct DESC, d.saving DESC, d.listing_id
     LIMIT $4`,
    [kind, retailerId, substringPattern(q), limit],
  );
  return { kind, total: rows[0]?.total ?? 0, listingIds: rows.map((r) => r.listing_id) };
}

/** A listing's row in the deals view (one per kind it is on). */
export interface ListingDeal {
  listing_id: number;
  kind: DealKind;
  /** The collection day the deal was seen on. */
  day: string;
  /** Shelf price, cents. */
  price: number;
  /** Saving per unit, cents (special/member: price − promo price; multibuy: price − set price ÷ set size). */
  saving: number;
  /** Saving as a share of the shelf price (0 to 1). */
  saving_pct: number;
}

/**
 * The deals-view rows of each listing in `listingIds`, in kind order (special, member, multibuy);
 * one statement.
 * @returns a map from listing id; listings on no deal are absent.
 */
export async function listingDeals(pool: pg.Pool, listingIds: readonly number[]): Promise<Map<number, ListingDeal[]>> {
  const { rows } = await pool.query<ListingDeal>(
    `SELECT listing_id, kind, day::text AS day, price, saving, saving_pct FROM deal
     WHERE listing_id = ANY($1::int[])
     ORDER BY listing_id, array_position($2::text[], kind)`,
    [listingIds, DEAL_KINDS],
  );
  return groupRows(rows, (r) => r.listing_id);
}
