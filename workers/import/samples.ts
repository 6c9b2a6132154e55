/**
 * Store-level price samples of Blim3202/NZ-Meal-Cost-Optimiser → store observations.
 *
 * Sources (../shared/data/README.md):
 * - `full_results.csv`: dated (`date_created` 2026-08-03), 3 Woolworths and 3 PAK'nSAVE Auckland
 *   stores by `store_id`; every row has a `sku` (Woolworths stock code, Foodstuffs product id such
 *   as `5343415-EA-000`), used as the listing's external id. PAK'nSAVE rows of the second
 *   collection path (18:27:17) have an empty `quantity` and the pack size in `measurement_unit`
 *   (`400g`): size_text is then `measurement_unit` alone.
 * - `woolworths_latest_results` (CSV, no extension): undated; stores by name only (resolved to ids
 *   through the names full_results.csv pairs with ids, then the store list), `sku` given.
 * - `newworld_latest_results.csv`, `paknsave_latest_results.csv`: undated; `store_id` UUIDs of the
 *   store lists, no product id. Decision: external_id is a stable slug of `product_name` and
 *   `product_size` ({@link productSlug}, e.g. "chopped-tomatoes-in-juice-400g"), unless a dated
 *   full_results.csv row of the chain has the same name and size under one product id, which it
 *   then takes ({@link adoptProductIds}), so one PAK'nSAVE product is one listing.
 *
 * Decisions:
 * - The undated files are filed under full_results.csv's day and combined with it into one ingest
 *   call per chain-day, in `changes` mode: the samples are searches for seven ingredients at a few
 *   stores, not a catalogue, so they neither close the national spans of the listings they do not
 *   mention nor make those listings unavailable (a Woolworths listing of the 2026-07-27 catalogue
 *   keeps its open national span). A listing they do mention gets its store spans and, from the
 *   median across the sampled stores, a national span (the contract's national series). Where a store and listing appear in both, the dated
 *   full_results.csv row wins. Within one file a repeated store + listing keeps its first row; the
 *   others are dropped and counted.
 * - A sale row (`is_sale`/`is_promo` True) is recorded as promo_price = the price shown, promo_kind 1
 *   (special), and price = that same price: the sources show only the price charged, with no
 *   separate shelf price, so the shelf price of a sale row is not known any better.
 */
import type pg from 'pg';
import { isDay } from '../../src/domain/days.js';
import { countInto, emptyRecord } from '../../src/domain/dictionary.js';
import { dollarsToCents } from '../../src/domain/money.js';
import { parseSize, totalQty } from '../../src/domain/sizes.js';
import { ingest } from '../ingest/ingest.js';
import { ObservationError, validateObservation, type RawRecord } from '../ingest/format.js';
import { ImportError, readCsvFile, summariseIngest, type IngestSummary, type SourcePaths } from './sources.js';
import { cleanText } from './stores.js';

/** The chains the samples cover. */
export type SampleChain = 'woolworths' | 'paknsave' | 'newworld';

/** One sample row, read and normalised, before de-duplication. */
export interface SampleRow {
  chain: SampleChain;
  /** Source file path and 1-based line. */
  file: string;
  line: number;
  /** True for the dated full_results.csv. */
  dated: boolean;
  /** Store id (retailer's own) or, for woolworths_latest_results, the store name to resolve. */
  store: string;
  storeIsName: boolean;
  /** The store's name as the file prints it (empty when it has none). */
  storeName: string;
  external_id: string;
  /** Cents. */
  price: number;
  sale: boolean;
  name: string | null;
  size_text: string | null;
  category_path: string[];
}

/**
 * A stable slug of a product name and size, used as external_id when a source has no product id:
 * lowercase ASCII letters and digits, runs of anything else as one "-" ("Chopped Tomatoes in Juice",
 * "400g" → "chopped-tomatoes-in-juice-400g"; "Carrots", "kg" → "carrots-kg").
 */
export function productSlug(name: string, size: string): string {
  const slug = `${name} ${size}`
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, 200);
}

/**
 * Size text from full_results.csv's `quantity` and `measurement_unit`: "500" + "g" → "500g",
 * "6" + "pack" → "6 pack", "3" + "x 31g" → "3 x 31g", "" + "400g" → "400g"; null when both are empty.
 */
export function sizeText(quantity: string, unit: string): string | null {
  const q = cleanText(quantity);
  const u = cleanText(unit);
  if (!q) return u || null;
  if (!u) return q;
  return /^(x\s|pack\b)/i.test(u) ? `${q} ${u}` : `${q}${u}`;
}

