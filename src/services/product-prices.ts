/**
 * Store-level price reads of products (the same item linked across chains): where a product is
 * priced now (api-spec get_product_stores) and its daily store spread per chain over the last year
 * (api-spec get_product_spread). Batched for many products: each function runs one SQL statement
 * through the pg pool whatever the number of product ids, listings, stores or days, so dataloaders
 * built on them (src/context.ts) keep a request's query count independent of its result size.
 *
 * Conventions as in ./prices.ts: money in integer NZ cents; days `YYYY-MM-DD` NZ calendar strings;
 * an open store span runs to its last observed day (src/domain/spans.ts spanTo).
 */
import type pg from 'pg';
import { nzToday } from '../domain/days.js';
import { CURRENT_STORE_SPAN, groupRows, STATS_WINDOW_DAYS, STORE_SPAN_TO, type DailyStatsColumns, type PromoFields } from './prices.js';
import { statsWindowEndSql } from './span-sql.js';

/**
 * One store's current price of a product (api-spec "ProductStorePrice"): the price of the open span,
 * at an active collected store, of the cheapest of the product's listings priced there.
 */
export interface ProductStorePrice extends PromoFields {
  product_id: number;
  store_id: number;
  /** Store name. */
  store: string;
  /** Slug of the store's chain. */
  retailer: string;
  lat: number;
  lng: number;
  /** Shelf price, cents. */
  price: number;
  /** The linked listing whose price this is (the cheaper one when the chain links several). */
  listing_id: number;
  /** The last day this store price was observed (the `to` of the open span, src/domain/spans.ts spanTo). */
  day: string;
}

/** One chain's daily store spread of a product (api-spec "SpreadByRetailer" entry). */
export interface RetailerSpread {
  /** Retailer slug. */
  retailer: string;
  /** Parallel arrays, oldest day first; `n` counts stores reporting (see {@link productSpreads}). */
  spread: DailyStatsColumns;
}

/**
 * Every active store currently pricing each product, cheapest first.
 *
 * "Currently pricing" is what `storePrices` (./prices.ts) decides for a listing
 * (`CURRENT_STORE_SPAN`: a current span, src/domain/spans.ts isCurrentSpan, at an active store
 * that has been collected). A product is priced at a store when any of
 * its linked listings is. A store appears once: when several linked listings of its chain are priced
 * there, the cheaper wins, i.e. the lower shelf price, then the lower promotional price (a promotion
 * beats none), then the lower listing id. Rows are ordered by shelf price, then store name, then
 * store id (as a listing's `stores`).
 *
 * @returns a map from product id to its store prices; products priced nowhere, without linked
 *   listings or unknown are absent (callers answer `[]`, api-spec "Errors" 3).
 */
export async function productStorePrices(pool: pg.Pool, productIds: readonly number[]): Promise<Map<number, ProductStorePrice[]>> {
  const { rows } = await pool.query<ProductStorePrice>(
    `SELECT * FROM (
       SELECT DISTINCT ON (l.product_id, st.id)
         l.product_id, st.id AS store_id, st.name AS store, r.slug AS retailer, st.lat, st.lng,
         sp.price, sp.promo_price, sp.promo_kind, sp.multibuy_qty, sp.multibuy_price,
         l.id AS listing_id, (${STORE_SPAN_TO})::text AS day
       FROM listing l
       JOIN store_price_span sp ON sp.listing_id = l.id
       JOIN store st ON st.id = sp.store_id
       JOIN retailer r ON r.id = st.retailer_id
       WHERE l.product_id = ANY($1::int[]) AND ${CURRENT_STORE_SPAN}
       ORDER BY l.product_id, st.id, sp.price, sp.promo_price ASC NULLS LAST, l.id
     ) best
     ORDER BY product_id, price, store, store_id`,
    [productIds],
  );
  return groupRows(rows, (r) => r.product_id);
}

