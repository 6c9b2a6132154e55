/**
 * Product (the same item linked across chains) with Offer (one linked listing, a variant of the
 * Listing model), Alternative, Attribute and ProductStorePrice; root fields `product` and
 * `productStores`. Products are made by the matching worker, which also gives them their generic
 * (src/domain/kinds.ts); alternatives are the other products of that generic. `listings` is its
 * linked listings as a Relay connection (issue 20), read in one batched statement for every product.
 * A product's facts, alternatives and store prices are batched by the loaders defined here (product
 * rows by id, {@link productRowLoader}, exported for relations that find products outside a Prisma
 * query); its offers' prices by the listing loaders of ./listing.ts.
 */
import { builder } from '../builder.js';
import { attributesOf } from '../domain/kinds.js';
import { CONNECTION_SIZE, MAX_ALTERNATIVES } from '../domain/limits.js';
import { isAvailable, lastSeen, orderOffers } from '../domain/listings.js';
import { NotFound } from '../errors.js';
import type { Product } from '../generated/prisma/client.js';
import { productStorePrices, type ProductStorePrice } from '../services/product-prices.js';
import { productAlternatives, productFacts, type ProductAlternative, type ProductFacts } from '../services/products.js';
import { byId, requestLoader } from './batch.js';
import { checkForward } from './connections.js';
import { activeStoreCountLoader, CurrentPriceRef, currentPriceLoader, storeCountLoader } from './listing.js';
import { dayString } from './scalars.js';

/** Facts derived from a product's linked listings (null for an unknown product), by product id: read by eight Product fields. */
const productFactsLoader = requestLoader<number, ProductFacts | null>(byId((ctx, ids) => productFacts(ctx.pool, ids), () => null));

/** Product rows by id (null when unknown), for relations that find products outside a Prisma query. */
export const productRowLoader = requestLoader<number, Product | null>(
  byId(async (ctx, ids) => new Map((await ctx.prisma.product.findMany({ where: { id: { in: [...ids] } } })).map((p) => [p.id, p])), () => null),
);

const AlternativeRef = builder.objectRef<ProductAlternative>('Alternative').implement({
  description: 'Another product in the same generic.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Product id.' }),
    name: t.exposeString('name'),
    brand: t.exposeString('brand', { nullable: true }),
    sizeText: t.exposeString('size_text', { nullable: true }),
    image: t.exposeString('image', { nullable: true }),
    price: t.exposeInt('price', { nullable: true, description: 'Cheapest current shelf price, cents.' }),
    retailer: t.exposeString('retailer', { nullable: true, description: 'Slug of the chain with that price.' }),
    retailers: t.exposeInt('retailers', { description: 'Chains that sell it.' }),
    ownBrand: t.exposeBoolean('own_brand', { description: 'A house brand.' }),
  }),
});

const GENERIC_SELECT = {
  generic: { select: { id: true, label: true, kind: { select: { slug: true, label: true, compareUnit: true, shelfSlug: true, shelfLabel: true } } } },
} as const;

const AttributeRef = builder.objectRef<{ key: string; label: string; value: string }>('Attribute').implement({
  fields: (t) => ({
    key: t.exposeString('key'),
    label: t.exposeString('label'),
    value: t.exposeString('value'),
  }),
});

const RETAILER_SELECT = { retailer: { select: { slug: true, name: true } } } as const;