/**
 * Whether a full_results.csv row's own unit price contradicts its printed size (issue 32 item 4):
 * the row's price is more than 3 % above `per_unit_price` × size ÷ `per_unit_quantity` (both sizes
 * parsed by src/domain/sizes.ts in the same unit, neither sold by weight). Then `quantity` and
 * `measurement_unit` hold the unit-price basis, not the pack: Woolworths SKU 6072822, beef mince
 * "1 kg" at $31.90 with $17.72 per kg, is the catalogue's "1.8kg pack", and as a size it recorded a
 * pack shrinking from 1.8 kg to 1 kg that never happened. A price *below* what the unit price gives
 * is a sale row (its unit price is of the original price) and is no contradiction. False when a
 * value is missing or does not parse.
 */
export function sizeContradicted(size: string | null, perUnitQuantity: string, perUnitPrice: string, price: string): boolean {
  const pack = parseSize(size);
  const basis = parseSize(cleanText(perUnitQuantity));
  const unit = Number(perUnitPrice);
  const paid = Number(price);
  if (!pack || !basis || pack.perKg || basis.perKg || pack.unit !== basis.unit) return false;
  if (!(unit > 0) || !(paid > 0) || !(totalQty(basis) > 0)) return false;
  return paid > ((unit * totalQty(pack)) / totalQty(basis)) * 1.03;
}

/** Category path from full_results.csv's department and sub_department, each the first of its `|`-separated alternatives. */
export function categoryPath(department: string, subDepartment: string): string[] {
  return [department, subDepartment].map((s) => cleanText(s.split('|')[0] ?? '')).filter((s) => s !== '');
}

function bool(file: string, line: number, v: string, col: string): boolean {
  if (v === 'True') return true;
  if (v === 'False') return false;
  throw new ImportError(file, `${col} must be True or False, not "${v}"`, line);
}

function cents(file: string, line: number, v: string): number {
  try {
    return dollarsToCents(v);
  } catch (e) {
    throw new ImportError(file, (e as Error).message, line);
  }
}

/** The file's `company` text → chain (a Map: an object would answer "constructor" from its prototype). */
const COMPANY: ReadonlyMap<string, SampleChain> = new Map<string, SampleChain>([['Woolworths', 'woolworths'], ['PaknSave', 'paknsave']]);

/**
 * Reads full_results.csv.
 * @returns the rows and their one collection day.
 * @throws ImportError for an unknown company, a bad price or flag, or rows of more than one day.
 */
export function readFullResults(file: string): { day: string; rows: SampleRow[] } {
  const cols = ['company', 'store', 'store_id', 'returned_ingredient', 'price', 'quantity', 'measurement_unit', 'is_sale', 'sku', 'department', 'sub_department', 'date_created'];
  const days = new Set<string>();
  const rows = readCsvFile(file, cols).map(({ line, row }): SampleRow => {
    const chain = COMPANY.get(row.company);
    if (!chain) throw new ImportError(file, `unknown company "${row.company}"`, line);
    if (!isDay(row.date_created)) throw new ImportError(file, `date_created is not a day: "${row.date_created}"`, line);
    days.add(row.date_created);
    const name = cleanText(row.returned_ingredient) || null;
    const printed = sizeText(row.quantity, row.measurement_unit);
    // A size the row's own unit price contradicts is no size (sizeContradicted): left null, which never erases one.
    const size = sizeContradicted(printed, row.per_unit_quantity ?? '', row.per_unit_price ?? '', row.price) ? null : printed;
    const sku = row.sku.trim();
    if (!sku && !name) throw new ImportError(file, 'row has neither sku nor product name', line);
    if (!row.store_id.trim()) throw new ImportError(file, 'store_id is empty', line);
    return {
      chain, file, line, dated: true,
      store: row.store_id.trim(), storeIsName: false, storeName: cleanText(row.store),
      external_id: sku || productSlug(name as string, size ?? ''),
      price: cents(file, line, row.price),
      sale: bool(file, line, row.is_sale, 'is_sale'),
      name, size_text: size,
      category_path: categoryPath(row.department, row.sub_department),
    };
  });
  if (days.size !== 1) throw new ImportError(file, `expected one collection day, found ${[...days].join(', ')}`);
  return { day: [...days][0], rows };
}

/**
 * Reads woolworths_latest_results (store names, sku; no sale flag: no promotion).
 * @throws ImportError for a missing column, a row without sku or a bad price.
 */
export function readWoolworthsLatest(file: string): SampleRow[] {
  return readCsvFile(file, ['store', 'name', 'price', 'sku']).map(({ line, row }) => {
    const sku = row.sku.trim();
    if (!sku) throw new ImportError(file, 'sku is empty', line);
    return {
      chain: 'woolworths' as const, file, line, dated: false,
      store: cleanText(row.store), storeIsName: true, storeName: cleanText(row.store),
      external_id: sku,
      price: cents(file, line, row.price),
      sale: false,
      name: cleanText(row.name) || null, size_text: null, category_path: [],
    };
  });
}

