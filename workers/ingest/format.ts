/**
 * The observation format: one row per listing per store per day, as CSV (header row, these column
 * names) or NDJSON (one object per line, these keys). Documented in docs/ingest.md "Observation format".
 *
 * | column | type | rules |
 * |---|---|---|
 * | day | YYYY-MM-DD | NZ calendar day of the collection; not after today in Pacific/Auckland |
 * | retailer | slug | one of the six chains |
 * | store | text | the retailer's own store id; empty for a national observation (national-only chain, or a chain-wide price) |
 * | external_id | text | the retailer's own product id |
 * | price | integer cents | shelf price; required |
 * | promo_price | integer cents | single-unit promotional price; requires promo_kind |
 * | promo_kind | 1–4 | 1 special, 2 member/club, 3 multibuy, 4 clearance |
 * | multibuy_qty, multibuy_price | integers | both required for promo_kind 3 (qty 2–1000, total in cents) |
 * | name, brand, size_text | text | listing attributes; an empty value never erases a known one |
 * | gtin | up to 14 digits | barcode |
 * | category_path | text | the retailer's breadcrumb, levels joined by " > " (NDJSON: array of strings) |
 * | image | text | the retailer's image URL (stored as listing.image_url; workers/images converts it), or an ImagePath `/…/x.avif` already served here |
 * | retailer_url | text | |
 * | available | true/false | still on the retailer's site |
 *
 * Strict grammar of the integer columns (price, promo_price, multibuy_price in cents; promo_kind;
 * multibuy_qty): plain decimal digits, `^(0|[1-9][0-9]*)$` — in NDJSON a JSON integer written so
 * (`349`, not `349.0` or `3.49e2`: {@link readNdjson} checks the source text), or such a string;
 * from an importer, a safe non-negative integer number or such a string. No sign, spaces, leading
 * zeros, fraction, exponent, hex or binary: `" 12 "`, `"1e3"`, `"0x10"`, `"12.0"`, `"-1"`, `"007"`
 * are refused. An empty value (`""`, a
 * missing NDJSON key, `null`) is a missing value, never 0: a missing `price` is an error.
 * Cents are at most 100,000,000 ($1M).
 *
 * Columns: the CSV header (and every NDJSON object's keys) may hold only the columns above; an
 * unknown one is refused (with the known column it resembles, for a likely misspelling), and
 * `day`, `retailer`, `external_id`, `price` must be present. No text may contain a NUL byte.
 * Errors name the file, line and column: `observations.csv line 4, column price: "1e3" is not
 * integer cents (write digits only, e.g. 349)`. A message repeats a file's text only as a short
 * excerpt ({@link MAX_SHOWN_CHARS}; issue 29).
 *
 * Files: an empty file (0 bytes) is refused. A CSV file's header line is found in a bounded prefix
 * of the file and refused when longer than {@link MAX_HEADER_LINE_BYTES}, before any column is
 * compared, so a file whose first line is megabytes long costs nothing (it took 38 s and 1.2 GB
 * per megabyte, comparing the whole line with every column; 20 MB crashed the process).
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { parse } from 'csv-parse';
import { z } from 'zod';
import { isDay } from '../../src/domain/days.js';
import { isPlainDigits } from '../../src/domain/money.js';
import { ExpectedError } from '../../src/errors.js';

/** Every column of the observation format, in the documented order. */
export const OBSERVATION_COLUMNS = [
  'day', 'retailer', 'store', 'external_id', 'price', 'promo_price', 'promo_kind', 'multibuy_qty', 'multibuy_price',
  'name', 'brand', 'size_text', 'gtin', 'category_path', 'image', 'retailer_url', 'available',
] as const;
/** The columns a CSV header (or an NDJSON object) must have. */
export const REQUIRED_COLUMNS = ['day', 'retailer', 'external_id', 'price'] as const;
const KNOWN = new Set<string>(OBSERVATION_COLUMNS);

