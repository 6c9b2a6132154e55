/**
 * Chain levels (src/domain/chain-levels.ts) with hand-computed answers. Prices are made up.
 */
import { describe, expect, it } from 'vitest';
import {
  ALL_FOOD_GROUP, chainItemPrice, chainLevels, chainPricer, chainRatios, crossChainMedian,
  type ChainItemPrice, type ChainMatch, type LevelItem,
} from '../../src/domain/chain-levels.js';
import type { ListingSpan } from '../../src/domain/price-index.js';

const A = 1;
const B = 2;
const C = 3;

/** `n` items in group `groupId`, ids from `from`, weight `weight` each. */
function items(n: number, groupId = 1, weight = 0.01, from = 1): LevelItem[] {
  return Array.from({ length: n }, (_, k) => ({ id: from + k, groupId, weight }));
}
/** Every item priced at each chain at `factor` × a base price 500 + 25 × id. */
function priced(its: readonly LevelItem[], factors: Record<number, number>): ChainItemPrice[] {
  return its.flatMap((i) => Object.entries(factors).map(([r, f]) => ({ itemId: i.id, retailerId: Number(r), price: Math.round((500 + 25 * i.id) * f) })));
}
function levelOf(levels: ReturnType<typeof chainLevels>, retailerId: number, groupId = ALL_FOOD_GROUP) {
  return levels.find((l) => l.retailerId === retailerId && l.groupId === groupId);
}

describe('medians', () => {
  it('cross-chain median: the middle value, or the exact mean of the two middle values', () => {
    expect(crossChainMedian([100, 92])).toBe(96);
    expect(crossChainMedian([101, 92])).toBe(96.5); // not rounded
    expect(crossChainMedian([108, 92, 100])).toBe(100);
    expect(crossChainMedian([4, 1, 3, 2])).toBe(2.5);
    expect(() => crossChainMedian([])).toThrow(RangeError);
  });

  it('chain item price: the median of the basis prices rounded to whole cents, halves up', () => {
    expect(chainItemPrice([399, 400])).toBe(400);
    expect(chainItemPrice([300, 100, 200])).toBe(200);
    expect(chainItemPrice([100.4, 200.6, 50])).toBe(100); // fractional middle (per-kg basis) rounded
    expect(chainItemPrice([100.5])).toBe(101);
    expect(chainItemPrice([1, 2])).toBe(2);
    expect(() => chainItemPrice([])).toThrow(RangeError);
  });
});

describe('chainRatios', () => {
  it('leaves out items priced at one chain only', () => {
    const r = chainRatios([
      { itemId: 1, retailerId: A, price: 92 }, { itemId: 1, retailerId: B, price: 100 },
      { itemId: 2, retailerId: A, price: 50 },
    ]);
    expect([...r.keys()]).toEqual([1]);
    expect(r.get(1)!.get(A)).toBeCloseTo(92 / 96, 15);
    expect(r.get(1)!.get(B)).toBeCloseTo(100 / 96, 15);
  });

  it('refuses a non-positive price', () => {
    expect(() => chainRatios([{ itemId: 1, retailerId: A, price: 0 }])).toThrow(RangeError);
  });
});

