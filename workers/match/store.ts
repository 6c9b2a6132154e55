/**
 * SQL shared by the matching run (./match.ts) and the curators' commands (./admin.ts): the
 * advisory lock that serialises them, reading listings for matching, the decision log, and
 * refreshing product attributes from their listings. Everything here runs on the caller's client,
 * inside the caller's transaction.
 */
import type pg from 'pg';
import type { LinkMethod, ProductSource } from '../../src/domain/matching.js';
import { isPlaceholderName, productAttributes, type ProductAttributes } from '../../src/domain/matching.js';
import { productDisplayName } from '../../src/domain/display-names.js';
import { latestSpanSql } from '../../src/services/span-sql.js';
import { lockTransaction } from '../../src/db/locks.js';

/**
 * Takes the matching lock (src/db/locks.ts `match`) for the current transaction: one matching run
 * (session-level, ./match.ts) or curator command (transaction-level, ./admin.ts) at a time per
 * database; waits for a running one.
 */
export async function lockMatching(client: pg.PoolClient): Promise<void> {
  await lockTransaction(client, 'match');
}

/** A listing row as the matcher reads it. */
export interface ListingRow extends ProductSource {
  /** The retailer's display name (placeholder names are `<name> item <id>`). */
  retailerName: string;
  productId: number | null;
  linkMethod: string | null;
  linkConfidence: number | null;
  linkLocked: boolean;
  /** True when the name is ingest's placeholder (nothing to match on). */
  placeholder: boolean;
}

interface RawRow {
  id: number;
  retailer: string;
  retailer_name: string;
  external_id: string;
  name: string;
  brand: string | null;
  size_text: string | null;
  gtin: string | null;
  weighable: boolean;
  image: string | null;
  product_id: number | null;
  link_method: string | null;
  link_confidence: number | null;
  link_locked: boolean;
  price: number | null;
}

/**
 * Listings as the matcher reads them: identity, name, brand, size, GTIN, weighable, image, current
 * link, and the reference price — the shelf price of the listing's latest national span (cents;
 * src/services/span-sql.ts latestSpanSql).
 * `where` filters on alias `l` (e.g. `l.id = ANY($1)`), `params` are its parameters.
 */
export const LISTING_SELECT = `SELECT l.id, r.slug AS retailer, r.name AS retailer_name, l.external_id, l.name, l.brand, l.size_text,
    l.gtin::text AS gtin, l.weighable, l.image, l.product_id, l.link_method, l.link_confidence, l.link_locked, np.price
  FROM listing l
  JOIN retailer r ON r.id = l.retailer_id
  LEFT JOIN LATERAL ${latestSpanSql('national_price_span', 's', 's.listing_id = l.id', 's.price')} np ON true`;

function toRow(r: RawRow): ListingRow {
  return {
    id: r.id,
    retailer: r.retailer,
    retailerName: r.retailer_name,
    externalId: r.external_id,
    name: r.name,
    brand: r.brand,
    sizeText: r.size_text,
    gtin: r.gtin,
    weighable: r.weighable,
    image: r.image,
    price: r.price,
    productId: r.product_id,
    linkMethod: r.link_method,
    linkConfidence: r.link_confidence,
    linkLocked: r.link_locked,
    placeholder: isPlaceholderName(r.name, r.retailer_name, r.external_id),
  };
}

/**
 * Every listing, in id order, read in keyset batches of `batchSize` on `client` (inside its
 * transaction, so one consistent snapshot under REPEATABLE READ). `onBatch` reports progress.
 */
export async function readAllListings(client: pg.PoolClient, batchSize = 5000, onBatch?: (n: number) => void): Promise<ListingRow[]> {
  const out: ListingRow[] = [];
  let after = 0;
  for (;;) {
    const { rows } = await client.query<RawRow>(`${LISTING_SELECT} WHERE l.id > $1 ORDER BY l.id LIMIT $2`, [after, batchSize]);
    for (const r of rows) out.push(toRow(r));
    onBatch?.(rows.length);
    if (rows.length < batchSize) return out;
    after = rows[rows.length - 1].id;
  }
}