/** Largest amount in cents the format accepts ($1M). */
export const MAX_CENTS = 100_000_000;

/**
 * Longest text of a file that a message repeats whole, in characters; a longer one is shown as its
 * first {@link EXCERPT_CHARS} characters, an ellipsis and its length.
 */
export const MAX_SHOWN_CHARS = 60;
/** Characters of a long text that a message shows. */
const EXCERPT_CHARS = 40;

/** `text`, or its excerpt when longer than {@link MAX_SHOWN_CHARS}: `abcd… (1048576 characters)`. */
export function excerpt(text: string): string {
  return text.length <= MAX_SHOWN_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}… (${text.length} characters)`;
}

/** `"text"` in double quotes, or its excerpt when long: `"abcd…" (1048576 characters)`. */
export function quoted(text: string): string {
  return text.length <= MAX_SHOWN_CHARS ? `"${text}"` : `"${text.slice(0, EXCERPT_CHARS)}…" (${text.length} characters)`;
}

const isMissing = (v: unknown) => v === '' || v === undefined || v === null;

/** A value as a message shows it: JSON for text and objects, cut to an excerpt when long. */
function shown(v: unknown): string {
  if (typeof v === 'string') return v.length <= MAX_SHOWN_CHARS ? JSON.stringify(v) : `${JSON.stringify(v.slice(0, EXCERPT_CHARS))}… (${v.length} characters)`;
  if (typeof v !== 'object' || v === null) return String(v);
  let text: string;
  try {
    text = JSON.stringify(v);
  } catch {
    return '(a value nested too deep to show)';
  }
  return text.length <= MAX_SHOWN_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}… (${text.length} characters of JSON)`;
}

