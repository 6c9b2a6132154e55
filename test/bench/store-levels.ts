/**
 * Store and area views benchmark (issue 16, "Done when": the ten-minute recompute's duration):
 * `npm run bench:levels` (also part of `npm run bench`); it prints figures and asserts nothing.
 *
 * On a SYNTHETIC panel (generated listings, spans, stores and basket matches, not real data) in a
 * scratch database created on TEST_DATABASE_URL's server (else DATABASE_URL's; default
 * postgresql://postgres@127.0.0.1:5432/postgres) and dropped at the end:
 * - listings, national spans and basket matches from test/bench/synthetic-index-panel.ts
 *   (BENCH_SL_LISTINGS listings over the six chains, default 120,000 ≈ 20,000 per chain;
 *   BENCH_SL_DAYS days, default 30; BENCH_SL_MATCHED of them matched, default 10 %);
 * - BENCH_SL_STORES stores (default 500) over the five chains with stores, in 40 SYNTHETIC towns of
 *   16 regions, each carrying 90 % of its chain's listings with one store span per national span,
 *   priced at the national price × a store factor (0.94–1.06) × a listing noise (±1.5 %).
 *
 * Timed, each through `buildStoreViews` in its own REPEATABLE READ transaction with its report
 * stored in view_run as workers/levels/run.ts stores it:
 * 1. the first build (full, every store day from nothing);
 * 2. one more day, simulated by SQL as an ingest would leave it (3 % of the open store and national
 *    spans closed and replaced at +2 %, every store's and chain's last day moved on), then the
 *    incremental build (what the ten-minute job does after each ingest);
 * 3. a build with nothing new (what the ten-minute job does most of the time).
 *
 * For orientation, measured on the development machine (2 vCPUs, shared_buffers 128 MB) at the
 * defaults (17.5 M store spans, 9 M store listings): the first build ≈ 6–8 min, most of it the 9 M
 * first inserts into store_listing (≈ 4 min, half of it foreign-key checks); a forced full build
 * with nothing to write ≈ 165 s; one new day ≈ 65–75 s (a pass over store_price_span for the
 * panels, ≈ 530,000 store listings rewritten, the 500 spreads re-counted); nothing new 0.07 s.
 */
import type pg from 'pg';
import { loadBasket } from '../../src/domain/basket.js';
import { addDays } from '../../src/domain/days.js';
import { inTransaction } from '../../src/db/transaction.js';
import { syncBasket } from '../../workers/index/basket.js';
import { buildStoreViews, type StoreViewsReport } from '../../workers/levels/stores.js';
import { generateIndexPanel } from './synthetic-index-panel.js';

if (!process.env.TEST_DATABASE_URL && process.env.DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.DATABASE_URL;
const { createTestDatabase } = await import('../helpers/db.js');

const LISTINGS = Number(process.env.BENCH_SL_LISTINGS ?? 120_000);
const STORES = Number(process.env.BENCH_SL_STORES ?? 500);
const DAYS = Number(process.env.BENCH_SL_DAYS ?? 30);
const MATCHED = Number(process.env.BENCH_SL_MATCHED ?? 0.1);
const START = '2025-01-01';

const s = (x: number) => `${x.toFixed(2)} s`;
const n = (x: number) => x.toLocaleString('en-NZ');
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

/** SYNTHETIC stores over the chains with stores, and their store spans (see the module comment). */
async function generateStores(pool: pg.Pool, lastDay: string): Promise<number> {
  await pool.query(
    `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area, urban, last_day)
     SELECT r.id, 'SYN-S' || g, 'SYNTHETIC store ' || g, -41 + (g % 50) / 10.0, 174 + (g % 30) / 10.0,
       'SYNTHETIC town ' || (g % 40), 'SYNTHETIC region ' || (g % 40 % 16),
       (ARRAY['major', 'large', 'medium', 'small', 'rural'])[1 + g % 40 % 5], $2::date
     FROM generate_series(1, $1::int) g
     JOIN (SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS k, count(*) OVER () AS n FROM retailer WHERE NOT national_only) r ON r.k = g % r.n`,
    [STORES, lastDay],
  );
  const gen = await pool.connect();
  try {
    // References hold by construction: foreign-key triggers skipped (superuser scratch server), as
    // synthetic-index-panel.ts does.
    await gen.query('SET session_replication_role = replica').catch(() => {});
    const r = await gen.query(
      `INSERT INTO store_price_span (listing_id, store_id, first_day, last_day, price, promo_price, promo_kind)
       SELECT ns.listing_id, st.id, ns.first_day, ns.last_day,
         greatest(1, round(ns.price * (0.94 + (st.id * 7 % 13) / 100.0) * (1 + ((ns.listing_id * 31 + st.id * 17) % 7 - 3) / 200.0)))::int,
         ns.promo_price, ns.promo_kind
       FROM national_price_span ns JOIN listing l ON l.id = ns.listing_id JOIN store st ON st.retailer_id = l.retailer_id
       WHERE (ns.listing_id + st.id) % 10 <> 0`,
    );
    return r.rowCount ?? 0;
  } finally {
    gen.release(true);
  }
}

/** One more day as an ingest leaves it: `rate` of open spans replaced at +2 %, last days moved to `day`. */
async function simulateDay(pool: pg.Pool, day: string, rate: number): Promise<number> {
  const per = Math.round(rate * 1000);
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const st = await c.query(
      `WITH closed AS (
         UPDATE store_price_span sp SET last_day = $1::date - 1
         WHERE sp.last_day IS NULL AND (sp.listing_id * 7 + sp.store_id * 13) % 1000 < $2
         RETURNING sp.listing_id, sp.store_id, sp.price)
       INSERT INTO store_price_span (listing_id, store_id, first_day, price)
       SELECT listing_id, store_id, $1::date, round(price * 1.02)::int FROM closed`,
      [day, per],
    );
    await c.query(
      `WITH closed AS (
         UPDATE national_price_span ns SET last_day = $1::date - 1
         WHERE ns.last_day IS NULL AND (ns.listing_id * 7) % 1000 < $2
         RETURNING ns.listing_id, ns.price)
       INSERT INTO national_price_span (listing_id, first_day, price)
       SELECT listing_id, $1::date, round(price * 1.02)::int FROM closed`,
      [day, per],
    );
    await c.query('UPDATE store SET last_day = $1', [day]);
    await c.query('UPDATE retailer SET last_national_day = $1', [day]);
    await c.query('COMMIT');
    return st.rowCount ?? 0;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    c.release();
  }
}

