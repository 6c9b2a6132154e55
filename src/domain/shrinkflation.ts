/**
 * Shrinkflation (issue 32 item 4, beyond the contract): a listing whose pack got smaller while its
 * shelf price stayed the same or rose, so the price per kilogram, litre or item rose. Pure; no I/O.
 * This is the rule's one home: src/services/shrinkflation.ts only reads candidate rows in SQL
 * (listings with a size change in the window) and applies {@link shrinkEvents} to them.
 *
 * Inputs: a listing's size history (`listing_size_span`: each printed size from the day it was first
 * observed) and its national price series (`national_price_span`, the median shelf price across the
 * chain's stores: get_listing_history with store 0).
 *
 * Rule, for each pair of consecutive size spans (old, then new from day D):
 * - both sizes parse ({@link measureOf}, the one size rule in src/domain/sizes.ts) in the same unit
 *   family: grams (compared per kg), millilitres (per litre), items (each), or sheet counts (per 100
 *   sheets); a change of family (500 g to 6 pack) or an unparsed size is not comparable. A listing
 *   sold by weight (weighable, "per kg") never shrinks: its price is per kilogram already;
 * - the pack total (`qty × pack_count`) falls: new < old (an equal total, e.g. "1L" to "1000ml", or a
 *   larger one is no event);
 * - the **shelf price** (not a promotional price: a special around the change would make a smaller
 *   pack look cheaper or dearer for a week, and shrinkflation is what the regular price buys) on D
 *   (the national span in force on D: the latest with first_day ≤ D) is ≥ the shelf price before D
 *   (the latest span with first_day < D); both must exist;
 * - then the unit price ({@link unitPrice}: cents per compare unit, to a hundredth of a cent) rises,
 *   and the event carries both unit prices and the change in per cent (to a tenth).
 */
import { addDays } from './days.js';
import { totalQty } from './sizes.js';
import { measureOf, unitPrice, type Measure, type ShelfCompareUnit } from './unit-price.js';

/** The day window of list_shrinkflation: `days` ending at as_of (1 … 730, default 365). */
export const SHRINK_DAYS = { min: 1, max: 730, default: 365 } as const;

/** How many events list_shrinkflation returns (1 … 200, default 50). */
export const SHRINK_LIMIT = { min: 1, max: 200, default: 50 } as const;

/** One span of a listing's size history (listing_size_span), days as YYYY-MM-DD. */
export interface SizeSpan {
  size_text: string;
  first_day: string;
  /** Null while it is the current size. */
  last_day: string | null;
}

/** One national price span's shelf price from its first day (national_price_span). */
export interface ShelfPriceSpan {
  first_day: string;
  /** Shelf price, integer NZ cents. */
  price: number;
}

/** The unit family a size change is compared in: grams, millilitres, items or sheets. */
export type ShrinkUnit = 'g' | 'ml' | 'each' | 'sheet';

/** The compare unit of each family: unit prices are cents per kg, per L, each or per 100 sheets. */
const COMPARE: ReadonlyMap<ShrinkUnit, ShelfCompareUnit> = new Map([
  ['g', 'kg'],
  ['ml', 'l'],
  ['each', 'each'],
  ['sheet', '100sheet'],
] as const);

/** One shrinkflation event of a listing. Money in integer NZ cents; unit prices per `compare_unit`. */
export interface ShrinkEvent {
  /** The first day the smaller size was observed (YYYY-MM-DD). */
  day: string;
  old_size: string;
  new_size: string;
  /** Pack totals (`qty × pack_count`) in `unit`. */
  old_qty: number;
  new_qty: number;
  unit: ShrinkUnit;
  /** Shelf price before the change and on `day`, cents. */
  old_price: number;
  new_price: number;
  /** What the unit prices are per: kg, l, each or 100sheet. */
  compare_unit: ShelfCompareUnit;
  /** Cents per compare unit, to a hundredth of a cent. */
  old_unit_price: number;
  new_unit_price: number;
  /** (new ÷ old − 1) × 100, to a tenth of a per cent; always > 0. */
  unit_price_change: number;
}

