/**
 * Price-change reads (issue 32 item 3, beyond the contract): list_price_changes and the feeds under
 * /feeds. The rule is src/domain/price-changes.ts (its module comment is the definition); this is
 * its SQL form ({@link priceChangeSql}) and the read over one scope: a listing, a product's linked
 * listings, a chain (optionally only its new deals of one kind), the best matches of a search, or a
 * shelf's listings. One statement per answer after the scope is resolved: each scope listing's
 * latest national span gives the `as_of` (the latest last observed day of the scope: the data's
 * end, never today), then, for the listings whose latest span started in the window
 * `as_of − days + 1 … as_of` (only they can have a change in it), each span that started in the
 * window is compared with the span before it (national_price_span_listing_idx: one index probe per
 * scope listing, a few more per listing that changed). Money in integer NZ cents per unit (per kg when sold by weight); days are NZ calendar days.
 *
 * Decisions:
 * - A search scope is the best {@link SEARCH_SCOPE} listings of search_listings for `q` (the ranked
 *   text search with barcodes first), so a feed of a search's drops is bounded and follows the
 *   ranking; a shelf scope is every listing of the shelf's products and its sub-shelves' (the
 *   shelf view's `listing_ids`).
 * - Unknown subjects are 404 (listing, product, retailer, shelf), as a feed's path names them; an
 *   empty `q` or not exactly one scope is 400.
 * - Order: newest day first, then listing id, then the span's id; `total` counts every change of
 *   the window under the filters, not only the page.
 */
import type pg from 'pg';
import { DEAL_KINDS, type DealKind } from '../domain/deals.js';
import {
  CHANGE_DAYS,
  CHANGE_DIRECTIONS,
  CHANGE_LIMIT,
  changeDirection,
  changeId,
  type ChangeDirection,
  type ChangeKind,
} from '../domain/price-changes.js';
import { getShelf, shelfSet } from '../domain/shelves.js';
import { PROMO_KIND } from '../domain/spans.js';
import { BadRequest, checkedInt, NotFound } from '../errors.js';
import { searchListingIds, type SearchDeps } from './search.js';
import { latestSpanOrderSql, latestSpanSql, nationalCoveredDay, noCardPriceSql, spanToSql } from './span-sql.js';
import { filterText } from './text-filter.js';

/** Listings a search scope covers: the best this many matches of `q` (search_listings' largest page). */
export const SEARCH_SCOPE = 100;

/**
 * The deal kind of a span in SQL (text, or NULL when it is no deal): `dealOf(span)?.kind` of
 * src/domain/deals.ts (special or member: a positive promotional price below a positive shelf
 * price; multibuy: a positive set price over a positive set size below the shelf price).
 */
export function dealKindSql(span: string): string {
  const promo = `${span}.promo_price > 0 AND ${span}.promo_price < ${span}.price`;
  return `(CASE WHEN NOT (${span}.price > 0) THEN NULL
    WHEN ${span}.promo_kind = ${PROMO_KIND.special} AND ${promo} THEN '${DEAL_KINDS[0]}'
    WHEN ${span}.promo_kind = ${PROMO_KIND.member} AND ${promo} THEN '${DEAL_KINDS[1]}'
    WHEN ${span}.promo_kind = ${PROMO_KIND.multibuy} AND ${span}.multibuy_qty > 0 AND ${span}.multibuy_price > 0
         AND ${span}.multibuy_price::float8 / ${span}.multibuy_qty < ${span}.price THEN '${DEAL_KINDS[2]}' END)`;
}

/** A deal's unit price in SQL (float8 cents; meaningful only where {@link dealKindSql} is not NULL): `dealOf(span).unitPrice`. */
function dealPriceSql(span: string): string {
  return `(CASE WHEN ${span}.promo_kind = ${PROMO_KIND.multibuy} AND ${span}.multibuy_qty > 0
    THEN ${span}.multibuy_price::float8 / ${span}.multibuy_qty ELSE ${span}.promo_price::float8 END)`;
}

/**
 * The SQL form of `priceChange(prev, next)` (src/domain/price-changes.ts): a subquery for
 * `CROSS JOIN LATERAL ${priceChangeSql('p', 's')} c` giving `c.kind` (NULL when no change),
 * `c.old_price`, `c.new_price`, `c.deal_kind` and `c.deal_price`.
 * @param prev alias of the earlier span; @param next alias of the later one (columns of a span).
 */
export function priceChangeSql(prev: string, next: string): string {
  return `(SELECT x.*,
      CASE x.kind WHEN 'deal_start' THEN x.ak WHEN 'deal_end' THEN x.bk END AS deal_kind,
      CASE x.kind WHEN 'deal_start' THEN x.ap WHEN 'deal_end' THEN x.bp END AS deal_price
    FROM (SELECT d.*, CASE WHEN d.ak IS NOT NULL AND d.ak IS DISTINCT FROM d.bk THEN 'deal_start'
                           WHEN d.bk IS NOT NULL AND d.ak IS NULL THEN 'deal_end'
                           WHEN d.old_price <> d.new_price THEN 'price' END AS kind
          FROM (SELECT ${dealKindSql(prev)} AS bk, ${dealKindSql(next)} AS ak, ${dealPriceSql(prev)} AS bp, ${dealPriceSql(next)} AS ap,
                       ${noCardPriceSql(prev)} AS old_price, ${noCardPriceSql(next)} AS new_price) d) x)`;
}

