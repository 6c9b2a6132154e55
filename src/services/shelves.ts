/**
 * Reads of the shelves (issue 17; api-spec ShelfSummary, ShelfPage, list_shelves, browse_shelf).
 * The directory is src/domain/shelves.ts; the products and counts are rows of the derived view
 * (workers/views/shelves.ts: `shelf_product`, `shelf_count`). Nothing here reads a span: a page is
 * one statement over the shelf's rows (plus one for a retailer slug). Ids only: the products'
 * names, offers and prices are resolved by the graph, as search_products' groups are.
 *
 * **browse_shelf rules.**
 * - The set: products whose leaf shelf is the shelf or one below it (`shelfSet`).
 * - `q`: every word (letters and digits, after search_normalize) is a prefix of a word of the
 *   product's or its listings' names and brands or its kind's label (or an English stem of one);
 *   a `q` with no letters or digits filters nothing.
 * - `retailer`: only products with a current offer at that chain; `best`, `per_unit`, the price and
 *   per-unit sorts, `deal` and the `deals` filter then use that chain's offer. Unknown slug: 400.
 * - `deals`: only products with an offer below its shelf price (at the chain, with `retailer`).
 * - `kind`: only products of that kind; a kind that is not on the shelf (or no kind at all) gives
 *   an empty page (200) whose facets still show the shelf's kinds.
 * - Sorts (ties always end: most chains, most stores, name, group key — the `popular` order):
 *   `popular` most chains then most stores; `price`/`price_desc` the best admitted price;
 *   `per_unit`/`per_unit_desc` its price per the shelf's compare unit, products without one last in
 *   both, then by price (ascending/descending); `deal` biggest discount share first, then cheapest;
 *   `relevance` text rank of `q` (the default when `q` has words; without words it is `popular`,
 *   echoed so).
 * - **A shelf without a compare unit** (a department or aisle whose sub-shelves compare in
 *   different units): `unit` and every `per_unit` are null, so the per-unit sorts order by price.
 * - Facets: `kinds` counts products under every filter but `kind`, most first (then slug);
 *   `retailers` every filter but `retailer` (with `deals`, products with a deal at that chain), most
 *   first (then slug). Each count is the `total` the page would have with that value chosen.
 */
import type pg from 'pg';
import { KINDS } from '../domain/kinds.js';
import { children, getShelf, kindsUnder, resolveShelfWord, shelfSet, SHELVES, type Shelf } from '../domain/shelves.js';
import { BadRequest, checkedInt, NotFound } from '../errors.js';
import { retailerIdBySlug } from './search.js';
import { filterText, hasPrefixWords, prefixTsquerySql } from './text-filter.js';
import { MAX_KIND_LENGTH, OFFSET, SHELF_LIMIT } from '../domain/limits.js';
/** browse_shelf's limits, held in src/domain/limits.ts. */
export { MAX_KIND_LENGTH, SHELF_LIMIT };
/** Largest `offset` (a GraphQL Int): src/domain/limits.ts OFFSET.max. */
export const MAX_SHELF_OFFSET = OFFSET.max;

/** browse_shelf sorts (api-spec ShelfPage params.sort), in the contract's order. */
export const SHELF_SORTS = ['popular', 'per_unit', 'per_unit_desc', 'price', 'price_desc', 'deal', 'relevance'] as const;
/** A browse_shelf sort. */
export type ShelfSort = (typeof SHELF_SORTS)[number];

/** Products per shelf (its sub-shelves included) from `shelf_count`; a shelf without a row has 0. */
export async function shelfCounts(pool: pg.Pool): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ slug: string; products: number }>('SELECT slug, products FROM shelf_count');
  return new Map(rows.map((r) => [r.slug, r.products]));
}

/**
 * The directory in list_shelves order: departments first (most products first, then label), then
 * aisles grouped by department in that order, then sub-shelves grouped by aisle; within a parent,
 * most products first, then label.
 */
export function directoryOrder(counts: ReadonlyMap<string, number>): Shelf[] {
  const n = (s: Shelf) => counts.get(s.slug) ?? 0;
  const byCount = (a: Shelf, b: Shelf) => n(b) - n(a) || a.label.localeCompare(b.label, 'en') || a.slug.localeCompare(b.slug);
  const out: Shelf[] = SHELVES.filter((s) => s.depth === 1).sort(byCount);
  for (let depth = 2; depth <= 3; depth++) {
    const parents = out.filter((s) => s.depth === depth - 1);
    for (const p of parents) out.push(...children(p.slug).sort(byCount));
  }
  return out;
}

