/**
 * Product (cross-chain) facts derived from the listings linked to it, batched for many products in
 * one statement. Products stay empty until matching runs (a later issue); the shapes are built now.
 */
import type pg from 'pg';

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
