/** The pure rules of a shelf product (src/domain/shelf-products.ts): admitted price, chain offers, best and discount. */
import { describe, expect, it } from 'vitest';
import { admittedPrice, chainOffers, shelfFigures, type CurrentOffer } from '../../src/domain/shelf-products.js';
import { measureOf } from '../../src/domain/unit-price.js';

const none = { promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null };
const offer = (o: Partial<CurrentOffer> & { listingId: number; retailerId: number; price: number }): CurrentOffer => ({
  ...none, measure: measureOf('1L'), ...o,
});

describe('admittedPrice', () => {
  it('counts specials, club prices and multibuy rates; not clearance or promotions saving nothing', () => {
    expect(admittedPrice({ ...none, price: 500 })).toEqual({ price: 500, promoKind: null });
    expect(admittedPrice({ ...none, price: 500, promo_price: 400, promo_kind: 1 })).toEqual({ price: 400, promoKind: 1 });
    expect(admittedPrice({ ...none, price: 500, promo_price: 450, promo_kind: 2 })).toEqual({ price: 450, promoKind: 2 });
    expect(admittedPrice({ ...none, price: 500, promo_kind: 3, multibuy_qty: 3, multibuy_price: 1000 })).toEqual({ price: 333.33, promoKind: 3 });
    expect(admittedPrice({ ...none, price: 500, promo_price: 100, promo_kind: 4 })).toEqual({ price: 500, promoKind: null });
    expect(admittedPrice({ ...none, price: 500, promo_price: 500, promo_kind: 1 })).toEqual({ price: 500, promoKind: null });
    expect(admittedPrice({ ...none, price: 500, promo_kind: 3, multibuy_qty: 2, multibuy_price: 1200 })).toEqual({ price: 500, promoKind: null });
    expect(admittedPrice({ ...none, price: 0 })).toBeNull();
  });
});

describe('chainOffers and shelfFigures', () => {
  it("takes each chain's cheapest listing, per unit in the shelf's unit, the best chain and the biggest discount", () => {
    const chains = chainOffers(
      [
        offer({ listingId: 5, retailerId: 2, price: 600 }),
        offer({ listingId: 3, retailerId: 2, price: 700, promo_price: 550, promo_kind: 1 }),
        offer({ listingId: 9, retailerId: 1, price: 560, measure: measureOf('2L') }),
        offer({ listingId: 7, retailerId: 3, price: 0 }),
      ],
      'l',
    );
    expect(chains).toEqual([
      { retailerId: 1, listingId: 9, shelfPrice: 560, best: 560, promoKind: null, perUnit: 280, discount: 0 },
      { retailerId: 2, listingId: 3, shelfPrice: 700, best: 550, promoKind: 1, perUnit: 550, discount: 150 / 700 },
    ]);
    expect(shelfFigures(chains)).toEqual({ bestAt: 1, price: 550, perUnit: 550, discount: 150 / 700 });
    // Ties: the lower listing id within a chain, the lower retailer id across chains; no unit → perUnit null.
    const tied = chainOffers([offer({ listingId: 8, retailerId: 4, price: 300 }), offer({ listingId: 6, retailerId: 4, price: 300 }), offer({ listingId: 1, retailerId: 5, price: 300 })], null);
    expect(tied.map((c) => [c.retailerId, c.listingId, c.perUnit])).toEqual([[4, 6, null], [5, 1, null]]);
    expect(shelfFigures(tied)!.bestAt).toBe(0);
    expect(shelfFigures([])).toBeNull();
  });
});