/**
 * Reads newworld_latest_results.csv or paknsave_latest_results.csv (store_id UUIDs, product name
 * and size, no product id: external_id = {@link productSlug}).
 * @throws ImportError for a missing column, an empty product name or a bad price or flag.
 */
export function readFoodstuffsLatest(file: string, chain: 'newworld' | 'paknsave'): SampleRow[] {
  return readCsvFile(file, ['store_id', 'product_name', 'product_size', 'price', 'is_promo']).map(({ line, row }) => {
    const name = cleanText(row.product_name);
    const size = cleanText(row.product_size);
    if (!name) throw new ImportError(file, 'product_name is empty', line);
    if (!row.store_id.trim()) throw new ImportError(file, 'store_id is empty', line);
    return {
      chain, file, line, dated: false,
      store: row.store_id.trim(), storeIsName: false, storeName: cleanText(row.store ?? ''),
      external_id: productSlug(name, size),
      price: cents(file, line, row.price),
      sale: bool(file, line, row.is_promo, 'is_promo'),
      name, size_text: size || null, category_path: [],
    };
  });
}

/** Normalises a Woolworths store name for matching: no chain words, "Mount" → "Mt", "Saint" → "St". */
export function storeNameKey(name: string): string {
  return cleanText(
    name
      .toLowerCase()
      .replace(/\b(woolworths|countdown|metro)\b/g, ' ')
      .replace(/\bmount\b/g, 'mt')
      .replace(/\bsaint\b/g, 'st')
      .replace(/[^a-z0-9]+/g, ' '),
  );
}

/**
 * Resolves store names to store ids: first a name paired with an id in the dated file, then a
 * unique match of {@link storeNameKey} in the chain's store list.
 * @throws ImportError naming the row when a name matches no store or several.
 */
export function resolveStoreNames(rows: SampleRow[], aliases: ReadonlyMap<string, string>, stores: readonly { external_id: string; name: string }[]): SampleRow[] {
  return rows.map((r) => {
    if (!r.storeIsName) return r;
    const alias = aliases.get(r.store);
    if (alias) return { ...r, store: alias, storeIsName: false };
    const key = storeNameKey(r.store);
    const hits = stores.filter((s) => storeNameKey(s.name) === key);
    if (hits.length !== 1) {
      throw new ImportError(r.file, `store "${r.store}" matches ${hits.length === 0 ? 'no' : hits.length} ${r.chain} stores${hits.length ? ` (${hits.map((h) => h.external_id).join(', ')})` : ''}`, r.line);
    }
    return { ...r, store: hits[0].external_id, storeIsName: false };
  });
}

/** Counts of one chain's combined sample day. */
export interface ChainSampleReport {
  day: string;
  /** Rows read per source file name. */
  read: Record<string, number>;
  /** Repeated store + listing rows dropped within a file (first kept), per file name. */
  droppedDuplicates: Record<string, number>;
  /** Undated rows dropped because the dated file has the same store and listing, per file name. */
  overriddenByDated: Record<string, number>;
  observations: number;
  stores: number;
  ingest: IngestSummary;
}

/** What the sample import did, per chain. */
export type SamplesReport = Record<SampleChain, ChainSampleReport>;

/**
 * Combines a chain's rows into one day's observations: the dated rows first (they win over
 * undated rows of the same store and listing), the first of repeated rows within a file.
 * Returns the raw records (line = position in the combined list; dated rows last so that their
 * names and sizes are the ones kept) and the source row of each line.
 */
export function combineChainDay(day: string, rows: readonly SampleRow[]): {
  records: RawRecord[];
  origin: SampleRow[];
  droppedDuplicates: Record<string, number>;
  overriddenByDated: Record<string, number>;
} {
  const base = (f: string) => f.split('/').pop() as string;
  const droppedDuplicates = emptyRecord<number>();
  const overriddenByDated = emptyRecord<number>();
  const perFile = new Map<string, Set<string>>();
  const kept = new Map<string, SampleRow>();
  const ordered = [...rows].sort((a, b) => Number(b.dated) - Number(a.dated));
  for (const r of ordered) {
    const key = `${r.store}\u0000${r.external_id}`;
    let seen = perFile.get(r.file);
    if (!seen) perFile.set(r.file, (seen = new Set()));
    if (seen.has(key)) {
      countInto(droppedDuplicates, base(r.file));
      continue;
    }
    seen.add(key);
    if (kept.has(key)) {
      countInto(overriddenByDated, base(r.file));
      continue;
    }
    kept.set(key, r);
  }
  const origin = [...kept.values()].sort((a, b) => Number(a.dated) - Number(b.dated));
  const records = origin.map((r, i): RawRecord => {
    const record = {
      day,
      retailer: r.chain,
      store: r.store,
      external_id: r.external_id,
      price: r.price,
      promo_price: r.sale ? r.price : null,
      promo_kind: r.sale ? 1 : null,
      name: r.name,
      size_text: r.size_text,
      category_path: r.category_path,
    };
    return { line: i + 1, record };
  });
  return { records, origin, droppedDuplicates, overriddenByDated };
}

