/**
 * Woolworths NZ national price-change log (neon-ninja/woolies `price_history.csv`, header
 * `SKU,timestamp,price`; one row per observed change, 2024-10-14 → 2025-05-03) → national
 * observations of `woolworths`, ingested in one call in `changes` mode.
 *
 * - Day: the New Zealand calendar day (Pacific/Auckland) of the Unix `timestamp` (seconds).
 * - Several changes of one SKU on one NZ day: the last by timestamp is that day's price (equal
 *   timestamps: the later line of the file).
 * - Price: dollars in the file → integer cents.
 * - The observations are national (empty store) and carry only the shelf `price`. Decision: the log
 *   records the one price the website showed and cannot tell a promotion from a shelf-price change,
 *   so every logged price is recorded as the shelf price with no promotion fields; a temporary
 *   special therefore appears as two shelf-price changes.
 * - `changes` mode: the log holds changes only, so a listing absent from a day keeps its price.
 */
import fs from 'node:fs';
import type pg from 'pg';
import { parse } from 'csv-parse';
import { nzDay } from '../../src/domain/days.js';
import { dollarsToCents } from '../../src/domain/money.js';
import { ingest } from '../ingest/ingest.js';
import type { RawRecord } from '../ingest/format.js';
import { ImportError, summariseIngest, type IngestSummary } from './sources.js';

/** Observations read from the log, and what was folded away. */
export interface PriceHistoryRead {
  /** One national observation per SKU per NZ day, ready for ingest. */
  records: RawRecord[];
  /** Data rows in the file. */
  rows: number;
  skus: number;
  days: number;
  /** Rows replaced by a later change of the same SKU on the same NZ day. */
  supersededSameDay: number;
  /** The newest timestamp (Unix seconds) of the rows kept, by NZ day: when that day was observed. */
  observedAt: Map<string, number>;
}

const TIMESTAMP_RE = /^\d{9,11}(\.\d+)?$/;

/**
 * Streams the log and folds it to one observation per SKU per NZ day.
 * @throws ImportError naming the line for a bad header, SKU, timestamp or price.
 */
export async function readPriceHistory(file: string): Promise<PriceHistoryRead> {
  const parser = fs.createReadStream(file).pipe(parse({ bom: true, skip_empty_lines: true, info: true }));
  // sku → day → the day's last change
  const bySku = new Map<string, Map<string, { ts: number; price: number; line: number }>>();
  let rows = 0;
  let superseded = 0;
  let header = true;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const line = info.lines;
      if (header) {
        if (record.join(',') !== 'SKU,timestamp,price') throw new ImportError(file, `header must be SKU,timestamp,price, not ${record.join(',')}`, line);
        header = false;
        continue;
      }
      if (record.length !== 3) throw new ImportError(file, `expected 3 fields, found ${record.length}`, line);
      const [sku, tsText, priceText] = record.map((s) => s.trim());
      if (!/^\d{1,12}$/.test(sku)) throw new ImportError(file, `SKU is not a stock code: "${sku}"`, line);
      if (!TIMESTAMP_RE.test(tsText)) throw new ImportError(file, `timestamp is not Unix seconds: "${tsText}"`, line);
      let price: number;
      try {
        price = dollarsToCents(priceText);
      } catch (e) {
        throw new ImportError(file, (e as Error).message, line);
      }
      rows += 1;
      const ts = Number(tsText);
      const day = nzDay(ts);
      let days = bySku.get(sku);
      if (!days) bySku.set(sku, (days = new Map()));
      const prev = days.get(day);
      if (prev) {
        superseded += 1;
        if (ts < prev.ts) continue;
      }
      days.set(day, { ts, price, line });
    }
  } catch (e) {
    if (e instanceof ImportError) throw e;
    const err = e as { lines?: number; message: string };
    throw new ImportError(file, `malformed CSV: ${err.message}`, err.lines ?? null);
  }
  if (header) throw new ImportError(file, 'empty file');

  const records: RawRecord[] = [];
  const allDays = new Set<string>();
  const latest = new Map<string, number>();
  for (const [sku, days] of bySku) {
    for (const [day, o] of days) {
      allDays.add(day);
      if (o.ts > (latest.get(day) ?? -Infinity)) latest.set(day, o.ts);
      const record = { day, retailer: 'woolworths', store: '', external_id: sku, price: o.price };
      records.push({ line: o.line, record });
    }
  }
  return { records, rows, skus: bySku.size, days: allDays.size, supersededSameDay: superseded, observedAt: latest };
}

/** What the price-log import did. */
export interface PriceHistoryReport extends Omit<PriceHistoryRead, 'records' | 'observedAt'> {
  observations: number;
  ingest: IngestSummary;
}

/**
 * Reads the log and ingests it as national `changes` observations of Woolworths in one call.
 * @throws ImportError for a malformed log; ObservationError when ingest rejects it (for example a
 *   day not after the chain's stored history).
 */
export async function importPriceHistory(pool: pg.Pool, file: string, opts: { progress?: boolean } = {}): Promise<PriceHistoryReport> {
  const { records, observedAt, ...stats } = await readPriceHistory(file);
  // Each day's observation time is the log's own newest timestamp that day (collection.observed_at
  // → retailer.last_run), not the time of this import.
  const result = await ingest(pool, records, {
    mode: 'changes', source: 'neon-ninja/woolies price_history.csv', progress: opts.progress,
    observedAt: (day) => { const ts = observedAt.get(day); return ts === undefined ? null : new Date(ts * 1000); },
  });
  return { ...stats, observations: records.length, ingest: summariseIngest(result) };
}
