/**
 * The shelves view of the derived-views worker (issue 17; api-spec list_shelves, browse_shelf): the
 * `shelf_product` table, rebuilt inside the transaction the orchestrator (workers/views/run.ts)
 * opened, so browse_shelf filters, sorts, counts and facets rows and never reads a span.
 *
 * **A shelf product** is a linked product, or a listing not yet linked (as search_products groups
 * them: `p<product id>` / `l<listing id>`), whose kind sits on a shelf — a product's kind is its
 * generic's (workers/match/generics.ts), an unlinked listing's its own — and that has at least one
 * **current offer**: a listing flagged available whose latest national span is open (the ListingCard
 * `available` rule, src/domain/listings.ts isAvailable). Its shelf is the kind's leaf shelf
 * (src/domain/shelves.ts shelfOfKind). Per chain, the best of its current listings; the best chain,
 * per-unit price in the leaf shelf's compare unit and biggest discount: src/domain/shelf-products.ts.
 * `stores` (the `popular` tie-break after chains) counts active, collected stores with an open store
 * span of any of its current offers (the same listings its offers come from: a listing whose
 * national span closed counts no stores either).
 *
 * Diff-written: rows no longer current are deleted, new or changed rows written, equal rows left
 * alone (a rebuild with nothing changed writes nothing). `shelf_count` gets every shelf's products
 * (its set: the shelf and every shelf below it) from the same rows, so list_shelves' counts equal
 * browse_shelf's unfiltered totals; `shelf_facet` the counts per kind and chain that browse_shelf's
 * totals and facets without `q` add up; each row carries its rank in every product-level sort.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { currentSpanSql } from '../../src/services/span-sql.js';
import { chainOffers, shelfFigures, type CurrentOffer } from '../../src/domain/shelf-products.js';
import { getShelf, shelfOfKind, shelfSet, SHELVES } from '../../src/domain/shelves.js';
import { KINDS } from '../../src/domain/kinds.js';
import { measureOfListing } from '../../src/domain/unit-price.js';
import type { PromoKind } from '../../src/domain/spans.js';
import { CURRENT_STORE_SPAN } from '../../src/services/prices.js';

/** What {@link buildShelves} did. */
export interface ShelvesReport {
  /** Shelf products after the build. */
  products: number;
  /** Current offers read (available listings with an open national span and a kind). */
  offers: number;
  /** Rows inserted or updated, and deleted. */
  written: number;
  deleted: number;
  seconds: number;
}

interface OfferRow {
  listing_id: number;
  retailer_id: number;
  product_id: number | null;
  kind_slug: string;
  group_name: string;
  group_brand: string | null;
  name: string;
  brand: string | null;
  qty: number | null;
  unit: string | null;
  pack_count: number | null;
  weighable: boolean;
  size_text: string | null;
  price: number;
  promo_price: number | null;
  promo_kind: PromoKind | null;
  multibuy_qty: number | null;
  multibuy_price: number | null;
}

/** A row as staged (json_to_recordset column names). */
interface StagedRow {
  group_key: string;
  product_id: number | null;
  listing_id: number | null;
  shelf_slug: string;
  kind_slug: string;
  name: string;
  chains: number;
  stores: number;
  retailer_ids: number[];
  listing_ids: number[];
  shelf_prices: number[];
  best_prices: number[];
  promo_kinds: (number | null)[];
  per_units: (number | null)[];
  best_at: number;
  price: number;
  per_unit: number | null;
  discount: number;
  words: string;
  rank_popular: number;
  rank_price: number;
  rank_price_desc: number;
  rank_per_unit: number;
  rank_per_unit_desc: number;
  rank_deal: number;
}

