/**
 * Index worker benchmark (`npm run bench:index`; issue 15, "Speed"), printing figures; nothing here
 * asserts.
 *
 * On a SYNTHETIC national panel (test/bench/synthetic-index-panel.ts: generated listings, spans and
 * basket matches, not real data) of BENCH_INDEX_LISTINGS listings (default 120,000) over
 * BENCH_INDEX_DAYS days (default 365), BENCH_INDEX_MATCHED of them (default 15 %) matched to basket
 * items, in a scratch database created on the benches' server (test/bench/server.ts:
 * TEST_DATABASE_URL's, else DATABASE_URL's, else a throwaway embedded PostgreSQL) and dropped at the
 * end:
 *
 * 1. the backfill: `runIndex` over every day, from nothing (mode full);
 * 2. one more day's ingest of every listing (BENCH_INDEX_CHANGE_RATE of prices changing, default
 *    3 %) through the real ingest, then the incremental `runIndex` (that day only);
 * 3. a re-run with nothing new (mode unchanged);
 * 4. the same with GEKS-Jevons items (issue 30, `--method geks-jevons`): the switch (a full run,
 *    the method changed), then a re-run with nothing new (unchanged).
 *
 * For each: seconds (and the worker's phases), rows written, peak RSS. Absolute times drift with the
 * machine, so each is also given as a ratio against anchors measured in the same run: the time to
 * COPY the same number of rows, with the same columns and primary key, into a scratch table (what
 * writing the result costs at least), and the time to read every national span of the matched
 * listings once (what one pass over the history costs: the backfill reads them, and every run
 * digests them for its watermark).
 */
import { loadBasket } from '../../src/domain/basket.js';
import { addDays } from '../../src/domain/days.js';
import { syncBasket } from '../../workers/index/basket.js';
import { runIndex, type IndexReport } from '../../workers/index/compute.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { generateIndexPanel, nextDayObservations } from './synthetic-index-panel.js';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type pg from 'pg';
import { benchServer } from './server.js';

await benchServer({ databaseUrl: true });
// test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
const { createTestDatabase } = await import('../helpers/db.js');

const LISTINGS = Number(process.env.BENCH_INDEX_LISTINGS ?? 120_000);
const DAYS = Number(process.env.BENCH_INDEX_DAYS ?? 365);
const MATCHED = Number(process.env.BENCH_INDEX_MATCHED ?? 0.15);
const CHANGE_RATE = Number(process.env.BENCH_INDEX_CHANGE_RATE ?? 0.03);
const START = '2025-01-01';

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const s = (x: number) => `${x.toFixed(2)} s`;

/** Seconds to COPY `n` rows shaped like index_item_day into a scratch copy of the table (with its primary key). */
async function copyAnchor(pool: pg.Pool, n: number): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('DROP TABLE IF EXISTS bench_anchor_copy');
    await client.query('CREATE TABLE bench_anchor_copy (LIKE index_item_day INCLUDING ALL)');
    const days = Math.ceil(n / 139);
    function* rows() {
      let buf = '';
      for (let i = 0; i < n; i++) {
        buf += `${1 + (i % 139)}\t${addDays(START, Math.floor(i / 139) % Math.max(days, 1))}\t${1 + (i % 97) / 1000}\t${i % 5}\tf\n`;
        if (buf.length > 1 << 16) {
          yield buf;
          buf = '';
        }
      }
      if (buf) yield buf;
    }
    const t0 = performance.now();
    await client.query('BEGIN');
    await pipeline(Readable.from(rows()), client.query(copyFrom('COPY bench_anchor_copy (item_id, day, relative, n, stale) FROM STDIN')));
    await client.query('COMMIT');
    const secs = (performance.now() - t0) / 1000;
    await client.query('DROP TABLE bench_anchor_copy');
    return secs;
  } finally {
    client.release();
  }
}

/** Seconds to read every national span of the matched listings once (sum over a hash join, as the worker's queries do). */
async function scanAnchor(pool: pg.Pool): Promise<number> {
  const t0 = performance.now();
  await pool.query(
    `SELECT count(*), sum(s.price::bigint + coalesce(s.promo_price, 0) + (s.first_day - '2025-01-01'::date) + coalesce(s.last_day - '2025-01-01'::date, 0))
     FROM national_price_span s WHERE s.listing_id IN (SELECT listing_id FROM basket_match)`,
  );
  return (performance.now() - t0) / 1000;
}

