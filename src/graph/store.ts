/**
 * Store (one shop of a chain's price panel) with its price level, groups, extremes, spread, deals,
 * listings and level series; StoreGroupLevel, StoreListing, RatioBin, StoreListingPage and
 * StoreLevelSeries; the UrbanClass enum; root fields `stores` and `store`. Levels and counts come
 * from the derived views (src/services/store-levels.ts) through the loaders defined here (one per
 * view read, cached per request), so any number of stores costs a fixed number of statements.
 * Money in integer NZ cents; days `YYYY-MM-DD` (NZ).
 */
import { builder } from '../builder.js';
import { DAYS_WINDOW, MAX_QUERY_LENGTH, OFFSET, RADIUS_KM, STORE_LISTING_LIMIT } from '../domain/limits.js';
import { isAvailable } from '../domain/listings.js';
import { NotFound } from '../errors.js';
import {
  checkLevelWindow, emptyPanel, storeDeals, storeExtremes, storeLevelSeries,
  storeListingPages, storeListingsKey, storePanels,
  type GroupLevel, type StoreExtremes, type StoreLevels, type StoreLevelsKey, type StoreListingRow, type StoreListingsKey,
  type StoreListingsPage, type StorePanelRow,
} from '../services/store-levels.js';
import { STORE_ORDER, URBAN_CLASSES, nearestFirst, storePoint, storeWhere } from '../services/stores.js';
import { byId, requestLoader } from './batch.js';
import { currentPriceLoader } from './listing.js';
import { dayString } from './scalars.js';

/** A store's current panel (store_level: level, counts, groups, spread), by store id; zeros when the view has no row. Read by ten Store fields. */
const storePanelLoader = requestLoader<number, StorePanelRow>(byId((ctx, ids) => storePanels(ctx.pool, ids), emptyPanel));

/** A store's eight biggest markups and markdowns against its chain's national median, by store id (Store.dearer, Store.cheaper). */
const storeExtremesLoader = requestLoader<number, StoreExtremes>(
  byId((ctx, ids) => storeExtremes(ctx.pool, ids), () => ({ dearer: [], cheaper: [] })),
);

/**
 * `distance_km` of the Store rows a `stores(lat:, lng:)` answer returned (kilometres, two
 * decimals), keyed by the row object itself: two aliased `stores` fields with different points
 * each carry their own distances, and a Store reached any other way has none (null).
 */
const storeDistances = new WeakMap<object, number>();

/** Urban class of a store's town. */
export const UrbanClassEnum = builder.enumType('UrbanClass', { values: URBAN_CLASSES });

const StoreGroupLevelRef = builder.objectRef<GroupLevel>('StoreGroupLevel').implement({
  description: "One basket group's price level at a store (weighted geometric mean of store price ÷ the chain's national median).",
  fields: (t) => ({
    code: t.exposeString('code', { description: 'Basket group code.' }),
    name: t.exposeString('name'),
    level: t.exposeFloat('level', { description: "1.0 is the chain's national median; 1.03 is 3 % dearer." }),
    n: t.exposeInt('n', { description: 'Basket items of the group priced at the store.' }),
  }),
});

/** A StoreListing object type: a listing priced at a store this week against its chain's national median. */
export const StoreListingRef = builder.objectRef<StoreListingRow>('StoreListing').implement({
  description:
    "A listing priced at a store this week (its latest store observation), with the chain's national median that day and the ratio of the two.",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Listing id.' }),
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    name: t.exposeString('name'),
    brand: t.exposeString('brand', { nullable: true }),
    sizeText: t.exposeString('size_text', { nullable: true, description: 'Size as printed.' }),
    image: t.exposeString('image', { nullable: true }),
    productId: t.exposeInt('product_id', { nullable: true, description: 'Cross-chain product once linked.' }),
    available: t.boolean({
      description: "Still on the retailer's site at the chain's last collection.",
      resolve: async (r, _args, ctx) => isAvailable(r.available_flag, await currentPriceLoader(ctx).load(r.id)),
    }),
    day: t.expose('day', { type: 'Day', description: 'Day of the store observation.' }),
    price: t.exposeInt('price', { description: 'Shelf price at the store, cents.' }),
    promoPrice: t.exposeInt('promo_price', { nullable: true, description: 'Single-unit promotional price at the store, cents.' }),
    promoKind: t.exposeInt('promo_kind', { nullable: true, description: '1 special, 2 club, 3 multibuy, 4 clearance.' }),
    multibuyQty: t.exposeInt('multibuy_qty', { nullable: true, description: 'Units required for multibuyPrice (multibuys only).' }),
    multibuyPrice: t.exposeInt('multibuy_price', { nullable: true, description: 'Total for multibuyQty units, cents (multibuys only).' }),
    median: t.exposeInt('median', { description: "The chain's national median that day, cents." }),
    ratio: t.exposeFloat('ratio', { description: 'price ÷ median.' }),
  }),
});

