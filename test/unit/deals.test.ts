/**
 * Deals (src/domain/deals.ts): kinds and savings with hand-computed answers. Prices are made up.
 */
import { describe, expect, it } from 'vitest';
import { DEAL_KINDS, compareDeals, dealKind, dealOf, type PromoFields } from '../../src/domain/deals.js';

const p = (price: number, extra: Partial<PromoFields> = {}): PromoFields => ({
  price, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null, ...extra,
});

describe('dealKind', () => {
  it('maps PromoKind 1, 2, 3 to special, member, multibuy; clearance and unknown are none', () => {
    expect([1, 2, 3, 4, null].map(dealKind)).toEqual(['special', 'member', 'multibuy', null, null]);
    expect(DEAL_KINDS).toEqual(['special', 'member', 'multibuy']);
  });
});

describe('dealOf', () => {
  it('special: shelf price − promo price', () => {
    expect(dealOf(p(500, { promo_price: 400, promo_kind: 1 }))).toEqual({ kind: 'special', unitPrice: 400, saving: 100, savingPct: 0.2 });
  });

  it('member: shelf price − club price', () => {
    expect(dealOf(p(300, { promo_price: 270, promo_kind: 2 }))).toEqual({ kind: 'member', unitPrice: 270, saving: 30, savingPct: 0.1 });
  });

  it('multibuy: per unit, shelf price − total ÷ quantity (not the promo price)', () => {
    // 2 for $5.00 on a $3.00 shelf price: 250 a unit, 50 saved, 1/6
    expect(dealOf(p(300, { promo_price: 250, promo_kind: 3, multibuy_qty: 2, multibuy_price: 500 }))).toEqual({
      kind: 'multibuy', unitPrice: 250, saving: 50, savingPct: 50 / 300,
    });
    // 3 for $10.00 on $3.50: 333.33… a unit, 16.67 saved, 0.047619…; promo_price (rounded) is not used
    const d = dealOf(p(350, { promo_price: 333, promo_kind: 3, multibuy_qty: 3, multibuy_price: 1000 }))!;
    expect(d.unitPrice).toBeCloseTo(1000 / 3, 12);
    expect(d.saving).toBeCloseTo(350 - 1000 / 3, 12);
    expect(d.savingPct).toBeCloseTo((350 - 1000 / 3) / 350, 12);
  });

  it('no deal when the saving is not positive, the kind is clearance or unknown, or fields are missing', () => {
    expect(dealOf(p(500, { promo_price: 500, promo_kind: 1 }))).toBeNull();
    expect(dealOf(p(500, { promo_price: 550, promo_kind: 2 }))).toBeNull();
    expect(dealOf(p(300, { promo_kind: 3, multibuy_qty: 2, multibuy_price: 600 }))).toBeNull(); // 2 for the price of 2
    expect(dealOf(p(300, { promo_kind: 3, multibuy_qty: 2, multibuy_price: 700 }))).toBeNull();
    expect(dealOf(p(500, { promo_price: 100, promo_kind: 4 }))).toBeNull();
    expect(dealOf(p(500, { promo_price: 100 }))).toBeNull();
    expect(dealOf(p(500, { promo_kind: 1 }))).toBeNull();
    expect(dealOf(p(500, { promo_price: 250, promo_kind: 3 }))).toBeNull(); // multibuy without its quantity and total
    expect(dealOf(p(500, { promo_price: 0, promo_kind: 1 }))).toBeNull(); // free is no price
    expect(dealOf(p(0, { promo_price: 0, promo_kind: 1 }))).toBeNull();
  });

  it('saving_pct is strictly between 0 and 1', () => {
    const d = dealOf(p(100, { promo_price: 1, promo_kind: 1 }))!;
    expect(d.savingPct).toBe(0.99);
  });
});

describe('compareDeals', () => {
  it('orders by saving_pct, biggest first, then by saving, then by listing id', () => {
    const deals = [
      { listingId: 3, savingPct: 0.1, saving: 10 }, { listingId: 1, savingPct: 0.2, saving: 5 }, { listingId: 2, savingPct: 0.1, saving: 10 },
      { listingId: 5, savingPct: 0.1, saving: 30 }, { listingId: 4, savingPct: 0.5, saving: 1 },
    ];
    expect([...deals].sort(compareDeals).map((d) => d.listingId)).toEqual([4, 1, 5, 2, 3]);
  });
});