/** Offer: one chain's listing on a product page. */
const OfferRef = builder.prismaObject('Listing', {
  variant: 'Offer',
  description: "One chain's listing of a product.",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Listing id.' }),
    listing: t.variant('Listing'),
    retailerSlug: t.string({ select: RETAILER_SELECT, resolve: (l) => l.retailer.slug }),
    retailerName: t.string({ select: RETAILER_SELECT, resolve: (l) => l.retailer.name }),
    name: t.exposeString('name'),
    brand: t.exposeString('brand', { nullable: true }),
    sizeText: t.exposeString('sizeText', { nullable: true }),
    qty: t.exposeFloat('qty', { nullable: true }),
    unit: t.exposeString('unit', { nullable: true }),
    packCount: t.exposeInt('packCount', { nullable: true }),
    weighable: t.exposeBoolean('weighable'),
    categoryPath: t.exposeStringList('categoryPath'),
    image: t.exposeString('image', { nullable: true }),
    retailerUrl: t.exposeString('retailerUrl', { nullable: true }),
    method: t.string({
      description: 'How the listing was linked (gtin, name, llm, manual, ...); "unknown" when unrecorded.',
      resolve: (l) => l.linkMethod ?? 'unknown',
    }),
    confidence: t.float({ description: 'Link confidence, 0 to 1.', resolve: (l) => l.linkConfidence ?? 0 }),
    locked: t.exposeBoolean('linkLocked', { description: 'Pinned by a curator.' }),
    available: t.boolean({
      resolve: async (l, _args, ctx) => isAvailable(l.available, await currentPriceLoader(ctx).load(l.id)),
    }),
    lastSeen: t.field({
      type: 'Day',
      resolve: async (l, _args, ctx) => lastSeen(dayString(l.firstSeen), await currentPriceLoader(ctx).load(l.id)),
    }),
    current: t.field({
      type: CurrentPriceRef,
      nullable: true,
      description: 'Latest national span (price, promotion, day).',
      resolve: (l, _args, ctx) => currentPriceLoader(ctx).load(l.id),
    }),
    stores: t.int({
      description: 'Active stores pricing it at their latest collection (0 for a national-only chain).',
      resolve: (l, _args, ctx) => storeCountLoader(ctx).load(l.id),
    }),
    storesTotal: t.int({ resolve: (l, _args, ctx) => activeStoreCountLoader(ctx).load(l.retailerId) }),
    origin: t.string({ nullable: true, description: 'Country-of-origin statement (not collected yet).', resolve: () => null }),
    packageType: t.string({ nullable: true, description: 'Package type (not collected yet).', resolve: () => null }),
  }),
});

/** The Product object type (exported for fields that return product rows found outside a Prisma query). */
export const ProductRef = builder.prismaObject('Product', {
  description: 'The same item linked across chains.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    brand: t.exposeString('brand', { nullable: true }),
    sizeText: t.exposeString('sizeText', { nullable: true }),
    brandOwner: t.exposeString('brandOwner', { nullable: true, description: 'Retailer slug when the brand is a house brand.' }),
    brandParent: t.exposeString('brandParent', { nullable: true, description: 'Parent brand of a sub-brand.' }),
    image: t.string({
      nullable: true,
      resolve: async (p, _args, ctx) => p.image ?? (await productFactsLoader(ctx).load(p.id))?.image ?? null,
    }),
    weighable: t.boolean({ resolve: async (p, _args, ctx) => (await productFactsLoader(ctx).load(p.id))?.weighable ?? false }),
    qty: t.float({ nullable: true, resolve: async (p, _args, ctx) => (await productFactsLoader(ctx).load(p.id))?.qty ?? null }),
    unit: t.string({ nullable: true, resolve: async (p, _args, ctx) => (await productFactsLoader(ctx).load(p.id))?.unit ?? null }),
    packCount: t.int({
      nullable: true,
      resolve: async (p, _args, ctx) => (await productFactsLoader(ctx).load(p.id))?.pack_count ?? null,
    }),
    retailers: t.int({
      description: 'Chains that sell it.',
      resolve: async (p, _args, ctx) => (await productFactsLoader(ctx).load(p.id))?.retailers ?? 0,
    }),
    gtins: t.field({
      type: ['SafeInt'],
      description: 'Barcodes seen.',
      resolve: async (p, _args, ctx) => (await productFactsLoader(ctx).load(p.id))?.gtins ?? [],
    }),
    aliases: t.stringList({
      description: 'Other names it is searched by: the names its linked listings carry at each chain.',
      resolve: async (p, _args, ctx) => (await productFactsLoader(ctx).load(p.id))?.aliases ?? [],
    }),
    genericId: t.int({ nullable: true, description: 'The generic (kind, variant and size) it belongs to.', select: GENERIC_SELECT, resolve: (p) => p.generic?.id ?? null }),
    genericLabel: t.string({ nullable: true, description: 'Label of the generic, e.g. "Beef mince, lean, 500 g".', select: GENERIC_SELECT, resolve: (p) => p.generic?.label ?? null }),
    genericKind: t.string({ nullable: true, description: 'Slug of the kind.', select: GENERIC_SELECT, resolve: (p) => p.generic?.kind.slug ?? null }),
    genericKindLabel: t.string({ nullable: true, description: 'Label of the kind.', select: GENERIC_SELECT, resolve: (p) => p.generic?.kind.label ?? null }),
    shelfSlug: t.string({
      nullable: true,
      description: 'Slug of the leaf shelf its kind is on (src/domain/shelves.ts; null without a kind); see also `shelf`.',
      select: GENERIC_SELECT,
      resolve: (p) => p.generic?.kind.shelfSlug ?? null,
    }),
    shelfLabel: t.string({ nullable: true, select: GENERIC_SELECT, resolve: (p) => p.generic?.kind.shelfLabel ?? null }),
    compareUnit: t.string({
      nullable: true,
      description: 'Unit its kind is compared in: kg, l or each.',
      select: GENERIC_SELECT,
      resolve: (p) => p.generic?.kind.compareUnit ?? null,
    }),
    attributes: t.field({
      type: [AttributeRef],
      description: 'Attributes read from its name and size (size, fat, organic, gluten free, free range, grass fed, halal, no added salt, origin).',
      resolve: (p) => attributesOf({ name: p.name, sizeText: p.sizeText }),
    }),
    offers: t.field({
      type: [OfferRef],
      description: 'One per linked listing, available and cheapest first.',
      select: (_args, _ctx, nestedSelection) => ({ listings: nestedSelection({ orderBy: { id: 'asc' } }) }),
      resolve: async (p, _args, ctx) =>
        orderOffers(p.listings, await Promise.all(p.listings.map((l) => currentPriceLoader(ctx).load(l.id)))),
    }),
    listings: t.relatedConnection('listings', {
      description: `Its linked listings (one per chain, or more), by id. first: 0 to ${CONNECTION_SIZE.max} (default ${CONNECTION_SIZE.default}); after: a cursor of the previous page.`,
      cursor: 'id',
      defaultSize: CONNECTION_SIZE.default,
      maxSize: CONNECTION_SIZE.max,
      totalCount: true,
      query: (args) => {
        checkForward(args);
        return { orderBy: { id: 'asc' } };
      },
    }),
    alternatives: t.loadableList({
      type: AlternativeRef,
      description: `Up to ${MAX_ALTERNATIVES} other products in the same generic, cheapest current shelf price first, own_brand flagged.`,
      load: byId((ctx, ids) => productAlternatives(ctx.pool, ids), (): ProductAlternative[] => []),
      resolve: (p) => p.id,
    }),
  }),
});

