/**
 * Daily per-listing store statistics (`listing_day_stats`: min, median, max shelf price and the
 * number of stores) recomputed from the store spans, for an instance bootstrapped from an export
 * (./import.ts) and for the SYNTHETIC panel (workers/synth/panel.ts).
 *
 * The rule (unchanged from the SQL it replaces, see ./import.ts): a chain's collection days are
 * estimated as the days that start or end (`to`, src/services/span-sql.ts spanToSql) any of its
 * store spans; on each such day, every store span of a listing covering that day counts once.
 *
 * Issue 19 item 3: the SQL form expanded every span into its days (`generate_series`: stores ×
 * listings × days, billions of rows on a national year) and sorted them for `percentile_cont`. Here
 * the spans are read once, listing by listing (chunks of listing ids, index order), and swept day by
 * day over the chain's collection days keeping the covering prices in a sorted array: the work is
 * proportional to the spans plus the rows written, and the rows go back with COPY.
 * Assumes every store span of a listing is at a store of one chain (the import checks it).
 */
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { spanToSql, storeCoveredDay } from '../../src/services/span-sql.js';

/** Day numbers are days since this date (integers sweep faster than date strings). */
const EPOCH = '2000-01-01';
const EPOCH_MS = Date.UTC(2000, 0, 1);

/** Options of {@link rebuildDayStats}. */
export interface DayStatsOptions {
  /** Listings read per query (default 500). */
  chunkListings?: number;
  /** Called after each chunk with the listings done so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** Index of the first element of sorted `xs` not less than `x`. */
function lowerBound(xs: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One store span as the sweep reads it: day numbers and the shelf price. */
interface SweepSpan {
  f: number;
  t: number;
  price: number;
}

/**
 * The statistics rows of one listing as COPY text lines (`listing day min med max n`), appended to
 * `out`. @returns the number of rows.
 */
function sweepListing(listingId: number, spans: SweepSpan[], days: Int32Array, dayText: (d: number) => string, out: string[]): number {
  const byF = spans; // read ordered by first day
  const byT = [...spans].sort((a, b) => a.t - b.t);
  let maxT = -Infinity;
  for (const s of spans) if (s.t > maxT) maxT = s.t;
  const prices: number[] = [];
  let i = 0;
  let j = 0;
  let n = 0;
  for (let k = lowerBound(days, byF[0].f); k < days.length && days[k] <= maxT; k++) {
    const d = days[k];
    for (; i < byF.length && byF[i].f <= d; i++) prices.splice(lowerBound(prices, byF[i].price), 0, byF[i].price);
    for (; j < byT.length && byT[j].t < d; j++) prices.splice(lowerBound(prices, byT[j].price), 1);
    const c = prices.length;
    if (c === 0) continue;
    const mid = c >> 1;
    // src/domain/median.ts medianCents = round(percentile_cont(0.5)::numeric): halves round up.
    const med = c % 2 === 1 ? prices[mid] : Math.round((prices[mid - 1] + prices[mid]) / 2);
    out.push(`${listingId}\t${dayText(d)}\t${prices[0]}\t${med}\t${prices[c - 1]}\t${c}\n`);
    n++;
  }
  return n;
}

/**
 * Writes `listing_day_stats` for every listing with store spans, from the store spans (see the
 * module comment), inside the caller's transaction on `client`. Rows already there for the same
 * listing and day make the COPY fail (the callers start from an empty table).
 * @returns the number of rows written. @throws the database's errors.
 */
export async function rebuildDayStats(client: pg.ClientBase, options: DayStatsOptions = {}): Promise<number> {
  const chunk = options.chunkListings ?? 500;
  const to = spanToSql('sp', storeCoveredDay('st'));
  // Each chain's collection days (estimated): one pass over the spans, hashed.
  const dayRows = (await client.query<{ retailer_id: number; days: number[] }>(
    `SELECT retailer_id, array_agg(d ORDER BY d) AS days FROM (
       SELECT DISTINCT st.retailer_id, v.d
       FROM store_price_span sp JOIN store st ON st.id = sp.store_id
       CROSS JOIN LATERAL (VALUES (sp.first_day - DATE '${EPOCH}'), (${to} - DATE '${EPOCH}')) v(d)) x
     GROUP BY retailer_id`,
  )).rows;
  const daysOf = new Map(dayRows.map((r) => [r.retailer_id, Int32Array.from(r.days)]));
  const texts = new Map<number, string>();
  const dayText = (d: number) => {
    let s = texts.get(d);
    if (s === undefined) texts.set(d, (s = new Date(EPOCH_MS + d * 86_400_000).toISOString().slice(0, 10)));
    return s;
  };
  const ids = (await client.query<{ id: number }>('SELECT DISTINCT listing_id AS id FROM store_price_span ORDER BY 1')).rows.map((r) => r.id);
  let written = 0;
  for (let c = 0; c < ids.length; c += chunk) {
    const lo = ids[c];
    const hi = ids[Math.min(c + chunk, ids.length) - 1];
    const { rows } = await client.query<[number, number, number, number, number]>({
      text: `SELECT sp.listing_id, st.retailer_id, sp.first_day - DATE '${EPOCH}', ${to} - DATE '${EPOCH}', sp.price
             FROM store_price_span sp JOIN store st ON st.id = sp.store_id
             WHERE sp.listing_id BETWEEN $1 AND $2 ORDER BY sp.listing_id, sp.first_day`,
      values: [lo, hi],
      rowMode: 'array',
    });
    const out: string[] = [];
    for (let a = 0; a < rows.length; ) {
      const listing = rows[a][0];
      const days = daysOf.get(rows[a][1])!;
      const spans: SweepSpan[] = [];
      for (; a < rows.length && rows[a][0] === listing; a++) spans.push({ f: rows[a][2], t: rows[a][3], price: rows[a][4] });
      written += sweepListing(listing, spans, days, dayText, out);
    }
    if (out.length) {
      const copy = client.query(copyFrom('COPY listing_day_stats (listing_id, day, min, med, max, n) FROM STDIN'));
      await pipeline(Readable.from(batches(out)), copy);
    }
    options.onProgress?.(Math.min(c + chunk, ids.length), ids.length);
  }
  return written;
}

/** The lines joined into ~1 MB strings (fewer, larger writes into COPY). */
function* batches(lines: string[]): Generator<string> {
  let buf = '';
  for (const l of lines) {
    buf += l;
    if (buf.length > 1 << 20) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}
