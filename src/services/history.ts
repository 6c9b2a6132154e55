/**
 * Price history reads: spans (oldest first) turned into the contract's parallel arrays with
 * src/domain/spans.ts historyColumns. Money in integer NZ cents; days `YYYY-MM-DD` (NZ).
 */
import type pg from 'pg';
import { historyColumns, type HistoryColumns, type Span } from '../domain/spans.js';
import { SPAN_COLS } from './span-sql.js';

/** One chain's national history of a product (api-spec "HistoryByRetailer" entry). */
export interface RetailerHistory {
  /** Retailer slug. */
  retailer: string;
  history: HistoryColumns;
}

/** A span with its scope's covered day (for the `to` of an open span, src/domain/spans.ts spanTo). */
type SpanRow = Span & { scope_covered_day: string | null };

/**
 * A listing's price spans, oldest first: national (`storeId` 0, the median across the chain's
 * stores) or at one store (its exact prices, store-only promotions included). An unknown listing,
 * or a store that never priced it, gives empty arrays (api-spec get_listing_history).
 */
export async function listingHistory(pool: pg.Pool, listingId: number, storeId: number): Promise<HistoryColumns> {
  const { rows } =
    storeId === 0
      ? await pool.query<SpanRow>(
          `SELECT ${SPAN_COLS}, r.covered_day AS scope_covered_day
           FROM national_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id
           WHERE sp.listing_id = $1 ORDER BY sp.first_day, sp.id`,
          [listingId],
        )
      : await pool.query<SpanRow>(
          `SELECT ${SPAN_COLS}, st.covered_day AS scope_covered_day
           FROM store_price_span sp JOIN store st ON st.id = sp.store_id
           WHERE sp.listing_id = $1 AND sp.store_id = $2 ORDER BY sp.first_day, sp.id`,
          [listingId, storeId],
        );
  return historyColumns(rows, rows[0]?.scope_covered_day ?? null);
}

/**
 * Every national span of every listing linked to a product, grouped by chain (slug order), each
 * chain's spans oldest first. @returns an empty list when nothing is linked or the product is unknown.
 */
export async function productHistory(pool: pg.Pool, productId: number): Promise<RetailerHistory[]> {
  const { rows } = await pool.query<SpanRow & { slug: string }>(
    `SELECT r.slug, ${SPAN_COLS}, r.covered_day AS scope_covered_day
     FROM listing l JOIN retailer r ON r.id = l.retailer_id JOIN national_price_span sp ON sp.listing_id = l.id
     WHERE l.product_id = $1
     ORDER BY r.slug, sp.first_day, sp.listing_id, sp.id`,
    [productId],
  );
  const out: RetailerHistory[] = [];
  let group: SpanRow[] = [];
  rows.forEach((row, i) => {
    group.push(row);
    if (rows[i + 1]?.slug !== row.slug) {
      out.push({ retailer: row.slug, history: historyColumns(group, row.scope_covered_day) });
      group = [];
    }
  });
  return out;
}
