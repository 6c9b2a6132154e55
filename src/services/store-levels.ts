/**
 * Reads of the store and area price levels (api-spec Store, StoreDetail, StoreListings, StoreLevels,
 * Areas; issue 16). The rows are materialised by the derived-views worker (workers/views) into
 * store_level, store_level_day, store_listing and area_level (prisma/migrations/
 * 20261128000100_levels); nothing here computes a level or aggregates spans, it reads rows by key
 * and arranges them. Every read takes many stores at once (the request's dataloaders, src/context.ts)
 * and costs one statement whatever their number.
 *
 * A store's level is the weighted geometric mean over basket items of (store price ÷ its chain's
 * national median), null under 20 items (src/domain/levels.ts); a StoreListing's ratio is its shelf
 * price at the store ÷ the chain's national median that day. Money in integer NZ cents.
 */
import type pg from 'pg';
import { BadRequest } from '../errors.js';
import { INDEX_WINDOW } from './food-index.js';
import { DEAL_PROMO_KINDS } from '../domain/deals.js';
import { PROMO_KIND } from '../domain/spans.js';
import { multibuyUnitPriceSql } from './span-sql.js';
import { allWordsParamsSql, filterText, wordPatterns } from './text-filter.js';
import { STORE_LISTING_LIMIT } from '../domain/limits.js';
/** get_store_listings `limit`, held in src/domain/limits.ts. */
export { STORE_LISTING_LIMIT };


/** get_store_levels `days`: default 365, 7 to 3650 (api-spec Limits, the same window as the index's). */
export const STORE_LEVEL_WINDOW = INDEX_WINDOW;

/** StoreDetail `dearer` and `cheaper`: the eight biggest markups and markdowns (api-spec StoreDetail). */
export const EXTREMES = 8;

/** Most current deals StoreDetail lists (biggest saving first). */
export const STORE_DEALS_CAP = 24;

/** Bins of the shelf-price histogram: 0 (< 0.80), 1 to 20 (0.80 to 1.20 in 0.02 steps), 21 (≥ 1.20). */
export const SPREAD_BINS = 22;

/** api-spec GroupLevel: one basket group's level at a store. */
export interface GroupLevel {
  code: string;
  name: string;
  level: number;
  n: number;
}

/** A store's current panel (store_level): api-spec Store level and counts, StoreDetail groups, spread, listings_priced. */
export interface StorePanel {
  /** Latest day of the panel (the store's latest observation); null when the view holds no row. */
  day: string | null;
  /** Basket level vs the chain's national median; null under 20 items or when no row. */
  level: number | null;
  n_items: number;
  groups: GroupLevel[];
  /** {@link SPREAD_BINS} counts, bucket 0 first. */
  spread: number[];
  listings_priced: number;
  club: number;
  sale: number;
  multibuy: number;
}

/** A panel and whether the store has a store_level row (`found` false: the zeros of {@link emptyPanel}). */
export type StorePanelRow = StorePanel & { found: boolean };

/** The panel of a store the view holds no row for: level null, every count 0, 22 empty bins. */
export function emptyPanel(): StorePanelRow {
  return {
    found: false, day: null, level: null, n_items: 0, groups: [], spread: new Array<number>(SPREAD_BINS).fill(0),
    listings_priced: 0, club: 0, sale: 0, multibuy: 0,
  };
}

/**
 * GroupLevel entries of store_level.groups that carry a level (the contract's `level` is a
 * number): entries with a null or non-positive level are left out; ordered as stored.
 */
export function groupLevels(raw: unknown): GroupLevel[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((g) => {
    const e = g as Partial<GroupLevel> | null;
    return e && typeof e.code === 'string' && typeof e.name === 'string' && typeof e.level === 'number' && e.level > 0 && Number.isFinite(e.level)
      ? [{ code: e.code, name: e.name, level: e.level, n: Number.isInteger(e.n) ? (e.n as number) : 0 }]
      : [];
  });
}

/** The 22 histogram counts of a stored spread, padded or cut to {@link SPREAD_BINS}. */
function spreadCounts(spread: readonly (number | null)[] | null): number[] {
  return Array.from({ length: SPREAD_BINS }, (_, i) => spread?.[i] ?? 0);
}