/**
 * list_shelves: the whole directory ({@link directoryOrder}), or with `q` the one shelf the word
 * names (src/domain/shelves.ts resolveShelfWord: label or alias, case, accents, "&"/"and" and
 * plurals ignored) or none. A blank `q` is no `q`.
 * @param count a shelf's products (the request's `shelfProducts` loader, so the counts the
 *   summaries show are read once).
 * @throws BadRequest when `q` is over 100 characters.
 */
export async function listShelves(q: string | null | undefined, count: (slug: string) => Promise<number>): Promise<Shelf[]> {
  const text = filterText(q);
  if (text !== null) {
    const shelf = resolveShelfWord(text);
    return shelf ? [shelf] : [];
  }
  const counts = await Promise.all(SHELVES.map(async (s) => [s.slug, await count(s.slug)] as const));
  return directoryOrder(new Map(counts));
}

/** Arguments of browse_shelf (validated by the facades; checked again here for /graphql). */
export interface ShelfPageArgs {
  slug: string;
  sort?: ShelfSort | string | null;
  retailer?: string | null;
  deals?: boolean | null;
  kind?: string | null;
  q?: string | null;
  limit?: number | null;
  offset?: number | null;
}

/** The request as applied (api-spec ShelfPage `params`). */
export interface ShelfPageParams {
  sort: ShelfSort;
  retailer: string | null;
  deals: boolean;
  kind: string | null;
  /** Trimmed; "" when none. */
  q: string;
  limit: number;
  offset: number;
}

/**
 * A shelf product's best offer (api-spec ShelfProduct `best`): its cheapest admitted offer
 * (src/domain/shelf-products.ts), or with `retailer` that chain's.
 */
export interface ShelfBest {
  /** Cents for one unit (per kg when sold by weight); fractional only for a multibuy rate (to a hundredth of a cent). */
  price: number;
  /** Retailer slug of the offer. */
  retailer: string;
  /** The listing of the offer. */
  listingId: number;
  /** 1 special, 2 club price, 3 multibuy; null when it is the shelf price. */
  promoKind: number | null;
  /** That listing's shelf price, cents. */
  shelfPrice: number;
}

/** One product of a page: which group it is, its best offer and per-unit price. */
export interface ShelfPageProduct {
  /** `p<product id>` or `l<listing id>` (src/domain/search-results.ts groupKey). */
  groupKey: string;
  productId: number | null;
  /** The listing of an unlinked group; null for a product. */
  listingId: number | null;
  best: ShelfBest;
  /** best.price per the shelf's compare unit, cents to a hundredth; null when not measured in it or the shelf has no unit. */
  perUnit: number | null;
}

/** A kinds facet entry. */
export interface ShelfKindFacet {
  slug: string;
  label: string;
  products: number;
}

/** A retailers facet entry. */
export interface ShelfRetailerFacet {
  slug: string;
  products: number;
}

/** One page of a shelf (api-spec ShelfPage; the shelf summaries are resolved by the graph). */
export interface ShelfPageResult {
  shelf: Shelf;
  /** The shelf's compare unit; null on a shelf of mixed units. */
  unit: Shelf['compareUnit'];
  kinds: ShelfKindFacet[];
  retailers: ShelfRetailerFacet[];
  total: number;
  params: ShelfPageParams;
  products: ShelfPageProduct[];
}

/**
 * ORDER BY of each sort over the live page columns (module comment); every order ends with the
 * popular order, stored as `rank_popular` (most chains, most stores, name, group key).
 */
const ORDER: Record<ShelfSort, string> = {
  popular: 'rank_popular',
  price: 'price, rank_popular',
  price_desc: 'price DESC, rank_popular',
  per_unit: 'per_unit NULLS LAST, price, rank_popular',
  per_unit_desc: 'per_unit DESC NULLS LAST, price DESC, rank_popular',
  deal: 'disc DESC, price, rank_popular',
  relevance: 'rank DESC, rank_popular',
};

