/**
 * The Woolworths NZ online catalogue of 2026-07-27 (neon-ninja/woolies `products.csv`, 15 of its 95
 * columns transcribed into `products.columns.tsv`; ../shared/data/README.md says how and its limits)
 * → one ingest of Woolworths' **national observation of that day**, which also carries every SKU's
 * **description** (name, brand, size, GTIN, department). 17,664 products, 13,862 of them SKUs of
 * the price-change log.
 *
 * Day: 2026-07-27, the NZ day of the scraper run (06:02 NZST) that wrote this catalogue and the
 * same commit's price log (data README, "products.columns.tsv"). The price log here ends on
 * 2025-05-03: the days between are unknown, so the day is ingested **after a gap** (every open
 * Woolworths span is closed at the log's last day; no span runs across the unknown days) and as a
 * **snapshot** (a logged SKU the catalogue does not list is no longer on the site: not available).
 *
 * Descriptions:
 * - name, brand: as the API gives them (lower case, e.g. "anchor butter salted"); the name keeps
 *   the brand words the retailer puts in it. This is the shop's own display name: no column of the
 *   source carries a cased one (of the 95 columns of `products.sample.csv`, `name`, `brand`,
 *   `variety` and `slug` are lower case and `image.alt`, `headingText` empty; not one of the
 *   17,664 transcribed names or brands has a capital), so none is invented here. Products get
 *   their shopper-facing name from src/domain/display-names.ts.
 * - size_text: `volume_size` ("500g", "6pack", "4 x 250mL"); for a product sold by weight (`unit`
 *   Kg) the price is per kilogram and the size text is "per kg" (the catalogue's "min order 600g"
 *   or "0.4-0.8kg" there is an ordering hint, not the priced size), from which the size rule
 *   (src/domain/sizes.ts) derives `weighable`.
 * - gtin: `barcode` when it is a usable GTIN (src/domain/matching.ts gtinProblem: check digit
 *   verified); otherwise dropped and counted by problem, never guessed or repaired. In-store codes
 *   (GS1 restricted circulation, prefix 2) are counted as `restricted`.
 * - category_path: [department] (`departments` holds one department per product in this file).
 * - retailer_url: the product page of the stock code.
 *
 * Prices and promotions, decided from what the real rows show (`npm run worker -- import` prints
 * the counts per tag in its report):
 * - price (shelf price) = `original_price`; a `sale_price` below it is a promotion at `sale_price`:
 *   - `IsClubPrice` (1,553 rows, every one below the original): promo_kind 2, member/club price
 *     (Everyday Rewards members only);
 *   - `IsSpecial` (4,847, every one below), `IsGreatPrice` below the original (71: "Great Price"
 *     items cut further) and `Other` below the original (493: fresh produce and own-brand items
 *     whose tag is a label, price cut for everyone): promo_kind 1, special (everyone).
 * - `sale_price` equal to `original_price`: no promotion, whatever the tag: `IsGreatPrice` (25,
 *   an everyday low-price label), `IsNew`, `IsFreshDeal`, `Other`, none; and `IsMultiBuy` /
 *   `IsGreatPriceMultiBuy` (164): multibuy deals whose quantity and total were not transcribed,
 *   so the multibuy cannot be recorded: shelf price only (counted as `multibuyUnrecorded`).
 * - a sale price above the original is refused (ImportError naming the line); none occurs.
 */
import fs from 'node:fs';
import type pg from 'pg';
import { parse } from 'csv-parse/sync';
import { countInto, emptyRecord } from '../../src/domain/dictionary.js';
import { dollarsToCents } from '../../src/domain/money.js';
import { gtinKey, gtinProblem, type GtinProblem } from '../../src/domain/matching.js';
import type { PromoKind } from '../../src/domain/spans.js';
import { ingest } from '../ingest/ingest.js';
import type { RawRecord } from '../ingest/format.js';
import { ImportError, summariseIngest, type IngestSummary } from './sources.js';
import { cleanText } from './stores.js';

/** When the scraper run that wrote the catalogue ran: 2026-07-27 06:02 NZST (UTC+12; data README). */
export const CATALOGUE_OBSERVED_AT = '2026-07-27T06:02:00+12:00';

/** NZ day of the catalogue (the scraper run of 2026-07-27 06:02 NZST; data README). */
export const CATALOGUE_DAY = '2026-07-27';

/** The transcribed columns, in file order (data README, "products.columns.tsv"). */
export const CATALOGUE_COLUMNS = [
  'sku', 'barcode', 'slug', 'name', 'brand', 'variety', 'unit', 'departments', 'original_price', 'sale_price',
  'cup_price', 'cup_measure', 'package_type', 'volume_size', 'tag_type',
] as const;

