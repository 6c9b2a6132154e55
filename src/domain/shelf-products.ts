/**
 * What a product on a shelf costs (issue 17; api-spec ShelfProduct `best`, `per_unit`, browse_shelf
 * sorts and the `deals` filter). Pure; no I/O: the derived-views worker (workers/views/shelves.ts)
 * applies it to each product's current offers and stores the result in `shelf_product`.
 *
 * - **Admitted price** of one offer (a listing's current national span): the cheapest price a
 *   shopper can pay for one unit there, counting specials, club prices and multibuy rates
 *   (src/domain/deals.ts `dealOf`: special/member → promo price, multibuy → set price ÷ set size;
 *   clearance and promotions that save nothing do not count), else the shelf price. Rounded to a
 *   hundredth of a cent (a multibuy rate may be fractional).
 * - **A chain's offer**: of the chain's current listings of the product, the one with the lowest
 *   admitted price (ties: the lower listing id).
 * - **Best**: the chain offer with the lowest admitted price (ties: the lower retailer id). Its
 *   per-unit price is the admitted price per the leaf shelf's compare unit (src/domain/unit-price.ts
 *   `unitPrice` on that listing's measure; null when the listing is not measured in the unit).
 * - **Discount** of a chain offer: (shelf − admitted) ÷ shelf, 0 when the admitted price is the shelf
 *   price; the product's is the biggest over its chains (sort `deal`; `deals` keeps products with
 *   one above 0, i.e. an offer below its shelf price).
 */
import { dealOf, type DealPromoKind, type PromoFields } from './deals.js';
import { unitPrice, type Measure, type ShelfCompareUnit } from './unit-price.js';

/** Rounds to a hundredth of a cent. */
const hundredths = (x: number) => Math.round(x * 100) / 100;

/** One current offer of a product: a listing's current national price and its measure. */
export interface CurrentOffer extends PromoFields {
  listingId: number;
  retailerId: number;
  /** The listing's measure (src/domain/unit-price.ts measureOfListing). */
  measure: Measure;
}

/** A chain's offer of a product. */
export interface ChainOffer {
  retailerId: number;
  listingId: number;
  /** Shelf price, integer cents. */
  shelfPrice: number;
  /** Admitted price (module comment), cents to a hundredth; ≤ shelfPrice. */
  best: number;
  /** Promo kind the admitted price comes from (1 special, 2 club, 3 multibuy); null for the shelf price. */
  promoKind: DealPromoKind | null;
  /** `best` per the compare unit, cents to a hundredth; null when not measured in it (or no unit). */
  perUnit: number | null;
  /** (shelfPrice − best) ÷ shelfPrice, in [0, 1). */
  discount: number;
}

/**
 * The admitted price of one offer (module comment) and the promo kind it comes from.
 * @returns null when the shelf price is not positive (no price).
 */
export function admittedPrice(p: PromoFields): { price: number; promoKind: DealPromoKind | null } | null {
  if (!(p.price > 0)) return null;
  const deal = dealOf(p);
  if (!deal) return { price: p.price, promoKind: null };
  const price = hundredths(deal.unitPrice);
  if (!(price > 0) || price >= p.price) return { price: p.price, promoKind: null };
  return { price, promoKind: p.promo_kind as DealPromoKind };
}

/**
 * Each chain's offer of one product (module comment), by retailer id ascending; offers without a
 * positive shelf price are left out.
 * @param unit the leaf shelf's compare unit (null: every perUnit null).
 */
export function chainOffers(offers: readonly CurrentOffer[], unit: ShelfCompareUnit | null): ChainOffer[] {
  const byChain = new Map<number, ChainOffer>();
  for (const o of offers) {
    const a = admittedPrice(o);
    if (!a) continue;
    const prev = byChain.get(o.retailerId);
    if (prev && (prev.best < a.price || (prev.best === a.price && prev.listingId < o.listingId))) continue;
    byChain.set(o.retailerId, {
      retailerId: o.retailerId,
      listingId: o.listingId,
      shelfPrice: o.price,
      best: a.price,
      promoKind: a.promoKind,
      perUnit: unit ? unitPrice(a.price, o.measure, unit) : null,
      discount: (o.price - a.price) / o.price,
    });
  }
  return [...byChain.values()].sort((x, y) => x.retailerId - y.retailerId);
}

/** The product-level figures of its chain offers. */
export interface ShelfFigures {
  /** Index (0-based) of the best chain offer in the array given. */
  bestAt: number;
  /** Its admitted price, cents. */
  price: number;
  /** Its per-unit price, or null. */
  perUnit: number | null;
  /** The biggest discount over the chains (0 when none). */
  discount: number;
}

/**
 * Best offer, its per-unit price and the biggest discount (module comment) of chain offers as
 * {@link chainOffers} returns them. @returns null for no offers.
 */
export function shelfFigures(offers: readonly ChainOffer[]): ShelfFigures | null {
  if (offers.length === 0) return null;
  let bestAt = 0;
  offers.forEach((o, i) => {
    const b = offers[bestAt];
    if (o.best < b.best || (o.best === b.best && o.retailerId < b.retailerId)) bestAt = i;
  });
  return {
    bestAt,
    price: offers[bestAt].best,
    perUnit: offers[bestAt].perUnit,
    discount: Math.max(...offers.map((o) => o.discount)),
  };
}
