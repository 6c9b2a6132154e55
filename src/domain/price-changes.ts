/**
 * Price changes (issue 32 item 3, beyond the contract): what changed between two consecutive
 * national spans of a listing, the data of list_price_changes and of the price-change feeds
 * (/feeds/...). The one home of the rule: {@link priceChange} here; its SQL form is
 * `priceChangeSql` in src/services/price-changes.ts (test/integration/price-changes.test.ts checks
 * them equal over every combination of the fields that matter, and the read against a day-by-day
 * reference on the real data).
 *
 * Definitions (money in integer NZ cents per unit: per item, or per kg for a weighable listing, as
 * the national spans store them; days are NZ calendar days `YYYY-MM-DD`):
 * - The series is the listing's **national** spans (the chain's price: the median across its
 *   stores each day, or the chain's national price log), the series get_listing_history shows by
 *   default (store 0) and the lows read. Two spans are **consecutive** when no span of the listing
 *   starts between them (order: `first_day`, then id). A change is reported on the later span's
 *   `first_day` (the first day observed at the new price), whether or not the day before was
 *   observed: an unobserved gap between them hides when in the gap the price moved, not that it did.
 * - The price compared is the **no-card price** (src/domain/lows.ts noCardPrice: the shelf price,
 *   or a special's price open to everyone), so `old_price` and `new_price` are what a shopper
 *   without a loyalty card paid before and after.
 * - The **deal** of a span is src/domain/deals.ts dealOf (special, member or multibuy with a
 *   positive saving; clearance and a non-positive promotional price are none).
 * - The **kind** of a change, first match wins:
 *   1. `deal_start`: the later span has a deal and the earlier span has no deal of that kind (a new
 *      special, member price or multibuy; a switch from a member price to a special starts the
 *      special). `deal_kind` and `deal_price` are the new deal's kind and unit price.
 *   2. `deal_end`: the earlier span had a deal and the later one has none. `deal_kind` and
 *      `deal_price` are the ended deal's.
 *   3. `price`: the no-card price changed (a shelf price change, or a special's price changing).
 *   Otherwise there is no change (e.g. only a member price's amount or a multibuy's terms moved, or
 *   a span reopened after a gap at the same price).
 * - **Direction**: `drop` when new_price < old_price, `rise` when greater, `none` when equal (a
 *   member price or a multibuy starting or ending leaves the no-card price as it was).
 */
import { dealOf, type DealKind, type PromoFields } from './deals.js';
import { noCardPrice } from './lows.js';

/** The kinds of a change (module comment), in precedence order. */
export const CHANGE_KINDS = ['deal_start', 'deal_end', 'price'] as const;

/** A change's kind (module comment). */
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** The `direction` filter values: drops, rises, or every change. */
export const CHANGE_DIRECTIONS = ['drop', 'rise', 'any'] as const;

/** A `direction` filter value. */
export type ChangeDirection = (typeof CHANGE_DIRECTIONS)[number];

/**
 * Bounds of a price-change read: `days` of the window ending at `as_of` (the window is
 * `as_of − days + 1` … `as_of`), and `limit`, changes per answer (and entries per feed).
 */
export const CHANGE_DAYS = { min: 1, max: 90, default: 30 } as const;
/** Changes per answer (and entries per feed): at most 100, default 50. */
export const CHANGE_LIMIT = { min: 1, max: 100, default: 50 } as const;

/** What changed between two consecutive national spans (module comment). */
export interface PriceChange {
  kind: ChangeKind;
  /** No-card price of the earlier span, cents per unit. */
  old_price: number;
  /** No-card price of the later span, cents per unit. */
  new_price: number;
  /** The deal started (deal_start) or ended (deal_end); null for a `price` change. */
  deal_kind: DealKind | null;
  /** That deal's unit price, cents (a multibuy's may be fractional); null for a `price` change. */
  deal_price: number | null;
}

/**
 * The change between two consecutive national spans of a listing (module comment), or null when
 * nothing a shopper sees changed. Pure.
 */
export function priceChange(prev: PromoFields, next: PromoFields): PriceChange | null {
  const before = dealOf(prev);
  const after = dealOf(next);
  const old_price = noCardPrice(prev);
  const new_price = noCardPrice(next);
  if (after !== null && (before === null || before.kind !== after.kind)) {
    return { kind: 'deal_start', old_price, new_price, deal_kind: after.kind, deal_price: after.unitPrice };
  }
  if (before !== null && after === null) {
    return { kind: 'deal_end', old_price, new_price, deal_kind: before.kind, deal_price: before.unitPrice };
  }
  if (old_price !== new_price) return { kind: 'price', old_price, new_price, deal_kind: null, deal_price: null };
  return null;
}

/** The direction of a change: drop, rise, or none when the no-card price held. */
export function changeDirection(c: { old_price: number; new_price: number }): 'drop' | 'rise' | 'none' {
  return c.new_price < c.old_price ? 'drop' : c.new_price > c.old_price ? 'rise' : 'none';
}

/**
 * The stable id of a change, from facts that do not move once observed: the listing, the day the
 * new price started, the kind (with the deal kind) and both prices, e.g.
 * `price-change:123:2026-07-01:deal_start-special:450-399`.
 */
export function changeId(listingId: number, day: string, c: Pick<PriceChange, 'kind' | 'deal_kind' | 'old_price' | 'new_price'>): string {
  const kind = c.deal_kind === null ? c.kind : `${c.kind}-${c.deal_kind}`;
  return `price-change:${listingId}:${day}:${kind}:${c.old_price}-${c.new_price}`;
}