/**
 * The stored rank column giving each product-level sort (no retailer, no q): the worker ranks
 * every shelf product by the same orders (workers/views/shelves.ts). On a shelf without a compare
 * unit the per-unit sorts are the price sorts.
 */
function rankColumn(sort: ShelfSort, unit: Shelf['compareUnit']): string {
  if (unit === null && sort === 'per_unit') return 'rank_price';
  if (unit === null && sort === 'per_unit_desc') return 'rank_price_desc';
  return sort === 'relevance' ? 'rank_popular' : `rank_${sort}`;
}

/** The tsquery of `$2` (the **prefix** rule of src/services/text-filter.ts), null without words. */
const QUERY_SQL = prefixTsquerySql('$2::text');

/**
 * The live CTEs (parameters: $1 shelf set, $2 q, $3 retailer id, $4 deals, $5 kind, $8 unit is
 * null): `base` the set under q, `chained` under retailer and deals, `hits` under kind.
 */
const LIVE_CTES = `tsq AS (SELECT CASE WHEN $2::text = '' THEN NULL ELSE ${QUERY_SQL} END AS q),
     base AS (
       SELECT sp.group_key, sp.product_id, sp.listing_id, sp.kind_slug, sp.rank_popular, sp.retailer_ids,
              sp.listing_ids, sp.shelf_prices, sp.best_prices, sp.promo_kinds, sp.per_units, sp.discount,
              CASE WHEN $3::int IS NULL THEN sp.best_at::int ELSE array_position(sp.retailer_ids, $3::int) END AS at,
              CASE WHEN tsq.q IS NULL THEN 0 ELSE ts_rank(sp.search_doc, tsq.q) END AS rank
         FROM shelf_product sp CROSS JOIN tsq
        WHERE sp.shelf_slug = ANY($1::text[]) AND (tsq.q IS NULL OR sp.search_doc @@ tsq.q)
     ),
     chained AS (
       SELECT b.*, b.best_prices[b.at] AS price, CASE WHEN $8::bool THEN NULL ELSE b.per_units[b.at] END AS per_unit,
              CASE WHEN $3::int IS NULL THEN b.discount ELSE (b.shelf_prices[b.at] - b.best_prices[b.at]) / b.shelf_prices[b.at] END AS disc
         FROM base b
        WHERE b.at IS NOT NULL AND (NOT $4::bool OR b.best_prices[b.at] < b.shelf_prices[b.at] OR ($3::int IS NULL AND b.discount > 0))
     ),
     hits AS (SELECT * FROM chained WHERE $5::text IS NULL OR kind_slug = $5::text)`;

/** The page columns (over a row with `at`, `price`, `per_unit`), joined to the best offer's retailer `r`. */
const PAGE_JSON = `json_build_object('group_key', p.group_key, 'product_id', p.product_id, 'listing_id', p.listing_id, 'price', p.price,
  'per_unit', p.per_unit, 'retailer', r.slug, 'best_listing_id', p.listing_ids[p.at], 'promo_kind', p.promo_kinds[p.at],
  'shelf_price', p.shelf_prices[p.at])`;

/** The live statement's facet columns (total, kinds, retailers) over its CTEs. */
const LIVE_FACETS = `(SELECT count(*)::int FROM hits) AS total,
       (SELECT coalesce(json_agg(json_build_object('slug', kind_slug, 'products', n) ORDER BY n DESC, kind_slug), '[]'::json)
          FROM (SELECT kind_slug, count(*)::int AS n FROM chained GROUP BY kind_slug) k) AS kinds,
       (SELECT coalesce(json_agg(json_build_object('slug', r.slug, 'products', x.n) ORDER BY x.n DESC, r.slug), '[]'::json)
          FROM (SELECT o.rid, count(*)::int AS n
                  FROM base b CROSS JOIN LATERAL unnest(b.retailer_ids, b.shelf_prices, b.best_prices) AS o(rid, shelf, best)
                 WHERE ($5::text IS NULL OR b.kind_slug = $5::text) AND (NOT $4::bool OR o.best < o.shelf)
                 GROUP BY o.rid) x JOIN retailer r ON r.id = x.rid) AS retailers`;

/** Facet entries sorted most products first, then slug. */
const bySize = <T extends { slug: string; products: number }>(xs: T[]) => xs.sort((a, b) => b.products - a.products || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));

