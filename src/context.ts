/**
 * The per-request GraphQL context: database handles plus request-scoped dataloaders, so every
 * per-listing (or per-store, per-chain) value of one request is fetched in one batched query.
 */
import DataLoader from 'dataloader';
import type pg from 'pg';
import type { Listing, PrismaClient, Product } from './generated/prisma/client.js';
import type { HistoryColumns } from './domain/spans.js';
import {
  chainListingCounts,
  chainListingPages,
  listingHistories,
  shelfProductPages,
  type ChainListingsKey,
  type ChainListingsPage,
  type HistoryKey,
  type ShelfProductsKey,
  type ShelfProductsPage,
} from './services/graph-relations.js';
import {
  activeStoreCounts,
  currentNationalSpans,
  dailyStats,
  emptyStats,
  storePriceCounts,
  storePrices,
  type CurrentSpan,
  type DailyStatsColumns,
  type StorePrice,
} from './services/prices.js';
import { openMatches, type OpenMatchRow } from './services/basket.js';
import { latestChainLevels, retailerLevels, type ChainGroupLevel, type RetailerLevels } from './services/chain-levels.js';
import { listingDeals, type ListingDeal } from './services/deals.js';
import { listingSpecialChecks, type SpecialCheckRow } from './services/special-check.js';
import { genericShelves, productShelfRows, shelfCounts, type ProductShelfRow } from './services/shelves.js';
import { productAlternatives, productFacts, type ProductAlternative, type ProductFacts } from './services/products.js';
import { productSpreads, productStorePrices, type ProductStorePrice, type RetailerSpread } from './services/product-prices.js';
import {
  emptyPanel,
  storeDeals,
  storeExtremes,
  storeLevelSeries,
  storeListingPages,
  storePanels,
  type StoreExtremes,
  type StoreLevels,
  type StoreLevelsKey,
  type StoreListingRow,
  type StoreListingsKey,
  type StoreListingsPage,
  type StorePanelRow,
} from './services/store-levels.js';
import type { SearchBackend } from './search/backend.js';
import { createEmbeddedBackend } from './search/embedded.js';

