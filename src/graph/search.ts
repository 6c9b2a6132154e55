/**
 * Search types and root fields (api-spec "Search"): ProductGroup (one product, or one unlinked
 * listing, with every chain's offer cheapest first), Suggestion (type-ahead) and the root fields
 * `searchProducts`, `suggest` and `gtin`. Resolvers only call services: ranking from
 * src/services/search.ts, groups and suggestion prices from src/services/search-results.ts (rules
 * in src/domain/search-results.ts).
 */
import { builder } from '../builder.js';
import { MAX_QUERY_LENGTH, PRODUCT_LIMIT, SUGGEST_LIMIT } from '../domain/limits.js';
import type { PricedSuggestion, ProductGroup } from '../domain/search-results.js';
import type { SuggestionHit } from '../search/backend.js';
import { ListingRef, searchResultDeps } from './listing.js';
import { searchProductGroups, suggestions } from '../services/search.js';
import { pricedSuggestions, productGroupByGtin, productGroups, type OfferRow } from '../services/search-results.js';

const ProductGroupRef = builder.objectRef<ProductGroup<OfferRow>>('ProductGroup').implement({
  description: 'One product with its offers at every chain, cheapest first; a listing not yet linked is its own group.',
  fields: (t) => ({
    productId: t.exposeInt('productId', { nullable: true, description: 'Null for a listing not yet linked.' }),
    name: t.exposeString('name'),
    brand: t.exposeString('brand', { nullable: true }),
    sizeText: t.exposeString('sizeText', { nullable: true }),
    image: t.exposeString('image', { nullable: true }),
    genericId: t.exposeInt('genericId', { nullable: true, description: 'The generic (kind, variant and size) it belongs to.' }),
    genericLabel: t.exposeString('genericLabel', { nullable: true, description: 'Label of the generic, e.g. "Canned tomatoes, chopped, 400 g".' }),
    offers: t.field({ type: [ListingRef], description: 'Every chain\'s listing, available and cheapest first.', resolve: (g) => g.offers }),
  }),
});

const SuggestionKindEnum = builder.enumType('SuggestionKind', { values: ['category', 'brand', 'product', 'listing'] as const });

const SuggestionRef = builder.objectRef<PricedSuggestion<SuggestionHit>>('Suggestion').implement({
  description: 'A type-ahead suggestion: a category, brand, product or listing.',
  fields: (t) => ({
    kind: t.field({ type: SuggestionKindEnum, resolve: (s) => s.kind }),
    id: t.exposeInt('id', { nullable: true, description: 'Product or listing id; null for categories and brands.' }),
    label: t.exposeString('label'),
    detail: t.exposeString('detail', { nullable: true }),
    href: t.exposeString('href', { description: 'Site path to open.' }),
    price: t.exposeInt('price', { nullable: true, description: 'Current national shelf price, cents.' }),
    promoPrice: t.exposeInt('promoPrice', { nullable: true }),
    promoKind: t.exposeInt('promoKind', { nullable: true }),
    image: t.exposeString('image', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  searchProducts: t.field({
    type: [ProductGroupRef],
    description: 'Products matching q (name, brand, category or barcode digits; typo- and accent-tolerant), one group per product, best first; without q, recently seen.',
    args: {
      q: t.arg.string({ description: `At most ${MAX_QUERY_LENGTH} characters.` }),
      retailer: t.arg.string({ description: "Retailer slug: rank only that chain's catalogue (offers still show every chain); unknown gives BAD_REQUEST." }),
      limit: t.arg.int({ defaultValue: PRODUCT_LIMIT.default, description: `${PRODUCT_LIMIT.min} to ${PRODUCT_LIMIT.max}.` }),
    },
    resolve: async (_root, args, ctx) => productGroups(searchResultDeps(ctx), await searchProductGroups(ctx, args)),
  }),
  suggest: t.field({
    type: [SuggestionRef],
    description: 'Type-ahead: categories, brands, products and listings matching a prefix, in display order.',
    args: {
      q: t.arg.string({ required: true, description: `1 to ${MAX_QUERY_LENGTH} characters.` }),
      limit: t.arg.int({ defaultValue: SUGGEST_LIMIT.default, description: `${SUGGEST_LIMIT.min} to ${SUGGEST_LIMIT.max}.` }),
    },
    resolve: async (_root, args, ctx) => pricedSuggestions(searchResultDeps(ctx), await suggestions(ctx, args)),
  }),
  gtin: t.field({
    type: ProductGroupRef,
    nullable: true,
    description: 'Exact barcode lookup (up to 14 digits; leading zeros and non-digits ignored); NOT_FOUND when unknown.',
    args: { gtin: t.arg.string({ required: true }) },
    resolve: (_root, { gtin }, ctx) => productGroupByGtin(searchResultDeps(ctx), gtin),
  }),
}));
