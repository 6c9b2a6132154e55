/**
 * The real data files the importers read (../shared/data, described in its README.md), their
 * presence check and digests, and the errors importers throw.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { IngestResult } from '../ingest/ingest.js';
import { ExpectedError } from '../../src/errors.js';

/** Paths of the source files, relative to the data directory. */
export const SOURCE_FILES = Object.freeze({
  urbanCores: 'l5--nz-cities/urban_cores.csv',
  paknsaveStores: 'nwbort--stores-paknsave/api-prod.paknsave.co.nz-stores.json',
  newworldStores: 'Blim3202--NZ-Meal-Cost-Optimiser/data/newworld_stores.csv',
  woolworthsStores: 'Blim3202--NZ-Meal-Cost-Optimiser/data/woolworths_stores.csv',
  priceHistory: 'neon-ninja--woolies/price_history.csv',
  catalogue: 'neon-ninja--woolies/products.columns.tsv',
  fullResults: 'Blim3202--NZ-Meal-Cost-Optimiser/data/full_results.csv',
  woolworthsLatest: 'Blim3202--NZ-Meal-Cost-Optimiser/data/woolworths_latest_results',
  newworldLatest: 'Blim3202--NZ-Meal-Cost-Optimiser/data/newworld_latest_results.csv',
  paknsaveLatest: 'Blim3202--NZ-Meal-Cost-Optimiser/data/paknsave_latest_results.csv',
});

/** Key of one source file. */
export type SourceKey = keyof typeof SOURCE_FILES;
/** Absolute path of every source file. */
export type SourcePaths = Readonly<Record<SourceKey, string>>;

/** Thrown when the data directory or one of its files is missing; the message names every missing path. */
export class DataDirError extends ExpectedError {
  constructor(
    message: string,
    readonly missing: readonly string[] = [],
  ) {
    super(message);
    this.name = 'DataDirError';
  }
}

/** Thrown for a source file whose content is not what the importer expects; names the file and line. */
export class ImportError extends ExpectedError {
  constructor(
    readonly file: string,
    message: string,
    readonly line: number | null = null,
  ) {
    super(`${path.basename(file)}${line === null ? '' : ` line ${line}`}: ${message}`);
    this.name = 'ImportError';
  }
}

/**
 * Absolute paths of every source file in `dataDir`.
 * @throws DataDirError when `dataDir` is not a directory or any source file is missing or empty.
 */
export function resolveSources(dataDir: string): SourcePaths {
  const dir = path.resolve(dataDir);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new DataDirError(`data directory not found: ${dir} (set DATA_DIR to the shared data folder)`, [dir]);
  }
  const paths = Object.fromEntries(Object.entries(SOURCE_FILES).map(([k, rel]) => [k, path.join(dir, rel)])) as Record<SourceKey, string>;
  const missing = Object.values(paths).filter((p) => !fs.existsSync(p) || !fs.statSync(p).isFile() || fs.statSync(p).size === 0);
  if (missing.length) {
    throw new DataDirError(`incomplete data directory ${dir}: missing or empty ${missing.join(', ')}`, missing);
  }
  return Object.freeze(paths);
}

/** sha256 (hex) over the given files' names and bytes, in the order given. */
export function sha256Files(files: readonly string[]): string {
  const h = crypto.createHash('sha256');
  for (const f of files) {
    h.update(path.basename(f)).update('\0').update(fs.readFileSync(f)).update('\0');
  }
  return h.digest('hex');
}

/** A CSV record with its 1-based line number. */
export interface CsvRow {
  line: number;
  row: Record<string, string>;
}

/**
 * Reads a small CSV file whole (header row gives column names; every row must have as many
 * fields as the header).
 * @throws ImportError when the file does not parse or lacks one of `required` columns.
 */
export function readCsvFile(file: string, required: readonly string[]): CsvRow[] {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(fs.readFileSync(file), { columns: true, bom: true, skip_empty_lines: true, info: true });
  } catch (e) {
    const err = e as { lines?: number; message: string };
    throw new ImportError(file, `malformed CSV: ${err.message}`, err.lines ?? null);
  }
  const header = records.length ? Object.keys(records[0].record) : [];
  const absent = required.filter((c) => !header.includes(c));
  if (records.length === 0) throw new ImportError(file, 'no data rows');
  if (absent.length) throw new ImportError(file, `missing column(s) ${absent.join(', ')} (header: ${header.join(',')})`, 1);
  return records.map((r) => ({ line: r.info.lines, row: r.record }));
}

/** An ingest result without its day lists (a report line, not 200 dates). */
export interface IngestSummary {
  rows: number;
  /** Days in the input, and the first and last of them. */
  days: number;
  first: string | null;
  last: string | null;
  /** Days merged now. */
  merged: number;
  /** Chain-days skipped as already ingested with the same data. */
  skipped: number;
}

/** Shortens an ingest result for a report. */
export function summariseIngest(r: IngestResult): IngestSummary {
  return { rows: r.rows, days: r.days.length, first: r.days[0] ?? null, last: r.days.at(-1) ?? null, merged: r.merged.length, skipped: r.skipped };
}
