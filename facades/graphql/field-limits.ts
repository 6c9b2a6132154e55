/**
 * Per-field rate limits of /graphql (@envelop/rate-limiter): each expensive root field may be
 * selected so many times a minute per client address (Fastify's `req.ip`, which follows
 * TRUST_PROXY). Every selection counts, so aliasing a field ten times costs ten calls. Over the
 * limit the whole operation is refused before it runs: HTTP 429, `Retry-After`, and a GraphQL
 * error with `extensions.code` RATE_LIMITED.
 *
 * These limits are for /graphql only: the REST and MCP facades run their persisted documents
 * in-process (facades/execute.ts) under the per-IP budget instead. Counters live in this process
 * (a bounded sliding window, {@link WindowStore}); with several instances each keeps its own.
 */
import { useRateLimiter, type Identity, type Store } from '@envelop/rate-limiter';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Length of the sliding window, seconds; also the `Retry-After` sent with a refusal. */
export const WINDOW_SECONDS = 60;

/**
 * searchListings a minute: each is a case-insensitive substring scan of every listing name (up to
 * 100 cards). One a second is more than anyone types into GraphiQL; copying the catalogue by search
 * is what the nightly exports are for.
 */
export const SEARCH_PER_MINUTE = 60;

/**
 * suggest a minute: a type-ahead sends one request per keystroke pause; each is a few indexed
 * prefix scans. Twice the search figure.
 */
export const SUGGEST_PER_MINUTE = 120;

/**
 * listingHistory, productHistory and productSpread a minute: each reads a whole span history (years
 * of prices) or a year of daily statistics of every linked listing.
 */
export const HISTORY_PER_MINUTE = 60;

/**
 * listing, product and productStores a minute: one row by id, but usually with per-store prices and
 * a year of daily statistics beneath (productStores: every store's current price, one indexed
 * statement). Twice the search figure, so a page of results can be opened one by one.
 */
export const LOOKUP_PER_MINUTE = 120;

/**
 * retailers and stores a minute: whole-table answers (with catalogue counts and promotion counts)
 * that change once a day and are cached for five minutes; nobody needs them every two seconds.
 */
export const CATALOGUE_PER_MINUTE = 30;

/**
 * The limited root fields and their calls a minute. Every Query field but `health` (a `SELECT 1`)
 * is here; the integration test fails when a new root field is added without a line.
 */
export const FIELD_LIMITS: Readonly<Record<string, number>> = {
  searchListings: SEARCH_PER_MINUTE,
  searchProducts: SEARCH_PER_MINUTE,
  suggest: SUGGEST_PER_MINUTE,
  gtin: LOOKUP_PER_MINUTE,
  listingHistory: HISTORY_PER_MINUTE,
  productHistory: HISTORY_PER_MINUTE,
  productSpread: HISTORY_PER_MINUTE,
  listing: LOOKUP_PER_MINUTE,
  product: LOOKUP_PER_MINUTE,
  productStores: LOOKUP_PER_MINUTE,
  stores: CATALOGUE_PER_MINUTE,
  // One store by id with its level panel, extremes, deals, a page of its listings or its level series
  // (up to ten years of daily rows, like a history): a lookup.
  store: LOOKUP_PER_MINUTE,
  // Every region, urban class and town: one small table, rebuilt at most every ten minutes.
  areas: CATALOGUE_PER_MINUTE,
  retailers: CATALOGUE_PER_MINUTE,
  // A small file read; the manifest changes once a night.
  exportManifest: CATALOGUE_PER_MINUTE,
  // The food-price index: the latest level changes once a day (ETag on REST); the series read up to
  // ten years of daily rows (indexItems: one per basket item and day), like a history.
  indexLatest: CATALOGUE_PER_MINUTE,
  indexSeries: HISTORY_PER_MINUTE,
  indexGroups: HISTORY_PER_MINUTE,
  indexItems: HISTORY_PER_MINUTE,
  // The track record (issue 30): every stored index day of the five aggregates and the official
  // months, a few thousand rows per ten years, reduced in memory; like a history.
  indexValidation: HISTORY_PER_MINUTE,
  // The whole basket (155 items, with matches several megabytes) is a catalogue; one item a lookup.
  basket: CATALOGUE_PER_MINUTE,
  basketItem: LOOKUP_PER_MINUTE,
  // Chains (issue 16): the comparison is a derived view read whole (like a catalogue); the level
  // series read up to ten years of daily rows per chain (like a history); the deals feed filters by
  // a substring of listing names (like a search).
  compare: CATALOGUE_PER_MINUTE,
  retailerLevels: HISTORY_PER_MINUTE,
  deals: SEARCH_PER_MINUTE,
  // A node of a chain's category tree (issue 17 item 4): index reads of a derived view, or with q a
  // trigram-indexed count over the chain's matching listings, like a search.
  retailerBrowse: SEARCH_PER_MINUTE,
  // A shopping list (issue 16 item 7) reads every store price of up to 50 items' listings and tries
  // every pair of stores: heavier than a lookup, so limited like a search.
  shoppingList: SEARCH_PER_MINUTE,
  // The shelf directory (issue 17): a constant list with one small count table (a catalogue); a page
  // of a shelf is one statement over the shelves view with facets, like a search.
  shelves: CATALOGUE_PER_MINUTE,
  shelf: SEARCH_PER_MINUTE,
  // The derived views' freshness: four rows of view_run (a catalogue).
  derivedViews: CATALOGUE_PER_MINUTE,
  // How old the data is (issue 26): aggregates over the chains' national collection rows (a few
  // thousand) and one day's store rows per chain; changes once a collection (a catalogue).
  dataStatus: CATALOGUE_PER_MINUTE,
  // Price changes (issue 32 item 3): one statement over a scope's national spans; a chain's scope
  // probes every listing of the chain and a search's runs the ranked search first, like a search.
  priceChanges: SEARCH_PER_MINUTE,
  // Shrinkflation (issue 32 item 4): the window's size changes (a few) with two indexed price reads
  // each, judged in memory; filtered by chain, shelf or listing, like a search.
  shrinkflation: SEARCH_PER_MINUTE,
};