builder.queryField('product', (t) =>
  t.prismaField({
    type: 'Product',
    nullable: true,
    description: 'One product; NOT_FOUND when unknown.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const product = await ctx.prisma.product.findUnique({ ...query, where: { id } });
      if (!product) throw new NotFound(`No product ${id}`);
      return product;
    },
  }),
);

const ProductStorePriceRef = builder.objectRef<ProductStorePrice>('ProductStorePrice').implement({
  description: "A product's current price at one store: the cheaper of its chain's linked listings priced there.",
  fields: (t) => ({
    storeId: t.exposeInt('store_id'),
    store: t.exposeString('store', { description: 'Store name.' }),
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    lat: t.exposeFloat('lat'),
    lng: t.exposeFloat('lng'),
    price: t.exposeInt('price', { description: 'Shelf price, cents.' }),
    promoPrice: t.exposeInt('promo_price', { nullable: true, description: 'Single-unit promotional price, cents.' }),
    promoKind: t.exposeInt('promo_kind', { nullable: true, description: '1 special, 2 club, 3 multibuy, 4 clearance.' }),
    multibuyQty: t.exposeInt('multibuy_qty', { nullable: true }),
    multibuyPrice: t.exposeInt('multibuy_price', { nullable: true, description: 'Total for multibuyQty units, cents.' }),
    listingId: t.exposeInt('listing_id', { description: 'The linked listing this price is of.' }),
    day: t.expose('day', { type: 'Day', description: "The store's latest collection day." }),
  }),
});

builder.queryField('productStores', (t) =>
  t.loadableList({
    type: ProductStorePriceRef,
    description:
      'Every active store pricing the product at its latest collection, once each (the cheaper listing wins), cheapest first. Empty when no store prices it or the product is unknown.',
    args: { id: t.arg.int({ required: true }) },
    load: byId((ctx, ids) => productStorePrices(ctx.pool, ids), (): ProductStorePrice[] => []),
    resolve: (_root, { id }) => id,
  }),
);