/**
 * Rows without a product id (external_id = {@link productSlug} of name and size) take the product id
 * that dated rows of the same chain give the same name and size, when exactly one does: the same
 * PAK'nSAVE product is then one listing, not two (one under its id, one under a slug). Rows whose
 * slug no dated row (or more than one product id) shares keep the slug.
 */
export function adoptProductIds(rows: readonly SampleRow[]): SampleRow[] {
  const ids = new Map<string, Set<string>>(); // chain + slug → product ids
  for (const r of rows) {
    if (!r.dated || !r.name) continue;
    const slug = productSlug(r.name, r.size_text ?? '');
    if (r.external_id === slug) continue;
    const key = `${r.chain} ${slug}`;
    if (!ids.has(key)) ids.set(key, new Set());
    ids.get(key)!.add(r.external_id);
  }
  return rows.map((r) => {
    if (!r.name || r.external_id !== productSlug(r.name, r.size_text ?? '')) return r;
    const found = ids.get(`${r.chain} ${r.external_id}`);
    return found?.size === 1 ? { ...r, external_id: [...found][0] } : r;
  });
}

/**
 * What an observation error says about a sample row, for an ImportError that names the source file
 * and line instead of the combined record's line: the detail, with the column when known.
 */
function sourceDetail(e: ObservationError): string {
  return e.column === null ? e.detail : `column ${e.column}: ${e.detail}`;
}

/**
 * Reads the four sample files and ingests each chain's combined day (one call per chain, snapshot).
 * Needs the stores imported first.
 * @throws ImportError naming the source file and line for a malformed row, an unresolvable store
 *   name or an observation that ingest rejects (for example an unknown store id).
 */
export async function importSamples(pool: pg.Pool, paths: SourcePaths, opts: { progress?: boolean } = {}): Promise<SamplesReport> {
  const full = readFullResults(paths.fullResults);
  // Store names that the dated file pairs with a store id resolve the undated file's names first.
  const aliases = new Map<string, string>();
  for (const r of full.rows) if (r.chain === 'woolworths' && r.storeName) aliases.set(r.storeName, r.store);
  const wwStores = (
    await pool.query<{ external_id: string; name: string }>(
      `SELECT s.external_id, s.name FROM store s JOIN retailer r ON r.id = s.retailer_id WHERE r.slug = 'woolworths'`,
    )
  ).rows;
  const byChain: Record<SampleChain, SampleRow[]> = {
    woolworths: [
      ...full.rows.filter((r) => r.chain === 'woolworths'),
      ...resolveStoreNames(readWoolworthsLatest(paths.woolworthsLatest), aliases, wwStores),
    ],
    paknsave: adoptProductIds([...full.rows.filter((r) => r.chain === 'paknsave'), ...readFoodstuffsLatest(paths.paknsaveLatest, 'paknsave')]),
    newworld: readFoodstuffsLatest(paths.newworldLatest, 'newworld'),
  };

  const report = {} as SamplesReport;
  for (const chain of ['woolworths', 'paknsave', 'newworld'] as const) {
    const rows = byChain[chain];
    const { records, origin, droppedDuplicates, overriddenByDated } = combineChainDay(full.day, rows);
    const where = (line: number | null) => (line === null ? null : origin[line - 1] ?? null);
    for (const rec of records) {
      try {
        validateObservation(rec);
      } catch (e) {
        const o = where(rec.line);
        if (e instanceof ObservationError && o) throw new ImportError(o.file, sourceDetail(e), o.line);
        throw e;
      }
    }
    let result: Awaited<ReturnType<typeof ingest>>;
    try {
      result = await ingest(pool, records, { mode: 'partial', source: `Blim3202/NZ-Meal-Cost-Optimiser samples (${chain})`, progress: opts.progress });
    } catch (e) {
      const o = e instanceof ObservationError ? where(e.line) : null;
      if (o) throw new ImportError(o.file, sourceDetail(e as ObservationError), o.line);
      throw e;
    }
    const read = emptyRecord<number>();
    for (const r of rows) countInto(read, r.file.split('/').pop() as string);
    report[chain] = {
      day: full.day,
      read,
      droppedDuplicates,
      overriddenByDated,
      observations: records.length,
      stores: new Set(origin.map((o) => o.store)).size,
      ingest: summariseIngest(result),
    };
  }
  return report;
}