/** The listings `ids` (those that exist), in id order. */
export async function readListings(client: pg.PoolClient, ids: readonly number[]): Promise<ListingRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await client.query<RawRow>(`${LISTING_SELECT} WHERE l.id = ANY($1::int[]) ORDER BY l.id`, [ids]);
  return rows.map(toRow);
}

/** Number of listings (for the progress bar). */
export async function countListings(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM listing');
  return Number(rows[0].n);
}

/** One row of the decision log (table `link_decision`). */
export interface Decision {
  listingId: number;
  action: 'link' | 'relink' | 'unlink' | 'update' | 'lock' | 'unlock';
  productId: number | null;
  previousProductId: number | null;
  method: LinkMethod | string | null;
  confidence: number | null;
  locked: boolean;
  actor: 'matcher' | 'curator';
  detail: Record<string, unknown> | null;
}

/** Appends decisions to the log, in chunks of `chunk` rows per INSERT. */
export async function logDecisions(client: pg.PoolClient, decisions: readonly Decision[], chunk = 5000): Promise<void> {
  for (let i = 0; i < decisions.length; i += chunk) {
    const part = decisions.slice(i, i + chunk);
    await client.query(
      `INSERT INTO link_decision (listing_id, action, product_id, previous_product_id, method, confidence, locked, actor, detail)
       SELECT * FROM unnest($1::int[], $2::text[], $3::int[], $4::int[], $5::text[], $6::float8[], $7::bool[], $8::text[], $9::jsonb[])`,
      [
        part.map((d) => d.listingId),
        part.map((d) => d.action),
        part.map((d) => d.productId),
        part.map((d) => d.previousProductId),
        part.map((d) => d.method),
        part.map((d) => d.confidence),
        part.map((d) => d.locked),
        part.map((d) => d.actor),
        part.map((d) => (d.detail === null ? null : JSON.stringify(d.detail))),
      ],
    );
  }
}

/** What {@link refreshProducts} did. */
export interface RefreshResult {
  /** Products whose attributes changed. */
  updated: number[];
  /** Products removed because no listing is linked to them any more. */
  deleted: number[];
}

interface ProductRow {
  id: number;
  name: string;
  brand: string | null;
  size_text: string | null;
  gtin: string | null;
  image: string | null;
  brand_owner: string | null;
  brand_parent: string | null;
}

/**
 * A product's attributes from its listings (src/domain/matching.ts `productAttributes`), named by
 * the shopper-facing rule (src/domain/display-names.ts `productDisplayName`: brand + name + size).
 */
export function productOf(listings: readonly ListingRow[]): ProductAttributes {
  const placeholders = new Set(listings.filter((l) => l.placeholder).map((l) => l.id));
  const a = productAttributes(listings, placeholders);
  return { ...a, name: productDisplayName(listings, placeholders, { sizeText: a.sizeText }) };
}

/**
 * Recomputes the attributes of products `ids` from their linked listings ({@link productOf}),
 * writing only those that changed, and removes those left without listings.
 * Batched: one read of the products, one of their listings, one UPDATE per chunk, one DELETE.
 */