async function build(pool: pg.Pool): Promise<StoreViewsReport> {
  return inTransaction(pool, async (c) => {
    const report = await buildStoreViews(c, { progress: process.stderr.isTTY });
    await c.query(
      `INSERT INTO view_run (name, data_version, seconds, detail) VALUES ('stores', 'bench', $1, $2)
       ON CONFLICT (name) DO UPDATE SET seconds = EXCLUDED.seconds, detail = EXCLUDED.detail`,
      [report.seconds, JSON.stringify({ parts: {}, report })],
    );
    return report;
  }, { setup: 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ' });
}

function describe(label: string, r: StoreViewsReport, peak: number) {
  const p = r.phases;
  console.log(
    `  ${label}: ${s(r.seconds)} (mode ${r.mode}: ${r.reason}; prepare ${s(p.prepare)}, days ${s(p.days)}, panels ${s(p.panels)}, areas ${s(p.areas)}); peak RSS ${mib(peak)}`,
  );
  console.log(
    `    store_level_day ${n(r.days.days)} store-days of ${r.days.stores} stores (${n(r.days.written)} written, ${n(r.days.deleted)} deleted); ` +
      `store_level ${r.panels.stores} panels + ${r.panels.levelsOnly} levels (${n(r.panels.written)} written); ` +
      `store_listing ${n(r.listings.written)} written, ${n(r.listings.deleted)} deleted; area_level ${r.areas.rows} rows (${r.areas.written} written)`,
  );
}

async function main(): Promise<void> {
  console.log(
    `store views bench (SYNTHETIC panel, not real prices): ${n(STORES)} stores, ${n(LISTINGS)} listings, ${DAYS} days from ${START}, ` +
      `${(MATCHED * 100).toFixed(0)} % of listings matched to basket items`,
  );
  const db = await createTestDatabase('bench_store_levels');
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  try {
    const basket = loadBasket();
    await syncBasket(db.pool, basket);
    const g0 = performance.now();
    const panel = await generateIndexPanel(db.pool, {
      listings: LISTINGS, days: DAYS, start: START, matchedShare: MATCHED,
      itemIds: basket.items.filter((i) => i.observable).map((i) => i.id),
    });
    const storeSpans = await generateStores(db.pool, panel.lastDay);
    await db.pool.query('ANALYZE');
    console.log(
      `  generated in ${s((performance.now() - g0) / 1000)}: ${n(panel.listings)} listings, ${n(panel.spans)} national spans, ` +
        `${n(storeSpans)} store spans, ${n(panel.matches)} basket matches; last day ${panel.lastDay}`,
    );

    peak = process.memoryUsage.rss();
    describe('first build (full)', await build(db.pool), peak);

    const next = addDays(panel.lastDay, 1);
    const t = performance.now();
    const changed = await simulateDay(db.pool, next, 0.03);
    console.log(`  simulated ${next}: ${n(changed)} store spans replaced in ${s((performance.now() - t) / 1000)}`);
    peak = process.memoryUsage.rss();
    describe('after one new day (incremental)', await build(db.pool), peak);

    peak = process.memoryUsage.rss();
    describe('nothing new', await build(db.pool), peak);
  } finally {
    clearInterval(sampler);
    await db.drop();
  }
}

await main();