function describeRun(label: string, r: IndexReport, peak: number, anchor: number, scan: number) {
  const written = r.rows.itemDays + r.rows.indexDays + r.rows.reanchored + r.rows.links;
  console.log(
    `  ${label}: ${s(r.seconds)} (mode ${r.mode}, ${r.days} days ${r.firstDay} → ${r.lastDay}; ` +
      `prepare ${s(r.phases.prepare)}, read ${s(r.phases.read)}, compute ${s(r.phases.compute)}, write ${s(r.phases.write)})`,
  );
  console.log(
    `    rows written ${written.toLocaleString('en-NZ')} (index_item_day ${r.rows.itemDays}, index_day ${r.rows.indexDays}, ` +
      `re-anchored ${r.rows.reanchored}, basket_match links ${r.rows.links}); last day: ${r.items} items, ${r.listings} listings counted; peak RSS ${mib(peak)}`,
  );
  const ratios = [
    ...(anchor > 0 ? [`${(r.seconds / anchor).toFixed(1)} × the time to COPY the same number of index rows (${s(anchor)})`] : []),
    `${(r.seconds / scan).toFixed(1)} × the time to read the matched listings' spans once (${s(scan)})`,
  ];
  console.log(`    ${ratios.join('; ')}`);
}

async function main(): Promise<void> {
  console.log(
    `index bench (SYNTHETIC panel, not real prices): ${LISTINGS.toLocaleString('en-NZ')} listings, ${DAYS} days from ${START}, ` +
      `${(MATCHED * 100).toFixed(0)} % matched to basket items, ${(CHANGE_RATE * 100).toFixed(1)} % of prices changing on the extra day`,
  );
  const db = await createTestDatabase('bench_index');
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  const resetPeak = () => {
    peak = process.memoryUsage.rss();
  };
  try {
    const basket = loadBasket();
    await syncBasket(db.pool, basket);
    const g0 = performance.now();
    const panel = await generateIndexPanel(db.pool, {
      listings: LISTINGS, days: DAYS, start: START, matchedShare: MATCHED,
      itemIds: basket.items.filter((i) => i.observable).map((i) => i.id),
    });
    const matchedListings = (await db.pool.query<{ n: number }>('SELECT count(DISTINCT listing_id)::int AS n FROM basket_match')).rows[0].n;
    const matchedSpans = (await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM national_price_span WHERE listing_id IN (SELECT listing_id FROM basket_match)',
    )).rows[0].n;
    console.log(
      `  generated in ${s((performance.now() - g0) / 1000)}: ${panel.listings.toLocaleString('en-NZ')} listings, ` +
        `${panel.spans.toLocaleString('en-NZ')} national spans, ${panel.matches.toLocaleString('en-NZ')} basket matches ` +
        `(${matchedListings.toLocaleString('en-NZ')} listings, ${matchedSpans.toLocaleString('en-NZ')} of the spans); last day ${panel.lastDay}`,
    );
    const next = addDays(panel.lastDay, 1);
    const progress = process.stderr.isTTY;

    resetPeak();
    const backfill = await runIndex(db.pool, { today: next, progress });
    const backfillPeak = peak;
    const backfillRows = backfill.rows.itemDays + backfill.rows.indexDays;
    const anchorBackfill = await copyAnchor(db.pool, backfillRows);
    await scanAnchor(db.pool); // warm the cache as the backfill did
    const scan = await scanAnchor(db.pool);
    describeRun('backfill', backfill, backfillPeak, anchorBackfill, scan);

    const obs = await nextDayObservations(db.pool, next, CHANGE_RATE);
    const i0 = performance.now();
    const ing = await ingest(db.pool, obs, { today: next, progress: false, source: 'SYNTHETIC bench' });
    console.log(`  ingest of ${next}: ${ing.rows.toLocaleString('en-NZ')} national observations in ${s((performance.now() - i0) / 1000)}`);

    resetPeak();
    const inc = await runIndex(db.pool, { today: next, progress });
    const incPeak = peak;
    const anchorInc = await copyAnchor(db.pool, inc.rows.itemDays + inc.rows.indexDays);
    describeRun('incremental (one day)', inc, incPeak, anchorInc, scan);

    resetPeak();
    const again = await runIndex(db.pool, { today: next, progress });
    describeRun('re-run, nothing new', again, peak, 0, scan);

    const state = await db.pool.query<{ bytes: number }>('SELECT pg_column_size(state)::int AS bytes FROM index_run');
    console.log(`  index_run.state: ${(state.rows[0].bytes / 1024).toFixed(0)} KiB stored (jsonb, compressed)`);

    resetPeak();
    const geks = await runIndex(db.pool, { today: next, progress, method: 'geks-jevons' });
    describeRun('GEKS-Jevons, switch (every day)', geks, peak, 0, scan);
    resetPeak();
    const geksAgain = await runIndex(db.pool, { today: next, progress, method: 'geks-jevons' });
    describeRun('GEKS-Jevons, re-run, nothing new', geksAgain, peak, 0, scan);
  } finally {
    clearInterval(sampler);
    await db.drop();
  }
}

await main();
