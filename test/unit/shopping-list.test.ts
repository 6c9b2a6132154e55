/**
 * The shopping-list rules (src/domain/shopping-list.ts): parsing a list, the cost of a line at a
 * store, the single-store ranking and the two-store splits, on hand-computed examples (cents).
 */
import { describe, expect, it } from 'vitest';
import {
  lineCost, MAX_ITEMS, mergeItems, parseShoppingItems, planShoppingList, ShoppingListError, type PlanOffer,
} from '../../src/domain/shopping-list.js';

const shelf = (price: number) => ({ price, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null });

describe('parseShoppingItems', () => {
  it('reads products, listings and quantities, merging repeats in first-seen order', () => {
    expect(parseShoppingItems('p12x2,l345,p77')).toEqual([
      { kind: 'product', id: 12, qty: 2 },
      { kind: 'listing', id: 345, qty: 1 },
      { kind: 'product', id: 77, qty: 1 },
    ]);
    expect(parseShoppingItems(' P12X2, l1 ,,p12x3,')).toEqual([
      { kind: 'product', id: 12, qty: 5 },
      { kind: 'listing', id: 1, qty: 1 },
    ]);
    // A product and a listing with the same number are different items.
    expect(parseShoppingItems('p5,l5')).toHaveLength(2);
  });

  it.each([
    ['q12', /"q12" is not an item/],
    ['p0', /not an item/],
    ['p012', /not an item/],
    ['p12x0', /not an item/],
    ['p12x', /not an item/],
    ['p-1', /not an item/],
    ['p1.5', /not an item/],
    ['p12x100', /quantity of p12 must be at most 99/],
    ['p12x50,p12x50', /quantity of p12 must be at most 99/],
    ['p2147483648', /out of range/],
    ['', /no items/],
    [' , ,', /no items/],
    [Array.from({ length: MAX_ITEMS + 1 }, (_, i) => `p${i + 1}`).join(','), /51 distinct items; at most 50/],
  ])('refuses %j', (text, message) => {
    expect(() => parseShoppingItems(text)).toThrow(ShoppingListError);
    expect(() => parseShoppingItems(text)).toThrow(message);
  });

  it('takes 50 distinct items, and a quantity of 99', () => {
    expect(parseShoppingItems(Array.from({ length: MAX_ITEMS }, (_, i) => `l${i + 1}`).join(','))).toHaveLength(50);
    expect(mergeItems([{ kind: 'listing', id: 1, qty: 98 }, { kind: 'listing', id: 1, qty: 1 }])).toEqual([{ kind: 'listing', id: 1, qty: 99 }]);
  });
});

describe('lineCost', () => {
  it('is the shelf price times the quantity without a promotion', () => {
    expect(lineCost(shelf(250), 3, false)).toEqual({ cost: 750, promo: null });
  });

  it('takes a special for everyone, only when cheaper', () => {
    expect(lineCost({ ...shelf(300), promo_price: 250, promo_kind: 1 }, 2, false)).toEqual({ cost: 500, promo: 'special' });
    expect(lineCost({ ...shelf(300), promo_price: 300, promo_kind: 1 }, 2, false)).toEqual({ cost: 600, promo: null });
    expect(lineCost({ ...shelf(300), promo_price: 0, promo_kind: 1 }, 2, false)).toEqual({ cost: 600, promo: null });
  });

  it('takes a club price only for a member', () => {
    const club = { ...shelf(300), promo_price: 200, promo_kind: 2 as const };
    expect(lineCost(club, 3, false)).toEqual({ cost: 900, promo: null });
    expect(lineCost(club, 3, true)).toEqual({ cost: 600, promo: 'member' });
  });

  it('takes a multibuy by whole sets, the rest at the shelf price', () => {
    const mb = { ...shelf(300), promo_price: 233, promo_kind: 3 as const, multibuy_qty: 3, multibuy_price: 700 };
    expect(lineCost(mb, 2, false)).toEqual({ cost: 600, promo: null }); // no whole set
    expect(lineCost(mb, 3, false)).toEqual({ cost: 700, promo: 'multibuy' });
    expect(lineCost(mb, 7, false)).toEqual({ cost: 2 * 700 + 300, promo: 'multibuy' });
    // Terms unknown: the shelf price.
    expect(lineCost({ ...mb, multibuy_qty: null }, 3, false)).toEqual({ cost: 900, promo: null });
  });

  it('ignores a clearance, and gives nothing for a price that is not positive', () => {
    expect(lineCost({ ...shelf(300), promo_price: 100, promo_kind: 4 }, 1, true)).toEqual({ cost: 300, promo: null });
    expect(lineCost(shelf(0), 1, false)).toBeNull();
  });
});