/** A whole number ≥ 0 under the strict grammar (module doc), or undefined when malformed. */
function wholeNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 && !Object.is(v, -0) ? v : undefined;
  if (typeof v === 'string' && isPlainDigits(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** Checks integer cents (strict grammar, at most {@link MAX_CENTS}): the value or a message. */
function centsCheck(v: unknown): { value: number } | { message: string } {
  const n = wholeNumber(v);
  if (n === undefined) return { message: `${shown(v)} is not integer cents (write digits only, e.g. 349)` };
  if (n > MAX_CENTS) return { message: `${n} cents is too large (at most ${MAX_CENTS})` };
  return { value: n };
}

/** Optional integer cents (strict grammar); missing → null, never 0. */
const optCents = z.unknown().transform((v, ctx): number | null => {
  if (isMissing(v)) return null;
  const r = centsCheck(v);
  if ('message' in r) {
    ctx.addIssue({ code: 'custom', message: r.message });
    return z.NEVER;
  }
  return r.value;
});

/** An optional whole number in [min, max] (strict grammar); missing → null. */
const optInt = (min: number, max: number) =>
  z.unknown().transform((v, ctx): number | null => {
    if (isMissing(v)) return null;
    const n = wholeNumber(v);
    if (n === undefined) {
      ctx.addIssue({ code: 'custom', message: `${shown(v)} is not a whole number (write digits only, e.g. ${min})` });
      return z.NEVER;
    }
    if (n < min || n > max) {
      ctx.addIssue({ code: 'custom', message: `must be ${min} to ${max}, not ${n}` });
      return z.NEVER;
    }
    return n;
  });

/** A required value: missing → "<column> is required"; otherwise checked by `check` (a message when bad). */
const required = <T>(column: string, check: (v: unknown) => { value: T } | { message: string }) =>
  z.unknown().transform((v, ctx): T => {
    if (isMissing(v)) {
      ctx.addIssue({ code: 'custom', message: `${column} is required` });
      return z.NEVER;
    }
    const r = check(v);
    if ('message' in r) {
      ctx.addIssue({ code: 'custom', message: r.message });
      return z.NEVER;
    }
    return r.value;
  });

const emptyToNull = (v: unknown) => (v === '' || v === undefined ? null : v);
const optText = z.preprocess(emptyToNull, z.string().trim().min(1).max(1000).nullable());

/** Every known column present (an absent one as undefined, i.e. missing), so each is checked. */
function allColumns(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of OBSERVATION_COLUMNS) out[c] = v[c];
  return out;
}

/** The object schema; it needs every key present ({@link allColumns}): zod refuses an absent key of a z.unknown() field. */
const fullObservationSchema = z
  .object({
    day: required<string>('day', (v) =>
      typeof v === 'string' && isDay(v) ? { value: v } : { message: `${shown(v)} is not a calendar day (write YYYY-MM-DD, e.g. 2026-08-03)` }),
    retailer: required<string>('retailer', (v) =>
      typeof v === 'string' && /^[a-z]+$/.test(v) ? { value: v } : { message: `${shown(v)} is not a lowercase retailer slug (e.g. paknsave)` }),
    store: optText,
    external_id: required<string>('external_id', (v) => {
      const s = typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : null;
      if (s === null) return { message: `${shown(v)} is not a product id (text, or a whole number)` };
      if (s === '') return { message: 'external_id is required' };
      if (s.length > 200) return { message: 'is longer than 200 characters' };
      return { value: s };
    }),
    price: required<number>('price', centsCheck),
    promo_price: optCents,
    promo_kind: optInt(1, 4),
    multibuy_qty: optInt(2, 1000),
    multibuy_price: optCents,
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
      z.boolean({ error: 'must be true or false' }).nullable(),
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

/**
 * One validated observation, from an object of observation columns (unknown keys are dropped here:
 * {@link validateObservation} refuses them). Money in integer NZ cents.
 */
export const observationSchema = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? allColumns(v as Record<string, unknown>) : v),
  fullObservationSchema,
);

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

/** A raw record with the 1-based line of the source it came from (and the file's name, when read from one). */
export interface RawRecord {
  line: number;
  record: unknown;
  /** Base name of the file the record was read from (named in errors); absent for an importer's records. */
  file?: string;
}

/** Where an {@link ObservationError} points: the file (base name) and the column, when known. */
export interface ObservationErrorPlace {
  file?: string | null;
  column?: string | null;
}

/**
 * Thrown for a malformed file or an inconsistent input. `line` is the 1-based line of the first bad
 * row (1 for the CSV header), `file` the file's base name and `column` the offending column, when
 * known; `detail` is the message without the place. The message reads
 * `observations.csv line 4, column price: "1e3" is not integer cents (…)`, or `line 4: …` for
 * records that came from no file.
 */
export class ObservationError extends ExpectedError {
  readonly file: string | null;
  readonly column: string | null;
  constructor(
    readonly detail: string,
    readonly line: number | null = null,
    place: ObservationErrorPlace = {},
  ) {
    const file = place.file ?? null;
    const column = place.column ?? null;
    const at = [file, line === null ? null : `line ${line}`].filter((x) => x !== null).join(' ');
    // An unknown column is a file's text: named by an excerpt when long.
    const named = column === null ? null : excerpt(column);
    const where = named === null ? at : at === '' ? `column ${named}` : `${at}, column ${named}`;
    super(where === '' ? detail : `${where}: ${detail}`);
    this.file = file;
    this.column = column;
  }
}

/** Optimal-string-alignment distance (a transposition counts as one edit). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** Longest column name that can resemble a known one: the longest known column and two edits. */
const MAX_RESEMBLING = Math.max(...OBSERVATION_COLUMNS.map((c) => c.length)) + 2;

/**
 * The known column that `name` most likely misspells (case, spaces and hyphens ignored; at most two
 * edits, one for names of up to four letters), or null. A name longer than any known column plus
 * two edits resembles none, and is not compared (the distance costs its length times each column's).
 */
export function resembledColumn(name: string): string | null {
  if (name.length > 4 * MAX_RESEMBLING) return null; // spaces around a name are ignored, megabytes are not
  const n = name.trim().toLowerCase().replace(/[\s-]+/g, '_');
  if (n.length > MAX_RESEMBLING) return null;
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of OBSERVATION_COLUMNS) {
    const dist = editDistance(n, c);
    if (dist < bestD) [best, bestD] = [c, dist];
  }
  return bestD <= (n.length <= 4 ? 1 : 2) ? best : null;
}

