/**
 * Store and area level rules (src/domain/store-levels.ts), on hand-computed cases: the spread bucket
 * edges (floating point included), item and store levels with basket weights and the 20-item
 * threshold, group levels, the daily sweep against the one-day rule, area roll-ups (chain mix taken
 * out, item weighting, keys, labels, order).
 */
import { describe, expect, it } from 'vitest';
import {
  SPREAD_BUCKETS, URBAN_ORDER, areaKey, areaLevel, dailyStoreLevels, groupLevels, pricedItems, rollUpAreas, spreadBucket,
  spreadHistogram, storeLevel, urbanLabel, type AreaStore, type LevelItem, type ListingRatio, type RatioSegment,
} from '../../src/domain/store-levels.js';

describe('spreadBucket', () => {
  it('puts each edge in the bucket above it: 0.80 → 1, 0.82 → 2, 1.18 → 20, 1.20 → 21', () => {
    expect(spreadBucket(0.8)).toBe(1);
    expect(spreadBucket(0.82)).toBe(2);
    expect(spreadBucket(0.84)).toBe(3);
    expect(spreadBucket(1)).toBe(11);
    expect(spreadBucket(1.18)).toBe(20);
    expect(spreadBucket(1.2)).toBe(21);
  });

  it('is not fooled by binary fractions: 0.82 however computed goes to bucket 2', () => {
    // 0.82 − 0.80 = 0.019999999999999907 in binary; a naive floor((r − 0.8) / 0.02) + 1 gives 1.
    expect(Math.floor((0.82 - 0.8) / 0.02) + 1).toBe(1);
    expect(spreadBucket(0.8 + 0.02)).toBe(2);
    expect(spreadBucket(82 / 100)).toBe(2);
    expect(spreadBucket(41 / 50)).toBe(2);
    expect(spreadBucket(0.41 * 2)).toBe(2);
    for (let k = 40; k <= 60; k++) {
      const want = Math.min(21, k - 39);
      expect(spreadBucket(k / 50)).toBe(want);
      expect(spreadBucket(0.8 + 0.02 * (k - 40))).toBe(want);
      expect(spreadBucket((k * 2) / 100)).toBe(want);
      // Prices in whole cents exactly at the edge, and one cent below it.
      expect(spreadBucket((k * 7) / 350)).toBe(want);
      expect(spreadBucket((k * 20_000 - 1) / 1_000_000)).toBe(Math.max(0, want - 1));
    }
  });

  it('has the tails: below 0.80 → 0, at or above 1.20 → 21; just inside the range stays inside', () => {
    expect(spreadBucket(0.7999)).toBe(0);
    expect(spreadBucket(0.01)).toBe(0);
    expect(spreadBucket(1.1999)).toBe(20);
    expect(spreadBucket(7)).toBe(21);
    expect(spreadBucket(0.8001)).toBe(1);
    expect(spreadBucket(0.8199)).toBe(1);
  });

  it('refuses a ratio that is not positive and finite', () => {
    for (const r of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => spreadBucket(r)).toThrow(RangeError);
  });

  it('histograms into 22 counts', () => {
    const h = spreadHistogram([0.5, 0.8, 0.82, 0.83, 1, 1.2, 3]);
    expect(h).toHaveLength(SPREAD_BUCKETS);
    expect(h[0]).toBe(1);
    expect(h[1]).toBe(1);
    expect(h[2]).toBe(2);
    expect(h[11]).toBe(1);
    expect(h[21]).toBe(2);
    expect(h.reduce((a, b) => a + b, 0)).toBe(7);
  });
});

/** A basket of `n` items (ids 1…n) of equal weight `w` in group 1. */
function flatBasket(n: number, w = 0.005): Map<number, LevelItem> {
  return new Map(Array.from({ length: n }, (_, i) => [i + 1, { weight: w, group: 1 }]));
}

