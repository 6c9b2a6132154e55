/**
 * Pure shaping helpers shared by operations: GraphQL result fragments (already aliased to the
 * contract's field names by the persisted documents) → contract JSON. Money in integer NZ cents.
 */
import type { DailyStats, ListingCard, ProductGroup } from './resources.js';

/** The `current { ... }` selection of the documents (a CurrentPrice, aliased). */
export interface CurrentData {
  day: string;
  price: number;
  promo_price: number | null;
  promo_kind: number | null;
  multibuy_qty: number | null;
  multibuy_price: number | null;
}

/** Price fields of a card or offer: the current national price, all null when never priced. */
export interface PriceFields {
  price: number | null;
  promo_price: number | null;
  promo_kind: number | null;
  multibuy_qty: number | null;
  multibuy_price: number | null;
}

/** Flattens a CurrentPrice into card price fields (api-spec ListingCard). */
export function priceFields(current: CurrentData | null): PriceFields {
  return {
    price: current?.price ?? null,
    promo_price: current?.promo_price ?? null,
    promo_kind: current?.promo_kind ?? null,
    multibuy_qty: current?.multibuy_qty ?? null,
    multibuy_price: current?.multibuy_price ?? null,
  };
}

/** The ListingCard selection of the documents. */
export interface ListingCardData {
  id: number;
  retailer: string;
  name: string;
  brand: string | null;
  size_text: string | null;
  current: CurrentData | null;
  image: string | null;
  available: boolean;
  product_id: number | null;
}

/** A listing card in the contract's field order. */
export function listingCard(d: ListingCardData): ListingCard {
  return {
    id: d.id,
    retailer: d.retailer,
    name: d.name,
    brand: d.brand,
    size_text: d.size_text,
    ...priceFields(d.current),
    image: d.image,
    available: d.available,
    product_id: d.product_id,
  };
}

/** DailyStats, or an empty object when there are no days (api-spec: "an empty object when none"). */
export function statsOrEmpty(s: DailyStats): DailyStats | Record<string, never> {
  return s.day.length === 0 ? {} : s;
}

/** The ProductGroup selection of the documents. */
export interface ProductGroupData {
  product_id: number | null;
  name: string;
  brand: string | null;
  size_text: string | null;
  image: string | null;
  generic_id: number | null;
  generic_label: string | null;
  offers: ListingCardData[];
}

/** A product group in the contract's field order, its offers as listing cards. */
export function productGroup(g: ProductGroupData): ProductGroup {
  return {
    product_id: g.product_id,
    name: g.name,
    brand: g.brand,
    size_text: g.size_text,
    image: g.image,
    generic_id: g.generic_id,
    generic_label: g.generic_label,
    offers: g.offers.map(listingCard),
  };
}