/** The comparable quantity of a measure: its family and pack total, or null when it has none. */
function comparable(m: Measure): { unit: ShrinkUnit; qty: number } | null {
  if (m.weighable || m.size?.perKg) return null;
  if (m.size && (m.size.unit === 'g' || m.size.unit === 'ml' || m.size.unit === 'each')) {
    return { unit: m.size.unit, qty: totalQty(m.size) };
  }
  if (!m.size && m.sheets != null) return { unit: 'sheet', qty: m.sheets };
  return null;
}

/**
 * Whether one size change with its prices is shrinkflation (module comment), and the event if so.
 * @param day the first day of the new size. @param oldPrice shelf price before it, cents.
 * @param newPrice shelf price on `day`, cents. @param weighable the listing is sold by weight.
 * @returns null when it is not an event (not comparable, not smaller, price fell, or no unit price).
 */
export function shrinkEvent(
  day: string, oldSize: string, newSize: string, oldPrice: number, newPrice: number, weighable = false,
): ShrinkEvent | null {
  const before = measureOf(oldSize, weighable);
  const after = measureOf(newSize, weighable);
  const a = comparable(before);
  const b = comparable(after);
  if (!a || !b || a.unit !== b.unit) return null;
  if (!(b.qty > 0) || !(b.qty < a.qty)) return null;
  if (!(newPrice >= oldPrice)) return null;
  const compare = COMPARE.get(a.unit) as ShelfCompareUnit;
  const oldUnit = unitPrice(oldPrice, before, compare);
  const newUnit = unitPrice(newPrice, after, compare);
  if (oldUnit == null || newUnit == null || !(newUnit > oldUnit)) return null;
  return {
    day, old_size: oldSize, new_size: newSize, old_qty: a.qty, new_qty: b.qty, unit: a.unit,
    old_price: oldPrice, new_price: newPrice, compare_unit: compare,
    old_unit_price: oldUnit, new_unit_price: newUnit,
    unit_price_change: Math.round((newUnit / oldUnit - 1) * 1000) / 10,
  };
}

/**
 * The shelf price in force on `day` (the latest span with first_day ≤ day), or before it
 * (`before`: the latest with first_day < day); null when none. `spans` in any order.
 */
export function shelfPriceAt(spans: readonly ShelfPriceSpan[], day: string, before = false): number | null {
  let best: ShelfPriceSpan | null = null;
  for (const s of spans) {
    if (before ? s.first_day >= day : s.first_day > day) continue;
    if (!best || s.first_day > best.first_day) best = s;
  }
  return best ? best.price : null;
}

/**
 * A listing's shrinkflation events (module comment) whose day is within `from` … `to` (inclusive,
 * YYYY-MM-DD; null: unbounded), oldest first. `sizes` and `prices` in any order.
 */
export function shrinkEvents(
  sizes: readonly SizeSpan[], prices: readonly ShelfPriceSpan[], weighable: boolean,
  from: string | null = null, to: string | null = null,
): ShrinkEvent[] {
  const ordered = [...sizes].sort((x, y) => (x.first_day < y.first_day ? -1 : x.first_day > y.first_day ? 1 : 0));
  const out: ShrinkEvent[] = [];
  for (let i = 1; i < ordered.length; i++) {
    const day = ordered[i].first_day;
    if ((from !== null && day < from) || (to !== null && day > to)) continue;
    const oldPrice = shelfPriceAt(prices, day, true);
    const newPrice = shelfPriceAt(prices, day);
    if (oldPrice == null || newPrice == null) continue;
    const e = shrinkEvent(day, ordered[i - 1].size_text, ordered[i].size_text, oldPrice, newPrice, weighable);
    if (e) out.push(e);
  }
  return out;
}

/** The first day of a window of `days` days ending at `asOf` (asOf − days + 1). */
export function windowFrom(asOf: string, days: number): string {
  return addDays(asOf, -(days - 1));
}
