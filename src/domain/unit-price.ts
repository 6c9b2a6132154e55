/**
 * Unit prices for the shelf directory (issue 17; api-spec ShelfSummary `compare_unit`, ShelfProduct
 * `per_unit`): a price in cents and a parsed size → cents per compare unit of the product's shelf
 * (per kilogram, litre, 100 g, 100 ml, item or 100 sheets). Pure; no I/O. The size arithmetic
 * (parsing, pack totals) lives in src/domain/sizes.ts; this module only divides.
 *
 * Rules:
 * - A pack's quantity is `qty × packCount` ("6 x 330ml" is 1,980 ml; "12pk" is 12 items).
 * - Weighable (sold loose by weight, `perKg`): the price is per kilogram already; per kg as is,
 *   per 100 g a tenth of it, any other unit null.
 * - Per item (`each`) needs a count size ("12pk", "1ea", "6pack") or, failing that, a sheet count
 *   (a sheet is an item: "90 sheets" of tissues are 90 tissues); per 100 sheets needs a sheet count
 *   ("224 sheets", {@link sheetCount}): a pack's item count is not a sheet count ("6pack" of toilet
 *   paper is six rolls).
 * - A product measured in another dimension than the unit (grams on a per-litre shelf, a count on
 *   a per-kg shelf, metres anywhere), or with no size, gets null: it sorts last (ShelfProduct).
 */
import { parseSize, sheetCount, totalQty, type ParsedSize } from './sizes.js';

/** Units the per-unit sort compares on (api-spec ShelfSummary `compare_unit`), in display order. */
export const SHELF_COMPARE_UNITS = ['kg', 'l', '100g', '100ml', 'each', '100sheet'] as const;

/** A unit the per-unit sort compares on: per kilogram, litre, 100 g, 100 ml, item or 100 sheets. */
export type ShelfCompareUnit = (typeof SHELF_COMPARE_UNITS)[number];

/** How a shopper reads each unit ("$2.50 per kg"). */
export const COMPARE_UNIT_LABEL: Readonly<Record<ShelfCompareUnit, string>> = {
  kg: 'per kg',
  l: 'per L',
  '100g': 'per 100 g',
  '100ml': 'per 100 ml',
  each: 'each',
  '100sheet': 'per 100 sheets',
};

/** One compare unit expressed in the base unit it divides (grams, millilitres, items or sheets). */
const UNIT_BASE: Readonly<Record<ShelfCompareUnit, { base: 'g' | 'ml' | 'each' | 'sheet'; amount: number }>> = {
  kg: { base: 'g', amount: 1000 },
  '100g': { base: 'g', amount: 100 },
  l: { base: 'ml', amount: 1000 },
  '100ml': { base: 'ml', amount: 100 },
  each: { base: 'each', amount: 1 },
  '100sheet': { base: 'sheet', amount: 100 },
};

/** Whether `x` is one of {@link SHELF_COMPARE_UNITS}. */
export function isShelfCompareUnit(x: unknown): x is ShelfCompareUnit {
  return typeof x === 'string' && (SHELF_COMPARE_UNITS as readonly string[]).includes(x);
}

/** What a product's unit price is computed from. */
export interface Measure {
  /** Parsed size (src/domain/sizes.ts `parseSize`), or null when unknown. */
  size: ParsedSize | null;
  /** Sold loose by weight (listing `weighable`): the price is per kilogram, whatever `size` says. */
  weighable?: boolean;
  /** Sheets in the pack when the size text counts them ({@link sheetCount}), else null/absent. */
  sheets?: number | null;
}

/**
 * The measure of a printed size: {@link parseSize} and {@link sheetCount} of the same text; a
 * `weighable` product is per kilogram (the catalogue writes its size "per kg").
 */
export function measureOf(sizeText: string | null | undefined, weighable = false): Measure {
  return { size: parseSize(sizeText), weighable, sheets: sheetCount(sizeText) };
}

/**
 * The measure of a stored listing (prisma Listing `qty`, `unit`, `packCount`, `weighable`,
 * `sizeText`): the parsed columns as a {@link ParsedSize} (null when `qty` or `unit` is null or the
 * unit is not g, ml, each or m; `packCount` null counts as 1) and the sheets of `sizeText`.
 */
export function measureOfListing(l: { qty: number | null; unit: string | null; packCount: number | null; weighable: boolean; sizeText: string | null }): Measure {
  const unit = l.unit === 'g' || l.unit === 'ml' || l.unit === 'each' || l.unit === 'm' ? l.unit : null;
  const size: ParsedSize | null = l.qty != null && unit ? { qty: l.qty, unit, packCount: l.packCount ?? 1, perKg: l.weighable } : null;
  return { size, weighable: l.weighable, sheets: sheetCount(l.sizeText) };
}

/** Rounds to a hundredth of a cent (enough to sort and display, free of binary noise). */
const hundredths = (x: number) => Math.round(x * 100) / 100;

/**
 * The price per compare unit, in cents rounded to a hundredth of a cent, or null when the product
 * is not measured in the unit's dimension (see the module comment).
 * - `unitPrice(350, measureOf('6 x 330ml'), 'l')` → 176.77 (cents per litre)
 * - `unitPrice(499, measureOf('500g'), '100g')` → 99.8
 * - `unitPrice(399, measureOf('per kg', true), '100g')` → 39.9
 * - `unitPrice(600, measureOf('12pk'), 'each')` → 50
 * - `unitPrice(350, measureOf('500g'), 'l')` → null
 * @param priceCents the pack's price (or a weighable product's price per kg), integer NZ cents.
 * @returns null also for a price of 0 (no price) or a size whose total is not positive.
 * @throws RangeError when `priceCents` is negative or not finite, or `unit` is not a compare unit.
 */
export function unitPrice(priceCents: number, measure: Measure, unit: ShelfCompareUnit): number | null {
  if (!Number.isFinite(priceCents) || priceCents < 0) throw new RangeError(`price must be a non-negative number of cents: ${priceCents}`);
  const target = UNIT_BASE[unit];
  if (!target) throw new RangeError(`unknown compare unit: ${String(unit)}`);
  if (priceCents === 0) return null;
  const { size } = measure;
  if (measure.weighable || size?.perKg) {
    return target.base === 'g' ? hundredths((priceCents * target.amount) / 1000) : null;
  }
  let amount: number | null = null;
  if (target.base === 'sheet') amount = measure.sheets ?? null;
  else if (size && size.unit === target.base) amount = totalQty(size);
  else if (!size && target.base === 'each') amount = measure.sheets ?? null; // "90 sheets" of tissues: 90 items
  if (amount == null || !(amount > 0)) return null;
  return hundredths((priceCents * target.amount) / amount);
}