/** The current panels (store_level rows) of `storeIds`, by store id; stores without a row are absent. One statement. */
export async function storePanels(pool: pg.Pool, storeIds: readonly number[]): Promise<Map<number, StorePanelRow>> {
  const { rows } = await pool.query<Omit<StorePanel, 'groups'> & { store_id: number; groups: unknown }>(
    `SELECT store_id, day::text AS day, level, n_items, groups, spread, listings_priced, club, sale, multibuy
     FROM store_level WHERE store_id = ANY($1::int[])`,
    [storeIds],
  );
  return new Map(
    rows.map(({ store_id, groups, spread, ...r }) => [store_id, { ...r, found: true, groups: groupLevels(groups), spread: spreadCounts(spread) }]),
  );
}

/**
 * One listing priced at a store this week (a store_listing row with its listing's card fields):
 * api-spec StoreListing, and the ListingCard of a store's deal.
 */
export interface StoreListingRow {
  store_id: number;
  /** Listing id. */
  id: number;
  /** Retailer slug. */
  retailer: string;
  name: string;
  brand: string | null;
  size_text: string | null;
  image: string | null;
  product_id: number | null;
  /** listing.available (the card's `available` also needs the latest national span). */
  available_flag: boolean;
  /** The day of the store observation (its latest store span). */
  day: string;
  /** Shelf price at the store, cents. */
  price: number;
  promo_price: number | null;
  promo_kind: number | null;
  /** From the store span in force that day, for a multibuy (promo kind 3); else null. */
  multibuy_qty: number | null;
  multibuy_price: number | null;
  /** The chain's national median that day, cents. */
  median: number;
  /** price ÷ median. */
  ratio: number;
}

/**
 * The selected columns of a StoreListingRow from `sl` (store_listing, which keeps a multibuy's
 * terms since migration 20261129000200) joined to `l` (listing) and `r` (retailer).
 */
const ROW_COLUMNS = `sl.store_id, sl.listing_id AS id, r.slug AS retailer, l.name, l.brand, l.size_text, l.image, l.product_id,
  l.available AS available_flag, sl.day::text AS day, sl.price, sl.promo_price, sl.promo_kind::int AS promo_kind,
  sl.multibuy_qty, sl.multibuy_price, sl.median, sl.ratio`;

/** The eight biggest markups and markdowns of a store (api-spec StoreDetail `dearer`, `cheaper`). */
export interface StoreExtremes {
  /** Ratio above 1, highest first (ties by listing id); at most {@link EXTREMES}. */
  dearer: StoreListingRow[];
  /** Ratio below 1, lowest first (ties by listing id); at most {@link EXTREMES}. */
  cheaper: StoreListingRow[];
}

/**
 * The dearer and cheaper listings of each store (api-spec StoreDetail): the {@link EXTREMES}
 * store_listing rows with the highest ratio above 1, and those with the lowest ratio below 1 (a
 * listing at exactly the median is neither). Stores with none are absent. One statement (two
 * indexed scans of store_listing_ratio_idx per store).
 */
export async function storeExtremes(pool: pg.Pool, storeIds: readonly number[]): Promise<Map<number, StoreExtremes>> {
  const side = (cond: string, order: string) => `
    SELECT x.* FROM unnest($1::int[]) AS s(id)
    CROSS JOIN LATERAL (
      SELECT ${ROW_COLUMNS}, '${order === 'DESC' ? 'dearer' : 'cheaper'}' AS side
      FROM store_listing sl JOIN listing l ON l.id = sl.listing_id JOIN retailer r ON r.id = l.retailer_id
      WHERE sl.store_id = s.id AND ${cond}
      ORDER BY sl.ratio ${order}, sl.listing_id LIMIT ${EXTREMES}
    ) x`;
  const { rows } = await pool.query<StoreListingRow & { side: 'dearer' | 'cheaper' }>(
    `${side('sl.ratio > 1', 'DESC')} UNION ALL ${side('sl.ratio < 1', 'ASC')}`,
    [storeIds],
  );
  const out = new Map<number, StoreExtremes>();
  for (const { side: s, ...row } of rows) {
    const e = out.get(row.store_id) ?? { dearer: [], cheaper: [] };
    e[s].push(row);
    out.set(row.store_id, e);
  }
  for (const e of out.values()) {
    e.dearer.sort((a, b) => b.ratio - a.ratio || a.id - b.id);
    e.cheaper.sort((a, b) => a.ratio - b.ratio || a.id - b.id);
  }
  return out;
}

