/**
 * The per-request GraphQL context: database handles plus request-scoped dataloaders, so every
 * per-listing (or per-store, per-chain) value of one request is fetched in one batched query.
 */
import DataLoader from 'dataloader';
import type pg from 'pg';
import type { PrismaClient } from './generated/prisma/client.js';
import {
  activeStoreCounts,
  currentNationalSpans,
  dailyStats,
  emptyStats,
  storePriceCounts,
  storePrices,
  storePromoCounts,
  type CurrentSpan,
  type DailyStatsColumns,
  type PromoCounts,
  type StorePrice,
} from './services/prices.js';
import { openMatches, type OpenMatchRow } from './services/basket.js';
import { productAlternatives, productFacts, type ProductAlternative, type ProductFacts } from './services/products.js';
import { productSpreads, productStorePrices, type ProductStorePrice, type RetailerSpread } from './services/product-prices.js';
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
  /** Promotions in force at a store, by store id. */
  storePromos: DataLoader<number, PromoCounts>;
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
      storePromos: loader<PromoCounts>((ids) => storePromoCounts(pool, ids), () => ({ club: 0, sale: 0, multibuy: 0 })),
      productFacts: loader<ProductFacts | null>((ids) => productFacts(pool, ids), () => null),
      productStores: loader<ProductStorePrice[]>((ids) => productStorePrices(pool, ids), () => []),
      productAlternatives: loader<ProductAlternative[]>((ids) => productAlternatives(pool, ids), () => []),
      productSpread: loader<RetailerSpread[]>((ids) => productSpreads(pool, ids), () => []),
      basketMatches: loader<OpenMatchRow[]>((ids) => openMatches(pool, ids), () => []),
    },
  };
}