/** Request-scoped batch loaders (keys are database ids). */
export interface Loaders {
  /** Latest national span of a listing, or null when it has none. */
  currentPrice: DataLoader<number, CurrentSpan | null>;
  /** Current prices of a listing at active stores, cheapest first. */
  storePrices: DataLoader<number, StorePrice[]>;
  /** Number of active stores currently pricing a listing. */
  storeCount: DataLoader<number, number>;
  /** Daily statistics of a listing over the last year (empty arrays when none). */
  stats: DataLoader<number, DailyStatsColumns>;
  /** Active stores of a chain, by retailer id. */
  activeStores: DataLoader<number, number>;
  /** A store's current panel (store_level: level, counts, groups, spread), by store id; zeros when the view has no row. */
  storePanel: DataLoader<number, StorePanelRow>;
  /** A store's eight biggest markups and markdowns against its chain's national median, by store id. */
  storeExtremes: DataLoader<number, StoreExtremes>;
  /** A store's current deals, biggest saving first, by store id (empty when none). */
  storeDeals: DataLoader<number, StoreListingRow[]>;
  /** One page of a store's listings (store, q, limit, offset). */
  storeListings: DataLoader<StoreListingsKey, StoreListingsPage, string>;
  /** A store's daily level series over a window (store, days). */
  storeLevelSeries: DataLoader<StoreLevelsKey, StoreLevels, string>;
  /** Facts derived from a product's linked listings, or null for an unknown product. */
  productFacts: DataLoader<number, ProductFacts | null>;
  /** Every active store currently pricing a product, once each, cheapest first (empty when none). */
  productStores: DataLoader<number, ProductStorePrice[]>;
  /** Up to 16 other products in a product's generic, cheapest first (empty without a generic). */
  productAlternatives: DataLoader<number, ProductAlternative[]>;
  /** Daily store spread of a product over the last year, one entry per chain (empty when none). */
  productSpread: DataLoader<number, RetailerSpread[]>;
  /** Open matches of a basket item (listings currently matched), by retailer slug then listing id (empty when none). */
  basketMatches: DataLoader<number, OpenMatchRow[]>;
  /** A chain's latest-day chain levels (all food, then the groups by id), by retailer id (empty before the first build). */
  chainLevels: DataLoader<number, ChainGroupLevel[]>;
  /** Every chain's all-food level series over a window, keyed by the window's `days` (one read per distinct window). */
  retailerLevels: DataLoader<number, RetailerLevels>;
  /** A listing's rows in the deals view, one per kind it is on (empty when none). */
  listingDeals: DataLoader<number, ListingDeal[]>;
  /** A listing's special checks (one per deal it is on, in deal-kind order; empty when none). */
  specialChecks: DataLoader<number, SpecialCheckRow[]>;
  /** Products on a shelf (its sub-shelves included), by shelf slug; 0 without a row. One read of `shelf_count` per request. */
  shelfProducts: DataLoader<string, number>;
  /** The leaf shelf slug of a generic's kind, by generic id; null without one. */
  genericShelf: DataLoader<number, string | null>;
  /** A product's row in the shelves view (shelf, per-unit price), by product id; null when not on a shelf. */
  productShelf: DataLoader<number, ProductShelfRow | null>;
  /** A listing's price spans, national (store 0) or at one store (empty arrays when none). */
  listingHistory: DataLoader<HistoryKey, HistoryColumns, string>;
  /** A page of a shelf's linked products in the popular order (slug, first, after). */
  shelfProductPage: DataLoader<ShelfProductsKey, ShelfProductsPage, string>;
  /** A page of a chain's listings in id order (chain, filter, first, after). */
  chainListings: DataLoader<ChainListingsKey, ChainListingsPage, string>;
  /** How many of a chain's listings match a filter (chain, filter; paging ignored). */
  chainListingCount: DataLoader<ChainListingsKey, number, string>;
  /** Listing rows by id (null when unknown), for relations that find listings outside a Prisma query. */
  listingRow: DataLoader<number, Listing | null>;
  /** Product rows by id (null when unknown), for relations that find products outside a Prisma query. */
  productRow: DataLoader<number, Product | null>;
}

/** What every resolver receives. */
export interface Context {
  prisma: PrismaClient;
  pool: pg.Pool;
  /** The search backend of the process (embedded over `pool` unless configured otherwise). */
  search: SearchBackend;
  /** EXPORT_DIR, where the nightly exports are published (null: none are served). */
  exportDir: string | null;
  loaders: Loaders;
}

/**
 * The handles a context is built from (a `Database` from src/db/database.ts fits). Without
 * `search`, the embedded backend over `pool` is used.
 */
export interface ContextSource {
  prisma: PrismaClient;
  pool: pg.Pool;
  search?: SearchBackend;
  /** EXPORT_DIR (see Context.exportDir). */
  exportDir?: string;
}

function loader<V>(fetch: (keys: readonly number[]) => Promise<Map<number, V>>, missing: () => V): DataLoader<number, V> {
  return new DataLoader<number, V>(async (keys) => {
    const found = await fetch(keys);
    return keys.map((k) => (found.has(k) ? (found.get(k) as V) : missing()));
  });
}

/** Shelf counts by slug: the whole (small) `shelf_count` table read once per request, whatever the depth of the selection. */
function shelfProductsLoader(pool: pg.Pool): DataLoader<string, number> {
  let counts: Promise<Map<string, number>> | undefined;
  return new DataLoader<string, number>(async (slugs) => {
    const all = await (counts ??= shelfCounts(pool));
    return slugs.map((s) => all.get(s) ?? 0);
  });
}

