/**
 * Product (cross-chain) facts derived from the listings linked to it, batched for many products in
 * one statement. Products stay empty until matching runs (a later issue); the shapes are built now.
 */
import type pg from 'pg';
import { currentSpanSql } from './span-sql.js';
import { MAX_ALTERNATIVES } from '../domain/limits.js';
/** Most alternatives a product lists, held in src/domain/limits.ts. */
export { MAX_ALTERNATIVES };

/** What a product's linked listings say about it. */
export interface ProductFacts {
  product_id: number;
  /** Chains selling it (distinct retailers of its listings). */
  retailers: number;
  /** Barcodes seen: the product's own and its listings', ascending. */
  gtins: number[];
  /** True when any linked listing is sold by weight. */
  weighable: boolean;
  /** Quantity in `unit`, pack count and image of the first linked listing that has them. */
  qty: number | null;
  unit: string | null;
  pack_count: number | null;
  image: string | null;
  /** Names of its linked listings that differ from the product's own name (case-insensitively), sorted. */
  aliases: string[];
}

/**
 * Facts for each product id. @returns a map from product id; unknown products are absent (products
 * without listings are present with zero retailers).
 */
export async function productFacts(pool: pg.Pool, productIds: readonly number[]): Promise<Map<number, ProductFacts>> {
  const { rows } = await pool.query<ProductFacts>(
    `SELECT p.id AS product_id,
       count(DISTINCT l.retailer_id)::int AS retailers,
       ARRAY(SELECT DISTINCT g FROM unnest(array_append(array_agg(l.gtin), p.gtin)) g WHERE g IS NOT NULL ORDER BY g) AS gtins,
       coalesce(bool_or(l.weighable), false) AS weighable,
       (array_agg(l.qty ORDER BY l.id) FILTER (WHERE l.qty IS NOT NULL))[1] AS qty,
       (array_agg(l.unit ORDER BY l.id) FILTER (WHERE l.qty IS NOT NULL))[1] AS unit,
       (array_agg(l.pack_count ORDER BY l.id) FILTER (WHERE l.pack_count IS NOT NULL))[1] AS pack_count,
       (array_agg(l.image ORDER BY l.id) FILTER (WHERE l.image IS NOT NULL))[1] AS image,
       ARRAY(SELECT min(n) FROM unnest(array_agg(l.name)) n WHERE lower(n) <> lower(p.name) GROUP BY lower(n) ORDER BY 1) AS aliases
     FROM product p LEFT JOIN listing l ON l.product_id = p.id
     WHERE p.id = ANY($1::int[])
     GROUP BY p.id`,
    [productIds],
  );
  return new Map(rows.map((r) => [r.product_id, { ...r, gtins: r.gtins.map(Number) }]));
}

/** Another product in the same generic (api-spec Alternative). */
export interface ProductAlternative {
  id: number;
  name: string;
  brand: string | null;
  size_text: string | null;
  image: string | null;
  /** Cheapest current national shelf price among its available listings, cents; null when none is priced. */
  price: number | null;
  /** Slug of the chain with that price (ties: the first slug). */
  retailer: string | null;
  /** Chains that sell it. */
  retailers: number;
  /** A house brand (the product has a brand owner). */
  own_brand: boolean;
}


/**
 * Alternatives of each product: up to {@link MAX_ALTERNATIVES} other products in its generic,
 * cheapest current shelf price first (unpriced last), then name and id. One statement for all ids.
 * @returns a map from product id; a product without a generic (or unknown) maps to an empty list.
 */
export async function productAlternatives(pool: pg.Pool, productIds: readonly number[]): Promise<Map<number, ProductAlternative[]>> {
  const { rows } = await pool.query<ProductAlternative & { for_id: number }>(
    `WITH me AS (SELECT id, generic_id FROM product WHERE id = ANY($1::int[]) AND generic_id IS NOT NULL),
     alt AS (
       SELECT me.id AS for_id, p.id, p.name, p.brand, p.size_text,
         coalesce(p.image, (SELECT l.image FROM listing l WHERE l.product_id = p.id AND l.image IS NOT NULL ORDER BY l.id LIMIT 1)) AS image,
         p.brand_owner IS NOT NULL AS own_brand,
         (SELECT count(DISTINCT l.retailer_id)::int FROM listing l WHERE l.product_id = p.id) AS retailers,
         best.price, best.retailer
       FROM me JOIN product p ON p.generic_id = me.generic_id AND p.id <> me.id
       LEFT JOIN LATERAL (
         SELECT s.price, r.slug AS retailer
         FROM listing l
         JOIN national_price_span s ON s.listing_id = l.id AND s.last_day IS NULL
         JOIN retailer r ON r.id = l.retailer_id
         WHERE l.product_id = p.id AND l.available AND ${currentSpanSql('s', 'r', 'national')}
         ORDER BY s.price, r.slug LIMIT 1
       ) best ON true
     )
     SELECT for_id, id, name, brand, size_text, image, price, retailer, retailers, own_brand FROM (
       SELECT alt.*, row_number() OVER (PARTITION BY for_id ORDER BY price NULLS LAST, name, id) AS rank FROM alt
     ) ranked WHERE rank <= ${MAX_ALTERNATIVES} ORDER BY for_id, rank`,
    [productIds],
  );
  const out = new Map<number, ProductAlternative[]>(productIds.map((id) => [id, []]));
  for (const { for_id, ...a } of rows) out.get(for_id)?.push(a);
  return out;
}
