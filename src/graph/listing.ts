/**
 * Listing (one chain's product) with CurrentPrice, ListingStorePrice, DailyStats and the Unit enum;
 * root fields `searchListings` and `listing`. Per-listing prices, store prices, statistics and
 * panel sizes are batched by the loaders defined here (the shared ones exported for the other types
 * that show a listing's price: {@link currentPriceLoader}, {@link storeCountLoader}, {@link listingRowLoader}), so
 * lists cost a fixed number of queries. Money in integer NZ cents; days `YYYY-MM-DD` (NZ).
 */
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { LISTING_LIMIT, MAX_QUERY_LENGTH } from '../domain/limits.js';
import { isAvailable, lastSeen } from '../domain/listings.js';
import { NotFound } from '../errors.js';
import type { Listing } from '../generated/prisma/client.js';
import {
  activeStoreCounts, currentNationalSpans, dailyStats, emptyStats, storePriceCounts, storePrices,
  type CurrentSpan, type DailyStatsColumns, type StorePrice,
} from '../services/prices.js';
import type { SearchResultDeps } from '../services/search-results.js';
import { orderByIds, searchListingIds } from '../services/search.js';
import { byId, requestLoader } from './batch.js';
import { dayString } from './scalars.js';

/**
 * The latest national span of a listing (null when it has none), by listing id: one loader for
 * every field that shows a listing's current price (Listing, Offer, StoreListing, perUnit, basket
 * matches, search results).
 */
export const currentPriceLoader = requestLoader<number, CurrentSpan | null>(byId((ctx, ids) => currentNationalSpans(ctx.pool, ids), () => null));

/** Number of active stores currently pricing a listing, by listing id (Listing.storeCount, Offer.stores). */
export const storeCountLoader = requestLoader<number, number>(byId((ctx, ids) => storePriceCounts(ctx.pool, ids), () => 0));

/**
 * Active stores of a chain, by retailer id: the panel size a listing shows as `storesTotal`
 * (Listing, Offer); 0 for a chain without stores.
 */
export const activeStoreCountLoader = requestLoader<number, number>(byId((ctx, ids) => activeStoreCounts(ctx.pool, ids), () => 0));

/** Listing rows by id (null when unknown), for relations that find listings outside a Prisma query. */
export const listingRowLoader = requestLoader<number, Listing | null>(
  byId(async (ctx, ids) => new Map((await ctx.prisma.listing.findMany({ where: { id: { in: [...ids] } } })).map((l) => [l.id, l])), () => null),
);

/** What the search-result reads (src/services/search-results.ts) need: the handles and the request's {@link currentPriceLoader} loader. */
export function searchResultDeps(ctx: Context): SearchResultDeps {
  return { prisma: ctx.prisma, pool: ctx.pool, loaders: { currentPrice: currentPriceLoader(ctx) } };
}

/** Units of a listing's quantity. */
export const UnitEnum = builder.enumType('Unit', { values: ['g', 'ml', 'each', 'm'] as const });
/** A value of {@link UnitEnum}. */
export type Unit = 'g' | 'ml' | 'each' | 'm';

/** CurrentPrice: the latest national span of a listing. */
export const CurrentPriceRef = builder.objectRef<CurrentSpan>('CurrentPrice').implement({
  description: "Latest national span of a listing (median across the chain's reporting stores).",
  fields: (t) => ({
    day: t.expose('to', { type: 'Day', description: 'Last day this price was observed.' }),
    firstDay: t.expose('first_day', { type: 'Day', description: 'First day of this price.' }),
    price: t.exposeInt('price', { description: 'Shelf price, cents.' }),
    promoPrice: t.exposeInt('promo_price', { nullable: true, description: 'Single-unit promotional price, cents.' }),
    promoKind: t.exposeInt('promo_kind', { nullable: true, description: '1 special, 2 club, 3 multibuy, 4 clearance.' }),
    multibuyQty: t.exposeInt('multibuy_qty', { nullable: true }),
    multibuyPrice: t.exposeInt('multibuy_price', { nullable: true, description: 'Total for multibuyQty units, cents.' }),
  }),
});

const ListingStorePriceRef = builder.objectRef<StorePrice>('ListingStorePrice').implement({
  description: "A listing's current price at one store (its latest collection).",
  fields: (t) => ({
    storeId: t.exposeInt('store_id'),
    store: t.exposeString('store', { description: 'Store name.' }),
    region: t.exposeString('region', { nullable: true, description: "The retailer's own region code." }),
    lat: t.exposeFloat('lat'),
    lng: t.exposeFloat('lng'),
    day: t.expose('day', { type: 'Day', description: "The store's latest collection day." }),
    price: t.exposeInt('price', { description: 'Shelf price, cents.' }),
    promoPrice: t.exposeInt('promo_price', { nullable: true }),
    promoKind: t.exposeInt('promo_kind', { nullable: true }),
    multibuyQty: t.exposeInt('multibuy_qty', { nullable: true }),
    multibuyPrice: t.exposeInt('multibuy_price', { nullable: true }),
  }),
});

