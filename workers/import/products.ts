/**
 * Woolworths product-API sample (neon-ninja/woolies `products.sample.csv`: the header of the
 * flattened product API, 95 columns, and its first 23 rows) → attributes of existing Woolworths
 * listings. Its prices are undated (a snapshot of unknown day), so they are not observations.
 *
 * Fields: name, brand, gtin ← `barcode`, size_text ← `size.volumeSize`, category_path ← the names
 * in `departments` (a Python-literal list such as `[{'id': 1, 'name': 'Fruit & Veg'}]`),
 * retailer_url ← the product page `https://www.woolworths.co.nz/shop/productdetails?stockcode=<sku>`.
 * `images.*` are the retailer's CDN URLs, not this service's ImagePath: image stays null.
 * Barcodes in the GS1 restricted-circulation ranges (in-store codes for weighed produce, which other
 * retailers reuse for other goods; see {@link barcodeToGtin}) are not GTINs: gtin stays null, so
 * they cannot link unrelated products across chains.
 */
import type pg from 'pg';
import { updateListingAttributes, type ListingAttributesInput, type UpdateListingsResult } from '../ingest/listings.js';
import { ImportError, readCsvFile } from './sources.js';

/** Product page of a Woolworths stock code. */
export function woolworthsProductUrl(sku: string): string {
  return `https://www.woolworths.co.nz/shop/productdetails?stockcode=${encodeURIComponent(sku)}`;
}

/**
 * The `name` values of a Python-literal list of dicts, in order (`[{'id': 1, 'name': 'Fruit & Veg'}]`
 * → ["Fruit & Veg"]). Python writes a string holding an apostrophe in double quotes; both forms are read.
 */
export function departmentNames(literal: string): string[] {
  const out: string[] = [];
  const re = /'name':\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g;
  for (let m = re.exec(literal); m; m = re.exec(literal)) {
    const v = (m[1] ?? m[2]).replace(/\\(.)/g, '$1').trim();
    if (v) out.push(v);
  }
  return out;
}

/**
 * The barcode as a GTIN (8–14 digits), or null when it is not one or is a GS1 restricted-circulation
 * number: a 12- or 13-digit code whose 13-digit form starts with 02, 04 or 2 (in-store codes, e.g.
 * for weighed produce, which other retailers reuse for other goods).
 */
export function barcodeToGtin(barcode: string): string | null {
  const b = barcode.trim();
  if (!/^\d{8,14}$/.test(b)) return null;
  if ((b.length === 12 || b.length === 13) && /^(02|04|2)/.test(b.padStart(13, '0'))) return null;
  return b;
}

/**
 * Attribute rows of the sample, one per SKU (a repeated SKU keeps its first row).
 * @throws ImportError for a missing column or a row without a SKU.
 */
export function readProductSample(file: string): ListingAttributesInput[] {
  const rows = readCsvFile(file, ['sku', 'name', 'brand', 'barcode', 'departments', 'size.volumeSize']);
  const seen = new Set<string>();
  const out: ListingAttributesInput[] = [];
  for (const { line, row } of rows) {
    const sku = row.sku.trim();
    if (!/^\d{1,12}$/.test(sku)) throw new ImportError(file, `sku is not a stock code: "${row.sku}"`, line);
    if (seen.has(sku)) continue;
    seen.add(sku);
    out.push({
      retailer: 'woolworths',
      external_id: sku,
      name: row.name.trim() || null,
      brand: row.brand.trim() || null,
      size_text: row['size.volumeSize'].trim() || null,
      gtin: barcodeToGtin(row.barcode),
      category_path: departmentNames(row.departments),
      image: null,
      retailer_url: woolworthsProductUrl(sku),
    });
  }
  return out;
}

/** What the product-attribute import did. */
export interface ProductsReport extends UpdateListingsResult {
  rows: number;
}

/**
 * Writes the sample's attributes onto the Woolworths listings that the price log created; SKUs
 * not in the log are counted as unknown.
 * @throws ImportError for a malformed file; ListingInputError for an invalid row.
 */
export async function importProductAttributes(pool: pg.Pool, file: string): Promise<ProductsReport> {
  const rows = readProductSample(file);
  return { rows: rows.length, ...(await updateListingAttributes(pool, rows)) };
}