/** shelf_product columns but search_doc, with their types (staging and comparison). */
const COLUMNS = [
  ['group_key', 'text'], ['product_id', 'int'], ['listing_id', 'int'], ['shelf_slug', 'text'], ['kind_slug', 'text'], ['name', 'text'],
  ['chains', 'int'], ['stores', 'int'], ['retailer_ids', 'int[]'], ['listing_ids', 'int[]'], ['shelf_prices', 'int[]'],
  ['best_prices', 'float8[]'], ['promo_kinds', 'smallint[]'], ['per_units', 'float8[]'], ['best_at', 'smallint'], ['price', 'float8'],
  ['per_unit', 'float8'], ['discount', 'float8'], ['rank_popular', 'int'], ['rank_price', 'int'], ['rank_price_desc', 'int'],
  ['rank_per_unit', 'int'], ['rank_per_unit_desc', 'int'], ['rank_deal', 'int'],
] as const;

/** A staged row before its ranks. */
type Unranked = Omit<StagedRow, `rank_${string}`>;

/** Code-unit order of two strings (deterministic, locale-free). */
const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** The popular order: most chains, most stores, name, group key. */
const popular = (a: Unranked, b: Unranked) => b.chains - a.chains || b.stores - a.stores || text(a.name, b.name) || text(a.group_key, b.group_key);
/** Nulls last, else ascending (`dir` 1) or descending (−1). */
const nullsLast = (a: number | null, b: number | null, dir: 1 | -1) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : dir * (a - b));

/**
 * The product-level sorts of browse_shelf (src/services/shelves.ts), every one ending with the
 * popular order: their ranks are stored, so a page in them is an index walk.
 */
const RANKS: Record<string, (a: Unranked, b: Unranked) => number> = {
  rank_popular: popular,
  rank_price: (a, b) => a.price - b.price || popular(a, b),
  rank_price_desc: (a, b) => b.price - a.price || popular(a, b),
  rank_per_unit: (a, b) => nullsLast(a.per_unit, b.per_unit, 1) || a.price - b.price || popular(a, b),
  rank_per_unit_desc: (a, b) => nullsLast(a.per_unit, b.per_unit, -1) || b.price - a.price || popular(a, b),
  rank_deal: (a, b) => b.discount - a.discount || a.price - b.price || popular(a, b),
};

/** SQL of the search document of a row's words (simple and English configurations over search_normalize). */
const SEARCH_DOC = (words: string) => `to_tsvector('simple', search_normalize(${words})) || to_tsvector('english', search_normalize(${words}))`;

const BATCH = 5000;

/**
 * What the view reads beyond the data version (workers/views/version.ts): links, generics and
 * availability change with matching and curators, not only with collections. A short digest,
 * mixed into the view's stored version by the orchestrator.
 */
export async function shelvesInputs(client: pg.PoolClient): Promise<string> {
  const { rows } = await client.query<{ v: string }>(
    `SELECT count(*) || '/' || coalesce(sum(coalesce(product_id, 0)::bigint * 31 + coalesce(generic_id, 0)), 0) || '/' || count(*) FILTER (WHERE available)
            || '/' || (SELECT coalesce(sum(coalesce(generic_id, 0)::bigint * 17 + id), 0) FROM product) AS v FROM listing`,
  );
  return crypto.createHash('sha256').update(rows[0].v).digest('hex').slice(0, 16);
}

/**
 * Rebuilds `shelf_product` (module comment) in the caller's transaction.
 * @throws the database's errors.
 */