describe('store level', () => {
  it('is 1.05 for a store at 1.05 × the median on each of 20 items, null with 19', () => {
    const basket = flatBasket(25);
    const at = (n: number): ListingRatio[] => Array.from({ length: n }, (_, i) => ({ item: i + 1, listing: 100 + i, ratio: 1.05 }));
    const l20 = storeLevel(pricedItems(at(20), basket));
    expect(l20.nItems).toBe(20);
    expect(l20.level).toBeCloseTo(1.05, 12);
    expect(storeLevel(pricedItems(at(19), basket))).toEqual({ level: null, nItems: 19 });
  });

  it('weights items by their basket weight (hand-computed)', () => {
    // 19 items at 1.0 of weight 0.01 and one at 2.0 of weight 0.05:
    // level = exp((0.05 ln 2) / (0.19 + 0.05)) = 2^(5/24) ≈ 1.15535.
    const basket = flatBasket(20, 0.01);
    basket.set(20, { weight: 0.05, group: 1 });
    const ls: ListingRatio[] = Array.from({ length: 20 }, (_, i) => ({ item: i + 1, listing: i + 1, ratio: i === 19 ? 2 : 1 }));
    const { level } = storeLevel(pricedItems(ls, basket));
    expect(level).toBeCloseTo(2 ** (5 / 24), 12);
    expect(level).toBeCloseTo(1.155353, 5);
    // Equal weights would give 2^(1/20) instead: the weights matter.
    expect(level).not.toBeCloseTo(2 ** (1 / 20), 3);
  });

  it('takes an item’s listings’ geometric mean, whatever their order, and ignores listings of unknown items', () => {
    const basket = flatBasket(2);
    const a = pricedItems([{ item: 1, listing: 5, ratio: 1.21 }, { item: 1, listing: 3, ratio: 1 }, { item: 9, listing: 7, ratio: 3 }], basket);
    const b = pricedItems([{ item: 1, listing: 3, ratio: 1 }, { item: 1, listing: 5, ratio: 1.21 }], basket);
    expect(a).toEqual(b);
    expect(a).toHaveLength(1);
    expect(a[0].ratio).toBeCloseTo(1.1, 12);
    expect(a[0].listings).toBe(2);
  });

  it('gives group levels with no threshold, in the order of the groups, leaving out empty groups', () => {
    const basket = new Map<number, LevelItem>([
      [1, { weight: 0.1, group: 1 }],
      [2, { weight: 0.3, group: 1 }],
      [3, { weight: 0.2, group: 3 }],
    ]);
    const items = pricedItems([{ item: 1, listing: 1, ratio: 1.1 }, { item: 2, listing: 2, ratio: 0.9 }, { item: 3, listing: 3, ratio: 1.2 }], basket);
    const groups = [
      { id: 1, code: 'fruit_veg', name: 'Fruit and vegetables' },
      { id: 2, code: 'meat_poultry_fish', name: 'Meat, poultry and fish' },
      { id: 3, code: 'grocery_food', name: 'Grocery food' },
    ];
    const g = groupLevels(items, groups);
    expect(g.map((x) => x.code)).toEqual(['fruit_veg', 'grocery_food']);
    expect(g[0].n).toBe(2);
    expect(g[0].level).toBeCloseTo(Math.exp((0.1 * Math.log(1.1) + 0.3 * Math.log(0.9)) / 0.4), 12);
    expect(g[1]).toEqual({ code: 'grocery_food', name: 'Grocery food', level: 1.2, n: 1 });
  });
});

describe('dailyStoreLevels', () => {
  const basket = flatBasket(30);

  it('prices each day the items with a segment covering it, and agrees bit for bit with the one-day rule', () => {
    const segs: RatioSegment[] = [];
    // 22 items priced on days 0–9 at 1.05; item 1 has a second listing on days 3–5 at 1.1025.
    for (let i = 1; i <= 22; i++) segs.push({ item: i, listing: i, from: 0, to: 9, ratio: 1.05 });
    segs.push({ item: 1, listing: 100, from: 3, to: 5, ratio: 1.1025 });
    // Items 21 and 22 leave after day 6 (20 items remain), item 20 leaves after day 7 (19: null).
    segs.find((s) => s.item === 21)!.to = 6;
    segs.find((s) => s.item === 22)!.to = 6;
    segs.find((s) => s.item === 20)!.to = 7;
    const { level, nItems } = dailyStoreLevels(segs, 10, basket);
    expect(nItems).toEqual([22, 22, 22, 22, 22, 22, 22, 20, 19, 19]);
    expect(level[0]).toBeCloseTo(1.05, 12);
    expect(level[7]).toBeCloseTo(1.05, 12);
    expect(level[8]).toBeNull();
    // Day 4: item 1 = sqrt(1.05 × 1.1025) = 1.05^1.5, the others 1.05.
    expect(level[4]).toBeCloseTo(1.05 ** ((21 + 1.5) / 22), 12);
    for (let d = 0; d < 10; d++) {
      const day = segs.filter((s) => s.from <= d && d <= s.to);
      const one = storeLevel(pricedItems(day, basket));
      expect(level[d]).toBe(one.level);
      expect(nItems[d]).toBe(one.nItems);
    }
  });

  it('gives the same values on a shorter window starting later (offsets shifted)', () => {
    const segs: RatioSegment[] = [];
    for (let i = 1; i <= 25; i++) segs.push({ item: i, listing: i, from: i % 4, to: 20 - (i % 3), ratio: 0.9 + i / 100 });
    const whole = dailyStoreLevels(segs, 21, basket);
    const late = dailyStoreLevels(segs.map((s) => ({ ...s, from: s.from - 5, to: s.to - 5 })), 16, basket);
    expect(late.level).toEqual(whole.level.slice(5));
    expect(late.nItems).toEqual(whole.nItems.slice(5));
  });

  it('clips segments to the window and gives empty days n 0, level null', () => {
    const r = dailyStoreLevels([{ item: 1, listing: 1, from: -5, to: 1, ratio: 1 }, { item: 2, listing: 2, from: 3, to: 99, ratio: 1 }], 5, basket);
    expect(r.nItems).toEqual([1, 1, 0, 1, 1]);
    expect(r.level).toEqual([null, null, null, null, null]);
    expect(dailyStoreLevels([], 0, basket)).toEqual({ level: [], nItems: [] });
  });
});

