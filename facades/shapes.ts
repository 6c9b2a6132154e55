/**
 * Pure shaping helpers shared by operations: GraphQL results (already aliased to the contract's
 * field names by the persisted documents) → contract JSON. Each takes the generated type of the
 * fragment it shapes (schema/fragments.graphql → facades/generated/operations.ts), so reading a
 * field the fragment does not select fails to compile. Money in integer NZ cents.
 */
import type {
  ListingCardFieldsFragment, PriceFieldsFragment, ProductGroupFieldsFragment, StoreFieldsFragment, StoreListingFieldsFragment,
} from './generated/operations.js';
import type { DailyStats, ListingCard, ProductGroup, Store, StoreListing } from './resources.js';

/** Price fields of a card or offer: the current national price, all null when never priced. */
export interface PriceFields {
  price: number | null;
  promo_price: number | null;
  promo_kind: number | null;
  multibuy_qty: number | null;
  multibuy_price: number | null;
}

/** Flattens a CurrentPrice into card price fields (api-spec ListingCard). */
export function priceFields(current: PriceFieldsFragment | null): PriceFields {
  return {
    price: current?.price ?? null,
    promo_price: current?.promo_price ?? null,
    promo_kind: current?.promo_kind ?? null,
    multibuy_qty: current?.multibuy_qty ?? null,
    multibuy_price: current?.multibuy_price ?? null,
  };
}

/** A listing card in the contract's field order. */
export function listingCard(d: ListingCardFieldsFragment): ListingCard {
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

/** A product group in the contract's field order, its offers as listing cards. */
export function productGroup(g: ProductGroupFieldsFragment): ProductGroup {
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

/** api-spec Store in the contract's field order. */
export function storeResource(s: StoreFieldsFragment): Store {
  return {
    id: s.id,
    retailer: s.retailer,
    name: s.name,
    region: s.region,
    lat: s.lat,
    lng: s.lng,
    distance_km: s.distance_km,
    level: s.level,
    n_items: s.n_items,
    club: s.club,
    sale: s.sale,
    multibuy: s.multibuy,
    day: s.day,
    town: s.town,
    area: s.area,
    urban: s.urban,
  };
}

/** api-spec StoreListing in the contract's field order. */
export function storeListing(l: StoreListingFieldsFragment): StoreListing {
  return {
    id: l.id,
    name: l.name,
    brand: l.brand,
    size_text: l.size_text,
    image: l.image,
    price: l.price,
    promo_price: l.promo_price,
    promo_kind: l.promo_kind,
    median: l.median,
    ratio: l.ratio,
  };
}

/**
 * `value`, asserting it is present. The graph answers an unknown id with a NOT_FOUND error (a 404
 * before any shaping), so a null root field without an error is a bug (the executor's 500).
 * @throws Error naming `what` when `value` is null.
 */
export function present<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`${what} is null without a GraphQL error`);
  return value;
}