const DailyStatsRef = builder.objectRef<DailyStatsColumns>('DailyStats').implement({
  description: 'Daily spread of shelf prices across stores, as parallel arrays (oldest day first).',
  fields: (t) => ({
    day: t.expose('day', { type: ['Day'] }),
    min: t.exposeIntList('min'),
    med: t.exposeIntList('med'),
    max: t.exposeIntList('max'),
    n: t.exposeIntList('n', { description: 'Stores reporting that day.' }),
  }),
});

/** Selection shared by the retailer name and slug fields (one relation, one shape). */
const RETAILER_SELECT = { retailer: { select: { slug: true, name: true } } } as const;

/** The Listing object type (exported for fields that return prefetched listing rows). */
export const ListingRef = builder.prismaObject('Listing', {
  description: "One chain's product: its own name, size and barcode.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    retailerSlug: t.string({ select: RETAILER_SELECT, resolve: (l) => l.retailer.slug }),
    retailerName: t.string({ select: RETAILER_SELECT, resolve: (l) => l.retailer.name }),
    retailer: t.relation('retailer'),
    externalId: t.exposeString('externalId', { description: "The retailer's own product id." }),
    name: t.exposeString('name'),
    brand: t.exposeString('brand', { nullable: true }),
    sizeText: t.exposeString('sizeText', { nullable: true, description: 'Size as printed.' }),
    qty: t.exposeFloat('qty', { nullable: true, description: 'Quantity in unit.' }),
    unit: t.field({ type: UnitEnum, nullable: true, resolve: (l) => l.unit as Unit | null }),
    packCount: t.exposeInt('packCount', { nullable: true }),
    weighable: t.exposeBoolean('weighable', { description: 'Sold by weight (price per kg).' }),
    gtin: t.expose('gtin', { type: 'SafeInt', nullable: true, description: 'Barcode as an integer.' }),
    categoryPath: t.exposeStringList('categoryPath', { description: "The retailer's own breadcrumb." }),
    image: t.exposeString('image', { nullable: true }),
    retailerUrl: t.exposeString('retailerUrl', { nullable: true }),
    productId: t.exposeInt('productId', { nullable: true, description: 'Cross-chain product once linked.' }),
    product: t.relation('product', { nullable: true }),
    linkMethod: t.exposeString('linkMethod', { nullable: true }),
    linkConfidence: t.exposeFloat('linkConfidence', { nullable: true }),
    linkLocked: t.exposeBoolean('linkLocked'),
    firstSeen: t.expose('firstSeen', { type: 'Day' }),
    lastSeen: t.field({
      type: 'Day',
      description: 'Last day of the latest national span (else the first day seen).',
      resolve: async (l, _args, ctx) => lastSeen(dayString(l.firstSeen), await currentPriceLoader(ctx).load(l.id)),
    }),
    available: t.boolean({
      description: "Still on the retailer's site at the chain's last collection.",
      resolve: async (l, _args, ctx) => isAvailable(l.available, await currentPriceLoader(ctx).load(l.id)),
    }),
    current: t.field({
      type: CurrentPriceRef,
      nullable: true,
      description: 'Latest national span; null when never priced.',
      resolve: (l, _args, ctx) => currentPriceLoader(ctx).load(l.id),
    }),
    storesTotal: t.int({
      description: 'Active stores the chain has in the panel.',
      resolve: (l, _args, ctx) => activeStoreCountLoader(ctx).load(l.retailerId),
    }),
    storeCount: t.int({
      description: 'Active stores currently pricing the listing.',
      resolve: (l, _args, ctx) => storeCountLoader(ctx).load(l.id),
    }),
    stores: t.loadableList({
      type: ListingStorePriceRef,
      description: 'Every active store pricing it at its latest collection, cheapest first.',
      load: byId((ctx, ids) => storePrices(ctx.pool, ids), (): StorePrice[] => []),
      resolve: (l) => l.id,
    }),
    stats: t.loadable({
      type: DailyStatsRef,
      description: "Daily store spread over the last 365 days up to the chain's latest collection.",
      load: byId((ctx, ids) => dailyStats(ctx.pool, ids), emptyStats),
      resolve: (l) => l.id,
    }),
  }),
});

builder.queryFields((t) => ({
  searchListings: t.prismaField({
    type: ['Listing'],
    description: 'Listings matching q (name, brand, category or barcode digits; typo- and accent-tolerant), best match first; without q, recently seen.',
    args: {
      q: t.arg.string({ description: `At most ${MAX_QUERY_LENGTH} characters.` }),
      retailer: t.arg.string({ description: 'Retailer slug; unknown gives BAD_REQUEST.' }),
      limit: t.arg.int({ defaultValue: LISTING_LIMIT.default, description: `${LISTING_LIMIT.min} to ${LISTING_LIMIT.max}.` }),
    },
    resolve: async (query, _root, args, ctx) => {
      const ids = await searchListingIds(ctx, args);
      return orderByIds(ids, await ctx.prisma.listing.findMany({ ...query, where: { id: { in: ids } } }));
    },
  }),
  listing: t.prismaField({
    type: 'Listing',
    nullable: true,
    description: 'One listing; NOT_FOUND when unknown.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const listing = await ctx.prisma.listing.findUnique({ ...query, where: { id } });
      if (!listing) throw new NotFound(`No listing ${id}`);
      return listing;
    },
  }),
}));