/** Woolworths' product page of a stock code. */
export function woolworthsProductUrl(sku: string): string {
  return `https://www.woolworths.co.nz/shop/productdetails?stockcode=${encodeURIComponent(sku)}`;
}

/** The price tuple of one catalogue row. Money in integer NZ cents. */
export interface CataloguePrice {
  /** Shelf price (`original_price`), cents. */
  price: number;
  /** `sale_price` when below the shelf price, cents; else null. */
  promo_price: number | null;
  /** 2 for `IsClubPrice`, 1 for any other tag with a lower sale price, null without a promotion. */
  promo_kind: PromoKind | null;
}

/**
 * The shelf price and promotion of a catalogue row, by the rules in the module comment.
 * @throws RangeError when the sale price is above the original price.
 */
export function cataloguePrice(originalCents: number, saleCents: number, tag: string): CataloguePrice {
  if (saleCents > originalCents) throw new RangeError(`sale_price ${saleCents} is above original_price ${originalCents}`);
  if (saleCents === originalCents) return { price: originalCents, promo_price: null, promo_kind: null };
  return { price: originalCents, promo_price: saleCents, promo_kind: tag === 'IsClubPrice' ? 2 : 1 };
}

/**
 * Size text of a catalogue row: "per kg" when sold by weight (`unit` Kg), else `volume_size`, or
 * null when empty.
 */
export function catalogueSizeText(unit: string, volumeSize: string): string | null {
  if (unit === 'Kg') return 'per kg';
  return cleanText(volumeSize) || null;
}

/** One catalogue product, read and checked. */
export interface CatalogueRow {
  /** 1-based line in the file. */
  line: number;
  sku: string;
  /** GTIN digits as the file gives them when usable (check digit verified), else null. */
  gtin: string | null;
  /** Why the barcode was dropped; null when kept or when the row has none. */
  gtinDropped: GtinProblem | null;
  name: string;
  brand: string | null;
  sizeText: string | null;
  weighable: boolean;
  department: string | null;
  tag: string;
  prices: CataloguePrice;
}

/** What reading the catalogue found. */
export interface CatalogueRead {
  rows: CatalogueRow[];
  /** Barcodes kept as GTINs. */
  gtins: number;
  /** Barcodes dropped, by problem (format, check-digit, restricted). */
  gtinsDropped: Record<GtinProblem, number>;
  /** Rows per `tag_type` ("" for none). */
  tags: Record<string, number>;
  /** Rows per promotion kind recorded ("none", "1 special", "2 member/club"). */
  promotions: Record<string, number>;
  /** Multibuy tags whose deal was not transcribed: recorded at the shelf price only. */
  multibuyUnrecorded: number;
  /** Products sold by weight (unit Kg). */
  weighable: number;
}

const PROMO_LABEL: ReadonlyMap<PromoKind | null, string> = new Map<PromoKind | null, string>([[null, 'none'], [1, '1 special'], [2, '2 member/club']]);

/**
 * Reads and checks the catalogue TSV (header of {@link CATALOGUE_COLUMNS}, tab-separated, no
 * quoting; every line 15 fields).
 * @throws ImportError naming the line for a wrong header, a bad or repeated SKU, an empty name,
 *   a bad price or a sale price above the original.
 */
