/**
 * The span rules of src/domain/spans.ts as SQL fragments: the one SQL home of each rule, used by
 * every query that needs it (API reads, the search documents, the export and its import). Each
 * function returns an SQL expression or clause over the table aliases it is given; none runs a
 * query. test/integration/rules-agree.test.ts checks each fragment against its TypeScript form.
 */
import { CAP_DAYS, PROMO_KIND } from '../domain/spans.js';

/**
 * The stored columns of a span (src/domain/spans.ts Span) of alias `span`, in Span's field order:
 * what a read selects to build Span objects (history, the deals view).
 */
export function spanColumnsSql(span: string): string {
  return ['first_day', 'last_day', 'seen_day', 'price', 'promo_price', 'promo_kind', 'multibuy_qty', 'multibuy_price']
    .map((c) => `${span}.${c}`).join(', ');
}

/** {@link spanColumnsSql} of the alias `sp`: the span columns the history reads select. */
export const SPAN_COLS = spanColumnsSql('sp');

/**
 * The order that puts a scope's latest span first: the latest `first_day`, then the highest id
 * (the tie-break, so two spans of one day never make "latest" depend on the plan). Every read of a
 * latest span orders by it: {@link latestSpanSql} (one scope), and the `DISTINCT ON` reads of many
 * scopes at once after their key columns (`ORDER BY sp.listing_id, ${latestSpanOrderSql('sp')}`).
 * @param span alias of a `store_price_span` or `national_price_span` row (or of rows that carry
 *   their `first_day` and `id`).
 */
export function latestSpanOrderSql(span: string): string {
  return `${span}.first_day DESC, ${span}.id DESC`;
}

/**
 * A subquery selecting `columns` of the latest span ({@link latestSpanOrderSql}) of `table` under
 * alias `span` among those matching `where`; no row when none match. Join it with
 * `LEFT JOIN LATERAL ${latestSpanSql(...)} x ON true` (or `CROSS JOIN LATERAL` to drop scopes without one).
 * E.g. a listing's latest national span: `latestSpanSql('national_price_span', 'ns', 'ns.listing_id = l.id', 'ns.price')`.
 */
export function latestSpanSql(table: 'national_price_span' | 'store_price_span', span: string, where: string, columns: string): string {
  return `(SELECT ${columns} FROM ${table} ${span} WHERE ${where} ORDER BY ${latestSpanOrderSql(span)} LIMIT 1)`;
}

/**
 * The unit rate of a multibuy in SQL, cents (float8): `multibuyUnitPrice` of src/domain/deals.ts
 * (the set's total over its size; NULL when either is missing or the size is not positive).
 * @param span alias of a row with `multibuy_qty` and `multibuy_price` (a span, a store_listing row).
 */
export function multibuyUnitPriceSql(span: string): string {
  return `(CASE WHEN ${span}.multibuy_qty > 0 THEN ${span}.multibuy_price::float8 / ${span}.multibuy_qty END)`;
}

/**
 * The no-card price of a span in SQL, cents (integer): `noCardPrice` of src/domain/lows.ts (the
 * special's price when the span is on a special, PromoKind 1, with a positive price below the shelf
 * price; else the shelf price; club, multibuy and clearance prices never).
 * @param span alias of a `store_price_span` or `national_price_span` row.
 */
export function noCardPriceSql(span: string): string {
  return `(CASE WHEN ${span}.promo_kind = ${PROMO_KIND.special} AND ${span}.promo_price > 0 AND ${span}.promo_price < ${span}.price
    THEN ${span}.promo_price ELSE ${span}.price END)`;
}

/**
 * A multibuy's terms as the derived views keep them, in SQL: `multibuy_qty` and `multibuy_price`
 * of the row `span` when it is a multibuy ({@link PROMO_KIND}.multibuy), else both NULL.
 */
export function multibuyTermsSql(span: string): string {
  const multibuy = `${span}.promo_kind = ${PROMO_KIND.multibuy}`;
  return `CASE WHEN ${multibuy} THEN ${span}.multibuy_qty END AS multibuy_qty,
  CASE WHEN ${multibuy} THEN ${span}.multibuy_price END AS multibuy_price`;
}