/** "unknown column "prcie" (did you mean "price"?)" (a long name as an excerpt). */
function unknownColumn(name: string): string {
  const like = resembledColumn(name);
  return `unknown column ${shown(name)}${like ? ` (did you mean "${like}"?)` : ''}`;
}

/** Problems of one kind a header refusal names before it counts the rest. */
const MAX_HEADER_PROBLEMS = 5;

/** The columns and where they are documented, the tail of every header refusal. */
const COLUMNS_HINT = `(the columns are ${OBSERVATION_COLUMNS.join(', ')}; docs/ingest.md "Observation format")`;

/**
 * Checks a CSV header: only known columns, each once, and every required one.
 * @throws ObservationError (line 1) naming every unknown, repeated and missing column.
 */
export function checkHeader(columns: readonly string[], file: string | null = null): void {
  const problems: string[] = [];
  const seen = new Set<string>();
  let more = 0;
  for (const c of columns) {
    const problem = !KNOWN.has(c) ? unknownColumn(c) : seen.has(c) ? `column "${c}" appears twice` : null;
    seen.add(c);
    if (problem === null) continue;
    if (problems.length < MAX_HEADER_PROBLEMS) problems.push(problem);
    else more += 1;
  }
  if (more) problems.push(`${more} more unknown or repeated column${more > 1 ? 's' : ''}`);
  const missing = REQUIRED_COLUMNS.filter((c) => !seen.has(c));
  if (missing.length) problems.push(`missing required column${missing.length > 1 ? 's' : ''} ${missing.map((c) => `"${c}"`).join(', ')}`);
  if (problems.length === 0) return;
  const unknown = columns.filter((c) => !KNOWN.has(c));
  const column = unknown.length === 1 && missing.length === 0 ? unknown[0] : null;
  throw new ObservationError(`bad header: ${problems.join('; ')} ${COLUMNS_HINT}`, 1, { file, column });
}

/** `isDay` of the last day string seen: a file holds few distinct days, so the calendar check runs once per day. */
let lastDay = '';

/** An optional text column as `optText` reads it: the trimmed text, null when missing, undefined when zod must decide. */
function fastText(v: unknown): string | null | undefined {
  if (v === '' || v === undefined || v === null) return null;
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t.length >= 1 && t.length <= 1000 ? t : undefined;
}

/** An optional whole number in [min, max] as `optInt`/`optCents` read it; undefined when zod must decide. */
function fastWhole(v: unknown, min: number, max: number): number | null | undefined {
  if (isMissing(v)) return null;
  const n = wholeNumber(v);
  return n !== undefined && n >= min && n <= max ? n : undefined;
}

/**
 * The fast path of {@link validateObservation}: the same output as `fullObservationSchema` for a
 * well-formed record, or undefined for anything it does not accept outright (then zod decides, and
 * words the error). It accepts a subset of what the schema accepts and never decides a refusal; the
 * schema stays the one statement of the rules, and test/unit/observation-fast-path.test.ts checks
 * the two agree on generated records, good and bad. Why: zod costs ≈ 4 µs a row, which at a
 * national day (10M observations) is most of an ingest (issue 19 item 4).
 */