describe('areas', () => {
  const store = (over: Partial<AreaStore>): AreaStore => ({
    retailer: 'woolworths', town: 'Auckland', area: 'Auckland', urban: 'major', level: 1, nItems: 30, ...over,
  });

  it('areaLevel weights each store by its items and skips stores without a level', () => {
    const l = areaLevel([{ level: 1.1, nItems: 40 }, { level: 0.9, nItems: 20 }, { level: null, nItems: 5 }]);
    expect(l).toBeCloseTo(Math.exp((40 * Math.log(1.1) + 20 * Math.log(0.9)) / 60), 12);
    expect(areaLevel([{ level: null, nItems: 3 }])).toBeNull();
    expect(areaLevel([])).toBeNull();
  });

  it('takes the chain mix out: stores at their own chain’s median give 1.0 whatever the mix', () => {
    // Two chains whose medians differ (one 10 % cheaper): each store is at 1.0 of its own chain.
    const stores = [
      store({ retailer: 'paknsave', town: 'Hamilton', area: 'Waikato', urban: 'large', level: 1, nItems: 40 }),
      store({ retailer: 'woolworths', town: 'Hamilton', area: 'Waikato', urban: 'large', level: 1, nItems: 25 }),
      store({ retailer: 'woolworths', town: 'Auckland', area: 'Auckland', urban: 'major', level: 1, nItems: 60 }),
      store({ retailer: 'woolworths', town: 'Auckland', area: 'Auckland', urban: 'major', level: 1, nItems: 22 }),
    ];
    for (const a of rollUpAreas(stores)) expect(a.level).toBe(1);
  });

  it('normalises keys, keeps the stores’ spelling as label, sorts chains and towns, orders urban classes main centres first', () => {
    const stores = [
      store({ retailer: 'woolworths', town: 'Rural Northland', area: 'Northland', urban: 'rural', level: 1.02, nItems: 30 }),
      store({ retailer: 'newworld', town: 'Whangārei', area: 'Northland', urban: 'large', level: null, nItems: 10 }),
      store({ retailer: 'paknsave', town: 'Whangārei', area: 'northland ', urban: 'large', level: 0.98, nItems: 20 }),
      store({ retailer: 'woolworths', town: 'Auckland', area: 'Auckland', urban: 'major', level: 1.04, nItems: 50 }),
      store({ retailer: 'newworld', town: 'Te Puke', area: 'Bay of Plenty', urban: 'small', level: 1.1, nItems: 21 }),
      store({ retailer: 'newworld', town: 'Nowhere', area: 'Bay of Plenty', urban: null, level: 1.1, nItems: 21 }),
    ];
    const rows = rollUpAreas(stores);
    const scope = (s: string) => rows.filter((r) => r.scope === s);
    expect(scope('region').map((r) => [r.key, r.label, r.ord])).toEqual([
      ['auckland', 'Auckland', 0],
      ['bay of plenty', 'Bay of Plenty', 1],
      ['northland', 'Northland', 2],
    ]);
    const north = scope('region').find((r) => r.key === 'northland')!;
    expect(north.stores).toBe(3);
    expect(north.chains).toEqual(['newworld', 'paknsave', 'woolworths']);
    expect(north.towns).toEqual(['Rural Northland', 'Whangārei']);
    expect(north.level).toBeCloseTo(Math.exp((30 * Math.log(1.02) + 20 * Math.log(0.98)) / 50), 12);
    expect(scope('urban').map((r) => r.key)).toEqual(['major', 'large', 'small', 'rural']);
    expect(scope('urban').map((r) => r.label)).toEqual(['Metropolitan area', 'Large regional centre', 'Small regional centre', 'Rural']);
    expect(scope('urban').reduce((n, r) => n + r.stores, 0)).toBe(5); // the store without a class is left out
    expect(scope('town').map((r) => r.label)).toEqual(['Auckland', 'Nowhere', 'Rural Northland', 'Te Puke', 'Whangārei']);
    expect(scope('town').find((r) => r.key === 'whangārei')!.level).toBe(0.98);
    expect(scope('town').map((r) => r.ord)).toEqual([0, 1, 2, 3, 4]);
  });

  it('keys and labels', () => {
    expect(areaKey('  Hawke’s   Bay ')).toBe('hawke’s bay');
    expect(areaKey('Whanga\u0304rei')).toBe(areaKey('Whangārei'));
    expect(URBAN_ORDER).toEqual(['major', 'large', 'medium', 'small', 'rural']);
    expect(urbanLabel('medium')).toBe('Medium regional centre');
    expect(urbanLabel('odd')).toBe('odd');
  });
});
