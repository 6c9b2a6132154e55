/** Size-text parsing (src/domain/sizes.ts) on printed sizes of the real catalogue and common forms. */
import { describe, expect, it } from 'vitest';
import { parseSize, totalQty } from '../../src/domain/sizes.js';

describe('parseSize', () => {
  it.each([
    ['500g', { qty: 500, unit: 'g', packCount: 1, perKg: false }],
    ['1.5L', { qty: 1500, unit: 'ml', packCount: 1, perKg: false }],
    ['0.5kg', { qty: 500, unit: 'g', packCount: 1, perKg: false }],
    ['1kg', { qty: 1000, unit: 'g', packCount: 1, perKg: false }],
    ['250 mL', { qty: 250, unit: 'ml', packCount: 1, perKg: false }],
    ['100cm', { qty: 1, unit: 'm', packCount: 1, perKg: false }],
    ['6 x 330ml', { qty: 330, unit: 'ml', packCount: 6, perKg: false }],
    ['6x330ml', { qty: 330, unit: 'ml', packCount: 6, perKg: false }],
    ['330ml x 6', { qty: 330, unit: 'ml', packCount: 6, perKg: false }],
    ['125g 4pk', { qty: 125, unit: 'g', packCount: 4, perKg: false }],
    ['12pk', { qty: 1, unit: 'each', packCount: 12, perKg: false }],
    ['12 pack', { qty: 1, unit: 'each', packCount: 12, perKg: false }],
    ['1ea', { qty: 1, unit: 'each', packCount: 1, perKg: false }],
    ['each', { qty: 1, unit: 'each', packCount: 1, perKg: false }],
    ['per kg', { qty: 1000, unit: 'g', packCount: 1, perKg: true }],
    ['kg', { qty: 1000, unit: 'g', packCount: 1, perKg: true }],
    ['approx 1.2kg', { qty: 1200, unit: 'g', packCount: 1, perKg: false }],
  ])('%s', (text, expected) => {
    expect(parseSize(text)).toEqual(expected);
  });

  it.each(['', 'large', 'family size', '3 for 2', null, undefined])('no size in %s', (text) => {
    expect(parseSize(text as string | null)).toBeNull();
  });

  it('totals a pack', () => {
    expect(totalQty(parseSize('6 x 330ml')!)).toBe(1980);
    expect(totalQty(parseSize('3 x 0.1kg')!)).toBe(300);
  });
});