export async function refreshProducts(client: pg.PoolClient, ids: readonly number[], chunk = 5000): Promise<RefreshResult> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  const result: RefreshResult = { updated: [], deleted: [] };
  for (let i = 0; i < unique.length; i += chunk) {
    const part = unique.slice(i, i + chunk);
    const products = (
      await client.query<ProductRow>(
        'SELECT id, name, brand, size_text, gtin::text AS gtin, image, brand_owner, brand_parent FROM product WHERE id = ANY($1::int[])',
        [part],
      )
    ).rows;
    const raws = (await client.query<RawRow>(`${LISTING_SELECT} WHERE l.product_id = ANY($1::int[]) ORDER BY l.id`, [part])).rows;
    const byProduct = new Map<number, ListingRow[]>();
    for (const r of raws.map(toRow)) byProduct.set(r.productId!, [...(byProduct.get(r.productId!) ?? []), r]);
    const changed: (ProductRow & { gtin: string | null })[] = [];
    const empty: number[] = [];
    for (const p of products) {
      const listings = byProduct.get(p.id);
      if (!listings) {
        empty.push(p.id);
        continue;
      }
      const a = productOf(listings);
      const next: ProductRow = {
        id: p.id, name: a.name, brand: a.brand, size_text: a.sizeText, gtin: a.gtin, image: a.image,
        brand_owner: a.brandOwner, brand_parent: a.brandParent,
      };
      const same = (Object.keys(next) as (keyof ProductRow)[]).every((k) => next[k] === p[k]);
      if (!same) changed.push(next);
    }
    if (changed.length > 0) {
      await client.query(
        `UPDATE product p SET name = u.name, brand = u.brand, size_text = u.size_text, gtin = u.gtin, image = u.image,
           brand_owner = u.brand_owner, brand_parent = u.brand_parent
         FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[])
           AS u(id, name, brand, size_text, gtin, image, brand_owner, brand_parent)
         WHERE p.id = u.id`,
        [
          changed.map((c) => c.id), changed.map((c) => c.name), changed.map((c) => c.brand), changed.map((c) => c.size_text),
          changed.map((c) => c.gtin), changed.map((c) => c.image), changed.map((c) => c.brand_owner), changed.map((c) => c.brand_parent),
        ],
      );
      result.updated.push(...changed.map((c) => c.id));
    }
    if (empty.length > 0) {
      // Guarded again in SQL: a listing linked meanwhile (impossible under the matching lock) keeps its product.
      const { rows } = await client.query<{ id: number }>(
        'DELETE FROM product p WHERE p.id = ANY($1::int[]) AND NOT EXISTS (SELECT 1 FROM listing l WHERE l.product_id = p.id) RETURNING id',
        [empty],
      );
      result.deleted.push(...rows.map((r) => r.id));
    }
  }
  result.deleted.sort((a, b) => a - b);
  return result;
}

/** Products without any linked listing (removed by a run: "a product left with no listings is removed"). */
export async function orphanProducts(client: pg.PoolClient): Promise<number[]> {
  const { rows } = await client.query<{ id: number }>(
    'SELECT p.id FROM product p WHERE NOT EXISTS (SELECT 1 FROM listing l WHERE l.product_id = p.id) ORDER BY p.id',
  );
  return rows.map((r) => r.id);
}

/**
 * Creates products with the attributes of their listings; returns their ids in input order. Ids are
 * drawn from the sequence first, so the batched INSERT keeps the order without relying on RETURNING.
 */
export async function createProducts(client: pg.PoolClient, groups: readonly ListingRow[][]): Promise<number[]> {
  if (groups.length === 0) return [];
  const { rows } = await client.query<{ id: number }>(
    `SELECT nextval(pg_get_serial_sequence('product', 'id'))::int AS id FROM generate_series(1, $1)`,
    [groups.length],
  );
  const ids = rows.map((r) => r.id);
  const attrs = groups.map(productOf);
  for (let i = 0; i < groups.length; i += 5000) {
    const part = attrs.slice(i, i + 5000);
    await client.query(
      `INSERT INTO product (id, name, brand, size_text, gtin, image, brand_owner, brand_parent)
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[])`,
      [
        ids.slice(i, i + 5000), part.map((a) => a.name), part.map((a) => a.brand), part.map((a) => a.sizeText), part.map((a) => a.gtin),
        part.map((a) => a.image), part.map((a) => a.brandOwner), part.map((a) => a.brandParent),
      ],
    );
  }
  return ids;
}