/** `extensions.code` of a refusal. */
export const RATE_LIMITED_CODE = 'RATE_LIMITED';

/**
 * Most (client, field) counters kept. Past it the least recently counted are forgotten, so a flood
 * of distinct addresses (IPv6 makes that cheap) cannot grow memory without end; at most a forgotten
 * client gets a fresh window.
 */
export const MAX_TRACKED = 50_000;

/**
 * An in-memory sliding-window store for the rate limiter: like the package's InMemoryStore, but
 * each write is O(its own timestamps) instead of copying every client's state, expired counters
 * are dropped, and at most {@link MAX_TRACKED} are kept.
 */
export class WindowStore implements Store {
  /** Counters by key, least recently written first (Map insertion order). */
  private readonly entries = new Map<string, { timestamps: readonly number[]; expires: number }>();

  /** @param maxEntries how many (client, field) counters to keep at most. */
  constructor(private readonly maxEntries = MAX_TRACKED) {}

  /** Timestamps of the counted calls of `identity` still inside its window. */
  getForIdentity(identity: Identity): readonly number[] {
    const entry = this.entries.get(key(identity));
    return entry && entry.expires > Date.now() ? entry.timestamps : [];
  }

  /** Replaces the counted calls of `identity`; they expire `windowMs` after the latest one. */
  setForIdentity(identity: Identity, timestamps: readonly number[], windowMs = WINDOW_SECONDS * 1000): void {
    const k = key(identity);
    this.entries.delete(k);
    if (timestamps.length) this.entries.set(k, { timestamps: [...timestamps], expires: Math.max(...timestamps) + windowMs });
    const now = Date.now();
    for (const [oldest, entry] of this.entries) {
      if (entry.expires > now && this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  /** Counters currently kept. */
  get size(): number {
    return this.entries.size;
  }
}

function key({ contextIdentity, fieldIdentity }: Identity): string {
  return `${contextIdentity}\u0000${fieldIdentity}`;
}

/** The client address of a /graphql context (Yoga's server context carries Fastify's `req`). */
export function clientAddress(context: unknown): string {
  const req = (context as { req?: { ip?: unknown } } | null)?.req;
  return typeof req?.ip === 'string' && req.ip ? req.ip : 'unknown';
}

/** The rate-limiter plugin for {@link FIELD_LIMITS}, counting into `store`. */
export function fieldLimitsPlugin(store: Store = new WindowStore()): Plugin {
  return useRateLimiter({
    identifyFn: clientAddress,
    store,
    configByField: Object.entries(FIELD_LIMITS).map(([field, max]) => ({
      type: 'Query',
      field,
      max,
      window: `${WINDOW_SECONDS}s`,
      // A refused call is not counted: a client that keeps knocking is let in once its window
      // has room again, and a counter never holds more than `max` timestamps.
      uncountRejected: true,
    })),
    formatError: ({ fieldName, max }) =>
      `Too many ${fieldName} calls: at most ${max} a minute per client. Retry in ${WINDOW_SECONDS} seconds, ` +
      'or use the nightly exports (/data/latest/manifest.json) for bulk work.',
    transformError: (message) =>
      new GraphQLError(message, {
        extensions: { code: RATE_LIMITED_CODE, http: { status: 429, headers: { 'Retry-After': String(WINDOW_SECONDS) } } },
      }),
  }) as Plugin;
}