/** Builds a fresh context (new, empty loader caches) for one request or operation run. */
export function createContext(db: ContextSource): Context {
  const { pool } = db;
  return {
    prisma: db.prisma,
    pool,
    search: db.search ?? createEmbeddedBackend(pool),
    exportDir: db.exportDir ?? null,
    loaders: {
      currentPrice: loader<CurrentSpan | null>((ids) => currentNationalSpans(pool, ids), () => null),
      storePrices: loader<StorePrice[]>((ids) => storePrices(pool, ids), () => []),
      storeCount: loader<number>((ids) => storePriceCounts(pool, ids), () => 0),
      stats: loader<DailyStatsColumns>((ids) => dailyStats(pool, ids), emptyStats),
      activeStores: loader<number>((ids) => activeStoreCounts(pool, ids), () => 0),
      storePanel: loader<StorePanelRow>((ids) => storePanels(pool, ids), emptyPanel),
      storeExtremes: loader<StoreExtremes>((ids) => storeExtremes(pool, ids), () => ({ dearer: [], cheaper: [] })),
      storeDeals: loader<StoreListingRow[]>((ids) => storeDeals(pool, ids), () => []),
      storeListings: new DataLoader((keys: readonly StoreListingsKey[]) => storeListingPages(pool, keys), {
        cacheKeyFn: (k) => JSON.stringify([k.storeId, k.q, k.limit, k.offset]),
      }),
      storeLevelSeries: new DataLoader((keys: readonly StoreLevelsKey[]) => storeLevelSeries(pool, keys), {
        cacheKeyFn: (k) => `${k.storeId}:${k.days}`,
      }),
      productFacts: loader<ProductFacts | null>((ids) => productFacts(pool, ids), () => null),
      productStores: loader<ProductStorePrice[]>((ids) => productStorePrices(pool, ids), () => []),
      productAlternatives: loader<ProductAlternative[]>((ids) => productAlternatives(pool, ids), () => []),
      productSpread: loader<RetailerSpread[]>((ids) => productSpreads(pool, ids), () => []),
      basketMatches: loader<OpenMatchRow[]>((ids) => openMatches(pool, ids), () => []),
      chainLevels: loader<ChainGroupLevel[]>((ids) => latestChainLevels(pool, ids), () => []),
      retailerLevels: new DataLoader<number, RetailerLevels>((windows) =>
        Promise.all(windows.map((days) => retailerLevels(pool, days).catch((e: Error) => e))),
      ),
      listingDeals: loader<ListingDeal[]>((ids) => listingDeals(pool, ids), () => []),
      specialChecks: loader<SpecialCheckRow[]>((ids) => listingSpecialChecks(pool, ids), () => []),
      shelfProducts: shelfProductsLoader(pool),
      genericShelf: loader<string | null>((ids) => genericShelves(pool, ids), () => null),
      productShelf: loader<ProductShelfRow | null>((ids) => productShelfRows(pool, ids), () => null),
      listingHistory: new DataLoader((keys: readonly HistoryKey[]) => listingHistories(pool, keys), {
        cacheKeyFn: (k) => `${k.listingId}:${k.storeId}`,
      }),
      shelfProductPage: new DataLoader((keys: readonly ShelfProductsKey[]) => shelfProductPages(pool, keys), {
        cacheKeyFn: (k) => `${k.slug}:${k.first}:${k.after}`,
      }),
      chainListings: new DataLoader((keys: readonly ChainListingsKey[]) => chainListingPages(pool, keys), {
        cacheKeyFn: (k) => JSON.stringify([k.retailerId, k.q, k.brand, k.available, k.linked, k.first, k.after]),
      }),
      chainListingCount: new DataLoader((keys: readonly ChainListingsKey[]) => chainListingCounts(pool, keys), {
        cacheKeyFn: (k) => JSON.stringify([k.retailerId, k.q, k.brand, k.available, k.linked]),
      }),
      listingRow: loader<Listing | null>(
        async (ids) => new Map((await db.prisma.listing.findMany({ where: { id: { in: [...ids] } } })).map((l) => [l.id, l])),
        () => null,
      ),
      productRow: loader<Product | null>(
        async (ids) => new Map((await db.prisma.product.findMany({ where: { id: { in: [...ids] } } })).map((p) => [p.id, p])),
        () => null,
      ),
    },
  };
}