export function readCatalogue(file: string): CatalogueRead {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(fs.readFileSync(file), { delimiter: '\t', quote: false, bom: true, skip_empty_lines: true, info: true, relax_column_count: false }) as unknown as typeof records;
  } catch (e) {
    const err = e as { lines?: number; message: string };
    throw new ImportError(file, `malformed TSV: ${err.message}`, err.lines ?? null);
  }
  const header = records.shift();
  if (!header || header.record.join('\t') !== CATALOGUE_COLUMNS.join('\t')) {
    throw new ImportError(file, `header must be ${CATALOGUE_COLUMNS.join(',')}, not ${header?.record.join(',') ?? '(empty file)'}`, 1);
  }
  if (records.length === 0) throw new ImportError(file, 'no data rows');
  const col = Object.fromEntries(CATALOGUE_COLUMNS.map((c, i) => [c, i])) as Record<(typeof CATALOGUE_COLUMNS)[number], number>;
  const out: CatalogueRead = {
    rows: [], gtins: 0, gtinsDropped: { format: 0, 'check-digit': 0, restricted: 0 }, tags: emptyRecord(), promotions: emptyRecord(), multibuyUnrecorded: 0, weighable: 0,
  };
  const seen = new Set<string>();
  for (const { record, info } of records) {
    const line = info.lines;
    const f = (c: (typeof CATALOGUE_COLUMNS)[number]) => record[col[c]].trim();
    const sku = f('sku');
    if (!/^\d{1,12}$/.test(sku)) throw new ImportError(file, `sku is not a stock code: "${sku}"`, line);
    if (seen.has(sku)) throw new ImportError(file, `sku ${sku} is repeated`, line);
    seen.add(sku);
    const name = cleanText(f('name'));
    if (!name) throw new ImportError(file, `sku ${sku} has no name`, line);
    let prices: CataloguePrice;
    try {
      prices = cataloguePrice(dollarsToCents(f('original_price')), dollarsToCents(f('sale_price')), f('tag_type'));
    } catch (e) {
      throw new ImportError(file, `sku ${sku}: ${(e as Error).message}`, line);
    }
    const barcode = f('barcode');
    const problem = barcode === '' ? null : gtinProblem(barcode);
    const gtin = barcode !== '' && problem === null ? String(gtinKey(barcode)) : null;
    if (gtin) out.gtins += 1;
    if (problem) out.gtinsDropped[problem] += 1;
    const tag = f('tag_type');
    // Counted by the file's own tag text: a record without a prototype (src/domain/dictionary.ts).
    countInto(out.tags, tag);
    countInto(out.promotions, PROMO_LABEL.get(prices.promo_kind) ?? String(prices.promo_kind));
    if (/MultiBuy$/.test(tag) && prices.promo_kind === null) out.multibuyUnrecorded += 1;
    const weighable = f('unit') === 'Kg';
    if (weighable) out.weighable += 1;
    out.rows.push({
      line, sku, gtin, gtinDropped: problem, name,
      brand: cleanText(f('brand')) || null,
      sizeText: catalogueSizeText(f('unit'), f('volume_size')),
      weighable,
      department: cleanText(f('departments').split('|')[0] ?? '') || null,
      tag,
      prices,
    });
  }
  return out;
}

/** The national observations of the catalogue day, one per SKU, ready for ingest. */
export function catalogueObservations(rows: readonly CatalogueRow[]): RawRecord[] {
  return rows.map((r) => ({
    line: r.line,
    record: {
      day: CATALOGUE_DAY,
      retailer: 'woolworths',
      store: '',
      external_id: r.sku,
      price: r.prices.price,
      promo_price: r.prices.promo_price,
      promo_kind: r.prices.promo_kind,
      name: r.name,
      brand: r.brand,
      size_text: r.sizeText,
      gtin: r.gtin,
      category_path: r.department ? [r.department] : [],
      retailer_url: woolworthsProductUrl(r.sku),
      available: true,
    },
  }));
}

/** What the catalogue import did. */
export interface CatalogueReport extends Omit<CatalogueRead, 'rows'> {
  day: string;
  products: number;
  /** Catalogue SKUs that the price log had already created as listings. */
  loggedSkus: number;
  /** Listings created now (SKUs the log did not have). */
  newListings: number;
  /** Woolworths listings the catalogue does not list: their spans end with the log, no longer available. */
  notInCatalogue: number;
  ingest: IngestSummary;
}

/**
 * Reads the catalogue and ingests it as Woolworths' national snapshot of {@link CATALOGUE_DAY},
 * after a gap (see the module comment), with every SKU's description.
 * @throws ImportError for a malformed catalogue (nothing written); ObservationError when ingest
 *   refuses the day (for example a Woolworths day on or after it is already stored).
 */
export async function importCatalogue(pool: pg.Pool, file: string, opts: { progress?: boolean } = {}): Promise<CatalogueReport> {
  const { rows, ...stats } = readCatalogue(file);
  const before = await pool.query<{ sku: string }>(
    `SELECT l.external_id AS sku FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths'`,
  );
  const existing = new Set(before.rows.map((r) => r.sku));
  const inCatalogue = new Set(rows.map((r) => r.sku));
  const result = await ingest(pool, catalogueObservations(rows), {
    mode: 'snapshot',
    afterGap: true,
    source: 'neon-ninja/woolies products.csv (products.columns.tsv), 2026-07-27',
    progress: opts.progress,
    // The scraper run's own time (data README), not the time of this import.
    observedAt: (day) => (day === CATALOGUE_DAY ? new Date(CATALOGUE_OBSERVED_AT) : null),
  });
  return {
    day: CATALOGUE_DAY,
    products: rows.length,
    ...stats,
    loggedSkus: rows.filter((r) => existing.has(r.sku)).length,
    newListings: rows.filter((r) => !existing.has(r.sku)).length,
    notInCatalogue: [...existing].filter((s) => !inCatalogue.has(s)).length,
    ingest: summariseIngest(result),
  };
}