export async function buildShelves(client: pg.PoolClient): Promise<ShelvesReport> {
  const t0 = performance.now();
  const offers = await client.query<OfferRow>(
    `SELECT l.id AS listing_id, l.retailer_id, l.product_id,
            CASE WHEN l.product_id IS NULL THEN lk.slug ELSE pk.slug END AS kind_slug,
            coalesce(p.name, l.name) AS group_name, CASE WHEN l.product_id IS NULL THEN l.brand ELSE p.brand END AS group_brand,
            l.name, l.brand, l.qty, l.unit, l.pack_count, l.weighable, l.size_text,
            s.price, s.promo_price, s.promo_kind, s.multibuy_qty, s.multibuy_price
       FROM listing l
       JOIN national_price_span s ON s.listing_id = l.id AND s.last_day IS NULL
       JOIN retailer r ON r.id = l.retailer_id
       LEFT JOIN product p ON p.id = l.product_id
       LEFT JOIN generic pg ON pg.id = p.generic_id LEFT JOIN kind pk ON pk.id = pg.kind_id
       LEFT JOIN generic lg ON lg.id = l.generic_id LEFT JOIN kind lk ON lk.id = lg.kind_id
      WHERE l.available AND ${currentSpanSql('s', 'r', 'national')}
        AND CASE WHEN l.product_id IS NULL THEN lk.slug ELSE pk.slug END IS NOT NULL
      ORDER BY l.id`,
  );
  const stores = new Map(
    (
      await client.query<{ k: string; n: number }>(
        `SELECT CASE WHEN l.product_id IS NULL THEN 'l' || l.id ELSE 'p' || l.product_id END AS k, count(DISTINCT sp.store_id)::int AS n
           FROM store_price_span sp JOIN store st ON st.id = sp.store_id JOIN listing l ON l.id = sp.listing_id
           JOIN national_price_span s ON s.listing_id = l.id AND s.last_day IS NULL
           JOIN retailer r ON r.id = l.retailer_id
          WHERE ${CURRENT_STORE_SPAN} AND l.available AND ${currentSpanSql('s', 'r', 'national')}
          GROUP BY 1`,
      )
    ).rows.map((r) => [r.k, r.n]),
  );

  const groups = new Map<string, OfferRow[]>();
  for (const r of offers.rows) {
    const key = r.product_id === null ? `l${r.listing_id}` : `p${r.product_id}`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  const kindLabel = new Map(KINDS.map((k) => [k.slug, k.label]));
  const unranked: Unranked[] = [];
  for (const [key, rows] of groups) {
    const lead = rows[0];
    const shelf = shelfOfKind(lead.kind_slug);
    if (!shelf) continue; // a kind no longer in the taxonomy (the matcher has not run since)
    const unit = getShelf(shelf.slug)!.compareUnit;
    const current: CurrentOffer[] = rows.map((r) => ({
      listingId: r.listing_id,
      retailerId: r.retailer_id,
      price: r.price,
      promo_price: r.promo_price,
      promo_kind: r.promo_kind,
      multibuy_qty: r.multibuy_qty,
      multibuy_price: r.multibuy_price,
      measure: measureOfListing({ qty: r.qty, unit: r.unit, packCount: r.pack_count, weighable: r.weighable, sizeText: r.size_text }),
    }));
    const chains = chainOffers(current, unit);
    const fig = shelfFigures(chains);
    if (!fig) continue;
    const words = new Set<string>([lead.group_name, lead.group_brand ?? '', kindLabel.get(lead.kind_slug) ?? '']);
    for (const r of rows) words.add(r.name).add(r.brand ?? '');
    unranked.push({
      group_key: key,
      product_id: lead.product_id,
      listing_id: lead.product_id === null ? lead.listing_id : null,
      shelf_slug: shelf.slug,
      kind_slug: lead.kind_slug,
      name: lead.group_name,
      chains: chains.length,
      stores: stores.get(key) ?? 0,
      retailer_ids: chains.map((c) => c.retailerId),
      listing_ids: chains.map((c) => c.listingId),
      shelf_prices: chains.map((c) => c.shelfPrice),
      best_prices: chains.map((c) => c.best),
      promo_kinds: chains.map((c) => c.promoKind),
      per_units: chains.map((c) => c.perUnit),
      best_at: fig.bestAt + 1,
      price: fig.price,
      per_unit: fig.perUnit,
      discount: fig.discount,
      words: [...words].filter(Boolean).join(' '),
    });
  }

  const staged = unranked as StagedRow[];
  for (const [column, order] of Object.entries(RANKS)) {
    [...staged].sort(order).forEach((r, i) => ((r as unknown as Record<string, number>)[column] = i + 1));
  }

  await client.query(
    `CREATE TEMP TABLE shelf_stage (LIKE shelf_product INCLUDING DEFAULTS) ON COMMIT DROP`,
  );
  const cols = COLUMNS.map(([n]) => n);
  for (let i = 0; i < staged.length; i += BATCH) {
    await client.query(
      `INSERT INTO shelf_stage (${cols.join(', ')}, search_doc)
       SELECT ${cols.join(', ')}, ${SEARCH_DOC('x.words')}
       FROM json_to_recordset($1::json) AS x(${COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')}, words text)`,
      [JSON.stringify(staged.slice(i, i + BATCH))],
    );
  }
  const deleted = (await client.query(
    `DELETE FROM shelf_product p WHERE NOT EXISTS (SELECT 1 FROM shelf_stage s WHERE s.group_key = p.group_key)`,
  )).rowCount ?? 0;
  const rest = [...cols.slice(1), 'search_doc'];
  const written = (await client.query(
    `INSERT INTO shelf_product (${cols.join(', ')}, search_doc) SELECT ${cols.join(', ')}, search_doc FROM shelf_stage
     ON CONFLICT (group_key) DO UPDATE SET ${rest.map((n) => `${n} = EXCLUDED.${n}`).join(', ')}
     WHERE (${rest.map((n) => `shelf_product.${n}`).join(', ')}) IS DISTINCT FROM (${rest.map((n) => `EXCLUDED.${n}`).join(', ')})`,
  )).rowCount ?? 0;
  await client.query('DROP TABLE shelf_stage');

  // Counts per shelf, sub-shelves included (every shelf of the directory, 0 when empty).
  const perLeaf = new Map<string, number>();
  for (const r of staged) perLeaf.set(r.shelf_slug, (perLeaf.get(r.shelf_slug) ?? 0) + 1);
  const counts = SHELVES.map((s) => shelfSet(s.slug).reduce((n, slug) => n + (perLeaf.get(slug) ?? 0), 0));
  await client.query(`DELETE FROM shelf_count WHERE NOT (slug = ANY($1::text[]))`, [SHELVES.map((s) => s.slug)]);
  await client.query(
    `INSERT INTO shelf_count (slug, products) SELECT * FROM unnest($1::text[], $2::int[])
     ON CONFLICT (slug) DO UPDATE SET products = EXCLUDED.products WHERE shelf_count.products <> EXCLUDED.products`,
    [SHELVES.map((s) => s.slug), counts],
  );

  // Facet counts without q: per kind and chain (0: any chain), products and those on a deal there.
  const facets = new Map<string, { kind: string; retailer: number; products: number; deals: number }>();
  const count = (kind: string, retailer: number, deal: boolean) => {
    const k = `${kind}|${retailer}`;
    const f = facets.get(k) ?? { kind, retailer, products: 0, deals: 0 };
    f.products++;
    if (deal) f.deals++;
    facets.set(k, f);
  };
  for (const r of staged) {
    count(r.kind_slug, 0, r.discount > 0);
    r.retailer_ids.forEach((id, i) => count(r.kind_slug, id, r.best_prices[i] < r.shelf_prices[i]));
  }
  const f = [...facets.values()];
  await client.query(`DELETE FROM shelf_facet f WHERE NOT EXISTS (SELECT 1 FROM unnest($1::text[], $2::int[]) AS x(k, r) WHERE x.k = f.kind_slug AND x.r = f.retailer_id)`, [
    f.map((x) => x.kind),
    f.map((x) => x.retailer),
  ]);
  await client.query(
    `INSERT INTO shelf_facet (kind_slug, retailer_id, products, deals) SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::int[])
     ON CONFLICT (kind_slug, retailer_id) DO UPDATE SET products = EXCLUDED.products, deals = EXCLUDED.deals
     WHERE (shelf_facet.products, shelf_facet.deals) IS DISTINCT FROM (EXCLUDED.products, EXCLUDED.deals)`,
    [f.map((x) => x.kind), f.map((x) => x.retailer), f.map((x) => x.products), f.map((x) => x.deals)],
  );
  return { products: staged.length, offers: offers.rows.length, written, deleted, seconds: (performance.now() - t0) / 1000 };
}