/** Arguments of {@link priceChanges} (as the graph receives them; checked here). */
export interface PriceChangeArgs {
  listingId?: number | null;
  productId?: number | null;
  /** Retailer slug. */
  retailer?: string | null;
  /** Only new deals of this kind (changes of kind deal_start with this deal kind). */
  kind?: string | null;
  /** Search words: the best {@link SEARCH_SCOPE} listings of search_listings. */
  q?: string | null;
  /** Shelf slug (browse_shelf's). */
  shelf?: string | null;
  direction?: string | null;
  days?: number | null;
  limit?: number | null;
}

/** One change (src/domain/price-changes.ts PriceChange) with its listing and day. */
export interface PriceChangeRow {
  /** Stable id (src/domain/price-changes.ts changeId). */
  id: string;
  listing_id: number;
  /** The listing's name as the chain lists it. */
  name: string;
  /** Its chain's slug and name. */
  retailer: string;
  retailer_name: string;
  /** The first day observed at the new price. */
  day: string;
  kind: ChangeKind;
  old_price: number;
  new_price: number;
  direction: 'drop' | 'rise' | 'none';
  deal_kind: DealKind | null;
  deal_price: number | null;
}

/** What the scope is: its type, the key given and a display name. */
export interface ChangeScope {
  type: 'listing' | 'product' | 'retailer' | 'search' | 'shelf';
  /** The id, slug or words as given (normalised). */
  key: string;
  /** The listing's, product's, chain's or shelf's name, or the search words. */
  name: string;
}

/** An answer of list_price_changes. */
export interface PriceChanges {
  scope: ChangeScope;
  /** Latest last observed day of the scope's listings (the window's end); null when none was ever priced. */
  as_of: string | null;
  days: number;
  direction: ChangeDirection;
  /** The deal kind filter, or null. */
  kind: DealKind | null;
  /** Changes in the window under the filters (the whole set, not the page). */
  total: number;
  /** The page: newest day first, then listing id. */
  changes: PriceChangeRow[];
}

/** The scope's SQL (a SELECT of listing ids as `id`, using `$5` when it takes a value) with its value and description. */
async function resolveScope(
  deps: SearchDeps,
  a: PriceChangeArgs,
): Promise<{ scope: ChangeScope; sql: string; value: unknown }> {
  const given = [a.listingId != null, a.productId != null, !!a.retailer?.trim(), a.q != null && a.q !== '', !!a.shelf?.trim()].filter(Boolean).length;
  if (given !== 1) {
    throw new BadRequest('Invalid parameters: give exactly one of listing_id, product_id, retailer, q, shelf');
  }
  const { pool } = deps;
  if (a.listingId != null) {
    const { rows } = await pool.query<{ name: string }>('SELECT name FROM listing WHERE id = $1', [a.listingId]);
    if (!rows[0]) throw new NotFound(`No listing ${a.listingId}`);
    return { scope: { type: 'listing', key: String(a.listingId), name: rows[0].name }, sql: 'SELECT $5::int AS id', value: a.listingId };
  }
  if (a.productId != null) {
    const { rows } = await pool.query<{ name: string }>('SELECT name FROM product WHERE id = $1', [a.productId]);
    if (!rows[0]) throw new NotFound(`No product ${a.productId}`);
    return { scope: { type: 'product', key: String(a.productId), name: rows[0].name }, sql: 'SELECT id FROM listing WHERE product_id = $5::int', value: a.productId };
  }
  if (a.retailer?.trim()) {
    const slug = a.retailer.trim();
    const { rows } = await pool.query<{ id: number; name: string }>('SELECT id, name FROM retailer WHERE slug = $1', [slug]);
    if (!rows[0]) throw new NotFound(`No retailer "${slug}" (see /api/v1/retailers)`);
    return { scope: { type: 'retailer', key: slug, name: rows[0].name }, sql: 'SELECT id FROM listing WHERE retailer_id = $5::int', value: rows[0].id };
  }
  if (a.shelf?.trim()) {
    const slug = a.shelf.trim();
    const shelf = getShelf(slug);
    if (!shelf) throw new NotFound(`No shelf "${slug}" (see /api/v1/shelves)`);
    return {
      scope: { type: 'shelf', key: shelf.slug, name: shelf.label },
      sql: 'SELECT DISTINCT unnest(listing_ids) AS id FROM shelf_product WHERE shelf_slug = ANY($5::text[])',
      value: shelfSet(shelf.slug),
    };
  }
  const words = filterText(a.q);
  if (words === null) throw new BadRequest('Invalid parameter "q": must contain text');
  const ids = await searchListingIds(deps, { q: words, limit: SEARCH_SCOPE });
  return { scope: { type: 'search', key: words, name: words }, sql: 'SELECT unnest($5::int[]) AS id', value: ids };
}