const RatioBinRef = builder.objectRef<{ bucket: number; n: number }>('RatioBin').implement({
  description: 'One bin of the histogram of shelf price ÷ national median: 0 (< 0.80) and 21 (≥ 1.20) are the tails; 1 to 20 span 0.80 to 1.20 in 0.02 steps.',
  fields: (t) => ({
    bucket: t.exposeInt('bucket'),
    n: t.exposeInt('n', { description: 'Listings in the bin.' }),
  }),
});

const StoreListingPageRef = builder.objectRef<StoreListingsPage>('StoreListingPage').implement({
  description: 'One page of the listings priced at a store this week, dearest against the national median first.',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Listings matching q (all pages).' }),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    listings: t.field({ type: [StoreListingRef], resolve: (p) => p.listings }),
  }),
});

const StoreLevelSeriesRef = builder.objectRef<StoreLevels>('StoreLevelSeries').implement({
  description: "A store's daily basket level (the spans in force each day), arrays aligned with days.",
  fields: (t) => ({
    days: t.expose('days', { type: ['Day'] }),
    level: t.exposeFloatList('level', {
      nullable: { list: false, items: true },
      description: "1.0 is the chain's national median that day; null where fewer than 20 basket items were priced.",
    }),
    items: t.exposeIntList('items', { nullable: { list: false, items: true }, description: 'Basket items priced at the store that day.' }),
  }),
});

builder.prismaObject('Store', {
  description: 'A store of a chain. Coordinates in WGS84 degrees. Levels and counts come from the derived views (recomputed at most every ten minutes).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    externalId: t.exposeString('externalId', { description: "The retailer's own store id." }),
    retailerSlug: t.string({
      select: { retailer: { select: { slug: true } } },
      resolve: (store) => store.retailer.slug,
    }),
    retailer: t.relation('retailer'),
    name: t.exposeString('name'),
    address: t.exposeString('address', { nullable: true }),
    region: t.exposeString('region', { nullable: true, description: "The retailer's own region code." }),
    lat: t.exposeFloat('lat'),
    lng: t.exposeFloat('lng'),
    distanceKm: t.float({
      nullable: true,
      description: 'Great-circle distance from the point of `stores(lat:, lng:)`, km (two decimals); null without a point.',
      resolve: (store) => storeDistances.get(store) ?? null,
    }),
    town: t.exposeString('town', { description: 'Nearest urban area, or "Rural <region>".' }),
    area: t.exposeString('area', { description: 'Region (regional council).' }),
    urban: t.exposeString('urban', { nullable: true, description: 'Urban class: major, large, medium, small, rural.' }),
    active: t.exposeBoolean('active'),
    day: t.field({
      type: 'Day',
      nullable: true,
      description: "Latest day with prices: the day of the store's level panel; before the views are built, its last collection day.",
      select: { lastDay: true },
      resolve: async (store, _args, ctx) => {
        const panel = await storePanelLoader(ctx).load(store.id);
        if (panel.found) return panel.day;
        return store.lastDay === null ? null : dayString(store.lastDay);
      },
    }),
    level: t.float({
      nullable: true,
      description: "Basket price level vs the chain's national median (1.03 = 3 % dearer); null under 20 priced basket items.",
      resolve: async (store, _args, ctx) => (await storePanelLoader(ctx).load(store.id)).level,
    }),
    nItems: t.int({
      description: 'Basket items the level is computed from.',
      resolve: async (store, _args, ctx) => (await storePanelLoader(ctx).load(store.id)).n_items,
    }),
    club: t.int({
      description: 'Club-price promotions this week.',
      resolve: async (store, _args, ctx) => (await storePanelLoader(ctx).load(store.id)).club,
    }),
    sale: t.int({
      description: 'Specials this week.',
      resolve: async (store, _args, ctx) => (await storePanelLoader(ctx).load(store.id)).sale,
    }),
    multibuy: t.int({
      description: 'Multibuys this week.',
      resolve: async (store, _args, ctx) => (await storePanelLoader(ctx).load(store.id)).multibuy,
    }),
    groups: t.field({
      type: [StoreGroupLevelRef],
      description: 'Level of each basket group with a level at the store, in basket group order.',
      resolve: async (store, _args, ctx) => (await storePanelLoader(ctx).load(store.id)).groups,
    }),
    spread: t.field({
      type: [RatioBinRef],
      description: 'Histogram of shelf price ÷ national median over every listing priced at the store: all 22 bins, bucket 0 first.',
      resolve: async (store, _args, ctx) => (await storePanelLoader(ctx).load(store.id)).spread.map((n, bucket) => ({ bucket, n })),
    }),
    listingsPriced: t.int({
      description: 'Listings priced at the store (the spread counts them).',
      resolve: async (store, _args, ctx) => (await storePanelLoader(ctx).load(store.id)).listings_priced,
    }),
    dearer: t.field({
      type: [StoreListingRef],
      description: "The eight biggest markups against the chain's national median (ratio above 1, highest first).",
      resolve: async (store, _args, ctx) => (await storeExtremesLoader(ctx).load(store.id)).dearer,
    }),
    cheaper: t.field({
      type: [StoreListingRef],
      description: "The eight biggest markdowns against the chain's national median (ratio below 1, lowest first).",
      resolve: async (store, _args, ctx) => (await storeExtremesLoader(ctx).load(store.id)).cheaper,
    }),
    deals: t.loadableList({
      type: StoreListingRef,
      description:
        'Current deals at the store: listings priced there this week on a special, club price or multibuy cheaper per unit than the shelf price; biggest saving (share of the shelf price) first, at most 24.',
      load: byId((ctx, ids) => storeDeals(ctx.pool, ids), (): StoreListingRow[] => []),
      resolve: (store) => store.id,
    }),
    listings: t.loadable({
      type: StoreListingPageRef,
      description: "Listings priced at the store this week with the chain's national median and the ratio, dearest against the median first (then listing id).",
      args: {
        q: t.arg.string({ description: `At most ${MAX_QUERY_LENGTH} characters: every word must occur in the brand or name (case- and accent-insensitive).` }),
        limit: t.arg.int({ defaultValue: STORE_LISTING_LIMIT.default, description: `${STORE_LISTING_LIMIT.min} to ${STORE_LISTING_LIMIT.max}.` }),
        offset: t.arg.int({ defaultValue: OFFSET.default, description: `At least ${OFFSET.min}.` }),
      },
      // One page per (store, q, limit, offset): every page of the request, aliases included, in one statement.
      load: (keys: StoreListingsKey[], ctx) => storeListingPages(ctx.pool, keys),
      loaderOptions: { cacheKeyFn: (k) => JSON.stringify([k.storeId, k.q, k.limit, k.offset]) },
      resolve: (store, args) => storeListingsKey(store.id, args),
    }),
    levelSeries: t.loadable({
      type: StoreLevelSeriesRef,
      description: "Daily basket level over the `days` calendar days ending at the store's last computed day (not today).",
      args: {
        days: t.arg.int({
          defaultValue: DAYS_WINDOW.default,
          description: `${DAYS_WINDOW.min} to ${DAYS_WINDOW.max}.`,
        }),
      },
      load: (keys: StoreLevelsKey[], ctx) => storeLevelSeries(ctx.pool, keys),
      loaderOptions: { cacheKeyFn: (k) => `${k.storeId}:${k.days}` },
      resolve: (store, args) => ({ storeId: store.id, days: checkLevelWindow(args.days ?? DAYS_WINDOW.default) }),
    }),
  }),
});

