/**
 * Unit prices (src/domain/unit-price.ts) on size texts and prices of the real Woolworths NZ
 * catalogue of 2026-07-27 (../shared/data/neon-ninja--woolies/products.columns.tsv): where the
 * chain prints its own unit price in the same unit, the expected value agrees with it (noted).
 */
import { describe, expect, it } from 'vitest';
import { sheetCount } from '../../src/domain/sizes.js';
import { isShelfCompareUnit, measureOf, measureOfListing, SHELF_COMPARE_UNITS, unitPrice, type ShelfCompareUnit } from '../../src/domain/unit-price.js';

const per = (cents: number, sizeText: string | null, unit: ShelfCompareUnit, weighable = false) => unitPrice(cents, measureOf(sizeText, weighable), unit);

describe('unitPrice on real size texts', () => {
  it.each([
    // [size text, price cents, unit, cents per unit]; "chain" = the catalogue's own cup price.
    ['6x330mL', 2000, 'l', 1010.1], // garage project tiny beer, 6 × 330 ml = 1.98 L; chain 10.10/L
    ['6 x 330ml', 2000, '100ml', 101.01],
    ['12 x 330mL', 2000, 'l', 505.05],
    ['1.5L', 809, 'l', 539.33], // lewis road a2 milk; chain 5.39/L
    ['750mL', 926, 'l', 1234.67], // lewis road chocolate milk; chain 12.35/L
    ['4 x 250mL', 749, 'l', 749], // remedy kombucha; chain 7.49/L
    ['15L', 1099, 'l', 73.27], // tongariro spring water; chain 0.73/L
    ['500g', 800, 'kg', 1600], // woolworths gourmet tomatoes; chain 16.00/kg
    ['500g', 499, '100g', 99.8],
    ['12x85g', 1420, '100g', 139.22], // oscar wet cat food, 12 × 85 g; chain 1.39/100 g
    ['2 x 1kg', 1000, 'kg', 500],
    ['2 x 1kg', 1000, '100g', 50],
    ['approx 1.2kg', 1800, 'kg', 1500],
    ['12pack', 995, 'each', 82.92], // farmer brown eggs; chain 0.83 each
    ['12pk', 600, 'each', 50],
    ['1ea', 349, 'each', 349],
    ['each', 349, 'each', 349],
    ['224 sheets', 299, '100sheet', 133.48], // sorbent facial tissues at 2.99; chain 1.33/100 sheets
    ['90 sheets', 345, '100sheet', 383.33], // chain 3.83/100 sheets
    ['90 sheets', 345, 'each', 3.83], // a sheet is an item on a per-item shelf
  ] as const)('%s at %i c → %s', (text, cents, unit, expected) => {
    expect(per(cents, text, unit)).toBe(expected);
  });

  it('a weighable product is priced per kg already', () => {
    expect(per(399, 'per kg', 'kg', true)).toBe(399); // loose bananas 3.99/kg; chain 3.99/kg
    expect(per(399, 'per kg', '100g', true)).toBe(39.9);
    expect(per(399, 'per kg', 'kg')).toBe(399); // "per kg" says so even without the flag
    expect(per(399, 'per kg', 'each', true)).toBeNull();
    expect(per(399, 'per kg', 'l', true)).toBeNull();
    // The flag wins over a printed size ("min order 600g" is an ordering hint, not the priced size).
    expect(per(925, '600g', 'kg', true)).toBe(925);
  });

  it.each([
    ['500g', 'l'],
    ['500g', 'each'],
    ['1.5L', 'kg'],
    ['6pack', 'l'], // "30pack" of cans: no volume printed
    ['10pack', 'kg'], // sausages counted, priced per kg: unknown weight
    ['6pack', '100sheet'], // six rolls of toilet paper are not six sheets
    ['50m', 'each'], // dental floss in metres: no compare unit measures length
    ['224 sheets', 'kg'],
  ] as const)('%s has no price per %s (another dimension)', (text, unit) => {
    expect(per(500, text, unit)).toBeNull();
  });

  it('no size, no price, no unit price', () => {
    expect(per(500, null, 'each')).toBeNull();
    expect(per(500, 'large', 'kg')).toBeNull();
    expect(per(0, '500g', 'kg')).toBeNull();
    expect(unitPrice(500, { size: { qty: 0, unit: 'g', packCount: 1, perKg: false } }, 'kg')).toBeNull();
  });

  it('refuses a negative or non-finite price and an unknown unit', () => {
    expect(() => per(-1, '500g', 'kg')).toThrow(RangeError);
    expect(() => per(Number.NaN, '500g', 'kg')).toThrow(RangeError);
    expect(() => unitPrice(100, measureOf('500g'), 'lb' as ShelfCompareUnit)).toThrow(RangeError);
  });

  it('orders a shelf: the dearer per unit sorts after, whatever the pack', () => {
    const a = per(2000, '6x330mL', 'l')!; // 10.10/L
    const b = per(809, '1.5L', 'l')!; // 5.39/L
    expect(b).toBeLessThan(a);
  });
});

describe('measures', () => {
  it('reads the stored columns of a listing like its size text', () => {
    const cols = { qty: 330, unit: 'ml', packCount: 6, weighable: false, sizeText: '6x330mL' };
    expect(measureOfListing(cols)).toEqual(measureOf('6x330mL'));
    expect(unitPrice(2000, measureOfListing(cols), 'l')).toBe(1010.1);
    const loose = { qty: 1000, unit: 'g', packCount: 1, weighable: true, sizeText: 'per kg' };
    expect(unitPrice(399, measureOfListing(loose), '100g')).toBe(39.9);
    expect(measureOfListing({ qty: null, unit: null, packCount: null, weighable: false, sizeText: null })).toEqual({ size: null, weighable: false, sheets: null });
    expect(measureOfListing({ qty: 2, unit: 'lb', packCount: null, weighable: false, sizeText: null }).size).toBeNull();
  });

  it('counts sheets only where the size text does', () => {
    expect(sheetCount('224 sheets')).toBe(224);
    expect(sheetCount('3 x 90 sheets')).toBe(270);
    expect(sheetCount('80ss')).toBe(80);
    expect(sheetCount('1 sheet')).toBe(1);
    expect(sheetCount('6pack')).toBeNull();
    expect(sheetCount('0 sheets')).toBeNull();
    expect(sheetCount(null)).toBeNull();
  });

  it('knows its units', () => {
    expect(SHELF_COMPARE_UNITS).toEqual(['kg', 'l', '100g', '100ml', 'each', '100sheet']);
    expect(isShelfCompareUnit('100ml')).toBe(true);
    expect(isShelfCompareUnit('ml')).toBe(false);
  });
});