/**
 * Saving per unit in cents of a promotion row, SQL over the columns of {@link ROW_COLUMNS}'s
 * sources: a special or club price saves price − promo_price; a multibuy saves price − its unit
 * price (multibuy_price ÷ multibuy_qty from the store span: `multibuyUnitPriceSql`, else
 * promo_price when the terms are unknown).
 */
const SAVING_SQL = `(sl.price - CASE WHEN sl.promo_kind = ${PROMO_KIND.multibuy} AND sl.multibuy_qty > 0 THEN ${multibuyUnitPriceSql('sl')}
  ELSE sl.promo_price::float8 END)`;

/**
 * The current deals of each store (api-spec StoreDetail `deals`): its store_listing rows (listings
 * priced there this week, from their latest store span) carrying a special (promo kind 1), club
 * price (2) or multibuy (3) that is cheaper per unit than the shelf price, biggest saving first —
 * saving as a share of the shelf price, then in cents, then listing id — at most
 * {@link STORE_DEALS_CAP}. Clearance (4) is not a deal. Stores with none are absent. One statement.
 */
export async function storeDeals(pool: pg.Pool, storeIds: readonly number[]): Promise<Map<number, StoreListingRow[]>> {
  const { rows } = await pool.query<StoreListingRow & { saving: number }>(
    `SELECT x.* FROM unnest($1::int[]) AS s(id)
     CROSS JOIN LATERAL (
       -- The page from store_listing alone, then its listings: joining every deal of the store to
       -- listing before the LIMIT cost 35-67 ms at 7,869 deals (SYNTHETIC 120,000-listing panel).
       SELECT ${ROW_COLUMNS}, sl.saving
       FROM (
         SELECT sl.*, ${SAVING_SQL} AS saving FROM store_listing sl
         WHERE sl.store_id = s.id AND sl.promo_kind IN (${DEAL_PROMO_KINDS.join(', ')}) AND ${SAVING_SQL} > 0
         ORDER BY ${SAVING_SQL} / sl.price DESC, ${SAVING_SQL} DESC, sl.listing_id
         LIMIT ${STORE_DEALS_CAP}
       ) sl
       JOIN listing l ON l.id = sl.listing_id JOIN retailer r ON r.id = l.retailer_id
       ORDER BY sl.saving / sl.price DESC, sl.saving DESC, sl.listing_id
     ) x`,
    [storeIds],
  );
  const out = new Map<number, StoreListingRow[]>();
  for (const { saving: _saving, ...row } of rows) {
    const list = out.get(row.store_id) ?? [];
    list.push(row);
    out.set(row.store_id, list);
  }
  return out;
}

/** One page request of a store's listings (get_store_listings). */
export interface StoreListingsKey {
  storeId: number;
  /** Text filter (trimmed; null or blank: none). */
  q: string | null;
  limit: number;
  offset: number;
}

/** api-spec StoreListings. */
export interface StoreListingsPage {
  /** Listings matching q at the store (all pages). */
  total: number;
  limit: number;
  offset: number;
  listings: StoreListingRow[];
}

/**
 * A checked page request: `q` trimmed, `limit` and `offset` defaulted.
 * @throws BadRequest for q over 100 characters, limit outside 1..96, or a negative offset.
 */
export function storeListingsKey(storeId: number, args: { q?: string | null; limit?: number | null; offset?: number | null }): StoreListingsKey {
  const limit = args.limit ?? STORE_LISTING_LIMIT.default;
  if (!Number.isInteger(limit) || limit < STORE_LISTING_LIMIT.min || limit > STORE_LISTING_LIMIT.max) {
    throw new BadRequest(`Invalid parameter "limit": must be an integer from ${STORE_LISTING_LIMIT.min} to ${STORE_LISTING_LIMIT.max}`);
  }
  const offset = args.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new BadRequest('Invalid parameter "offset": must be an integer of at least 0');
  return { storeId, q: filterText(args.q), limit, offset };
}

