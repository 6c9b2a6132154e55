/**
 * Catalogue attributes without a price (for example a product-API dump whose prices are undated):
 * they update listings that observations already created, and never create listings or spans.
 */
import { inTransaction } from '../../src/db/transaction.js';
import type pg from 'pg';
import { z } from 'zod';
import { ExpectedError } from '../../src/errors.js';

const optText = (max: number) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? null : v ?? null), z.string().trim().max(max).nullable());

/** One listing's attributes. Absent, null or empty fields leave the stored value as it is. */
export const listingAttributesSchema = z.object({
  /** Retailer slug, e.g. "woolworths". */
  retailer: z.string().regex(/^[a-z]+$/, 'must be a lowercase retailer slug'),
  /** The retailer's own product id. */
  external_id: z.coerce.string().trim().min(1).max(200),
  name: optText(1000),
  brand: optText(1000),
  /** The size as the retailer prints it, e.g. "500g", "6pack", "per kg". */
  size_text: optText(200),
  /** Barcode, up to 14 digits (leading zeros are not kept: stored as a number). */
  gtin: z.preprocess(
    (v) => (v === '' || v === undefined || v === null ? null : String(v).trim()),
    z.string().regex(/^\d{1,14}$/, 'must be up to 14 digits').nullable(),
  ),
  /** Breadcrumb from the top level down; an empty array leaves the stored path. */
  category_path: z.array(z.string().trim().min(1).max(200)).max(10).default([]),
  /**
   * ImagePath (api-spec): a path on this service's host to a 720 px AVIF. Retailer CDN URLs are not
   * ImagePaths and are rejected.
   */
  image: z.preprocess(
    (v) => (v === '' || v === undefined ? null : v),
    z.string().regex(/^\/[\w./-]+\.avif$/, 'must be a path on this host to an .avif (not a retailer URL)').nullable(),
  ),
  /** The product's page on the retailer's site. */
  retailer_url: z.preprocess(
    (v) => (v === '' || v === undefined ? null : v),
    z.string().url().max(1000).nullable(),
  ),
});

/** Attributes of one listing before validation (see {@link listingAttributesSchema} for the rules). */
export interface ListingAttributesInput {
  retailer: string;
  external_id: string | number;
  name?: string | null;
  brand?: string | null;
  size_text?: string | null;
  gtin?: string | number | null;
  category_path?: string[];
  image?: string | null;
  retailer_url?: string | null;
}
/** Validated attributes of one listing. */
export type ListingAttributes = z.output<typeof listingAttributesSchema>;

/** What an update did, counted in listings. */
export interface UpdateListingsResult {
  /** Listings whose stored attributes changed. */
  updated: number;
  /** Listings found whose attributes were already the same. */
  unchanged: number;
  /** Rows naming a listing that does not exist (no observation has created it). */
  unknown: number;
  /** Those rows' `retailer:external_id`, in input order. */
  unknownIds: string[];
}

/** Thrown for invalid attribute rows; nothing is written. `index` is the 0-based position of the first bad row. */
export class ListingInputError extends ExpectedError {
  constructor(
    message: string,
    readonly index: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Writes catalogue attributes (name, brand, size_text, gtin, category_path, image, retailer_url)
 * onto existing listings, keyed by (retailer, external_id), in one transaction. A null or empty
 * value never erases a stored one; only listings whose values differ are written, so repeating
 * a call changes nothing. Rows for unknown listings are counted, not inserted.
 * @throws ListingInputError (nothing written) for an invalid row, a listing given twice or an
 *   unknown retailer slug.
 */
export async function updateListingAttributes(pool: pg.Pool, rows: readonly ListingAttributesInput[]): Promise<UpdateListingsResult> {
  const valid: ListingAttributes[] = [];
  const seen = new Map<string, number>();
  rows.forEach((row, i) => {
    const r = listingAttributesSchema.safeParse(row);
    if (!r.success) {
      const detail = r.error.issues.map((x) => `${x.path.join('.') || 'row'}: ${x.message}`).join('; ');
      throw new ListingInputError(`listing #${i}: ${detail}`, i);
    }
    const key = `${r.data.retailer}:${r.data.external_id}`;
    const first = seen.get(key);
    if (first !== undefined) throw new ListingInputError(`listing #${i}: ${key} is also listing #${first}`, i);
    seen.set(key, i);
    valid.push(r.data);
  });
  if (valid.length === 0) return { updated: 0, unchanged: 0, unknown: 0, unknownIds: [] };

  return inTransaction(pool, async (client) => {
    const slugs = [...new Set(valid.map((r) => r.retailer))];
    const known = await client.query<{ slug: string }>('SELECT slug FROM retailer WHERE slug = ANY($1::text[])', [slugs]);
    const missing = slugs.filter((s) => !known.rows.some((k) => k.slug === s));
    if (missing.length) throw new ListingInputError(`unknown retailer ${missing.map((m) => `"${m}"`).join(', ')}`);

    const payload = JSON.stringify(valid.map((r, i) => ({ ...r, i })));
    const found = await client.query<{ i: number }>(
      `SELECT x.i FROM jsonb_to_recordset($1::jsonb) AS x(i int, retailer text, external_id text)
       JOIN retailer r ON r.slug = x.retailer
       JOIN listing l ON l.retailer_id = r.id AND l.external_id = x.external_id`,
      [payload],
    );
    const present = new Set(found.rows.map((r) => r.i));
    const upd = await client.query(
      `WITH x AS (
         SELECT r.id AS retailer_id, x.external_id, x.name, x.brand, x.size_text, x.gtin::bigint AS gtin,
           CASE WHEN jsonb_array_length(x.category_path) > 0
             THEN ARRAY(SELECT jsonb_array_elements_text(x.category_path)) END AS category_path,
           x.image, x.retailer_url
         FROM jsonb_to_recordset($1::jsonb) AS x(retailer text, external_id text, name text, brand text, size_text text,
           gtin text, category_path jsonb, image text, retailer_url text)
         JOIN retailer r ON r.slug = x.retailer)
       UPDATE listing l SET name = coalesce(x.name, l.name), brand = coalesce(x.brand, l.brand),
         size_text = coalesce(x.size_text, l.size_text), gtin = coalesce(x.gtin, l.gtin),
         category_path = coalesce(x.category_path, l.category_path), image = coalesce(x.image, l.image),
         retailer_url = coalesce(x.retailer_url, l.retailer_url)
       FROM x WHERE l.retailer_id = x.retailer_id AND l.external_id = x.external_id
         AND (l.name, l.brand, l.size_text, l.gtin, l.category_path, l.image, l.retailer_url) IS DISTINCT FROM
           (coalesce(x.name, l.name), coalesce(x.brand, l.brand), coalesce(x.size_text, l.size_text), coalesce(x.gtin, l.gtin),
            coalesce(x.category_path, l.category_path), coalesce(x.image, l.image), coalesce(x.retailer_url, l.retailer_url))`,
      [payload],
    );
    const unknownIds = valid.filter((_, i) => !present.has(i)).map((r) => `${r.retailer}:${r.external_id}`);
    const updated = upd.rowCount ?? 0;
    return { updated, unchanged: present.size - updated, unknown: unknownIds.length, unknownIds };
  });
}
