/**
 * Batched reads behind the graph's relations for dashboards (issue 20): each takes every key one
 * GraphQL request asks for (through a dataloader, src/context.ts) and answers them in one or two
 * statements, so a nested selection costs a fixed number of statements whatever its size.
 */
import type pg from 'pg';
import { historyColumns, type HistoryColumns, type Span } from '../domain/spans.js';
import { SPAN_COLS } from './span-sql.js';
import { nameOrBrandSql } from './text-filter.js';

/** One history request: a listing, nationally (`storeId` 0) or at one store. */
export interface HistoryKey {
  listingId: number;
  storeId: number;
}

/** A span with its key and its scope's covered day. */
type KeyedSpan = Span & { listing_id: number; store_id: number; scope_covered_day: string | null };

/**
 * Price spans (oldest first, as parallel arrays) of every key, as src/services/history.ts
 * listingHistory reads one: national spans in one statement, store spans in another (each only
 * when asked for). Unknown listings or stores give empty arrays. @returns histories in key order.
 */
export async function listingHistories(pool: pg.Pool, keys: readonly HistoryKey[]): Promise<HistoryColumns[]> {
  const national = [...new Set(keys.filter((k) => k.storeId === 0).map((k) => k.listingId))];
  const atStores = keys.filter((k) => k.storeId !== 0);
  const [n, s] = await Promise.all([
    national.length === 0
      ? { rows: [] as KeyedSpan[] }
      : pool.query<KeyedSpan>(
          `SELECT sp.listing_id, 0 AS store_id, ${SPAN_COLS}, r.covered_day AS scope_covered_day
           FROM national_price_span sp JOIN listing l ON l.id = sp.listing_id JOIN retailer r ON r.id = l.retailer_id
           WHERE sp.listing_id = ANY($1::int[]) ORDER BY sp.listing_id, sp.first_day, sp.id`,
          [national],
        ),
    atStores.length === 0
      ? { rows: [] as KeyedSpan[] }
      : pool.query<KeyedSpan>(
          `SELECT sp.listing_id, sp.store_id, ${SPAN_COLS}, st.covered_day AS scope_covered_day
           FROM (SELECT DISTINCT * FROM unnest($1::int[], $2::int[]) AS k(listing_id, store_id)) k
           JOIN store_price_span sp ON sp.listing_id = k.listing_id AND sp.store_id = k.store_id
           JOIN store st ON st.id = sp.store_id
           ORDER BY sp.listing_id, sp.store_id, sp.first_day, sp.id`,
          [atStores.map((k) => k.listingId), atStores.map((k) => k.storeId)],
        ),
  ]);
  const byKey = new Map<string, KeyedSpan[]>();
  for (const row of [...n.rows, ...s.rows]) {
    const key = `${row.listing_id}:${row.store_id}`;
    const list = byKey.get(key);
    if (list) list.push(row);
    else byKey.set(key, [row]);
  }
  return keys.map((k) => {
    const spans = byKey.get(`${k.listingId}:${k.storeId}`) ?? [];
    return historyColumns(spans, spans[0]?.scope_covered_day ?? null);
  });
}

/**
 * The spans of `h` that overlap the days `from` to `to` (inclusive; either may be null for
 * unbounded), each clipped to the window. Returns a new value.
 */
export function clipHistory(h: HistoryColumns, from: string | null, to: string | null): HistoryColumns {
  const out: HistoryColumns = { from: [], to: [], price: [], promo: [], kind: [], multibuy_qty: [], multibuy_price: [] };
  h.from.forEach((first, i) => {
    const last = h.to[i];
    if ((from !== null && last < from) || (to !== null && first > to)) return;
    out.from.push(from !== null && first < from ? from : first);
    out.to.push(to !== null && last > to ? to : last);
    out.price.push(h.price[i]);
    out.promo.push(h.promo[i]);
    out.kind.push(h.kind[i]);
    out.multibuy_qty.push(h.multibuy_qty[i]);
    out.multibuy_price.push(h.multibuy_price[i]);
  });
  return out;
}

/** One page request of a shelf's products: its shelf set, the page size and the rank after which it starts. */
export interface ShelfProductsKey {
  /** The shelf's slug (the loader's cache key with `first` and `after`). */
  slug: string;
  /** The shelf and every shelf below it (src/domain/shelves.ts shelfSet). */
  leaves: readonly string[];
  first: number;
  /** `rank_popular` of the last product of the previous page (0: from the start). */
  after: number;
}

/** A product on a shelf with its place in the popular order. */
export interface ShelfProductRank {
  productId: number;
  rank: number;
}

/** One page of a shelf's products: up to `first` of them, and whether more follow. */
export interface ShelfProductsPage {
  products: ShelfProductRank[];
  hasNextPage: boolean;
}

/**
 * Pages of linked products on shelves from the shelves view (`shelf_product`), in its popular
 * order (`rank_popular`: most chains, most stores, name), one statement for every key. A product
 * is on a shelf when its group sits on a shelf of the shelf's set. @returns pages in key order.
 */