/**
 * Pages of store listings (api-spec get_store_listings), aligned with `keys`: the store_listing
 * rows of the store (every listing priced there this week, with the chain's national median and
 * the ratio), filtered by `q` — the **words** rule of src/services/text-filter.ts: every word of
 * the query, normalised as the search normalises text (lowercase, accents, apostrophes and hyphens
 * removed), must occur in the listing's normalised brand and name — dearest against the median
 * first (ratio descending, then listing id), `limit` rows from `offset`, with the true `total` of
 * matches. The keys without `q` in one statement; each key with `q` in its own, one parameter per
 * word, so that the trigram index on listing.search_name can find the matches before the store's
 * rows are read (a batched statement tested every row of the store against every word: p99 489 ms
 * on a SYNTHETIC panel of 200 stores × 120,000 listings).
 */
export async function storeListingPages(pool: pg.Pool, keys: readonly StoreListingsKey[]): Promise<StoreListingsPage[]> {
  const pages: StoreListingsPage[] = keys.map((k) => ({ total: 0, limit: k.limit, offset: k.offset, listings: [] }));
  const plain = keys.flatMap((k, i) => (k.q === null ? [i] : []));
  const filtered = keys.flatMap((k, i) => (k.q === null ? [] : [i]));
  await Promise.all([
    plain.length === 0 ? null : unfilteredPages(pool, plain.map((i) => keys[i])).then((got) => got.forEach((p, j) => { pages[plain[j]] = p; })),
    ...filtered.map((i) => filteredPage(pool, keys[i]).then((p) => { pages[i] = p; })),
  ]);
  return pages;
}

/** {@link storeListingPages} for keys without `q`: one statement for all. */
async function unfilteredPages(pool: pg.Pool, keys: readonly StoreListingsKey[]): Promise<StoreListingsPage[]> {
  const { rows } = await pool.query<{ i: string; total: number } & ({ [K in keyof StoreListingRow]: StoreListingRow[K] | null })>(
    `SELECT k.i, t.total, x.*
     FROM unnest($1::int[], $2::int[], $3::int[]) WITH ORDINALITY AS k(store_id, lim, off, i)
     CROSS JOIN LATERAL (SELECT count(*)::int AS total FROM store_listing sl WHERE sl.store_id = k.store_id) t
     LEFT JOIN LATERAL (
       SELECT ${ROW_COLUMNS}
       FROM store_listing sl JOIN listing l ON l.id = sl.listing_id JOIN retailer r ON r.id = l.retailer_id
       WHERE sl.store_id = k.store_id
       ORDER BY sl.ratio DESC, sl.listing_id
       LIMIT k.lim OFFSET k.off
     ) x ON true
     ORDER BY k.i, x.ratio DESC, x.id`,
    [keys.map((k) => k.storeId), keys.map((k) => k.limit), keys.map((k) => k.offset)],
  );
  const pages: StoreListingsPage[] = keys.map((k) => ({ total: 0, limit: k.limit, offset: k.offset, listings: [] }));
  for (const { i, total, ...row } of rows) {
    const page = pages[Number(i) - 1];
    page.total = total;
    if (row.id !== null) page.listings.push(row as StoreListingRow);
  }
  return pages;
}

/** {@link storeListingPages} for one key with `q`: its matches once, then their count and the page. */
async function filteredPage(pool: pg.Pool, key: StoreListingsKey): Promise<StoreListingsPage> {
  const patterns = wordPatterns(key.q!);
  const { rows } = await pool.query<{ total: number } & ({ [K in keyof StoreListingRow]: StoreListingRow[K] | null })>(
    `WITH m AS MATERIALIZED (
       SELECT ${ROW_COLUMNS}
       FROM store_listing sl JOIN listing l ON l.id = sl.listing_id JOIN retailer r ON r.id = l.retailer_id
       WHERE sl.store_id = $1 AND ${allWordsParamsSql('l.search_name', 4, patterns.length)}
     )
     SELECT t.total, p.* FROM (SELECT count(*)::int AS total FROM m) t
     LEFT JOIN LATERAL (SELECT * FROM m ORDER BY m.ratio DESC, m.id LIMIT $2 OFFSET $3) p ON true
     ORDER BY p.ratio DESC, p.id`,
    [key.storeId, key.limit, key.offset, ...patterns],
  );
  const page: StoreListingsPage = { total: rows[0]?.total ?? 0, limit: key.limit, offset: key.offset, listings: [] };
  for (const { total: _, ...row } of rows) if (row.id !== null) page.listings.push(row as StoreListingRow);
  return page;
}