export function fastObservation(v: Record<string, unknown>): Observation | undefined {
  const day = v.day;
  if (typeof day !== 'string') return undefined;
  if (day !== lastDay) {
    if (!isDay(day)) return undefined;
    lastDay = day;
  }
  const retailer = v.retailer;
  if (typeof retailer !== 'string' || !/^[a-z]+$/.test(retailer)) return undefined;
  const store = fastText(v.store);
  if (store === undefined) return undefined;
  const ext = v.external_id;
  let external_id: string;
  if (typeof ext === 'string') external_id = ext.trim();
  else if (typeof ext === 'number' && Number.isSafeInteger(ext) && ext >= 0) external_id = String(ext);
  else return undefined;
  if (external_id === '' || external_id.length > 200) return undefined;
  if (isMissing(v.price)) return undefined;
  const price = fastWhole(v.price, 0, MAX_CENTS);
  const promo_price = fastWhole(v.promo_price, 0, MAX_CENTS);
  const promo_kind = fastWhole(v.promo_kind, 1, 4);
  const multibuy_qty = fastWhole(v.multibuy_qty, 2, 1000);
  const multibuy_price = fastWhole(v.multibuy_price, 0, MAX_CENTS);
  if (price == null || promo_price === undefined || promo_kind === undefined || multibuy_qty === undefined || multibuy_price === undefined) return undefined;
  // The schema's superRefine, as a plain condition.
  if ((promo_price === null) !== (promo_kind === null) && !(promo_kind === 3 && promo_price === null)) return undefined;
  if (promo_kind === 3 && (multibuy_qty === null || multibuy_price === null)) return undefined;
  if ((multibuy_qty !== null || multibuy_price !== null) && promo_kind !== 3) return undefined;
  const name = fastText(v.name);
  const brand = fastText(v.brand);
  const size_text = fastText(v.size_text);
  const image = fastText(v.image);
  const retailer_url = fastText(v.retailer_url);
  if (name === undefined || brand === undefined || size_text === undefined || image === undefined || retailer_url === undefined) return undefined;
  let gtin: string | null = null;
  if (!(v.gtin === '' || v.gtin === undefined || v.gtin === null)) {
    if (typeof v.gtin !== 'string' && typeof v.gtin !== 'number') return undefined;
    gtin = String(v.gtin).trim();
    if (!/^\d{1,14}$/.test(gtin)) return undefined;
  }
  const cp = v.category_path;
  let category_path: string[];
  if (typeof cp === 'string') category_path = cp.trim() === '' ? [] : cp.split(' > ').map((x) => x.trim());
  else if (cp === undefined || cp === null) category_path = [];
  else if (Array.isArray(cp) && cp.every((x) => typeof x === 'string')) category_path = [...cp];
  else return undefined;
  if (category_path.length > 10 || category_path.some((x) => x.length < 1 || x.length > 200)) return undefined;
  const av = v.available;
  let available: boolean | null;
  if (av === '' || av === undefined || av === null) available = null;
  else if (av === true || av === 'true' || av === '1') available = true;
  else if (av === false || av === 'false' || av === '0') available = false;
  else return undefined;
  return {
    day, retailer, store, external_id, price,
    promo_price: promo_price ?? (promo_kind === 3 ? Math.round((multibuy_price as number) / (multibuy_qty as number)) : null),
    promo_kind, multibuy_qty, multibuy_price, name, brand, size_text, gtin, category_path, image, retailer_url, available,
  };
}

const hasNul = (v: unknown): boolean =>
  typeof v === 'string' ? v.includes('\u0000') : Array.isArray(v) ? v.some((x) => typeof x === 'string' && x.includes('\u0000')) : false;

/**
 * Validates one record: its keys (known columns only), its text (no NUL byte), then every field
 * under the strict grammar of the module doc.
 * @throws ObservationError naming the file (when known), the line and the column; when several
 *   fields are bad, every one is listed.
 */
export function validateObservation(raw: RawRecord): Observation {
  const file = raw.file ?? null;
  const rec = raw.record;
  if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) throw new ObservationError('not an object of observation columns', raw.line, { file });
  const fields = rec as Record<string, unknown>;
  for (const k in fields) {
    if (!KNOWN.has(k)) throw new ObservationError(unknownColumn(k), raw.line, { file, column: k });
    if (hasNul(fields[k])) throw new ObservationError('contains a NUL byte (\\0), which text cannot hold', raw.line, { file, column: k });
  }
  const fast = fastObservation(fields);
  if (fast !== undefined) return fast;
  const r = fullObservationSchema.safeParse(allColumns(fields));
  if (r.success) return r.data;
  const [first, ...rest] = r.error.issues;
  const col = (i: { path: PropertyKey[] }) => (i.path.length ? String(i.path[0]) : null);
  const detail = [first.message, ...rest.map((i) => `${col(i) ? `column ${col(i)}: ` : ''}${i.message}`)].join('; ');
  throw new ObservationError(detail, raw.line, { file, column: col(first) });
}