describe('chainLevels', () => {
  it('two chains, one exactly 8 % cheaper on every item: 0.92 / 0.96 and 1 / 0.96 (the median of two is their mean)', () => {
    const its = items(24);
    const l = chainLevels(its, priced(its, { [A]: 1, [B]: 0.92 }));
    expect(levelOf(l, B)).toEqual({ retailerId: B, groupId: 0, level: expect.closeTo(0.92 / 0.96, 12), items: 24 });
    expect(levelOf(l, A)).toEqual({ retailerId: A, groupId: 0, level: expect.closeTo(1 / 0.96, 12), items: 24 });
    expect(levelOf(l, B)!.level).toBeCloseTo(0.958333333333, 10);
    expect(levelOf(l, A, 1)!.level).toBeCloseTo(1.041666666667, 10);
  });

  it('three chains at 0.92, 1 and 1.08 of one price: exactly 0.92, 1 and 1.08', () => {
    const its = items(20);
    const l = chainLevels(its, priced(its, { [A]: 1, [B]: 0.92, [C]: 1.08 }));
    expect(levelOf(l, A)!.level).toBeCloseTo(1, 12);
    expect(levelOf(l, B)!.level).toBeCloseTo(0.92, 12);
    expect(levelOf(l, C)!.level).toBeCloseTo(1.08, 12);
    expect(l.map((x) => [x.retailerId, x.groupId])).toEqual([[A, 0], [A, 1], [B, 0], [B, 1], [C, 0], [C, 1]]);
  });

  it('weights items by their basket weights (headline) and gives each group its own level', () => {
    // 11 items of group 1 (weight 0.0034 each): A 90, B 110 → ratios 0.9 / 1.1;
    // 11 items of group 3 (weight 0.0053 each): A 120, B 80 → ratios 1.2 / 0.8.
    const g1 = items(11, 1, 0.0034, 1);
    const g3 = items(11, 3, 0.0053, 101);
    const prices = [
      ...g1.flatMap((i) => [{ itemId: i.id, retailerId: A, price: 90 }, { itemId: i.id, retailerId: B, price: 110 }]),
      ...g3.flatMap((i) => [{ itemId: i.id, retailerId: A, price: 120 }, { itemId: i.id, retailerId: B, price: 80 }]),
    ];
    const l = chainLevels([...g1, ...g3], prices);
    const headA = Math.exp((0.0034 * Math.log(0.9) + 0.0053 * Math.log(1.2)) / (0.0034 + 0.0053));
    const headB = Math.exp((0.0034 * Math.log(1.1) + 0.0053 * Math.log(0.8)) / (0.0034 + 0.0053));
    expect(levelOf(l, A)).toEqual({ retailerId: A, groupId: 0, level: expect.closeTo(headA, 12), items: 22 });
    expect(levelOf(l, B)!.level).toBeCloseTo(headB, 12);
    // not the unweighted mean √(0.9 × 1.2) = 1.0392…
    expect(Math.abs(levelOf(l, A)!.level! - Math.sqrt(0.9 * 1.2))).toBeGreaterThan(0.01);
    expect(levelOf(l, A, 1)).toEqual({ retailerId: A, groupId: 1, level: expect.closeTo(0.9, 12), items: 11 });
    expect(levelOf(l, A, 3)).toEqual({ retailerId: A, groupId: 3, level: expect.closeTo(1.2, 12), items: 11 });
    expect(levelOf(l, B, 3)!.level).toBeCloseTo(0.8, 12);
  });

  it('null headline under 20 comparable items; a group level from one item', () => {
    const its = items(19);
    const l = chainLevels(its, priced(its, { [A]: 1, [B]: 0.92 }));
    expect(levelOf(l, A)).toEqual({ retailerId: A, groupId: 0, level: null, items: 19 });
    expect(levelOf(l, A, 1)!.level).toBeCloseTo(1 / 0.96, 12);
    const one = chainLevels(its.slice(0, 1), priced(its.slice(0, 1), { [A]: 1, [B]: 0.92 }));
    expect(levelOf(one, B, 1)).toEqual({ retailerId: B, groupId: 1, level: expect.closeTo(0.92 / 0.96, 12), items: 1 });
    // the threshold is a parameter
    expect(levelOf(chainLevels(its, priced(its, { [A]: 1, [B]: 0.92 }), 19), A)!.level).toBeCloseTo(1 / 0.96, 12);
  });

  it('items priced at one chain only are left out of every level but the chain keeps its entries', () => {
    const its = items(23);
    const both = its.slice(0, 20);
    const prices = [
      ...priced(both, { [A]: 1, [B]: 0.92 }),
      // items 21 and 22 at A only, at absurd prices: they do not move A's level
      { itemId: 21, retailerId: A, price: 99_999 },
      { itemId: 22, retailerId: A, price: 99_999 },
      // a chain pricing only an item nobody else prices
      { itemId: 23, retailerId: C, price: 10 },
    ];
    const l = chainLevels(its, prices);
    expect(levelOf(l, A)).toEqual({ retailerId: A, groupId: 0, level: expect.closeTo(1 / 0.96, 12), items: 20 });
    expect(levelOf(l, C)).toEqual({ retailerId: C, groupId: 0, level: null, items: 0 });
    expect(levelOf(l, C, 1)).toEqual({ retailerId: C, groupId: 1, level: null, items: 0 });
    // once A prices item 22 and C does too, it is comparable: 10 against the median (99999 + 10) / 2
    const l2 = chainLevels(its, [...prices, { itemId: 22, retailerId: C, price: 10 }]);
    expect(levelOf(l2, A)!.items).toBe(21);
    expect(levelOf(l2, C, 1)).toEqual({ retailerId: C, groupId: 1, level: expect.closeTo(10 / ((99_999 + 10) / 2), 12), items: 1 });
    const lone = chainLevels(its.slice(0, 2), [{ itemId: 1, retailerId: A, price: 100 }, { itemId: 2, retailerId: B, price: 100 }]);
    expect(lone).toEqual([
      { retailerId: A, groupId: 0, level: null, items: 0 }, { retailerId: A, groupId: 1, level: null, items: 0 },
      { retailerId: B, groupId: 0, level: null, items: 0 }, { retailerId: B, groupId: 1, level: null, items: 0 },
    ]);
  });

  it('ignores prices of items not in the basket given, also as other chains’ prices', () => {
    const its = items(20);
    const l = chainLevels(its, [...priced(its, { [A]: 1, [B]: 0.92 }), { itemId: 999, retailerId: C, price: 1 }, { itemId: 999, retailerId: A, price: 5 }]);
    expect(l.some((x) => x.retailerId === C)).toBe(false);
    expect(levelOf(l, A)!.items).toBe(20);
  });

  it('is symmetric and order-independent (bit-identical)', () => {
    const its = items(20);
    const p = priced(its, { [A]: 1, [B]: 0.92, [C]: 1.3 });
    const a = chainLevels(its, p);
    const b = chainLevels([...its].reverse(), [...p].reverse());
    expect(b).toEqual(a);
  });
});