/** One level series request of a store (get_store_levels). */
export interface StoreLevelsKey {
  storeId: number;
  days: number;
}

/** api-spec StoreLevels: arrays aligned with `days`. */
export interface StoreLevels {
  days: string[];
  /** 1.0 is the chain's national median that day; null under 20 priced basket items. */
  level: (number | null)[];
  /** Basket items priced at the store that day. */
  items: (number | null)[];
}

/** @throws BadRequest when `days` is not an integer within {@link STORE_LEVEL_WINDOW}. */
export function checkLevelWindow(days: number): number {
  if (!Number.isInteger(days) || days < STORE_LEVEL_WINDOW.min || days > STORE_LEVEL_WINDOW.max) {
    throw new BadRequest(`Invalid parameter "days": must be an integer from ${STORE_LEVEL_WINDOW.min} to ${STORE_LEVEL_WINDOW.max}`);
  }
  return days;
}

/**
 * Daily level series of stores (api-spec get_store_levels), aligned with `keys`: the store_level_day
 * rows (the store spans in force each day) of the `days` calendar days ending at the store's latest
 * row — its last computed day, not today — oldest first; `level` null where fewer than 20 basket
 * items were priced (as stored), `items` the basket items priced that day. Empty arrays for a store
 * without rows. One statement for every key.
 */
export async function storeLevelSeries(pool: pg.Pool, keys: readonly StoreLevelsKey[]): Promise<StoreLevels[]> {
  const { rows } = await pool.query<{ i: string; days: string[] | null; level: (number | null)[] | null; items: number[] | null }>(
    `SELECT k.i, x.days, x.level, x.items
     FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS k(store_id, days, i)
     LEFT JOIN LATERAL (SELECT max(day) AS last FROM store_level_day WHERE store_id = k.store_id) e ON true
     LEFT JOIN LATERAL (
       SELECT array_agg(d.day::text ORDER BY d.day) AS days, array_agg(d.level ORDER BY d.day) AS level,
              array_agg(d.n_items ORDER BY d.day) AS items
       FROM store_level_day d WHERE d.store_id = k.store_id AND d.day BETWEEN e.last - (k.days - 1) AND e.last
     ) x ON true
     ORDER BY k.i`,
    [keys.map((k) => k.storeId), keys.map((k) => k.days)],
  );
  const out: StoreLevels[] = keys.map(() => ({ days: [], level: [], items: [] }));
  for (const r of rows) out[Number(r.i) - 1] = { days: r.days ?? [], level: r.level ?? [], items: r.items ?? [] };
  return out;
}

/** api-spec Area: one region, urban class or town. */
export interface Area {
  key: string;
  label: string;
  /** Item-weighted geometric mean of the stores' levels (chain mix taken out); null when none has a level. */
  level: number | null;
  stores: number;
  chains: string[];
  towns: string[];
}

/** api-spec Areas. */
export interface Areas {
  regions: Area[];
  /** By urban class, main centres first. */
  urban: Area[];
  towns: Area[];
}

/**
 * Every area of area_level (api-spec list_areas), each scope in the view's order (`ord`, then key):
 * regions, urban classes (main centres first), towns. Empty lists before the view is built. One statement.
 */
export async function areaLevels(pool: pg.Pool): Promise<Areas> {
  const { rows } = await pool.query<Area & { scope: 'region' | 'urban' | 'town' }>(
    `SELECT scope, key, label, level, stores, chains, towns FROM area_level ORDER BY scope, ord, key`,
  );
  const areas: Areas = { regions: [], urban: [], towns: [] };
  const lists = { region: areas.regions, urban: areas.urban, town: areas.towns };
  for (const { scope, ...area } of rows) lists[scope].push(area);
  return areas;
}