/**
 * Longest CSV header line accepted, in bytes (a byte-order mark and the line end not counted). The
 * header of every column is 200 bytes; a first line longer than this is no header, and it is
 * refused before any column is compared with it.
 */
export const MAX_HEADER_LINE_BYTES = 8 * 1024;

/** Bytes read from the start of a CSV file to find its header line: room for the longest header, a BOM and some empty lines before it. */
const HEADER_PREFIX_BYTES = 2 * MAX_HEADER_LINE_BYTES;

/** The refusal of an empty file. */
const EMPTY_FILE = 'empty file (0 bytes): nothing to ingest (docs/ingest.md "Observation format")';

/**
 * Reads at most {@link HEADER_PREFIX_BYTES} from the start of `file`, and its size.
 * @throws ObservationError when the file is empty (0 bytes).
 */
async function readStart(file: string, name: string): Promise<{ prefix: Buffer; whole: boolean }> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size === 0) throw new ObservationError(EMPTY_FILE, null, { file: name });
    const buffer = Buffer.alloc(Math.min(size, HEADER_PREFIX_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { prefix: buffer.subarray(0, bytesRead), whole: bytesRead >= size };
  } finally {
    await handle.close();
  }
}

/**
 * Checks the start of a CSV file without reading the rest: not empty, a header row, and a header
 * line of at most {@link MAX_HEADER_LINE_BYTES} (the columns themselves are checked by
 * {@link checkHeader} once the parser has read that line).
 * @throws ObservationError (line of the header) for an empty file, a file of empty lines only or
 *   a first line too long to be a header; the message shows only the line's first characters.
 */
async function checkCsvStart(file: string, name: string): Promise<void> {
  const { prefix, whole } = await readStart(file, name);
  let start = prefix[0] === 0xef && prefix[1] === 0xbb && prefix[2] === 0xbf ? 3 : 0;
  let line = 1;
  // Empty lines before the header (the parser skips them too).
  while (start < prefix.length && (prefix[start] === 0x0a || prefix[start] === 0x0d)) {
    if (prefix[start] === 0x0a) line += 1;
    start += 1;
  }
  if (start === prefix.length && whole) {
    throw new ObservationError(`bad header: no header row, the file holds only empty lines ${COLUMNS_HINT}`, 1, { file: name });
  }
  const newline = prefix.indexOf(0x0a, start);
  const end = newline !== -1 ? newline : whole ? prefix.length : -1;
  const length = end === -1 ? Infinity : end - start - (prefix[end - 1] === 0x0d ? 1 : 0);
  if (length > MAX_HEADER_LINE_BYTES) {
    const begins = prefix.subarray(start, start + 4 * EXCERPT_CHARS).toString('utf8').slice(0, EXCERPT_CHARS);
    throw new ObservationError(
      `bad header: the header line is longer than ${MAX_HEADER_LINE_BYTES} bytes (it begins ${JSON.stringify(begins)}…) ${COLUMNS_HINT}`,
      line,
      { file: name },
    );
  }
}

/**
 * Streams the records of a CSV file (header row gives column names, checked by {@link checkHeader})
 * with their line numbers. The start of the file is checked first ({@link checkCsvStart}).
 * @throws ObservationError for an empty file, a bad or overlong header or malformed CSV (file and
 *   line named).
 */
