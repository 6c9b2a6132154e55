/**
 * Deals (issue 16 item 5; api-spec Deals, list_deals, PromoKind): which current promotions are deals,
 * of which kind, and how much they save. Pure; the derived-views worker (workers/views/deals.ts)
 * applies it to each chain's current national prices and stores the result in the `deal` table.
 *
 * Kinds (api-spec PromoKind → list_deals `kind`): 1 special (everyone) → `special`; 2 member/club
 * price (loyalty card) → `member`; 3 multibuy (`multibuy_qty` units for `multibuy_price` in total)
 * → `multibuy`. 4 clearance is not a deal kind (store-local markdowns of short-dated stock), nor is
 * a promotion of unknown kind.
 *
 * Saving, in cents per unit (per single item, or per kg for a weighable listing, whose prices are
 * per kg), against the shelf price `price`:
 * - special and member: `price − promo_price`;
 * - multibuy: `price − multibuy_price ÷ multibuy_qty` (the unit price when the set is taken; may be
 *   fractional).
 * `saving_pct` = saving ÷ price (a share, 0 to 1). No deal when the saving is not positive, when
 * the promotional unit price is not positive (a free item is no price), when the shelf price is not
 * positive, or when the fields the kind needs are missing. Biggest saving first means highest
 * `saving_pct` first ({@link compareDeals}).
 */
import { PROMO_KIND, type PromoKind } from './spans.js';

/** list_deals `kind` values, in the contract's order. */
export const DEAL_KINDS = ['special', 'member', 'multibuy'] as const;

/** A deal kind (api-spec Deals `kind`). */
export type DealKind = (typeof DEAL_KINDS)[number];

/** The promotion fields of a price (a national span), integer cents. */
export interface PromoFields {
  /** Shelf price. */
  price: number;
  /** Single-unit promotional price. */
  promo_price: number | null;
  promo_kind: PromoKind | null;
  /** Units required for `multibuy_price` (multibuy only). */
  multibuy_qty: number | null;
  /** Total for `multibuy_qty` units (multibuy only). */
  multibuy_price: number | null;
}

/** A promotion that is a deal. */
export interface Deal {
  kind: DealKind;
  /** What one unit costs on the deal, cents (multibuy: the total over the quantity). */
  unitPrice: number;
  /** Shelf price − unitPrice, cents per unit, > 0. */
  saving: number;
  /** saving ÷ shelf price, in (0, 1). */
  savingPct: number;
}

/** The PromoKinds that can be deals (special, member, multibuy), in {@link DEAL_KINDS} order; clearance is none. */
export const DEAL_PROMO_KINDS = [PROMO_KIND.special, PROMO_KIND.member, PROMO_KIND.multibuy] as const;

/** A PromoKind that can be a deal (one of {@link DEAL_PROMO_KINDS}). */
export type DealPromoKind = (typeof DEAL_PROMO_KINDS)[number];

/** The deal kind of a PromoKind: 1 special, 2 member, 3 multibuy; null for 4 (clearance) and null. */
export function dealKind(promoKind: PromoKind | number | null): DealKind | null {
  const at = DEAL_PROMO_KINDS.indexOf(promoKind as DealPromoKind);
  return at < 0 ? null : DEAL_KINDS[at];
}

/**
 * What one unit costs on a multibuy, cents: the set's total over its size (`multibuy_price ÷
 * multibuy_qty`, may be fractional); null when either is missing or the size is not positive. The
 * one TypeScript home of the multibuy unit rate; its SQL home is `multibuyUnitPriceSql`
 * (src/services/span-sql.ts), and test/integration/one-home-rules.test.ts checks they agree.
 */
export function multibuyUnitPrice(p: { multibuy_qty: number | null; multibuy_price: number | null }): number | null {
  if (p.multibuy_qty == null || p.multibuy_price == null || !(p.multibuy_qty > 0)) return null;
  return p.multibuy_price / p.multibuy_qty;
}

/** The deal of a price (module comment), or null when it is none. */
export function dealOf(p: PromoFields): Deal | null {
  const kind = dealKind(p.promo_kind);
  if (kind == null || !(p.price > 0)) return null;
  let unitPrice: number;
  if (kind === 'multibuy') {
    const rate = multibuyUnitPrice(p);
    if (rate === null) return null;
    unitPrice = rate;
  } else {
    if (p.promo_price == null) return null;
    unitPrice = p.promo_price;
  }
  if (!(unitPrice > 0) || !Number.isFinite(unitPrice)) return null;
  const saving = p.price - unitPrice;
  if (!(saving > 0)) return null;
  return { kind, unitPrice, saving, savingPct: saving / p.price };
}

/**
 * Order of a deal feed, biggest saving first: highest `savingPct`, then highest `saving` (cents),
 * then lowest listing id (the order list_deals reads the deal table in, src/services/deals.ts).
 */
export function compareDeals(
  a: { savingPct: number; saving: number; listingId: number },
  b: { savingPct: number; saving: number; listingId: number },
): number {
  return b.savingPct - a.savingPct || b.saving - a.saving || a.listingId - b.listingId;
}
