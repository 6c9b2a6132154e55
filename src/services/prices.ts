/**
 * Batched price reads for many listings (or stores) at once, through the pg pool. Each function
 * runs one SQL statement whatever the number of keys, so dataloaders built on them (src/context.ts)
 * keep the query count of a request independent of its result size.
 *
 * Conventions: money in integer NZ cents; days as `YYYY-MM-DD` NZ calendar strings. A span's `to`
 * follows the open-span end rule (`spanTo` in src/domain/spans.ts, `spanToSql` in ./span-sql.ts).
 */
import type pg from 'pg';
import type { PromoKind } from '../domain/spans.js';
import { nzToday } from '../domain/days.js';
import { currentSpanSql, latestSpanSql, nationalCoveredDay, spanToSql, statsWindowEndSql, storeCoveredDay } from './span-sql.js';

/** Promotion fields shared by every price row (cents; null when no promotion applies). */
export interface PromoFields {
  promo_price: number | null;
  promo_kind: PromoKind | null;
  multibuy_qty: number | null;
  multibuy_price: number | null;
}

/** The latest national span of a listing (api-spec "CurrentPrice"). */
export interface CurrentSpan extends PromoFields {
  listing_id: number;
  first_day: string;
  /** Last day the span was observed (its `to`, src/domain/spans.ts spanTo, the day of record). */
  to: string;
  /** True while the span is open (no later observation changed or ended it). */
  open: boolean;
  /** True while the span is current (src/domain/spans.ts isCurrentSpan: open and observed within the cap of the chain's latest collection). */
  current: boolean;
  /** Shelf price, cents. */
  price: number;
}

/** A listing's current price at one store (api-spec "ListingStorePrice"). */
export interface StorePrice extends PromoFields {
  listing_id: number;
  store_id: number;
  /** Store name. */
  store: string;
  region: string | null;
  lat: number;
  lng: number;
  /** The last day the store's price was observed (the `to` of the open span, src/domain/spans.ts spanTo). */
  day: string;
  /** Shelf price, cents. */
  price: number;
}

/** Daily store statistics of one listing as parallel arrays, oldest day first (cents). */
export interface DailyStatsColumns {
  day: string[];
  min: number[];
  med: number[];
  max: number[];
  n: number[];
}

/** Days of listing statistics returned by {@link dailyStats} (api-spec: "the last year"). */
export const STATS_WINDOW_DAYS = 365;

const PROMO_COLS = 'sp.promo_price, sp.promo_kind, sp.multibuy_qty, sp.multibuy_price';

/**
 * The latest national span of each listing (src/services/span-sql.ts latestSpanSql), with its effective last day.
 * One index probe a listing (its latest span through national_price_span_listing_idx, read
 * backwards) rather than every span of every listing sorted: 23,096 listings (get_basket's
 * matches on a SYNTHETIC 120,000-listing panel) read 290,000 spans and took 0.9-1.0 s that way,
 * 0.5 s this way on a loaded machine.
 * @returns a map from listing id; listings without any national span are absent.
 */
export async function currentNationalSpans(pool: pg.Pool, listingIds: readonly number[]): Promise<Map<number, CurrentSpan>> {
  const columns = `sp.listing_id, sp.first_day, ${spanToSql('sp', nationalCoveredDay('r'))} AS "to", sp.last_day IS NULL AS open,
       ${currentSpanSql('sp', 'r', 'national')} AS current, sp.price, ${PROMO_COLS}`;
  const { rows } = await pool.query<CurrentSpan>(
    `SELECT x.* FROM (SELECT DISTINCT id FROM unnest($1::int[]) AS k(id)) k
     JOIN listing l ON l.id = k.id
     JOIN retailer r ON r.id = l.retailer_id
     CROSS JOIN LATERAL ${latestSpanSql('national_price_span', 'sp', 'sp.listing_id = k.id', columns)} x`,
    [listingIds],
  );
  return new Map(rows.map((r) => [r.listing_id, r]));
}

/**
 * A store `st` that has current prices: active and collected. A national-only chain
 * (retailer.national_only) has no store prices at all (ingest refuses store rows for it), so it is
 * priced at no store under this rule. Shared by every store-price read (also those of the
 * store_listing view, src/services/shopping-list.ts).
 */
export const CURRENT_STORE = 'st.active AND st.last_day IS NOT NULL';