export async function shelfProductPages(pool: pg.Pool, keys: readonly ShelfProductsKey[]): Promise<ShelfProductsPage[]> {
  const pairs = keys.flatMap((k, i) => k.leaves.map((leaf) => [i + 1, leaf] as const));
  const { rows } = await pool.query<{ i: string; product_id: number; rank: number }>(
    `WITH leaf AS (SELECT * FROM unnest($1::int[], $2::text[]) AS x(i, slug))
     SELECT k.i, p.product_id, p.rank
     FROM unnest($3::int[], $4::int[]) WITH ORDINALITY AS k(lim, after, i)
     CROSS JOIN LATERAL (
       SELECT sp.product_id, sp.rank_popular AS rank FROM shelf_product sp
       WHERE sp.product_id IS NOT NULL AND sp.rank_popular > k.after
         AND sp.shelf_slug IN (SELECT leaf.slug FROM leaf WHERE leaf.i = k.i)
       ORDER BY sp.rank_popular LIMIT k.lim
     ) p
     ORDER BY k.i, p.rank`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1]), keys.map((k) => k.first + 1), keys.map((k) => k.after)],
  );
  const pages = keys.map(() => ({ products: [] as ShelfProductRank[], hasNextPage: false }));
  for (const row of rows) pages[Number(row.i) - 1].products.push({ productId: row.product_id, rank: Number(row.rank) });
  return pages.map((page, i) => {
    const more = page.products.length > keys[i].first;
    return { products: page.products.slice(0, keys[i].first), hasNextPage: more };
  });
}

/** One page request of a chain's listings: its filter (as ILIKE patterns and flags), page size and the id after which it starts. */
export interface ChainListingsKey {
  retailerId: number;
  /** `%text%` for the name or brand (src/services/text-filter.ts substringPattern, the **substring** rule); null for none. */
  q: string | null;
  /** The brand as an escaped ILIKE pattern (text-filter.ts likeLiteral, the **exact** rule); null for none. */
  brand: string | null;
  available: boolean | null;
  linked: boolean | null;
  first: number;
  /** Listing id of the last row of the previous page (0: from the start). */
  after: number;
}

/** One page of a chain's listings: ids in id order, and whether more follow. */
export interface ChainListingsPage {
  ids: number[];
  hasNextPage: boolean;
}

const KEYS_CTE = `k AS (SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::bool[], $5::bool[], $6::int[], $7::int[])
                      WITH ORDINALITY AS k(retailer_id, q, brand, available, linked, lim, after, i))`;
const LISTING_MATCH = `l.retailer_id = k.retailer_id
       AND (k.q IS NULL OR ${nameOrBrandSql('l', 'k.q')})
       AND (k.brand IS NULL OR l.brand ILIKE k.brand)
       AND (k.available IS NULL OR l.available = k.available)
       AND (k.linked IS NULL OR (l.product_id IS NOT NULL) = k.linked)`;

function keyParams(keys: readonly ChainListingsKey[], lim: (k: ChainListingsKey) => number): unknown[] {
  return [
    keys.map((k) => k.retailerId), keys.map((k) => k.q), keys.map((k) => k.brand), keys.map((k) => k.available),
    keys.map((k) => k.linked), keys.map(lim), keys.map((k) => k.after),
  ];
}

/**
 * Pages of chains' listings in id order (keyset: ids after `after`), one statement for every key:
 * an index walk per key (`LIMIT first + 1`), never the whole catalogue. @returns pages in key order.
 */
export async function chainListingPages(pool: pg.Pool, keys: readonly ChainListingsKey[]): Promise<ChainListingsPage[]> {
  const { rows } = await pool.query<{ i: string; id: number }>(
    `WITH ${KEYS_CTE}
     SELECT k.i, x.id FROM k CROSS JOIN LATERAL (
       SELECT l.id FROM listing l WHERE ${LISTING_MATCH} AND l.id > k.after ORDER BY l.id LIMIT k.lim
     ) x ORDER BY k.i, x.id`,
    keyParams(keys, (k) => k.first + 1),
  );
  const ids = keys.map(() => [] as number[]);
  for (const row of rows) ids[Number(row.i) - 1].push(row.id);
  return ids.map((list, i) => ({ ids: list.slice(0, keys[i].first), hasNextPage: list.length > keys[i].first }));
}

/** How many listings match each key's chain and filter (its page arguments ignored), one statement. */
export async function chainListingCounts(pool: pg.Pool, keys: readonly ChainListingsKey[]): Promise<number[]> {
  const { rows } = await pool.query<{ i: string; n: number }>(
    `WITH ${KEYS_CTE}
     SELECT k.i, (SELECT count(*)::int FROM listing l WHERE ${LISTING_MATCH}) AS n FROM k ORDER BY k.i`,
    keyParams(keys, () => 0),
  );
  return rows.map((r) => r.n);
}
