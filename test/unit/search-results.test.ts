import { describe, expect, it } from 'vitest';
import {
  buildProductGroups,
  groupKey,
  groupRankedListings,
  priceSuggestionHits,
  suggestionTargets,
  type GroupListing,
  type GroupProduct,
  type PricedSpan,
} from '../../src/domain/search-results.js';

const listing = (id: number, productId: number | null, extra: Partial<GroupListing> = {}): GroupListing => ({
  id, productId, name: `listing ${id}`, brand: `brand ${id}`, sizeText: `${id} g`, image: null, available: true, generic: null, ...extra,
});
const span = (price: number, open = true, extra: Partial<PricedSpan> = {}): PricedSpan => ({
  to: '2026-08-03', open, current: open, price, promo_price: null, promo_kind: null, ...extra,
});

describe('groupKey and groupRankedListings', () => {
  it('keys a linked listing by its product and an unlinked one by itself', () => {
    expect(groupKey(7, 3)).toBe('p3');
    expect(groupKey(7, null)).toBe('l7');
  });
  it('merges listings of one product in rank order, groups ordered by their best listing, limited', () => {
    const productOf = new Map<number, number | null>([[1, 10], [2, null], [3, 10], [4, 20], [5, null]]);
    expect(groupRankedListings([1, 2, 3, 4, 5], productOf, 3)).toEqual([
      { productId: 10, listingIds: [1, 3] },
      { productId: null, listingIds: [2] },
      { productId: 20, listingIds: [4] },
    ]);
  });
  it('treats a listing missing from the map as unlinked', () => {
    expect(groupRankedListings([9], new Map(), 5)).toEqual([{ productId: null, listingIds: [9] }]);
  });
});

describe('buildProductGroups', () => {
  const product: GroupProduct = { id: 10, name: 'Product ten', brand: 'P', sizeText: '500 g', image: null, generic: { id: 4, label: 'Beef mince, 500 g' } };
  it('shows a linked group with its product fields and every linked listing, available then cheapest first', () => {
    const rows = [listing(1, 10, { image: '/img/1.avif' }), listing(2, 10, { available: false }), listing(3, 10)];
    const latest = new Map([[1, span(500)], [2, span(100)], [3, span(400)]]);
    const [g] = buildProductGroups([{ productId: 10, listingIds: [1] }], rows, [product], latest);
    expect(g).toMatchObject({ productId: 10, name: 'Product ten', brand: 'P', sizeText: '500 g', genericId: 4, genericLabel: 'Beef mince, 500 g' });
    expect(g.offers.map((o) => o.id)).toEqual([3, 1, 2]);
    expect(g.image).toBe('/img/1.avif'); // the product has none: the first offer image
  });
  it('shows an unlinked group from its best listing, with that listing\'s generic', () => {
    const rows = [listing(5, null, { generic: { id: 9, label: 'Bananas' } })];
    const [g] = buildProductGroups([{ productId: null, listingIds: [5] }], rows, [], new Map());
    expect(g).toMatchObject({ productId: null, name: 'listing 5', brand: 'brand 5', sizeText: '5 g', genericId: 9, genericLabel: 'Bananas', image: null });
    expect(g.offers.map((o) => o.id)).toEqual([5]);
  });
  it('drops a group none of whose listings was read, and keeps the groups\' order', () => {
    const rows = [listing(1, null), listing(2, null)];
    const groups = buildProductGroups(
      [{ productId: null, listingIds: [2] }, { productId: null, listingIds: [99] }, { productId: null, listingIds: [1] }],
      rows, [], new Map(),
    );
    expect(groups.map((g) => g.offers[0].id)).toEqual([2, 1]);
  });
});

describe('suggestion prices', () => {
  const hits = [
    { kind: 'category', id: null, label: 'Fruit' },
    { kind: 'listing', id: 1, label: 'one' },
    { kind: 'product', id: 10, label: 'ten' },
    { kind: 'listing', id: 42, label: 'unknown' },
  ];
  it('lists the listing and product ids to read', () => {
    expect(suggestionTargets(hits)).toEqual({ listingIds: [1, 42], productIds: [10] });
  });
  it('prices a listing from its span and a product from its first offer; others get nulls', () => {
    const rows = [
      { id: 1, productId: null, image: '/1.avif', available: true },
      { id: 2, productId: 10, image: '/2.avif', available: true },
      { id: 3, productId: 10, image: '/3.avif', available: true },
      { id: 4, productId: 10, image: '/4.avif', available: true },
    ];
    const latest = new Map([
      [1, span(250, true, { promo_price: 200, promo_kind: 1 })],
      [2, span(300)],
      [3, span(280)],
      [4, span(100, false)], // cheapest but no longer available: not the product's first offer
    ]);
    const priced = priceSuggestionHits(hits, rows, latest);
    expect(priced.map((h) => [h.label, h.price, h.promoPrice, h.promoKind, h.image])).toEqual([
      ['Fruit', null, null, null, null],
      ['one', 250, 200, 1, '/1.avif'],
      ['ten', 280, null, null, '/3.avif'],
      ['unknown', null, null, null, null],
    ]);
  });
});