/** The statement: $1 days, $2 direction, $3 deal kind or NULL, $4 limit, $5 the scope's value. */
function changesSql(scopeSql: string): string {
  const to = spanToSql('ns', nationalCoveredDay('r'));
  return `WITH scope AS (${scopeSql}),
  latest AS (
    SELECT l.id, l.name, r.slug AS retailer, r.name AS retailer_name, x.to_day, x.first_day AS latest_first
      FROM scope sc JOIN listing l ON l.id = sc.id JOIN retailer r ON r.id = l.retailer_id
      CROSS JOIN LATERAL ${latestSpanSql('national_price_span', 'ns', 'ns.listing_id = l.id', `${to} AS to_day, ns.first_day`)} x
  ),
  bounds AS (SELECT max(to_day) AS as_of FROM latest),
  live AS (
    -- A listing has a span starting in the window only if its latest span does (the latest has the
    -- greatest first_day): the others are left out before any of their spans is probed.
    SELECT lt.*, b.as_of FROM latest lt CROSS JOIN bounds b WHERE lt.latest_first >= b.as_of - ($1::int - 1)
  ),
  changes AS (
    SELECT lt.id AS listing_id, lt.name, lt.retailer, lt.retailer_name, s.first_day AS day, s.id AS span_id, c.*
      FROM live lt
      CROSS JOIN LATERAL (SELECT * FROM national_price_span sp
                           WHERE sp.listing_id = lt.id AND sp.first_day BETWEEN lt.as_of - ($1::int - 1) AND lt.as_of) s
      CROSS JOIN LATERAL (SELECT * FROM national_price_span p
                           WHERE p.listing_id = lt.id AND (p.first_day, p.id) < (s.first_day, s.id)
                           ORDER BY ${latestSpanOrderSql('p')} LIMIT 1) p
      CROSS JOIN LATERAL ${priceChangeSql('p', 's')} c
     WHERE c.kind IS NOT NULL
       AND ($2::text = 'any' OR ($2::text = 'drop' AND c.new_price < c.old_price) OR ($2::text = 'rise' AND c.new_price > c.old_price))
       AND ($3::text IS NULL OR (c.kind = 'deal_start' AND c.deal_kind = $3::text))
  )
  SELECT (SELECT as_of::text FROM bounds) AS as_of, (SELECT count(*)::int FROM changes) AS total,
         (SELECT coalesce(json_agg(json_build_object('listing_id', p.listing_id, 'name', p.name, 'retailer', p.retailer,
                   'retailer_name', p.retailer_name, 'day', p.day::text, 'kind', p.kind, 'old_price', p.old_price, 'new_price', p.new_price,
                   'deal_kind', p.deal_kind, 'deal_price', p.deal_price) ORDER BY p.day DESC, p.listing_id, p.span_id), '[]'::json)
            FROM (SELECT * FROM changes ORDER BY day DESC, listing_id, span_id LIMIT $4::int) p) AS page`;
}

/**
 * list_price_changes: the changes of one scope's national prices in the window ending at its
 * `as_of` (module comment; rule: src/domain/price-changes.ts).
 * @throws BadRequest unless exactly one scope is given, for an empty `q`, an unknown `direction`
 *   or `kind`, `days` outside 1..90 or `limit` outside 1..100; NotFound for an unknown listing,
 *   product, retailer or shelf.
 */
export async function priceChanges(deps: SearchDeps, a: PriceChangeArgs): Promise<PriceChanges> {
  const days = checkedInt('days', a.days, CHANGE_DAYS);
  const limit = checkedInt('limit', a.limit, CHANGE_LIMIT);
  const direction = (a.direction ?? 'any') as ChangeDirection;
  if (!CHANGE_DIRECTIONS.includes(direction)) throw new BadRequest(`Invalid parameter "direction": must be one of ${CHANGE_DIRECTIONS.join(', ')}`);
  const kind = (a.kind?.trim() || null) as DealKind | null;
  if (kind !== null && !DEAL_KINDS.includes(kind)) throw new BadRequest(`Invalid parameter "kind": must be one of ${DEAL_KINDS.join(', ')}`);
  const { scope, sql, value } = await resolveScope(deps, a);
  const { rows } = await deps.pool.query<{ as_of: string | null; total: number; page: Omit<PriceChangeRow, 'id' | 'direction'>[] }>(
    changesSql(sql),
    [days, direction, kind, limit, value],
  );
  const { as_of, total, page } = rows[0];
  const changes = page.map((c) => ({
    id: changeId(c.listing_id, c.day, c),
    ...c,
    direction: changeDirection(c),
  }));
  return { scope, as_of, days, direction, kind, total, changes };
}