/**
 * A span's `to` in SQL, its last observed day: `spanTo` of src/domain/spans.ts (its `last_day`, or
 * while open the latest of its `first_day`, its `seen_day` and its scope's covered day; PostgreSQL's
 * `greatest` ignores nulls).
 * @param span alias of a `store_price_span` or `national_price_span` row (e.g. `sp`).
 * @param scopeCoveredDay SQL of the scope's covered day: {@link storeCoveredDay} or
 *   {@link nationalCoveredDay}.
 */
export function spanToSql(span: string, scopeCoveredDay: string): string {
  return `coalesce(${span}.last_day, greatest(${span}.first_day, ${span}.seen_day, ${scopeCoveredDay}))`;
}

/** The covered day of a store span's scope: its store's `covered_day` (`store` is the alias of `store`). */
export function storeCoveredDay(store: string): string {
  return `${store}.covered_day`;
}

/** The covered day of a national span's scope: its chain's `covered_day` (`retailer` is the alias of `retailer`). */
export function nationalCoveredDay(retailer: string): string {
  return `${retailer}.covered_day`;
}

/** The latest collection day of a store span's scope: its store's `last_day`. */
export function storeLastDay(store: string): string {
  return `${store}.last_day`;
}

/** The latest collection day of a national span's scope: its chain's `last_national_day`. */
export function nationalLastDay(retailer: string): string {
  return `${retailer}.last_national_day`;
}

/**
 * Whether a span is current, in SQL: `isCurrentSpan` of src/domain/spans.ts (open, and observed
 * within CAP_DAYS of its scope's latest collection day).
 * @param span alias of the span row; @param scope alias of its `store` (store spans) or `retailer`
 *   (national spans) row; @param kind which.
 */
export function currentSpanSql(span: string, scope: string, kind: 'store' | 'national'): string {
  const covered = kind === 'store' ? storeCoveredDay(scope) : nationalCoveredDay(scope);
  const last = kind === 'store' ? storeLastDay(scope) : nationalLastDay(scope);
  return `(${span}.last_day IS NULL AND (${last} IS NULL OR ${spanToSql(span, covered)} >= ${last} - ${CAP_DAYS}))`;
}

/**
 * A `LEFT JOIN LATERAL` giving each listing its latest national span ({@link latestSpanSql}) as
 * `<as>."to"` ({@link spanToSql}), `<as>.open` (true while the span is open) and `<as>.current`
 * ({@link currentSpanSql}); all null for a listing never priced nationally. The TypeScript counterpart is `currentNationalSpans` in
 * src/services/prices.ts (the `to` and `open` of a CurrentSpan).
 * @param listing alias of the `listing` row; @param retailer alias of its `retailer` row.
 */
export function latestNationalSpanJoin(listing: string, retailer: string, as: string): string {
  const columns = `${spanToSql('ns', nationalCoveredDay(retailer))} AS "to", ns.last_day IS NULL AS open,
      ${currentSpanSql('ns', retailer, 'national')} AS current`;
  return `LEFT JOIN LATERAL ${latestSpanSql('national_price_span', 'ns', `ns.listing_id = ${listing}.id`, columns)} ${as} ON true`;
}

/**
 * A listing's last seen day in SQL: `lastSeen` of src/domain/listings.ts (the `to` of its latest
 * national span, else its `first_seen`).
 * @param listing alias of the `listing` row; @param latest alias of a {@link latestNationalSpanJoin}.
 */
export function listingLastSeenSql(listing: string, latest: string): string {
  return `coalesce(${latest}."to", ${listing}.first_seen)`;
}

/**
 * A listing's availability in SQL: `isAvailable` of src/domain/listings.ts (flagged available and
 * its latest national span current).
 * @param listing alias of the `listing` row; @param latest alias of a {@link latestNationalSpanJoin}.
 */
export function listingAvailableSql(listing: string, latest: string): string {
  return `${listing}.available AND coalesce(${latest}.current, false)`;
}

/**
 * The end of a listing's statistics window in SQL: its chain's last national collection day, else
 * `today` (the SQL of a date parameter). Used by the daily statistics and spread reads.
 * @param retailer alias of the listing's `retailer` row.
 */
export function statsWindowEndSql(retailer: string, today: string): string {
  return `coalesce(${nationalLastDay(retailer)}, ${today})`;
}
