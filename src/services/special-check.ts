/**
 * Reads of the special checks ("Is this special real?", issue 16 item 6, beyond the contract): each
 * current deal compared with its listing's national history before the promotion started. The rows
 * are precomputed by the derived-views worker (workers/views/deals.ts, `special_check`, rules in
 * src/domain/special-check.ts); nothing here aggregates spans. Money in cents per unit (the
 * multibuy unit price and the savings may be fractional); days are NZ calendar days.
 */
import type pg from 'pg';
import { DEAL_KINDS, type DealKind } from '../domain/deals.js';
import type { ShelfRise, SpecialVerdict } from '../domain/special-check.js';
import { groupRows } from './prices.js';

/** One special_check row as the graph serves it (src/domain/special-check.ts SpecialCheck, by column). */
export interface SpecialCheckRow {
  listing_id: number;
  kind: DealKind;
  /** Unit price on the promotion, cents (multibuy: set price ÷ set size). */
  promo_price: number;
  /** Current shelf price, cents. */
  shelf_price: number;
  /** First day of the current unbroken run of the promotion. */
  promo_since: string;
  /** The 90-day window before promo_since, inclusive. */
  window_from: string;
  window_to: string;
  days_observed: number;
  promo_days: number;
  usual_price: number | null;
  lowest_price: number | null;
  lowest_shelf_price: number | null;
  shelf_rise: ShelfRise | null;
  saving_vs_usual: number | null;
  verdict: SpecialVerdict;
}

/**
 * The special checks of each listing in `listingIds`, in deal-kind order (special, member,
 * multibuy); one statement.
 * @returns a map from listing id; listings on no deal (or not yet checked) are absent.
 */
export async function listingSpecialChecks(pool: pg.Pool, listingIds: readonly number[]): Promise<Map<number, SpecialCheckRow[]>> {
  const { rows } = await pool.query<Omit<SpecialCheckRow, 'shelf_rise'> & { rise_from: number | null; rise_to: number | null; rise_day: string | null }>(
    `SELECT listing_id, kind, promo_price, shelf_price, promo_since::text AS promo_since, window_from::text AS window_from,
            window_to::text AS window_to, days_observed, promo_days, usual_price, lowest_price, lowest_shelf_price,
            rise_from, rise_to, rise_day::text AS rise_day, saving_vs_usual, verdict
     FROM special_check WHERE listing_id = ANY($1::int[])
     ORDER BY listing_id, array_position($2::text[], kind)`,
    [listingIds, DEAL_KINDS],
  );
  return groupRows(
    rows.map(({ rise_from, rise_to, rise_day, ...r }) => ({
      ...r,
      shelf_rise: rise_from === null || rise_to === null || rise_day === null ? null : { from: rise_from, to: rise_to, day: rise_day },
    })),
    (r) => r.listing_id,
  );
}

