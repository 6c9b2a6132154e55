/**
 * Historical lows reads (issue 32 item 2, beyond the contract): the lowest no-card price of a
 * listing, or of a product across its linked listings, over the last 90 and 365 days and all
 * history, ignoring prices that held fewer than `min_days` days in a row. The rule is
 * src/domain/lows.ts (its module comment is the definition); this is its SQL form, one statement per
 * call for any number of listings or products (GraphQL batches through it), reading each listing's
 * national spans once (national_price_span_listing_idx) and, for each window's low, its store
 * spans through store_price_span_listing_idx to count the stores. Money in integer NZ cents per unit
 * (per kg when sold by weight); days are NZ calendar days.
 *
 * Decisions:
 * - Windows end at `as_of`, the last observed day (spanTo) of the listing's national spans, or for
 *   a product the latest of its listings': the data's end, never today, so a listing no longer
 *   collected keeps its lows over its last 90 days of data.
 * - `day` is the most recent window day the low was paid (for a product, ties between listings go
 *   to the more recent day, then to the listing paid at more stores, then to the lower listing id).
 * - `stores`: how many of the chain's stores had that same no-card price in a store span covering
 *   `day` (any store, active or not, since the day may be long past). Null when no store price of
 *   the listing covers `day`: a national-only chain (retailer.national_only, no store panel) or a
 *   day known only from a national price log. 0 is possible when stores were observed that day but
 *   none at the national price (the national price is a median and may fall between stores').
 */
import type pg from 'pg';
import { LOW_WINDOWS, type Low, type LowWindowName } from '../domain/lows.js';
import { nationalCoveredDay, noCardPriceSql, spanToSql, storeCoveredDay } from './span-sql.js';

/** One window's low (src/domain/lows.ts Low) with where it was paid. */
export interface LowRow extends Low {
  /** Stores whose own price that day was the low; null when no store price of the listing covers the day (module comment). */
  stores: number | null;
  /** The listing that paid it (a product's lows: which of its listings). */
  listing_id: number;
  /** Its chain's slug. */
  retailer: string;
}

/** The lows of a listing or a product (a null window: no non-outlier price in it). */
export interface LowsRow {
  /** Listing or product id. */
  id: number;
  /** Last observed day the windows end at; null when never priced (every window null). */
  as_of: string | null;
  /** The outlier rule's shortest run used, days. */
  min_days: number;
  last_90_days: LowRow | null;
  last_365_days: LowRow | null;
  all_time: LowRow | null;
}

/** The windows as SQL VALUES (ord, days); days NULL for all history. */
const WINDOWS_SQL = LOW_WINDOWS.map((w, i) => `(${i}, ${w.days === null ? 'NULL::int' : `${w.days}`})`).join(', ');

/**
 * The statement of {@link listingLows} and {@link productLows}: `$1` the ids, `$2` min_days.
 * @param key SQL of the id the answers are grouped by, over `listing l` (`l.id` or `l.product_id`).
 */