/** An offer of `item` at `storeId` as `listingId`, shelf price `price`, with promotion fields. */
const offer = (storeId: number, item: number, listingId: number, price: number, promo: Partial<PlanOffer> = {}): PlanOffer => ({
  storeId, item, listingId, since: '2026-08-01', ...shelf(price), ...promo,
});

describe('planShoppingList', () => {
  // Items: 0 = A × 2, 1 = B × 1, 2 = C × 3. Stores 1 (2 km), 2 (5 km), 3 (1 km).
  //   store 1: A 300 → 600; B 500 (club 400) → 500, or 400 for a member; C none.
  //   store 2: A 280, special 260 → 520; B 450 → 450; C 100, 3 for 250 → 250.   total 1220, nothing missing
  //   store 3: A 310 → 620; B none; C 60 → 180.                                    total 800, B missing
  const qty = [2, 1, 3];
  const stores = [{ id: 1, distanceKm: 2 }, { id: 2, distanceKm: 5 }, { id: 3, distanceKm: 1 }];
  const offers = [
    offer(1, 0, 11, 300), offer(1, 1, 21, 500, { promo_price: 400, promo_kind: 2 }),
    offer(2, 0, 12, 280, { promo_price: 260, promo_kind: 1 }), offer(2, 1, 22, 450), offer(2, 2, 32, 100, { promo_kind: 3, promo_price: 84, multibuy_qty: 3, multibuy_price: 250 }),
    offer(3, 0, 13, 310), offer(3, 2, 33, 60),
  ];

  it('ranks single stores by missing items, then total; splits beat both their stores alone', () => {
    const plan = planShoppingList({ qty, stores, offers, member: false, limit: 5 });
    expect(plan.storesConsidered).toBe(3);
    // store 1 alone: A 600 + B 500 = 1100, C missing.
    expect(plan.single.map((s) => [s.storeId, s.total, s.missing])).toEqual([[2, 1220, []], [3, 800, [1]], [1, 1100, [2]]]);
    expect(plan.single[0].lines).toEqual([
      { item: 0, storeId: 2, listingId: 12, qty: 2, price: 280, cost: 520, promo: 'special', since: '2026-08-01' },
      { item: 1, storeId: 2, listingId: 22, qty: 1, price: 450, cost: 450, promo: null, since: '2026-08-01' },
      { item: 2, storeId: 2, listingId: 32, qty: 3, price: 100, cost: 250, promo: 'multibuy', since: '2026-08-01' },
    ]);
    // (2, 3): A 520 at 2, B 450 at 2, C 180 at 3 = 1150 < 1220; saving over store 2 on its three items: 250 − 180 = 70.
    // (3, 1): A 600 at 1, B 500 at 1, C 180 at 3 = 1280, nothing missing (each alone misses one); saving over store 3 on A and C: 620 − 600 = 20.
    // (2, 1): A 520, B 450, C 250 = 1220, all at 2: no better than store 2 alone, not listed.
    expect(plan.split.map((s) => [s.storeIds, s.total, s.saving, s.missing])).toEqual([
      [[2, 3], 1150, 70, []],
      [[3, 1], 1280, 20, []],
    ]);
    expect(plan.split[0].lines.map((l) => [l.item, l.storeId, l.cost])).toEqual([[0, 2, 520], [1, 2, 450], [2, 3, 180]]);
  });

  it('counts club prices for a member', () => {
    const plan = planShoppingList({ qty, stores, offers, member: true, limit: 5 });
    // store 1: A 600 + B 400 = 1000.
    expect(plan.single.map((s) => [s.storeId, s.total])).toEqual([[2, 1220], [3, 800], [1, 1000]]);
    // (2, 1): A 520 at 2, B 400 at 1 (member), C 250 at 2 = 1170, saving 50 over store 2. (3, 1): 600 + 400 + 180 = 1180.
    expect(plan.split.map((s) => [s.storeIds, s.total, s.saving])).toEqual([[[2, 3], 1150, 70], [[2, 1], 1170, 50], [[3, 1], 1180, 20]]);
    expect(plan.split[1].lines.find((l) => l.item === 1)).toMatchObject({ storeId: 1, cost: 400, promo: 'member' });
  });

  it('returns at most limit of each', () => {
    const plan = planShoppingList({ qty, stores, offers, member: true, limit: 1 });
    expect(plan.single.map((s) => s.storeId)).toEqual([2]);
    expect(plan.split.map((s) => s.storeIds)).toEqual([[2, 3]]);
    expect(plan.storesConsidered).toBe(3);
  });

  it('buys a product as its cheapest linked listing at a store (cost with the quantity, then lower id)', () => {
    const plan = planShoppingList({
      qty: [4],
      stores: [{ id: 1, distanceKm: null }],
      offers: [
        offer(1, 0, 40, 300), // 1200
        offer(1, 0, 41, 320, { promo_kind: 3, multibuy_qty: 2, multibuy_price: 500 }), // 2 × 500 = 1000
        offer(1, 0, 39, 250), // 1000, lower id: wins the tie
      ],
      member: false,
      limit: 5,
    });
    expect(plan.single[0].lines).toMatchObject([{ listingId: 39, cost: 1000, promo: null }]);
    expect(plan.split).toEqual([]);
  });

  it('breaks ties by distance, then store id; ignores offers at stores not given', () => {
    const qty1 = [1];
    const same = [offer(5, 0, 1, 100), offer(6, 0, 2, 100), offer(7, 0, 3, 100), offer(8, 0, 4, 50)];
    const near = planShoppingList({
      qty: qty1, stores: [{ id: 5, distanceKm: 3 }, { id: 6, distanceKm: 1 }, { id: 7, distanceKm: 1 }], offers: same, member: false, limit: 5,
    });
    expect(near.single.map((s) => s.storeId)).toEqual([6, 7, 5]);
    const anywhere = planShoppingList({
      qty: qty1, stores: [7, 6, 5].map((id) => ({ id, distanceKm: null })), offers: same, member: false, limit: 5,
    });
    expect(anywhere.single.map((s) => s.storeId)).toEqual([5, 6, 7]);
    expect(anywhere.storesConsidered).toBe(3);
    // Equal prices: no split beats its stores.
    expect(anywhere.split).toEqual([]);
  });

  it('answers nothing when no store prices any item', () => {
    expect(planShoppingList({ qty: [1, 2], stores: [{ id: 1, distanceKm: null }], offers: [], member: false, limit: 5 })).toEqual({
      storesConsidered: 0, single: [], split: [],
    });
  });
});

describe('planShoppingList split ties', () => {
  it('prefers, at equal totals, the split whose farther store is nearer, then the smaller sum of distances', () => {
    // Item 0 only at store 9 (4 km); item 1 at stores 1 (2 km), 2 (1 km) and 3 (5 km) for the same price.
    const offers = [offer(9, 0, 90, 100), offer(1, 1, 10, 200), offer(2, 1, 20, 200), offer(3, 1, 30, 200)];
    const stores = [{ id: 1, distanceKm: 2 }, { id: 2, distanceKm: 1 }, { id: 3, distanceKm: 5 }, { id: 9, distanceKm: 4 }];
    const plan = planShoppingList({ qty: [1, 1], stores, offers, member: false, limit: 5 });
    // Every split costs 300 with nothing missing. Farther store: 4 km for (2, 9) and (1, 9), 5 km for (3, 9);
    // sums 5 km and 6 km. Store 9 alone (one missing, 100) ranks above the others (one missing, 200), so it comes first.
    expect(plan.split.map((s) => s.storeIds)).toEqual([[9, 2], [9, 1], [9, 3]]);
  });
});