export async function* readCsv(file: string): AsyncGenerator<RawRecord> {
  const name = path.basename(file);
  await checkCsvStart(file, name);
  // Records are read as arrays and made objects here: the parser's own `columns` option defines
  // each property (Object.defineProperty), which doubled the parse (500,000 rows: 1.8 s, 1.0 s as
  // arrays). The header's names are known columns, each once ({@link checkHeader}), so plain
  // assignment is safe. The record length is checked here too, in the parser's words for a file
  // read with `columns` ("Invalid Record Length: columns length is 5, got 4 on line 3").
  const parser = fs.createReadStream(file).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: true }),
  );
  let header: string[] | null = null;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (header === null) {
        checkHeader(record, name);
        header = record;
        continue;
      }
      if (record.length !== header.length) {
        throw Object.assign(new Error(`Invalid Record Length: columns length is ${header.length}, got ${record.length} on line ${info.lines}`), { lines: info.lines });
      }
      const fields: Record<string, string> = {};
      for (let i = 0; i < header.length; i++) fields[header[i]] = record[i];
      yield { line: info.lines, record: fields, file: name };
    }
  } catch (e) {
    if (e instanceof ObservationError) throw e;
    const err = e as { lines?: number; message: string };
    // The parser's message may quote a whole field: cut to a few lines' worth.
    const message = err.message.length > 300 ? `${err.message.slice(0, 300)}…` : err.message;
    throw new ObservationError(`malformed CSV: ${message}`, err.lines ?? null, { file: name });
  }
}

/**
 * The source text of the top-level number values of a valid JSON object text that are not plain
 * digits (`349.0`, `3.49e2`, `-1`), by key: JSON.parse alone would read them as whole numbers.
 */
function looseNumbers(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const num = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  let depth = 0;
  let last: string | null = null;
  let key: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      last = text.slice(i, j + 1);
      i = j;
    } else if (ch === '{' || ch === '[') depth += 1;
    else if (ch === '}' || ch === ']') depth -= 1;
    else if (ch === ':' && depth === 1) key = last;
    else if (ch === '-' || (ch >= '0' && ch <= '9')) {
      num.lastIndex = i;
      const tok = (num.exec(text) as RegExpExecArray)[0];
      if (depth === 1 && key !== null && !isPlainDigits(tok)) out.set(JSON.parse(key) as string, tok);
      i += tok.length - 1;
    }
  }
  return out;
}

/**
 * Streams the records of an NDJSON file with their line numbers; blank lines are skipped. Keys are
 * checked with each record ({@link validateObservation}). A number value that is not written as
 * plain digits (`349.0`, `3.49e2`) is passed on as its source text, so that the strict grammar
 * refuses it as it would in CSV.
 * @throws ObservationError for an empty file or one of blank lines only, or a line that is not a
 *   JSON object (file and line named).
 */
export async function* readNdjson(file: string): AsyncGenerator<RawRecord> {
  const name = path.basename(file);
  await readStart(file, name);
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  let line = 0;
  let records = 0;
  for await (const text of rl) {
    line += 1;
    if (text.trim() === '') continue;
    records += 1;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      throw new ObservationError('malformed JSON', line, { file: name });
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new ObservationError('not a JSON object', line, { file: name });
    if (/[0-9][.eE]|-[0-9]/.test(text)) {
      const fields = record as Record<string, unknown>;
      for (const [k, tok] of looseNumbers(text)) if (typeof fields[k] === 'number') fields[k] = tok;
    }
    yield { line, record, file: name };
  }
  if (records === 0) throw new ObservationError('no observations: the file holds only blank lines (docs/ingest.md "Observation format")', null, { file: name });
}

/** Reads a file by extension: `.csv` or `.ndjson`/`.jsonl`. @throws ObservationError otherwise. */
export function readObservationFile(file: string): AsyncGenerator<RawRecord> {
  if (/\.csv$/i.test(file)) return readCsv(file);
  if (/\.(ndjson|jsonl)$/i.test(file)) return readNdjson(file);
  throw new ObservationError(`unknown file type (expected .csv, .ndjson or .jsonl): ${file}`);
}