builder.queryFields((t) => ({
  stores: t.prismaField({
    type: ['Store'],
    description:
      'Active stores, by chain then name. Text filters are case-insensitive. With lat and lng: only the stores within radiusKm (great-circle), nearest first (ties by id), each with distanceKm.',
    args: {
      retailer: t.arg.string({ description: 'Retailer slug.' }),
      town: t.arg.string(),
      area: t.arg.string(),
      urban: t.arg({ type: UrbanClassEnum }),
      lat: t.arg.float({ description: 'Latitude, WGS84 degrees, -90 to 90; with lng.' }),
      lng: t.arg.float({ description: 'Longitude, WGS84 degrees, -180 to 180; with lat.' }),
      radiusKm: t.arg.float({
        description: `Kilometres (great-circle) around lat/lng, ${RADIUS_KM.min} to ${RADIUS_KM.max}, default ${RADIUS_KM.default}; only with lat and lng.`,
      }),
    },
    resolve: async (query, _root, args, ctx) => {
      const near = storePoint(args);
      const rows = await ctx.prisma.store.findMany({ ...query, where: storeWhere({ ...args, near }), orderBy: STORE_ORDER });
      if (!near) return rows;
      return nearestFirst(rows, near).map(({ store, distance_km }) => {
        storeDistances.set(store, distance_km);
        return store;
      });
    },
  }),
  store: t.prismaField({
    type: 'Store',
    nullable: true,
    description: 'One store by id (active or not); NOT_FOUND when unknown.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, { id }, ctx) => {
      const store = await ctx.prisma.store.findUnique({ ...query, where: { id } });
      if (!store) throw new NotFound(`No store ${id}`);
      return store;
    },
  }),
}));