describe('chainPricer', () => {
  const span = (listingId: number, firstDay: string, lastDay: string, price: number, extra: Partial<ListingSpan> = {}): ListingSpan => ({
    listingId, firstDay, lastDay, price, promoPrice: null, promoKind: null, qty: null, unit: null, weighable: false, ...extra,
  });
  const m = (itemId: number, listingId: number, retailerId: number, validFrom = '2025-01-01', validTo: string | null = null): ChainMatch => ({
    itemId, listingId, retailerId, validFrom, validTo,
  });

  it('specials count, club prices and multibuys do not; medians per chain with their listing counts', () => {
    const price = chainPricer(
      [{ id: 1, perUnit: false }],
      [m(1, 10, A), m(1, 11, A), m(1, 12, A), m(1, 20, B), m(1, 21, B)],
      [
        span(10, '2025-03-01', '2025-03-10', 500, { promoPrice: 400, promoKind: 1 }), // special: 400
        span(11, '2025-03-01', '2025-03-10', 450, { promoPrice: 300, promoKind: 2 }), // club: 450
        span(12, '2025-03-01', '2025-03-10', 480, { promoPrice: 200, promoKind: 3 }), // multibuy: 480
        span(20, '2025-03-01', '2025-03-10', 399),
        span(21, '2025-03-01', '2025-03-10', 400, { promoPrice: 100, promoKind: 4 }), // clearance: 400
      ],
    );
    expect(price('2025-03-05')).toEqual([
      { itemId: 1, retailerId: A, price: 450, listings: 3 }, // median of 400, 450, 480
      { itemId: 1, retailerId: B, price: 400, listings: 2 }, // (399 + 400) / 2 rounded up
    ]);
  });

  it('per-unit items per kg or litre (pack total in g or ml; weighable already per kg), per-pack items per pack', () => {
    const price = chainPricer(
      [{ id: 1, perUnit: true }, { id: 2, perUnit: false }],
      [m(1, 10, A), m(1, 11, A), m(2, 12, A)],
      [
        span(10, '2025-03-01', '2025-03-01', 400, { qty: 1000, unit: 'g' }), // 2 × 500 g: 400 c/kg
        span(11, '2025-03-01', '2025-03-01', 700, { weighable: true }), // 700 c/kg
        span(12, '2025-03-01', '2025-03-01', 400, { qty: 1000, unit: 'g' }), // per pack 400
      ],
    );
    expect(price('2025-03-01')).toEqual([
      { itemId: 1, retailerId: A, price: 550, listings: 2 },
      { itemId: 2, retailerId: A, price: 400, listings: 1 },
    ]);
  });

  it('counts a price up to 14 days old, not 15; only while the match is in force', () => {
    const price = chainPricer(
      [{ id: 1, perUnit: false }],
      [m(1, 10, A), m(1, 11, B, '2025-03-05', '2025-03-20')],
      [span(10, '2025-03-01', '2025-03-02', 300), span(11, '2025-03-01', '2025-03-30', 200)],
    );
    expect(price('2025-03-04')).toEqual([{ itemId: 1, retailerId: A, price: 300, listings: 1 }]); // B not yet matched
    expect(price('2025-03-16').map((p) => p.retailerId)).toEqual([A, B]); // 03-02 is 14 days back
    expect(price('2025-03-17').map((p) => p.retailerId)).toEqual([B]); // 15 days back
    expect(price('2025-03-20')).toEqual([]); // B's match ended (exclusive)
    // asking for an earlier day again restarts the cursor
    expect(price('2025-03-01')).toEqual([{ itemId: 1, retailerId: A, price: 300, listings: 1 }]);
  });

  it('takes the latest span starting on or before the day; a listing matched twice counts once; zero prices are none', () => {
    const price = chainPricer(
      [{ id: 1, perUnit: false }],
      [m(1, 10, A), m(1, 10, A, '2025-03-01'), m(1, 11, A)],
      [span(10, '2025-03-01', '2025-03-03', 300), span(10, '2025-03-04', '2025-03-09', 330), span(11, '2025-03-01', '2025-03-09', 0)],
    );
    expect(price('2025-03-03')).toEqual([{ itemId: 1, retailerId: A, price: 300, listings: 1 }]);
    expect(price('2025-03-04')).toEqual([{ itemId: 1, retailerId: A, price: 330, listings: 1 }]);
    expect(() => chainPricer([{ id: 1, perUnit: false }], [], [span(1, '2025-03-02', '2025-03-01', 1)])).toThrow(RangeError);
  });

  it('ignores matches of items it was not given', () => {
    const price = chainPricer([{ id: 1, perUnit: false }], [m(2, 10, A)], [span(10, '2025-03-01', '2025-03-01', 300)]);
    expect(price('2025-03-01')).toEqual([]);
  });
});
