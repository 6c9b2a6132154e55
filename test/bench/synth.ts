/**
 * Scale-defect benchmark (issue 19 item 3) on the national SYNTHETIC panel (`npm run synth`, not real
 * prices): `npm run bench:synth [-- --database URL]` (default: the database `synthetic` on
 * TEST_DATABASE_URL's or DATABASE_URL's server, which `npm run synth` fills; with neither set, a small
 * panel generated on a throwaway embedded server: test/bench/panel-database.ts). It prints
 * before/after figures and asserts nothing; every "before" runs inside a transaction that is rolled
 * back.
 *
 * 1. Open store spans read by listing (storePrices, storePriceCounts: 20 random listings a call):
 *    without (index dropped in the rolled-back transaction) and with store_price_span_open_listing_idx.
 * 2. The daily store statistics of import-export: the former SQL (generate_series over every span's
 *    days) vs the sweep (workers/export/day-stats.ts), each into an emptied table, rolled back.
 * 3. The export: price_spans in one COPY (chunkListings = ∞, the former way) vs by listing-id ranges;
 *    CSV seconds, PostgreSQL temp bytes, this process's peak RSS, and whether the bytes are identical.
 * 4. Suggestions and "recently seen" (search without q): p50/p99 as they stand.
 *
 * Measured on the development machine (2 vCPUs shared with a CI run; PostgreSQL 15) on
 * `npm run synth -- --stores 100 --listings 20000 --days 60` (6.0 M store spans, 1.7 M open):
 * 1. storePrices p50 3.47 → 2.15 ms, storePriceCounts p50 2.48 → 1.18 ms (p99 ≈ 12–22 ms both ways);
 * 2. daily statistics 259.0 s (generate_series SQL) → 88.3 s (sweep), 5,487,356 rows both;
 * 3. export CSV one COPY 24.6 s / ranges 37.4 s, PostgreSQL temp 516 / 426 MiB, peak RSS 555 /
 *    529 MiB, files identical (range size not yet tuned);
 * 4. suggestions p50 466 ms p99 708 ms; recently seen p50 401 ms p99 568 ms (not yet fixed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { storePriceCounts, storePrices } from '../../src/services/prices.js';
import { rebuildDayStats } from '../../workers/export/day-stats.js';
import { runExport } from '../../workers/export/export.js';
import { createEmbeddedBackend } from '../../src/search/embedded.js';
import { searchListingIds, suggestions } from '../../src/services/search.js';
import { prng } from '../../workers/synth/prng.js';
import { timed } from './timing.js';
import { panelDatabase } from './panel-database.js';

const { values } = parseArgs({ options: { database: { type: 'string' }, rounds: { type: 'string' } } });
const url = await panelDatabase(values.database, { derived: false });
const ROUNDS = Number(values.rounds ?? 200);
const pool = new pg.Pool({ connectionString: url, max: 4 });

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;

/** Runs `fn` with a client inside a transaction that is rolled back. */
async function rolledBack<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    return await fn(c);
  } finally {
    await c.query('ROLLBACK').catch(() => {});
    c.release();
  }
}

