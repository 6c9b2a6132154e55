/** The shrinkflation rule (src/domain/shrinkflation.ts): each clause, and the window. */
import { describe, expect, it } from 'vitest';
import { shelfPriceAt, shrinkEvent, shrinkEvents, windowFrom } from '../../src/domain/shrinkflation.js';

describe('shrinkEvent', () => {
  it('a smaller pack at the same shelf price is an event, unit price per kg rising', () => {
    const e = shrinkEvent('2026-03-01', '500g', '450g', 450, 450);
    expect(e).toEqual({
      day: '2026-03-01', old_size: '500g', new_size: '450g', old_qty: 500, new_qty: 450, unit: 'g',
      old_price: 450, new_price: 450, compare_unit: 'kg', old_unit_price: 900, new_unit_price: 1000, unit_price_change: 11.1,
    });
  });
  it('a smaller pack at a higher price is an event; at a lower price is not', () => {
    expect(shrinkEvent('2026-03-01', '1L', '900ml', 300, 320)).toMatchObject({ unit: 'ml', compare_unit: 'l', old_unit_price: 300, new_unit_price: 355.56, unit_price_change: 18.5 });
    expect(shrinkEvent('2026-03-01', '1L', '900ml', 300, 299)).toBeNull();
    // A lower price that still raises the unit price is not shrinkflation under the rule: the shelf price fell.
    expect(shrinkEvent('2026-03-01', '1L', '500ml', 300, 250)).toBeNull();
  });
  it('equal or larger sizes are no event, however the price moves', () => {
    expect(shrinkEvent('2026-03-01', '1L', '1000ml', 300, 350)).toBeNull();
    expect(shrinkEvent('2026-03-01', '500g', '0.5kg', 300, 350)).toBeNull();
    expect(shrinkEvent('2026-03-01', '450g', '500g', 300, 350)).toBeNull();
  });
  it('a change of unit family, an unparsed size or a product sold by weight is not comparable', () => {
    expect(shrinkEvent('2026-03-01', '500g', '400ml', 300, 300)).toBeNull();
    expect(shrinkEvent('2026-03-01', '500g', '6pk', 300, 300)).toBeNull();
    expect(shrinkEvent('2026-03-01', 'family size', '400g', 300, 300)).toBeNull();
    expect(shrinkEvent('2026-03-01', '1kg', '900g', 1200, 1200, true)).toBeNull();
    expect(shrinkEvent('2026-03-01', 'per kg', '900g', 1200, 1200)).toBeNull();
  });
  it('pack counts multiply: 6 x 330ml to 6 x 300ml shrinks, 6 x 330ml to 1980ml does not', () => {
    expect(shrinkEvent('2026-03-01', '6 x 330ml', '6 x 300ml', 1200, 1200)).toMatchObject({ old_qty: 1980, new_qty: 1800, unit: 'ml' });
    expect(shrinkEvent('2026-03-01', '6 x 330ml', '1980ml', 1200, 1300)).toBeNull();
    expect(shrinkEvent('2026-03-01', '12pk', '10pk', 600, 600)).toMatchObject({ unit: 'each', compare_unit: 'each', old_unit_price: 50, new_unit_price: 60, unit_price_change: 20 });
    expect(shrinkEvent('2026-03-01', '224 sheets', '200 sheets', 500, 500)).toMatchObject({ unit: 'sheet', compare_unit: '100sheet' });
  });
  it('a free price (0 cents) gives no unit price and no event', () => {
    expect(shrinkEvent('2026-03-01', '500g', '450g', 0, 0)).toBeNull();
  });
});

describe('shrinkEvents over a history', () => {
  const prices = [
    { first_day: '2026-01-01', price: 400 },
    { first_day: '2026-02-10', price: 420 },
    { first_day: '2026-03-01', price: 420 },
  ];
  it('compares the price before the change day with the price in force on it', () => {
    expect(shelfPriceAt(prices, '2026-02-10', true)).toBe(400);
    expect(shelfPriceAt(prices, '2026-02-10')).toBe(420);
    expect(shelfPriceAt(prices, '2026-01-01', true)).toBeNull();
    const sizes = [
      { size_text: '500g', first_day: '2026-01-01', last_day: '2026-02-09' },
      { size_text: '450g', first_day: '2026-02-10', last_day: '2026-03-31' },
      { size_text: '500g', first_day: '2026-04-01', last_day: null },
    ];
    const events = shrinkEvents(sizes, prices, false);
    expect(events.map((e) => [e.day, e.old_price, e.new_price])).toEqual([['2026-02-10', 400, 420]]);
    expect(shrinkEvents(sizes, prices, false, '2026-02-11', '2026-12-31')).toEqual([]);
    expect(shrinkEvents(sizes, prices, true)).toEqual([]);
    // No price before the change: no event.
    expect(shrinkEvents(sizes, [{ first_day: '2026-02-10', price: 420 }], false)).toEqual([]);
  });
  it('windowFrom counts as_of as the last of `days` days', () => {
    expect(windowFrom('2026-03-10', 1)).toBe('2026-03-10');
    expect(windowFrom('2026-03-10', 10)).toBe('2026-03-01');
  });
});