/**
 * Total and facets without q from `shelf_facet` (module comment): each is a sum of per-kind,
 * per-chain counts, so nothing scans the shelf's products.
 */
async function storedFacets(pool: pg.Pool, kinds: string[], retailerId: number | null, deals: boolean, kind: string | null) {
  const { rows } = await pool.query<{ kind_slug: string; retailer_id: number; slug: string | null; n: number }>(
    `SELECT f.kind_slug, f.retailer_id, r.slug, CASE WHEN $2::bool THEN f.deals ELSE f.products END AS n
       FROM shelf_facet f LEFT JOIN retailer r ON r.id = f.retailer_id WHERE f.kind_slug = ANY($1::text[])`,
    [kinds, deals],
  );
  const at = retailerId ?? 0;
  const inKind = (k: string) => kind === null || k === kind;
  const total = rows.reduce((n, r) => n + (r.retailer_id === at && inKind(r.kind_slug) ? r.n : 0), 0);
  const kindRows = rows.filter((r) => r.retailer_id === at && r.n > 0).map((r) => ({ slug: r.kind_slug, products: r.n }));
  const chains = new Map<string, number>();
  for (const r of rows) if (r.retailer_id !== 0 && r.slug !== null && inKind(r.kind_slug)) chains.set(r.slug, (chains.get(r.slug) ?? 0) + r.n);
  const retailers = [...chains].filter(([, n]) => n > 0).map(([slug, products]) => ({ slug, products }));
  return { total, kinds: bySize(kindRows), retailers: bySize(retailers) };
}

const kindLabels = new Map(KINDS.map((k) => [k.slug, k.label]));

/**
 * browse_shelf: one page of a shelf, filtered, sorted and faceted server-side over the whole set
 * with a true total (module comment). Without `q`, the total and facets are sums of `shelf_facet`
 * rows and a page in a product-level sort (no `retailer`) is a walk of that sort's stored rank
 * index, so no request scans a whole department; with `retailer` the page is sorted on the chain's
 * offer over the set, and with `q` everything is counted over the matching products. Two
 * statements (one with `q`), plus one with `retailer`.
 * @throws NotFound for an unknown slug; BadRequest for an unknown sort or retailer, `q` over 100
 *   characters, `kind` over 100 characters, `limit` outside 1..96 or a negative `offset`.
 */
