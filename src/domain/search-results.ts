/**
 * Pure rules that turn ranked search ids into what search shows (api-spec "Search"): product
 * groups with their offers, and suggestion prices. No I/O: src/services/search-results.ts reads the
 * rows and the latest national spans, then calls these.
 */
import { orderOffers, type LatestSpan } from './listings.js';

/** Ranked ids of one search_products result: a linked product, or an unlinked listing alone. */
export interface GroupIds {
  /** The product, or null for a listing not yet linked. */
  productId: number | null;
  /** The listings of the group that matched, best first (one for an unlinked listing). */
  listingIds: number[];
}

/**
 * The group a listing belongs to in search results: `p<product id>` for a linked listing (all
 * listings of a product form one group), `l<listing id>` for a listing not yet linked (its own
 * group). The Elasticsearch documents carry it as `group_key` (src/search/elasticsearch/mapping.ts).
 */
export function groupKey(id: number, productId: number | null): string {
  return productId === null ? `l${id}` : `p${productId}`;
}

/**
 * Groups ranked listing ids into search_products results ({@link groupKey}): each group's
 * `listingIds` keep their rank order, groups come in the order of their best listing, at most
 * `limit` of them. A listing missing from `productOf` counts as unlinked.
 */
export function groupRankedListings(
  rankedIds: readonly number[],
  productOf: ReadonlyMap<number, number | null>,
  limit: number,
): GroupIds[] {
  const groups = new Map<string, GroupIds>();
  for (const id of rankedIds) {
    const productId = productOf.get(id) ?? null;
    const key = groupKey(id, productId);
    const group = groups.get(key);
    if (group) group.listingIds.push(id);
    else groups.set(key, { productId, listingIds: [id] });
  }
  return [...groups.values()].slice(0, limit);
}

/** A generic as a group shows it. */
export interface GroupGeneric {
  id: number;
  label: string;
}

/** The listing fields a group needs (a listing row carries more; they are kept on the offers). */
export interface GroupListing {
  id: number;
  productId: number | null;
  name: string;
  brand: string | null;
  sizeText: string | null;
  image: string | null;
  /** The retailer's availability flag (see src/domain/listings.ts isAvailable). */
  available: boolean;
  generic: GroupGeneric | null;
}

/** The product fields a group needs. */
export interface GroupProduct {
  id: number;
  name: string;
  brand: string | null;
  sizeText: string | null;
  image: string | null;
  generic: GroupGeneric | null;
}

/** One search_products result as shown: display fields and offers, available and cheapest first. */
export interface ProductGroup<L extends GroupListing = GroupListing> {
  productId: number | null;
  name: string;
  brand: string | null;
  sizeText: string | null;
  image: string | null;
  genericId: number | null;
  genericLabel: string | null;
  offers: L[];
}

/**
 * Builds the shown groups from ranked group ids, in their order:
 * - a linked group's offers are its matched listings plus every listing linked to its product, an
 *   unlinked group's its listing(s); offers ordered by {@link orderOffers} (available first, then
 *   cheapest current shelf price, then id);
 * - name, brand and size are the product's (an unlinked group's: its best listing's, else its first
 *   offer's); the image the product's, else the first offer image; the generic the product's (an
 *   unlinked group's: its best listing's);
 * - a group none of whose listings is in `listings` is dropped.
 * @param listings every listing row the groups may show (matched ones and those linked to the products).
 * @param latest each listing's latest national span (absent or null when never priced).
 */
export function buildProductGroups<L extends GroupListing>(
  groups: readonly GroupIds[],
  listings: readonly L[],
  products: readonly GroupProduct[],
  latest: ReadonlyMap<number, LatestSpan | null | undefined>,
): ProductGroup<L>[] {
  const byId = new Map(listings.map((r) => [r.id, r]));
  const productById = new Map(products.map((p) => [p.id, p]));
  return groups.flatMap((g) => {
    const members = new Map<number, L>();
    for (const id of g.listingIds) {
      const row = byId.get(id);
      if (row) members.set(id, row);
    }
    if (g.productId !== null) for (const r of listings) if (r.productId === g.productId) members.set(r.id, r);
    const offers = orderOffers([...members.values()], [...members.values()].map((r) => latest.get(r.id)));
    const lead = byId.get(g.listingIds[0]) ?? offers[0];
    if (!lead) return [];
    const product = g.productId === null ? undefined : productById.get(g.productId);
    // A product's generic; an unlinked listing's own.
    const generic = product ? product.generic : lead.generic;
    return [
      {
        productId: g.productId,
        name: product?.name ?? lead.name,
        brand: product ? product.brand : lead.brand,
        sizeText: product ? product.sizeText : lead.sizeText,
        image: product?.image ?? offers.find((o) => o.image)?.image ?? null,
        genericId: generic?.id ?? null,
        genericLabel: generic?.label ?? null,
        offers,
      },
    ];
  });
}

/** The part of a suggestion hit pricing needs (src/search/backend.ts SuggestionHit). */
export interface SuggestionTarget {
  /** The suggestion's kind (category, brand, product or listing); only products and listings are priced. */
  kind: string;
  /** Product or listing id; null for categories and brands. */
  id: number | null;
}

/** A listing a suggestion may be priced from. */
export interface SuggestionListing {
  id: number;
  productId: number | null;
  image: string | null;
  available: boolean;
}

/** A latest national span with the promotion fields a suggestion shows. */
export interface PricedSpan extends LatestSpan {
  promo_price: number | null;
  promo_kind: number | null;
}

/** A suggestion with the price and image of its listing (or its product's first offer). */
export type PricedSuggestion<H> = H & {
  price: number | null;
  promoPrice: number | null;
  promoKind: number | null;
  image: string | null;
};

/** The ids of the listings and products among `hits` (the rows {@link priceSuggestionHits} needs). */
export function suggestionTargets(hits: readonly SuggestionTarget[]): { listingIds: number[]; productIds: number[] } {
  const idsOf = (kind: string) => hits.flatMap((h) => (h.kind === kind && h.id !== null ? [h.id] : []));
  return { listingIds: idsOf('listing'), productIds: idsOf('product') };
}

/**
 * Prices suggestions as a ListingCard would: a listing suggestion from its own latest national
 * span, a product suggestion from its first offer ({@link orderOffers}: available first, then
 * cheapest); the image is that listing's. Categories, brands and unknown ids get nulls.
 * @param listings the suggested listings and every listing linked to a suggested product.
 */
export function priceSuggestionHits<H extends SuggestionTarget>(
  hits: readonly H[],
  listings: readonly SuggestionListing[],
  latest: ReadonlyMap<number, PricedSpan | null | undefined>,
): PricedSuggestion<H>[] {
  const pick = (h: H) => {
    const members = listings.filter((r) => (h.kind === 'listing' ? r.id === h.id : r.productId === h.id));
    return orderOffers(members, members.map((r) => latest.get(r.id)))[0];
  };
  return hits.map((h) => {
    const row = h.id !== null && (h.kind === 'listing' || h.kind === 'product') ? pick(h) : undefined;
    const span = row ? latest.get(row.id) : null;
    return {
      ...h,
      price: span?.price ?? null,
      promoPrice: span?.promo_price ?? null,
      promoKind: span?.promo_kind ?? null,
      image: row?.image ?? null,
    };
  });
}
