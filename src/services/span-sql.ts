/**
 * The span rules of src/domain/spans.ts as SQL fragments: the one SQL home of each rule, used by
 * every query that needs it (API reads, the search documents, the export and its import). Each
 * function returns an SQL expression or clause over the table aliases it is given; none runs a
 * query. test/integration/rules-agree.test.ts checks each fragment against its TypeScript form.
 */

/**
 * A span's `to` in SQL: `spanTo` of src/domain/spans.ts (its `last_day`, or while open its scope's
 * last collection day, else its own `first_day`).
 * @param span alias of a `store_price_span` or `national_price_span` row (e.g. `sp`).
 * @param scopeLastDay SQL of the scope's last collection day: {@link storeLastDay} or
 *   {@link nationalLastDay}.
 */
export function spanToSql(span: string, scopeLastDay: string): string {
  return `coalesce(${span}.last_day, ${scopeLastDay}, ${span}.first_day)`;
}

/** The last collection day of a store span's scope: its store's `last_day` (`store` is the alias of `store`). */
export function storeLastDay(store: string): string {
  return `${store}.last_day`;
}

/** The last collection day of a national span's scope: its chain's `last_national_day` (`retailer` is the alias of `retailer`). */
export function nationalLastDay(retailer: string): string {
  return `${retailer}.last_national_day`;
}

/**
 * A `LEFT JOIN LATERAL` giving each listing its latest national span (by `first_day`, then id) as
 * `<as>."to"` ({@link spanToSql}) and `<as>.open` (true while the span is open); both null for a
 * listing never priced nationally. The TypeScript counterpart is `currentNationalSpans` in
 * src/services/prices.ts (the `to` and `open` of a CurrentSpan).
 * @param listing alias of the `listing` row; @param retailer alias of its `retailer` row.
 */
export function latestNationalSpanJoin(listing: string, retailer: string, as: string): string {
  return `LEFT JOIN LATERAL (
    SELECT ${spanToSql('ns', nationalLastDay(retailer))} AS "to", ns.last_day IS NULL AS open
    FROM national_price_span ns WHERE ns.listing_id = ${listing}.id
    ORDER BY ns.first_day DESC, ns.id DESC LIMIT 1
  ) ${as} ON true`;
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
 * its latest national span open).
 * @param listing alias of the `listing` row; @param latest alias of a {@link latestNationalSpanJoin}.
 */
export function listingAvailableSql(listing: string, latest: string): string {
  return `${listing}.available AND coalesce(${latest}.open, false)`;
}

/**
 * The end of a listing's statistics window in SQL: its chain's last national collection day, else
 * `today` (the SQL of a date parameter). Used by the daily statistics and spread reads.
 * @param retailer alias of the listing's `retailer` row.
 */
export function statsWindowEndSql(retailer: string, today: string): string {
  return `coalesce(${nationalLastDay(retailer)}, ${today})`;
}