async function main(): Promise<void> {
  const marker = await pool.query(`SELECT digest FROM import_run WHERE name = 'synth'`);
  if (!marker.rowCount) throw new Error(`${url} holds no SYNTHETIC panel: run npm run synth first`);
  const sizes = (await pool.query<{ l: number; s: number; o: number }>(
    `SELECT (SELECT count(*) FROM listing)::int AS l, (SELECT count(*) FROM store_price_span)::int AS s,
       (SELECT count(*) FROM store_price_span WHERE last_day IS NULL)::int AS o`,
  )).rows[0];
  console.log(`SYNTHETIC panel ${marker.rows[0].digest}: ${sizes.l} listings, ${sizes.s} store spans (${sizes.o} open)`);
  const ids = (await pool.query<{ id: number }>('SELECT DISTINCT listing_id AS id FROM store_price_span WHERE last_day IS NULL')).rows.map((r) => r.id);
  const rnd = prng(19);
  const batch = () => Array.from({ length: 20 }, () => ids[Math.floor(rnd() * ids.length)]);

  // 1. Reads by listing.
  const c0 = await pool.connect();
  const asPool = c0 as unknown as pg.Pool;
  try {
    for (const [label, drop] of [['without open-listing index', true], ['with open-listing index', false]] as const) {
      await c0.query('BEGIN');
      if (drop) await c0.query('DROP INDEX store_price_span_open_listing_idx');
      await timed(20, () => storePrices(asPool, batch()));
      const a = await timed(ROUNDS, () => storePrices(asPool, batch()));
      const b = await timed(ROUNDS, () => storePriceCounts(asPool, batch()));
      await c0.query('ROLLBACK');
      console.log(`1. ${label}: storePrices p50 ${ms(pct(a, 0.5))} p99 ${ms(pct(a, 0.99))}; storePriceCounts p50 ${ms(pct(b, 0.5))} p99 ${ms(pct(b, 0.99))}`);
    }
  } finally {
    c0.release();
  }

  // 2. Daily store statistics.
  const oldSql = await rolledBack(async (c) => {
    await c.query('TRUNCATE listing_day_stats');
    const t = performance.now();
    const r = await c.query(
      `INSERT INTO listing_day_stats (listing_id, day, min, med, max, n)
       WITH sp AS (
         SELECT sp.listing_id, sp.first_day, coalesce(sp.last_day, st.last_day, sp.first_day) AS last_day, sp.price, st.retailer_id
         FROM store_price_span sp JOIN store st ON st.id = sp.store_id),
       days AS (SELECT retailer_id, first_day AS day FROM sp UNION SELECT retailer_id, last_day FROM sp)
       SELECT sp.listing_id, d.day, min(sp.price), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY sp.price)::numeric)::int,
         max(sp.price), count(*)
       FROM sp CROSS JOIN LATERAL generate_series(sp.first_day, sp.last_day, interval '1 day') AS g(ts)
       JOIN days d ON d.retailer_id = sp.retailer_id AND d.day = g.ts::date
       GROUP BY sp.listing_id, d.day`,
    );
    return { s: (performance.now() - t) / 1000, rows: r.rowCount ?? 0 };
  });
  const sweep = await rolledBack(async (c) => {
    await c.query('TRUNCATE listing_day_stats');
    const t = performance.now();
    const rows = await rebuildDayStats(c);
    return { s: (performance.now() - t) / 1000, rows };
  });
  console.log(`2. daily store statistics: generate_series SQL ${oldSql.s.toFixed(1)} s (${oldSql.rows} rows); sweep ${sweep.s.toFixed(1)} s (${sweep.rows} rows)`);

  // 3. The export.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-synth-export-'));
  try {
    const digests: string[] = [];
    for (const [label, chunk] of [['one COPY', 1e9], ['by listing ranges', undefined]] as const) {
      const temp0 = Number((await pool.query(`SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()`)).rows[0].temp_bytes);
      let peak = process.memoryUsage.rss();
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
      const r = await runExport(pool, { dir: path.join(tmp, String(digests.length)), chunkListings: chunk, progress: false, now: new Date('2026-12-01T00:00:00Z') });
      clearInterval(sampler);
      await new Promise((res) => setTimeout(res, 600)); // statistics collector
      const temp1 = Number((await pool.query(`SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()`)).rows[0].temp_bytes);
      digests.push(r.manifest.files.filter((f) => f.name.endsWith('.csv.gz')).map((f) => f.sha256).join(','));
      console.log(
        `3. export, price_spans ${label}: CSV ${r.seconds.csv.toFixed(1)} s, Parquet ${r.seconds.parquet.toFixed(1)} s, ` +
          `PostgreSQL temp files ${((temp1 - temp0) / 2 ** 20).toFixed(0)} MiB, peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB (${r.rows.price_spans} spans)`,
      );
    }
    console.log(`   CSV files identical: ${digests[0] === digests[1]}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  // 4. Suggestions and recently seen, as they stand.
  const deps = { pool, search: createEmbeddedBackend(pool) };
  const words = ['ga', 'gar', 'garlic', 'tom', 'beef', 'sp', 'onion', 'pa'];
  const sug = await timed(ROUNDS / 4, (i) => suggestions(deps, { q: words[i % words.length] }));
  const recent = await timed(ROUNDS / 4, () => searchListingIds(deps, { q: null }));
  console.log(`4. suggestions p50 ${ms(pct(sug, 0.5))} p99 ${ms(pct(sug, 0.99))}; recently seen (no q) p50 ${ms(pct(recent, 0.5))} p99 ${ms(pct(recent, 0.99))}`);
}

try {
  await main();
} finally {
  await pool.end();
}