/**
 * Daily store spread of each product, one entry per chain (slug order), each oldest day first,
 * from the materialised per-listing daily statistics (`listing_day_stats`) of the product's linked
 * listings of that chain.
 *
 * Window (api-spec "Limits": spread window, the last 365 days): per chain, the
 * {@link STATS_WINDOW_DAYS} days ending at the chain's latest national collection day (`today` in
 * New Zealand when the chain has none), exactly the window of a listing's `stats`
 * (`dailyStats`, ./prices.ts). So a chain with one linked listing has that listing's
 * `stats` as its spread.
 *
 * When several linked listings of one chain have statistics on one day, they combine as:
 * - `min`: the least of their minimums and `max`: the greatest of their maximums (the exact extremes
 *   of every store price of those listings that day);
 * - `med`: the median of the listings' medians weighted by their store counts `n` (each listing's
 *   median counted once per store reporting it; the middle two averaged and rounded to a cent when
 *   the total is even, as percentile_cont does for a listing): the pooled store median when each
 *   listing is priced alike across its stores, otherwise an approximation, since the statistics do
 *   not keep individual store prices;
 * - `n`: the largest of their store counts. A store that prices two of the listings would count
 *   twice in a sum, and `listing_day_stats` cannot tell which stores overlap, so `n` is a lower
 *   bound of the stores reporting the product (exact when one listing's stores include the
 *   other's), and never exceeds the chain's panel.
 * Chains without store-level statistics in their window (e.g. a national-only chain) are absent.
 *
 * @returns a map from product id; products without any statistics in the window (nothing linked,
 *   unknown) are absent (callers answer `{}`).
 */
export async function productSpreads(
  pool: pg.Pool,
  productIds: readonly number[],
  today: string = nzToday(),
): Promise<Map<number, RetailerSpread[]>> {
  const { rows } = await pool.query<DailyStatsColumns & { product_id: number; retailer: string }>(
    `WITH win AS (
       SELECT l.product_id, r.slug, s.listing_id, s.day, s.min, s.med, s.max, s.n
       FROM listing l
       JOIN retailer r ON r.id = l.retailer_id
       JOIN listing_day_stats s ON s.listing_id = l.id
       WHERE l.product_id = ANY($1::int[])
         AND s.day > ${statsWindowEndSql('r', '$2::date')} - $3::int
         AND s.day <= ${statsWindowEndSql('r', '$2::date')}
     ), ranked AS (
       -- Listing medians of one chain and day in order, with the running and total store counts:
       -- the (weighted) median sits at positions (total + 1) / 2 and (total + 2) / 2.
       SELECT product_id, slug, day, min, med, max, n,
         sum(n) OVER (PARTITION BY product_id, slug, day ORDER BY med, listing_id ROWS UNBOUNDED PRECEDING) AS upto,
         sum(n) OVER (PARTITION BY product_id, slug, day) AS total
       FROM win
     ), daily AS (
       SELECT product_id, slug, day, min(min) AS min, max(max) AS max, max(n) AS n,
         round((min(med) FILTER (WHERE upto - n < (total + 1) / 2 AND (total + 1) / 2 <= upto)
              + min(med) FILTER (WHERE upto - n < (total + 2) / 2 AND (total + 2) / 2 <= upto)) / 2.0)::int AS med
       FROM ranked
       GROUP BY product_id, slug, day
     )
     SELECT product_id, slug AS retailer,
       array_agg(day::text ORDER BY day) AS day, array_agg(min ORDER BY day) AS min, array_agg(med ORDER BY day) AS med,
       array_agg(max ORDER BY day) AS max, array_agg(n ORDER BY day) AS n
     FROM daily
     GROUP BY product_id, slug
     ORDER BY product_id, slug`,
    [productIds, today, STATS_WINDOW_DAYS],
  );
  const grouped = groupRows(rows, (r) => r.product_id);
  return new Map([...grouped].map(([id, list]) => [id, list.map(({ product_id: _, retailer, ...spread }): RetailerSpread => ({ retailer, spread }))]));
}
