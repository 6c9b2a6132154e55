/**
 * The observation format: one row per listing per store per day, as CSV (header row, these column
 * names) or NDJSON (one object per line, these keys). Documented in README "Observation format".
 *
 * | column | type | rules |
 * |---|---|---|
 * | day | YYYY-MM-DD | NZ calendar day of the collection |
 * | retailer | slug | one of the six chains |
 * | store | text | the retailer's own store id; empty for a national observation (national-only chain, or a chain-wide price) |
 * | external_id | text | the retailer's own product id |
 * | price | integer cents | shelf price, ≥ 0 |
 * | promo_price | integer cents | single-unit promotional price; requires promo_kind |
 * | promo_kind | 1–4 | 1 special, 2 member/club, 3 multibuy, 4 clearance |
 * | multibuy_qty, multibuy_price | integers | both required for promo_kind 3 (qty ≥ 2, total in cents) |
 * | name, brand, size_text | text | listing attributes; an empty value never erases a known one |
 * | gtin | up to 14 digits | barcode |
 * | category_path | text | the retailer's breadcrumb, levels joined by " > " (NDJSON: array of strings) |
 * | image, retailer_url | text | |
 * | available | true/false | still on the retailer's site |
 */
import fs from 'node:fs';
import readline from 'node:readline';
import { parse } from 'csv-parse';
import { z } from 'zod';
import { isDay } from '../../src/domain/days.js';

const emptyToNull = (v: unknown) => (v === '' || v === undefined ? null : v);
const optText = z.preprocess(emptyToNull, z.string().trim().min(1).max(1000).nullable());
const optInt = (min: number, max: number) =>
  z.preprocess(emptyToNull, z.coerce.number().int().min(min).max(max).nullable());
const cents = z.coerce.number({ error: 'must be integer cents' }).int('must be integer cents').min(0, 'must not be negative').max(100_000_000, 'is too large');

/** One validated observation. Money in integer NZ cents. */
export const observationSchema = z
  .object({
    day: z.string().refine(isDay, 'must be a calendar day YYYY-MM-DD'),
    retailer: z.string().regex(/^[a-z]+$/, 'must be a lowercase retailer slug'),
    store: optText,
    external_id: z.coerce.string().trim().min(1).max(200),
    price: cents,
    promo_price: z.preprocess(emptyToNull, cents.nullable()),
    promo_kind: optInt(1, 4),
    multibuy_qty: optInt(2, 1000),
    multibuy_price: z.preprocess(emptyToNull, cents.nullable()),
    name: optText,
    brand: optText,
    size_text: optText,
    gtin: z.preprocess(
      (v) => (emptyToNull(v) === null ? null : String(v).trim()),
      z.string().regex(/^\d{1,14}$/, 'must be up to 14 digits').nullable(),
    ),
    category_path: z.preprocess(
      (v) => (typeof v === 'string' ? (v.trim() === '' ? [] : v.split(' > ').map((s) => s.trim())) : v ?? []),
      z.array(z.string().min(1).max(200)).max(10),
    ),
    image: optText,
    retailer_url: optText,
    available: z.preprocess(
      (v) => (v === '' || v === undefined || v === null ? null : v === true || v === 'true' || v === '1' ? true : v === false || v === 'false' || v === '0' ? false : v),
      z.boolean().nullable(),
    ),
  })
  .superRefine((o, ctx) => {
    if ((o.promo_price === null) !== (o.promo_kind === null) && !(o.promo_kind === 3 && o.promo_price === null)) {
      ctx.addIssue({ code: 'custom', path: ['promo_kind'], message: 'promo_price and promo_kind go together' });
    }
    const multi = o.multibuy_qty !== null || o.multibuy_price !== null;
    if (o.promo_kind === 3 && (o.multibuy_qty === null || o.multibuy_price === null)) {
      ctx.addIssue({ code: 'custom', path: ['multibuy_qty'], message: 'promo_kind 3 needs multibuy_qty and multibuy_price' });
    }
    if (multi && o.promo_kind !== 3) {
      ctx.addIssue({ code: 'custom', path: ['multibuy_qty'], message: 'multibuy fields need promo_kind 3' });
    }
  })
  .transform((o) => ({
    ...o,
    // A multibuy's single-unit promotional price is its total over its quantity, to the cent.
    promo_price:
      o.promo_price ?? (o.promo_kind === 3 ? Math.round((o.multibuy_price as number) / (o.multibuy_qty as number)) : null),
  }));

/** A validated observation row. */
export type Observation = z.output<typeof observationSchema>;
/**
 * An observation before validation, as an importer builds it (strings where a file would have
 * them are accepted too). Money in integer NZ cents.
 */
export interface ObservationInput {
  day: string;
  retailer: string;
  store?: string | null;
  external_id: string | number;
  price: number | string;
  promo_price?: number | string | null;
  promo_kind?: number | string | null;
  multibuy_qty?: number | string | null;
  multibuy_price?: number | string | null;
  name?: string | null;
  brand?: string | null;
  size_text?: string | null;
  gtin?: string | number | null;
  category_path?: string[] | string | null;
  image?: string | null;
  retailer_url?: string | null;
  available?: boolean | string | null;
}

/** A raw record with the 1-based line of the source it came from. */
export interface RawRecord {
  line: number;
  record: unknown;
}

/** Thrown for a malformed file; `line` is the 1-based line of the first bad row. */
export class ObservationError extends Error {
  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(line === null ? message : `line ${line}: ${message}`);
  }
}

/**
 * Validates one record. @throws ObservationError naming the line and every bad field.
 */
export function validateObservation(raw: RawRecord): Observation {
  const r = observationSchema.safeParse(raw.record);
  if (r.success) return r.data;
  const detail = r.error.issues.map((i) => `${i.path.join('.') || 'row'}: ${i.message}`).join('; ');
  throw new ObservationError(detail, raw.line);
}

/** Streams the records of a CSV file (header row gives column names) with their line numbers. */
export async function* readCsv(file: string): AsyncGenerator<RawRecord> {
  const parser = fs.createReadStream(file).pipe(
    parse({ columns: true, bom: true, relax_column_count: false, skip_empty_lines: true, info: true }),
  );
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: unknown; info: { lines: number } }>) {
      yield { line: info.lines, record };
    }
  } catch (e) {
    const err = e as { lines?: number; message: string };
    throw new ObservationError(`malformed CSV: ${err.message}`, err.lines ?? null);
  }
}

/** Streams the records of an NDJSON file with their line numbers; blank lines are skipped. */
export async function* readNdjson(file: string): AsyncGenerator<RawRecord> {
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  let line = 0;
  for await (const text of rl) {
    line += 1;
    if (text.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      throw new ObservationError('malformed JSON', line);
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new ObservationError('not a JSON object', line);
    yield { line, record };
  }
}

/** Reads a file by extension: `.csv` or `.ndjson`/`.jsonl`. @throws ObservationError otherwise. */
export function readObservationFile(file: string): AsyncGenerator<RawRecord> {
  if (/\.csv$/i.test(file)) return readCsv(file);
  if (/\.(ndjson|jsonl)$/i.test(file)) return readNdjson(file);
  throw new ObservationError(`unknown file type (expected .csv, .ndjson or .jsonl): ${file}`);
}