export async function shelfPage(pool: pg.Pool, args: ShelfPageArgs): Promise<ShelfPageResult> {
  const shelf = getShelf(args.slug);
  if (!shelf) throw new NotFound(`No shelf "${args.slug}" (see /api/v1/shelves)`);
  const q = filterText(args.q) ?? '';
  const kind = args.kind?.trim() || null;
  if (kind !== null && [...kind].length > MAX_KIND_LENGTH) throw new BadRequest(`Invalid parameter "kind": must be at most ${MAX_KIND_LENGTH} characters`);
  if (args.sort != null && !(SHELF_SORTS as readonly string[]).includes(args.sort)) {
    throw new BadRequest(`Invalid parameter "sort": must be one of ${SHELF_SORTS.join(', ')}`);
  }
  const limit = checkedInt('limit', args.limit, SHELF_LIMIT);
  const offset = checkedInt('offset', args.offset, { default: 0, min: 0, max: MAX_SHELF_OFFSET });
  const deals = args.deals ?? false;
  const retailer = args.retailer?.trim() || null;
  const retailerId = retailer === null ? null : await retailerIdBySlug(pool, retailer);
  const hasWords = hasPrefixWords(q);
  let sort: ShelfSort = (args.sort as ShelfSort | null | undefined) ?? (hasWords ? 'relevance' : 'popular');
  if (sort === 'relevance' && !hasWords) sort = 'popular';
  const unit = shelf.compareUnit;
  const set = shelfSet(shelf.slug);
  const liveParams = [set, hasWords ? q : '', retailerId, deals, kind, limit, offset, unit === null];

  let facets: { total: number; kinds: { slug: string; products: number }[]; retailers: ShelfRetailerFacet[] };
  let page: RawPageRow[];
  const livePage = `page AS (SELECT * FROM hits ORDER BY ${ORDER[sort]} LIMIT $6::int OFFSET $7::int)
     SELECT (SELECT coalesce(json_agg(${PAGE_JSON} ORDER BY ${ORDER[sort].replace(/\b(price|per_unit|disc|rank|rank_popular)\b/g, 'p.$1')}), '[]'::json)
               FROM page p JOIN retailer r ON r.id = p.retailer_ids[p.at]) AS page`;
  if (hasWords) {
    const { rows } = await pool.query(`WITH ${LIVE_CTES}, ${livePage}, ${LIVE_FACETS}`, liveParams);
    ({ page } = rows[0]);
    facets = rows[0];
  } else {
    const pageRows =
      retailerId !== null
        ? pool.query(`WITH ${LIVE_CTES}, ${livePage}`, liveParams)
        : pool.query(
            `WITH page AS (
               SELECT sp.group_key, sp.product_id, sp.listing_id, sp.listing_ids, sp.promo_kinds, sp.shelf_prices, sp.retailer_ids,
                      sp.best_at::int AS at, sp.price, CASE WHEN $6::bool THEN NULL ELSE sp.per_unit END AS per_unit, sp.${rankColumn(sort, unit)} AS ord
                 FROM shelf_product sp
                WHERE sp.shelf_slug = ANY($1::text[]) AND ($2::text IS NULL OR sp.kind_slug = $2::text) AND (NOT $3::bool OR sp.discount > 0)
                ORDER BY sp.${rankColumn(sort, unit)} LIMIT $4::int OFFSET $5::int
             )
             SELECT (SELECT coalesce(json_agg(${PAGE_JSON} ORDER BY p.ord), '[]'::json) FROM page p JOIN retailer r ON r.id = p.retailer_ids[p.at]) AS page`,
            [set, kind, deals, limit, offset, unit === null],
          );
    const [counted, paged] = await Promise.all([storedFacets(pool, kindsUnder(shelf.slug), retailerId, deals, kind), pageRows]);
    facets = counted;
    page = paged.rows[0].page;
  }
  return {
    shelf,
    unit,
    kinds: facets.kinds.map((k) => ({ slug: k.slug, label: kindLabels.get(k.slug) ?? k.slug, products: k.products })),
    retailers: facets.retailers,
    total: facets.total,
    params: { sort, retailer, deals, kind, q, limit, offset },
    products: page.map((p) => ({
      groupKey: p.group_key,
      productId: p.product_id,
      listingId: p.listing_id,
      best: { price: p.price, retailer: p.retailer, listingId: p.best_listing_id, promoKind: p.promo_kind, shelfPrice: p.shelf_price },
      perUnit: p.per_unit,
    })),
  };
}

/** A page row as the statement returns it. */
interface RawPageRow {
  group_key: string;
  product_id: number | null;
  listing_id: number | null;
  price: number;
  per_unit: number | null;
  retailer: string;
  best_listing_id: number;
  promo_kind: number | null;
  shelf_price: number;
}

/** A product's row in the shelves view: its shelf product figures (Product `perUnit`). */
export interface ProductShelfRow {
  product_id: number;
  shelf_slug: string;
  /** The best offer's price per the leaf shelf's compare unit, or null. */
  per_unit: number | null;
}

/**
 * The shelves-view rows of products (one statement).
 * @returns a map from product id; products not in the view (no current offer or no shelf) are absent.
 */
export async function productShelfRows(pool: pg.Pool, productIds: readonly number[]): Promise<Map<number, ProductShelfRow>> {
  const { rows } = await pool.query<ProductShelfRow>(
    'SELECT product_id, shelf_slug, per_unit FROM shelf_product WHERE product_id = ANY($1::int[])',
    [productIds],
  );
  return new Map(rows.map((r) => [r.product_id, r]));
}

/**
 * The leaf shelf slug of each generic (its kind's, from `kind.shelf_slug`), one statement.
 * @returns a map from generic id; generics whose kind has no shelf are absent.
 */
export async function genericShelves(pool: pg.Pool, genericIds: readonly number[]): Promise<Map<number, string>> {
  const { rows } = await pool.query<{ id: number; shelf_slug: string }>(
    `SELECT g.id, k.shelf_slug FROM generic g JOIN kind k ON k.id = g.kind_id WHERE g.id = ANY($1::int[]) AND k.shelf_slug IS NOT NULL`,
    [genericIds],
  );
  return new Map(rows.map((r) => [r.id, r.shelf_slug]));
}