function lowsSql(key: string): string {
  return `WITH spans AS (
    SELECT ${key} AS key, l.id AS listing_id, sp.id, sp.first_day, ${spanToSql('sp', nationalCoveredDay('r'))} AS to_day,
           ${noCardPriceSql('sp')} AS paid
    FROM listing l JOIN retailer r ON r.id = l.retailer_id JOIN national_price_span sp ON sp.listing_id = l.id
    WHERE ${key} = ANY($1::int[])
  ), marked AS (
    -- A run starts where the no-card price changes or an unobserved day precedes the span.
    SELECT s.*, CASE WHEN lag(s.paid) OVER w = s.paid AND lag(s.to_day) OVER w = s.first_day - 1 THEN 0 ELSE 1 END AS starts,
           max(s.to_day) OVER (PARTITION BY s.key) AS as_of
    FROM spans s WINDOW w AS (PARTITION BY s.listing_id ORDER BY s.first_day, s.id)
  ), runs AS (
    SELECT m.*, sum(m.starts) OVER (PARTITION BY m.listing_id ORDER BY m.first_day, m.id) AS run FROM marked m
  ), held AS (
    SELECT * FROM (SELECT r.*, sum(r.to_day - r.first_day + 1) OVER (PARTITION BY r.listing_id, r.run) AS run_days FROM runs r) x
    WHERE x.run_days >= $2
  ), windowed AS (
    -- Each held span's observed days inside each window (an all-history window has no start).
    SELECT h.key, h.listing_id, w.ord, h.paid, greatest(h.first_day, h.as_of - (w.days - 1)) AS from_day, h.to_day
    FROM held h CROSS JOIN (VALUES ${WINDOWS_SQL}) AS w(ord, days)
    WHERE w.days IS NULL OR h.to_day >= h.as_of - (w.days - 1)
  ), paid AS (
    -- Per window, listing and price: the days paid and the last of them.
    SELECT key, ord, listing_id, paid, sum(to_day - from_day + 1)::int AS days, max(to_day) AS day
    FROM windowed GROUP BY key, ord, listing_id, paid
  ), minima AS (
    SELECT * FROM (SELECT p.*, min(p.paid) OVER (PARTITION BY p.key, p.ord) AS low FROM paid p) x WHERE x.paid = x.low
  ), counted AS (
    -- Each listing's store count on the day it last paid a window's low: stores whose own no-card
    -- price was the low, among those with a span covering the day (NULL when none covers it); once
    -- per (listing, price, day) however many windows share it.
    SELECT d.listing_id, d.paid, d.day, c.stores FROM (SELECT DISTINCT listing_id, paid, day FROM minima) d
    LEFT JOIN LATERAL (
      SELECT CASE WHEN count(*) > 0 THEN (count(*) FILTER (WHERE ${noCardPriceSql('ss')} = d.paid))::int END AS stores
      FROM store_price_span ss JOIN store st ON st.id = ss.store_id
      WHERE ss.listing_id = d.listing_id AND ss.first_day <= d.day AND ${spanToSql('ss', storeCoveredDay('st'))} >= d.day
    ) c ON true
  ), lowest AS (
    SELECT m.*, c.stores FROM minima m JOIN counted c USING (listing_id, paid, day)
  )
  SELECT a.key AS id, a.as_of::text AS as_of, lo.ord, lo.paid AS price, lo.day::text AS day, lo.days, lo.stores,
         lo.listing_id, r.slug AS retailer
  FROM (SELECT DISTINCT key, as_of FROM marked) a
  LEFT JOIN (
    SELECT DISTINCT ON (key, ord) * FROM lowest ORDER BY key, ord, day DESC, stores DESC NULLS LAST, listing_id
  ) lo ON lo.key = a.key
  LEFT JOIN listing l ON l.id = lo.listing_id LEFT JOIN retailer r ON r.id = l.retailer_id
  ORDER BY a.key, lo.ord`;
}

type Row = { id: number; as_of: string; ord: number | null; price: number; day: string; days: number; stores: number | null; listing_id: number; retailer: string };

/** Rows of {@link lowsSql} as one LowsRow per id; ids without national spans get every window null and as_of null. */
function assemble(ids: readonly number[], rows: readonly Row[], minDays: number): Map<number, LowsRow> {
  const out = new Map<number, LowsRow>();
  for (const id of ids) out.set(id, { id, as_of: null, min_days: minDays, last_90_days: null, last_365_days: null, all_time: null });
  for (const r of rows) {
    const lows = out.get(r.id) as LowsRow;
    lows.as_of = r.as_of;
    if (r.ord === null) continue;
    const name: LowWindowName = LOW_WINDOWS[r.ord].name;
    lows[name] = { price: r.price, day: r.day, days: r.days, stores: r.stores, listing_id: r.listing_id, retailer: r.retailer };
  }
  return out;
}

/**
 * The lows of each listing in `listingIds` (module comment; rule: src/domain/lows.ts), one
 * statement. @param minDays the outlier rule's shortest run, days (1 … 30; the caller validates).
 * @returns a LowsRow for every id asked (unknown ids and listings never priced: as_of null).
 */
export async function listingLows(pool: pg.Pool, listingIds: readonly number[], minDays: number): Promise<Map<number, LowsRow>> {
  const { rows } = await pool.query<Row>(lowsSql('l.id'), [listingIds, minDays]);
  return assemble(listingIds, rows, minDays);
}

/**
 * The lows of each product in `productIds` across its linked listings (each window's lowest of
 * theirs, windows ending at the latest last observed day of its listings), one statement.
 * @returns a LowsRow for every id asked (nothing linked or never priced: as_of null).
 */
export async function productLows(pool: pg.Pool, productIds: readonly number[], minDays: number): Promise<Map<number, LowsRow>> {
  const { rows } = await pool.query<Row>(lowsSql('l.product_id'), [productIds, minDays]);
  return assemble(productIds, rows, minDays);
}