/**
 * A store span `sp` at store `st` is a current store price ("stores pricing it today"): current by
 * the one rule (src/domain/spans.ts isCurrentSpan: open, and observed within the 14-day cap of the
 * store's latest collection) at an active store that has been collected ({@link CURRENT_STORE}).
 * Shared by every store-price read.
 */
export const CURRENT_STORE_SPAN = `${currentSpanSql('sp', 'st', 'store')} AND ${CURRENT_STORE}`;

/** SQL of a store span's `to` (its last observed day), for `sp` at store `st`. */
export const STORE_SPAN_TO = spanToSql('sp', storeCoveredDay('st'));

const OPEN_AT_ACTIVE_STORE = `FROM store_price_span sp JOIN store st ON st.id = sp.store_id
  WHERE sp.listing_id = ANY($1::int[]) AND ${CURRENT_STORE_SPAN}`;

/** Rows grouped into lists by `key`, each list in row order. */
export function groupRows<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const r of rows) {
    const list = out.get(key(r));
    if (list) list.push(r);
    else out.set(key(r), [r]);
  }
  return out;
}

/**
 * Every active store's current price of each listing, cheapest shelf price first (then store name).
 * @returns a map from listing id to its store prices; listings priced nowhere are absent.
 */
export async function storePrices(pool: pg.Pool, listingIds: readonly number[]): Promise<Map<number, StorePrice[]>> {
  const { rows } = await pool.query<StorePrice>(
    `SELECT sp.listing_id, st.id AS store_id, st.name AS store, st.region, st.lat, st.lng, ${STORE_SPAN_TO} AS day,
       sp.price, ${PROMO_COLS}
     ${OPEN_AT_ACTIVE_STORE}
     ORDER BY sp.listing_id, sp.price, st.name, st.id`,
    [listingIds],
  );
  return groupRows(rows, (r) => r.listing_id);
}

/**
 * How many active stores currently price each listing (the length of {@link storePrices} without
 * loading the rows). @returns a map from listing id; zero counts are absent.
 */
export async function storePriceCounts(pool: pg.Pool, listingIds: readonly number[]): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ listing_id: number; n: number }>(
    `SELECT sp.listing_id, count(*)::int AS n ${OPEN_AT_ACTIVE_STORE} GROUP BY sp.listing_id`,
    [listingIds],
  );
  return new Map(rows.map((r) => [r.listing_id, r.n]));
}

/**
 * Daily min/median/max shelf price across stores and the number of reporting stores, for the last
 * {@link STATS_WINDOW_DAYS} days ending at the chain's latest national collection day (today in New
 * Zealand when the chain has none), oldest first.
 * @returns a map from listing id; listings without statistics in the window are absent.
 */
export async function dailyStats(
  pool: pg.Pool,
  listingIds: readonly number[],
  today: string = nzToday(),
): Promise<Map<number, DailyStatsColumns>> {
  const { rows } = await pool.query<DailyStatsColumns & { listing_id: number }>(
    `SELECT s.listing_id, array_agg(s.day::text ORDER BY s.day) AS day, array_agg(s.min ORDER BY s.day) AS min,
       array_agg(s.med ORDER BY s.day) AS med, array_agg(s.max ORDER BY s.day) AS max, array_agg(s.n ORDER BY s.day) AS n
     FROM listing_day_stats s
     JOIN listing l ON l.id = s.listing_id
     JOIN retailer r ON r.id = l.retailer_id
     WHERE s.listing_id = ANY($1::int[])
       AND s.day > ${statsWindowEndSql('r', '$2::date')} - $3::int
       AND s.day <= ${statsWindowEndSql('r', '$2::date')}
     GROUP BY s.listing_id`,
    [listingIds, today, STATS_WINDOW_DAYS],
  );
  return new Map(rows.map(({ listing_id, ...cols }) => [listing_id, cols]));
}

/** Parallel arrays with no days (a listing without statistics). */
export function emptyStats(): DailyStatsColumns {
  return { day: [], min: [], med: [], max: [], n: [] };
}

/**
 * Active stores of each chain (the chain's price panel).
 * @returns a map from retailer id; chains without active stores are absent.
 */
export async function activeStoreCounts(pool: pg.Pool, retailerIds: readonly number[]): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ retailer_id: number; n: number }>(
    `SELECT retailer_id, count(*)::int AS n FROM store WHERE active AND retailer_id = ANY($1::int[]) GROUP BY retailer_id`,
    [retailerIds],
  );
  return new Map(rows.map((r) => [r.retailer_id, r.n]));
}
