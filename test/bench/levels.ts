/**
 * Derived-views and level-operations benchmark (issue 16, "Done when": the ten-minute recompute's
 * duration and the p50/p99 latency of list_stores, get_store, get_store_listings, get_store_levels,
 * list_areas, compare_retailers, get_retailer_levels and list_deals on the national-scale panel):
 * `npm run bench:levels` (also part of `npm run bench`); it prints figures and asserts nothing.
 *
 * On a SYNTHETIC panel (generated listings, spans, stores and basket matches, not real data) in a
 * scratch database created on the benches' server (test/bench/server.ts: TEST_DATABASE_URL's, else
 * DATABASE_URL's, else a throwaway embedded PostgreSQL) and dropped at the end (also on Ctrl-C, and by
 * a watchdog process should this one be killed):
 * - listings, national spans and basket matches from test/bench/synthetic-index-panel.ts
 *   (BENCH_SL_LISTINGS listings over the six chains, default 120,000 ≈ 20,000 per chain;
 *   BENCH_SL_DAYS days, default 30; BENCH_SL_MATCHED of them matched, default 10 %);
 * - BENCH_SL_STORES stores (default 500) over the five chains with stores, in 40 SYNTHETIC towns of
 *   16 regions, each carrying 90 % of its chain's listings with one store span per national span,
 *   priced at the national price × a store factor (0.94–1.06) × a listing noise (±1.5 %).
 * BENCH_SL_QUICK=1 (`npm run bench:levels:quick`) makes the defaults 50 stores × 20,000 listings
 * and 5 s per operation (about a minute in all).
 *
 * **Part 1, the recompute**, each step as the ten-minute job runs it: the index worker's
 * `runIndex` (workers/index/compute.ts: the chain views follow its days; basket matching is not
 * run, the SYNTHETIC matches are inserted directly and the matcher would find nothing in SYNTHETIC
 * names), then the views worker's own entry point `runViews` (workers/views/run.ts: stores with
 * areas, chains, deals, and any view added to it since, listed with its time; one transaction,
 * view_run stamped with the data version):
 * 1. the first build (full: the index backfill and every view from nothing);
 * 2. one more day, simulated by SQL as an ingest would leave it (3 % of the open store and national
 *    spans closed and replaced at +2 %, every store's and chain's last day moved on, one collection
 *    row per store and per chain), then the incremental recompute;
 * 3. the recompute with nothing new (what the ten-minute job does most of the time).
 * BENCH_SL_SPAN_INDEX_AB=1 also measures, before step 2's recompute and on the same new day, the
 * store views' incremental build with and without an index on store_price_span (store_id,
 * last_day), alternately, each in a transaction rolled back (the index dropped inside the
 * transaction for the "without" runs).
 *
 * **Part 2, the operations over HTTP**: the real server (facades/server.ts createServer, logging
 * off, per-IP budget raised) in a child process (test/bench/levels-server.ts) listening on a local
 * port over that database, after VACUUM ANALYZE; the client is this process (node:http, keep-alive).
 * Each operation gets seeded, varied parameters (store ids, `q`, deal kinds and chains, `days`,
 * filters, pages). One connection, sequential: BENCH_SL_WARMUP warm-up requests (default 30), then
 * up to BENCH_SL_REQUESTS (default 1,000) or BENCH_SL_OP_SECONDS (default 10 s) per operation;
 * then BENCH_SL_CONNECTIONS connections (default 8; 0 skips) for BENCH_SL_OP_SECONDS each. The
 * anchor, measured in the same run the same way right after each operation: a bare `node:http`
 * server (also a child process) sending a body of the operation's median response size; ratios are
 * operation ÷ anchor. Client, server and PostgreSQL share the machine's CPUs.
 *
 * Measured on the development machine (2 vCPUs shared with other jobs, so ±15 % from run to run;
 * PostgreSQL 15, shared_buffers 128 MB) at the defaults (500 stores, 120,000 listings, 30 days:
 * 17.5 M store spans, 9 M store listings; generated in ≈ 90 s; whole run ≈ 14 min):
 * - first build 222 s: index backfill 1.0 s, stores + areas 217 s (most of it the 9 M first
 *   store_listing rows), chains 1.2 s, deals 2.3 s;
 * - after one new day (270,000 store spans replaced) 48 s: index 0.4 s, stores + areas 46 s (days
 *   4.5 s, panels 41.6 s: the pass over store_price_span for the panels, 532,200 store listings
 *   rewritten), chains 0.4 s, deals 1.5 s; nothing new 0.18 s (the index's watermark; every view
 *   skipped on its data version);
 * - an index on store_price_span (store_id, last_day) (121 MiB, built in 12 s; planned in 16 index
 *   scans per build): the stores' one-new-day build, alternately without / with it in a second run
 *   (BENCH_SL_SPAN_INDEX_AB=1 BENCH_SL_AB_ROUNDS=3), 39.6 / 42.3, 36.6 / 35.8, 34.6 / 34.9 s
 *   (the first run's 54.7 / 43.8, 47.2 / 41.5 s were cache warm-up): no gain, not added — the
 *   panels' pass reads every span of every rebuilt store, which no index on the store narrows;
 * - HTTP, one connection, p50/p99 ms (× the bare node:http anchor's p50): list_stores 8.0/61 (48),
 *   get_store 39/77 (820), get_store_listings 59/138 (1,390), get_store_levels 1.2/11 (31),
 *   list_areas 0.7/3.9 (18), compare_retailers 17/41 (360), get_retailer_levels 9.3/23 (130),
 *   list_deals 28/144 (650); at 8 connections: get_store_levels 1,370 req/s, list_areas 1,010,
 *   get_retailer_levels 219, compare_retailers 92, list_stores 68, list_deals 69, get_store 50,
 *   get_store_listings 24 (the anchor ≈ 16,000–21,000 req/s).
 * At BENCH_SL_QUICK (50 stores × 20,000 listings) the whole run takes ≈ 65 s: first build 2.8 s,
 * one new day 0.66 s, nothing new 0.02 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { loadBasket } from '../../src/domain/basket.js';
import { addDays } from '../../src/domain/days.js';
import { syncBasket } from '../../workers/index/basket.js';
import { runIndex, type IndexReport } from '../../workers/index/compute.js';
import type { ChainViewsReport } from '../../workers/views/chains.js';
import type { DealsReport } from '../../workers/views/deals.js';
import { runViews, type ViewsReport } from '../../workers/views/run.js';
import { buildStoreViews, type StoreViewsReport } from '../../workers/views/stores.js';
import { prng } from '../helpers/prng.js';
import { generateIndexPanel } from './synthetic-index-panel.js';
import { dropWhenGone } from './scratch-db.js';
import { percentile } from './timing.js';
import { benchServer } from './server.js';

const { adminUrl: ADMIN_URL } = await benchServer({ databaseUrl: true });
// test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
const { createTestDatabase } = await import('../helpers/db.js');
const { recordResults } = await import('./results.js');

const QUICK = process.env.BENCH_SL_QUICK === '1';
const num = (name: string, dflt: number) => (process.env[name] ? Number(process.env[name]) : dflt);
const LISTINGS = num('BENCH_SL_LISTINGS', QUICK ? 20_000 : 120_000);
const STORES = num('BENCH_SL_STORES', QUICK ? 50 : 500);
const DAYS = num('BENCH_SL_DAYS', 30);
const MATCHED = num('BENCH_SL_MATCHED', 0.1);
const WARMUP = num('BENCH_SL_WARMUP', 30);
const REQUESTS = num('BENCH_SL_REQUESTS', 1000);
const OP_MS = num('BENCH_SL_OP_SECONDS', QUICK ? 5 : 10) * 1000;
const CONNECTIONS = num('BENCH_SL_CONNECTIONS', 8);
const SPAN_INDEX_AB = process.env.BENCH_SL_SPAN_INDEX_AB === '1';
const AB_ROUNDS = num('BENCH_SL_AB_ROUNDS', 2);
const HTTP = process.env.BENCH_SL_HTTP !== '0';
const START = '2025-01-01';
const PROGRESS = process.stderr.isTTY;

const s = (x: number) => `${x.toFixed(2)} s`;
const n = (x: number) => x.toLocaleString('en-NZ');
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const pad = (x: string | number, w: number) => String(x).padEnd(w);
const lpad = (x: string | number, w: number) => String(x).padStart(w);

// ---------------------------------------------------------------- progress and clean-up

const began = performance.now();
const clock = () => `${((performance.now() - began) / 1000).toFixed(0)} s`;

/** Runs a long step, saying on stderr when it starts and, off a terminal, every 30 s that it still runs. */
async function step<T>(label: string, fn: () => Promise<T>): Promise<T> {
  process.stderr.write(`[${clock()}] ${label}…\n`);
  const t = performance.now();
  const beat = PROGRESS ? null : setInterval(() => process.stderr.write(`[${clock()}]   ${label}: ${((performance.now() - t) / 1000).toFixed(0)} s so far\n`), 30_000);
  try {
    return await fn();
  } finally {
    if (beat) clearInterval(beat);
  }
}

const children: ChildProcess[] = [];
let dbName: string | null = null;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    for (const c of children) c.kill('SIGTERM');
    console.error(`\n${signal}: dropping ${dbName ?? 'no database'}`);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    void (async () => {
      if (!dbName) return;
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    })()
      .catch((e) => console.error('cleanup:', e))
      .finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- the SYNTHETIC panel

/** SYNTHETIC stores over the chains with stores, and their store spans (see the module comment). */
async function generateStores(pool: pg.Pool, lastDay: string): Promise<number> {
  await pool.query(
    `INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area, urban, last_day, covered_day)
     SELECT r.id, 'SYN-S' || g, 'SYNTHETIC store ' || g, -41 + (g % 50) / 10.0, 174 + (g % 30) / 10.0,
       'SYNTHETIC town ' || (g % 40), 'SYNTHETIC region ' || (g % 40 % 16),
       (ARRAY['major', 'large', 'medium', 'small', 'rural'])[1 + g % 40 % 5], $2::date, $2::date
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

/**
 * One more day as an ingest leaves it: `rate` of open spans replaced at +2 %, last days moved to
 * `day`, one collection row per store and per chain (national).
 */
async function simulateDay(pool: pg.Pool, day: string, rate: number): Promise<number> {
  const per = Math.round(rate * 1000);
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const st = await c.query(
      `WITH closed AS (
         UPDATE store_price_span sp SET last_day = $1::date - 1
         WHERE sp.last_day IS NULL AND (sp.listing_id * 7 + sp.store_id * 13 + ($1::date - '2000-01-01'::date)) % 1000 < $2
         RETURNING sp.listing_id, sp.store_id, sp.price)
       INSERT INTO store_price_span (listing_id, store_id, first_day, price)
       SELECT listing_id, store_id, $1::date, round(price * 1.02)::int FROM closed`,
      [day, per],
    );
    await c.query(
      `WITH closed AS (
         UPDATE national_price_span ns SET last_day = $1::date - 1
         WHERE ns.last_day IS NULL AND (ns.listing_id * 7 + ($1::date - '2000-01-01'::date)) % 1000 < $2
         RETURNING ns.listing_id, ns.price)
       INSERT INTO national_price_span (listing_id, first_day, price)
       SELECT listing_id, $1::date, round(price * 1.02)::int FROM closed`,
      [day, per],
    );
    await c.query('UPDATE store SET last_day = $1, covered_day = $1', [day]);
    await c.query('UPDATE retailer SET last_national_day = $1, covered_day = $1', [day]);
    await c.query(
      `INSERT INTO collection (retailer_id, store_id, day, mode, rows, digest, source)
       SELECT retailer_id, id, $1::date, 'snapshot', 0, 'SYNTHETIC', 'bench:levels SYNTHETIC day' FROM store
       UNION ALL SELECT id, NULL, $1::date, 'snapshot', 0, 'SYNTHETIC', 'bench:levels SYNTHETIC day' FROM retailer`,
      [day],
    );
    await c.query('COMMIT');
    return st.rowCount ?? 0;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    c.release();
  }
}

// ---------------------------------------------------------------- part 1: the recompute

/** One recompute as the ten-minute job runs it: the index, then the views. */
interface Recompute {
  label: string;
  index: IndexReport;
  views: ViewsReport;
  peak: number;
}

let peak = process.memoryUsage.rss();
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss());
}, 50);
sampler.unref();

async function recompute(pool: pg.Pool, label: string, today: string): Promise<Recompute> {
  peak = process.memoryUsage.rss();
  const index = await step(`${label}: index (runIndex)`, () => runIndex(pool, { today, progress: PROGRESS }));
  const views = await step(`${label}: views (runViews)`, () => runViews(pool, { progress: PROGRESS }));
  const r = { label, index, views, peak };
  describeRecompute(r);
  return r;
}

function describeRecompute(r: Recompute): void {
  const { index: ix, views } = r;
  console.log(`  ${r.label}: index + views ${s(ix.seconds + views.seconds)}; peak RSS ${mib(r.peak)}`);
  console.log(
    `    index ${s(ix.seconds)} (mode ${ix.mode}: ${ix.reason}; ${ix.days} days ${ix.firstDay} → ${ix.lastDay}; ` +
      `${n(ix.rows.itemDays + ix.rows.indexDays)} rows written)`,
  );
  console.log(`    views ${s(views.seconds)} (data version ${views.version})`);
  const st = views.views.stores;
  if (st.built) {
    const x = st.report as StoreViewsReport;
    const p = x.phases;
    console.log(
      `      stores + areas ${s(st.seconds)} (mode ${x.mode}: ${x.reason}; prepare ${s(p.prepare)}, days ${s(p.days)}, panels ${s(p.panels)}, areas ${s(p.areas)})`,
    );
    console.log(
      `        store_level_day ${n(x.days.days)} store-days of ${x.days.stores} stores (${n(x.days.written)} written, ${n(x.days.deleted)} deleted); ` +
        `store_level ${x.panels.stores} panels + ${x.panels.levelsOnly} levels (${n(x.panels.written)} written); ` +
        `store_listing ${n(x.listings.written)} written, ${n(x.listings.deleted)} deleted; area_level ${x.areas.rows} rows (${x.areas.written} written)`,
    );
  } else console.log('      stores + areas: skipped (view_run holds the current data version)');
  const ch = views.views.chains;
  if (ch.built) {
    const x = ch.report as ChainViewsReport;
    const p = x.phases;
    console.log(
      `      chains ${s(ch.seconds)} (mode ${x.mode}: ${x.reason}; ${x.days} days; prepare ${s(p.prepare)}, read ${s(p.read)}, compute ${s(p.compute)}, write ${s(p.write)}; ` +
        `chain_item_price ${x.itemPrices} rows of ${x.chains} chains, chain_level_day ${x.rows.levels.written} written)`,
    );
  } else console.log('      chains: skipped (view_run holds the current data version)');
  const de = views.views.deals;
  if (de.built) {
    const x = de.report as DealsReport;
    console.log(`      deals ${s(de.seconds)} (${n(x.deals)} deals: ${Object.entries(x.byKind).map(([k, v]) => `${k} ${n(v)}`).join(', ')}; ${n(x.written)} written, ${n(x.deleted)} deleted)`);
  } else console.log('      deals: skipped (view_run holds the current data version)');
  // Views runViews builds beyond these four (added since): their time only.
  for (const [name, v] of Object.entries(views.views)) {
    if (KNOWN_VIEWS.includes(name)) continue;
    console.log(`      ${name} ${v.built ? s(v.seconds) : 'skipped (view_run holds the current data version)'}`);
  }
}

/** The views this bench describes in detail; any other view of runViews is listed with its time. */
const KNOWN_VIEWS = ['stores', 'chains', 'deals'];

/** The store views' incremental build in a transaction that is rolled back, with or without the candidate index. */
async function storesRolledBack(pool: pg.Pool, withIndex: boolean): Promise<StoreViewsReport & { scans: number }> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    if (!withIndex) await c.query('DROP INDEX bench_span_store_last_idx');
    const r = await buildStoreViews(c, { progress: PROGRESS });
    await c.query('ROLLBACK');
    await new Promise((res) => setTimeout(res, 1200)); // let the statistics of the run be flushed
    const scans = withIndex ? Number((await pool.query(`SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = 'bench_span_store_last_idx'`)).rows[0]?.idx_scan ?? 0) : 0;
    return { ...r, scans };
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    c.release();
  }
}

/** BENCH_SL_SPAN_INDEX_AB: the store views' incremental build without / with store_price_span (store_id, last_day). */
async function spanIndexAb(pool: pg.Pool): Promise<string[]> {
  const out: string[] = [];
  const ci = await step('A/B: CREATE INDEX store_price_span (store_id, last_day)', async () => {
    const t = performance.now();
    await pool.query('CREATE INDEX bench_span_store_last_idx ON store_price_span (store_id, last_day)');
    await pool.query('ANALYZE store_price_span');
    return (performance.now() - t) / 1000;
  });
  const size = Number((await pool.query(`SELECT pg_relation_size('bench_span_store_last_idx') AS b`)).rows[0].b);
  out.push(`  index on store_price_span (store_id, last_day): built in ${s(ci)}, ${mib(size)}`);
  let scans = 0;
  for (let round = 1; round <= AB_ROUNDS; round++) {
    for (const withIndex of [false, true]) {
      const r = await step(`A/B round ${round}: stores incremental ${withIndex ? 'with' : 'without'} the index (rolled back)`, () => storesRolledBack(pool, withIndex));
      const p = r.phases;
      const used = withIndex ? `; index scans ${r.scans - scans}` : '';
      if (withIndex) scans = r.scans;
      out.push(
        `  round ${round} ${withIndex ? 'with   ' : 'without'}: ${s(r.seconds)} (mode ${r.mode}; prepare ${s(p.prepare)}, days ${s(p.days)}, panels ${s(p.panels)}, areas ${s(p.areas)}${used})`,
      );
      console.log(out[out.length - 1]);
    }
  }
  await pool.query('DROP INDEX bench_span_store_last_idx');
  return out;
}

// ---------------------------------------------------------------- part 2: the operations over HTTP

/** Starts a levels-server.ts child in `mode` and resolves its port. */
async function startChild(args: string[]): Promise<{ port: number; child: ChildProcess }> {
  const file = new URL('./levels-server.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`levels-server.ts ${args[0]} exited with ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return { port, child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode != null) return;
  const exited = new Promise((res) => child.once('exit', res));
  child.kill('SIGTERM');
  await exited;
}

/** One GET of `entry` (`[variant label] /path`): status, body bytes, milliseconds to the last byte. */
function get(agent: http.Agent, port: number, entry: string): Promise<{ status: number; bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = http.get({ host: '127.0.0.1', port, path: entry.slice(entry.indexOf('/')), agent }, (res) => {
      let bytes = 0;
      res.on('data', (b: Buffer) => (bytes += b.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - t }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Nearest-rank percentile of sorted `xs` (p in 0..100). */
interface Run {
  requests: number;
  p50: number;
  p99: number;
  rps: number;
  medianBytes: number;
  errors: Map<number, number>;
  /** p50 and request count per variant of the parameters (sequential runs of operations with several). */
  variants: [string, number, number][];
}

function summarise(times: number[], sizes: number[], errors: Map<number, number>, seconds: number, byVariant = new Map<string, number[]>()): Run {
  const variants = [...byVariant].filter(([v]) => v !== '').map(([v, xs]): [string, number, number] => [v, percentile(xs.sort((a, b) => a - b), 50), xs.length]);
  times.sort((a, b) => a - b);
  sizes.sort((a, b) => a - b);
  return { requests: times.length, p50: percentile(times, 50), p99: percentile(times, 99), rps: times.length / seconds, medianBytes: percentile(sizes, 50), errors, variants };
}

/** One connection, sequential: warm-up, then up to REQUESTS requests or OP_MS. */
async function sequential(port: number, paths: string[]): Promise<Run> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < Math.min(WARMUP, paths.length); i++) await get(agent, port, paths[i % paths.length]);
    const times: number[] = [];
    const sizes: number[] = [];
    const errors = new Map<number, number>();
    const byVariant = new Map<string, number[]>();
    const t0 = performance.now();
    const end = t0 + OP_MS;
    for (let i = 0; i < REQUESTS && performance.now() < end; i++) {
      const entry = paths[(WARMUP + i) % paths.length];
      const r = await get(agent, port, entry);
      if (r.status !== 200) errors.set(r.status, (errors.get(r.status) ?? 0) + 1);
      times.push(r.ms);
      sizes.push(r.bytes);
      const v = entry.slice(0, entry.indexOf('/')).trim();
      byVariant.set(v, [...(byVariant.get(v) ?? []), r.ms]);
    }
    return summarise(times, sizes, errors, (performance.now() - t0) / 1000, byVariant);
  } finally {
    agent.destroy();
  }
}

/** CONNECTIONS connections, each sending its next request as soon as the previous answer ends, for OP_MS. */
async function concurrent(port: number, paths: string[]): Promise<Run> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  try {
    const times: number[] = [];
    const sizes: number[] = [];
    const errors = new Map<number, number>();
    let next = 0;
    const t0 = performance.now();
    const end = t0 + OP_MS;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          const r = await get(agent, port, paths[next++ % paths.length]);
          if (r.status !== 200) errors.set(r.status, (errors.get(r.status) ?? 0) + 1);
          times.push(r.ms);
          sizes.push(r.bytes);
        }
      }),
    );
    return summarise(times, sizes, errors, (performance.now() - t0) / 1000);
  } finally {
    agent.destroy();
  }
}

/** Seeded, varied request paths of each operation over the panel's stores, chains, towns and regions. */
async function operationPaths(pool: pg.Pool): Promise<[string, string[]][]> {
  const rnd = prng(20261129);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const stores = (await pool.query<{ id: number }>('SELECT id FROM store ORDER BY id')).rows.map((r) => r.id);
  const chains = (await pool.query<{ slug: string }>('SELECT slug FROM retailer ORDER BY id')).rows.map((r) => r.slug);
  const storeChains = (await pool.query<{ slug: string }>('SELECT slug FROM retailer WHERE NOT national_only ORDER BY id')).rows.map((r) => r.slug);
  const towns = (await pool.query<{ town: string }>('SELECT DISTINCT town FROM store ORDER BY 1')).rows.map((r) => r.town);
  const areas = (await pool.query<{ area: string }>('SELECT DISTINCT area FROM store ORDER BY 1')).rows.map((r) => r.area);
  const qs = (params: Record<string, string | number | null>) => {
    const e = Object.entries(params).filter(([, v]) => v != null) as [string, string | number][];
    return e.length ? `?${e.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')}` : '';
  };
  const N = 2000;
  const many = (f: () => string) => Array.from({ length: N }, f);
  return [
    ['list_stores', many(() => {
      const r = rnd();
      // A fifth unfiltered (every store), the rest one filter each.
      if (r < 0.2) return 'all /api/v1/stores';
      if (r < 0.4) return `retailer /api/v1/stores${qs({ retailer: pick(storeChains) })}`;
      if (r < 0.6) return `town /api/v1/stores${qs({ town: pick(towns).toLowerCase() })}`;
      if (r < 0.8) return `area /api/v1/stores${qs({ area: pick(areas) })}`;
      return `urban /api/v1/stores${qs({ urban: pick(['major', 'large', 'medium', 'small', 'rural']) })}`;
    })],
    ['get_store', many(() => `/api/v1/stores/${pick(stores)}`)],
    ['get_store_listings', many(() => {
      const q = pick([null, null, null, 'synthetic', 'item', `${1 + Math.floor(rnd() * 999)}`, `item ${1 + Math.floor(rnd() * 99)}`]);
      const limit = pick([24, 24, 48, 96]);
      const offset = q == null ? pick([0, 0, 0, limit, 4 * limit, 100 * limit]) : pick([0, 0, limit]);
      return `${q == null ? 'no q' : 'q'}${offset ? ' offset' : ''} /api/v1/stores/${pick(stores)}/listings${qs({ q, limit: limit === 24 ? null : limit, offset: offset || null })}`;
    })],
    ['get_store_levels', many(() => `/api/v1/stores/${pick(stores)}/levels${qs({ days: pick([null, 7, 30, 90, 365]) })}`)],
    ['list_areas', ['/api/v1/areas']],
    ['compare_retailers', ['/api/v1/retailers/compare']],
    ['get_retailer_levels', many(() => `/api/v1/retailers/levels${qs({ days: pick([null, 7, 30, 90, 365, 3650]) })}`)],
    ['list_deals', many(() => {
      const q = pick([null, null, null, 'synthetic', `item ${1 + Math.floor(rnd() * 99)}`, `${1 + Math.floor(rnd() * 999)}`]);
      const retailer = pick([null, null, ...chains]);
      return `${q == null ? 'no q' : 'q'}${retailer ? ' retailer' : ''} /api/v1/deals${qs({ kind: pick(['special', 'special', 'member', 'multibuy']), retailer, q, limit: pick([null, null, 48, 96]) })}`;
    })],
  ];
}

interface OpResult {
  name: string;
  seq: Run;
  seqAnchor: Run;
  conc: Run | null;
  concAnchor: Run | null;
}

async function httpPart(pool: pg.Pool, url: string): Promise<OpResult[]> {
  const paths = await operationPaths(pool);
  const app = await step('starting the API server (facades/server.ts) in a child process', () => startChild(['app', url]));
  const bare = await startChild(['bare']);
  const results: OpResult[] = [];
  try {
    for (const [name, ps] of paths) {
      const seq = await step(`HTTP ${name}: one connection`, () => sequential(app.port, ps));
      const anchorPath = [`/bytes/${seq.medianBytes}`];
      const seqAnchor = await sequential(bare.port, anchorPath);
      let conc: Run | null = null;
      let concAnchor: Run | null = null;
      if (CONNECTIONS > 0) {
        conc = await step(`HTTP ${name}: ${CONNECTIONS} connections`, () => concurrent(app.port, ps));
        concAnchor = await concurrent(bare.port, anchorPath);
      }
      results.push({ name, seq, seqAnchor, conc, concAnchor });
    }
  } finally {
    await stopChild(app.child);
    await stopChild(bare.child);
  }
  return results;
}

function printHttp(results: OpResult[]): void {
  const errs = (r: Run) => [...r.errors].map(([k, v]) => `${v}×${k}`).join(' ');
  const kib = (b: number) => (b >= 10_240 ? `${(b / 1024).toFixed(0)} KiB` : `${b} B`);
  console.log(
    `\nHTTP, one connection, sequential (ms to the last byte; ${WARMUP} warm-up requests, then up to ${n(REQUESTS)} or ${OP_MS / 1000} s per operation; nearest-rank percentiles)`,
  );
  console.log('  anchor: a bare node:http server (child process) sending a body of the operation\'s median size; × = operation ÷ anchor');
  console.log(`  ${pad('operation', 20)} ${lpad('requests', 8)} ${lpad('body', 9)} ${lpad('p50', 7)} ${lpad('p99', 7)} ${lpad('req/s', 7)} │ ${lpad('anchor p50', 10)} ${lpad('p99', 6)} │ ${lpad('× p50', 6)} ${lpad('× p99', 6)}`);
  for (const r of results) {
    const a = r.seqAnchor;
    console.log(
      `  ${pad(r.name, 20)} ${lpad(n(r.seq.requests), 8)} ${lpad(kib(r.seq.medianBytes), 9)} ${lpad(ms(r.seq.p50), 7)} ${lpad(ms(r.seq.p99), 7)} ${lpad(r.seq.rps.toFixed(0), 7)} │ ` +
        `${lpad(ms(a.p50), 10)} ${lpad(ms(a.p99), 6)} │ ${lpad((r.seq.p50 / a.p50).toFixed(0), 6)} ${lpad((r.seq.p99 / a.p99).toFixed(0), 6)}${r.seq.errors.size ? `  non-200: ${errs(r.seq)}` : ''}`,
    );
  }
  for (const r of results) {
    if (r.seq.variants.length > 1) console.log(`  ${r.name} p50 by parameters: ${r.seq.variants.sort((a, b) => a[0].localeCompare(b[0])).map(([v, p, k]) => `${v} ${ms(p)} (${k})`).join(', ')}`);
  }
  if (!results.some((r) => r.conc)) return;
  console.log(`\nHTTP, ${CONNECTIONS} connections (each sends its next request when the previous answer ends; ${OP_MS / 1000} s per operation)`);
  console.log(`  ${pad('operation', 20)} ${lpad('requests', 8)} ${lpad('req/s', 7)} ${lpad('p50', 7)} ${lpad('p99', 7)} │ ${lpad('anchor req/s', 12)} ${lpad('p50', 6)} ${lpad('p99', 6)} │ ${lpad('÷ req/s', 7)} ${lpad('× p50', 6)} ${lpad('× p99', 6)}`);
  for (const r of results) {
    const c = r.conc!;
    const a = r.concAnchor!;
    console.log(
      `  ${pad(r.name, 20)} ${lpad(n(c.requests), 8)} ${lpad(c.rps.toFixed(0), 7)} ${lpad(ms(c.p50), 7)} ${lpad(ms(c.p99), 7)} │ ${lpad(a.rps.toFixed(0), 12)} ${lpad(ms(a.p50), 6)} ${lpad(ms(a.p99), 6)} │ ` +
        `${lpad((a.rps / c.rps).toFixed(0), 7)} ${lpad((c.p50 / a.p50).toFixed(0), 6)} ${lpad((c.p99 / a.p99).toFixed(0), 6)}${c.errors.size ? `  non-200: ${errs(c)}` : ''}`,
    );
  }
}

function printRecomputes(rs: Recompute[]): void {
  console.log('\nthe ten-minute recompute (s): the index (runIndex), then the views (runViews: stores with areas, chains, deals)');
  const others = Object.keys(rs[0]?.views.views ?? {}).filter((k) => !KNOWN_VIEWS.includes(k));
  console.log(
    `  ${pad('', 34)} ${lpad('index', 7)} ${lpad('stores+areas', 12)} ${lpad('chains', 7)} ${lpad('deals', 7)} ${others.map((k) => lpad(k, Math.max(7, k.length))).join(' ')}${others.length ? ' ' : ''}${lpad('views', 7)} ${lpad('total', 7)}`,
  );
  for (const r of rs) {
    const v = (k: string) => (!r.views.views[k] ? '-' : r.views.views[k].built ? r.views.views[k].seconds.toFixed(2) : 'skip');
    console.log(
      `  ${pad(r.label, 34)} ${lpad(r.index.seconds.toFixed(2), 7)} ${lpad(v('stores'), 12)} ${lpad(v('chains'), 7)} ${lpad(v('deals'), 7)} ${others.map((k) => lpad(v(k), Math.max(7, k.length))).join(' ')}${others.length ? ' ' : ''}` +
        `${lpad(r.views.seconds.toFixed(2), 7)} ${lpad((r.index.seconds + r.views.seconds).toFixed(2), 7)}`,
    );
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  console.log(
    `levels bench (SYNTHETIC panel, not real prices): ${n(STORES)} stores, ${n(LISTINGS)} listings, ${DAYS} days from ${START}, ` +
      `${(MATCHED * 100).toFixed(0)} % of listings matched to basket items${QUICK ? ' (BENCH_SL_QUICK)' : ''}`,
  );
  const db = await createTestDatabase('bench_levels');
  dbName = new URL(db.url).pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(dbName)) throw new Error(`unexpected database name ${dbName}`);
  dropWhenGone(ADMIN_URL, dbName);
  try {
    const server = (await db.pool.query<{ v: string; sb: string }>(`SELECT current_setting('server_version') AS v, current_setting('shared_buffers') AS sb`)).rows[0];
    const basket = loadBasket();
    await syncBasket(db.pool, basket);
    const g0 = performance.now();
    const panel = await step('generating the SYNTHETIC listings, national spans and basket matches', () =>
      generateIndexPanel(db.pool, {
        listings: LISTINGS, days: DAYS, start: START, matchedShare: MATCHED,
        itemIds: basket.items.filter((i) => i.observable).map((i) => i.id),
      }),
    );
    const storeSpans = await step('generating the SYNTHETIC stores and store spans', () => generateStores(db.pool, panel.lastDay));
    await db.pool.query('ANALYZE');
    console.log(
      `  generated in ${s((performance.now() - g0) / 1000)}: ${n(panel.listings)} listings, ${n(panel.spans)} national spans, ` +
        `${n(storeSpans)} store spans, ${n(panel.matches)} basket matches; last day ${panel.lastDay}; PostgreSQL ${server.v}, shared_buffers ${server.sb}`,
    );

    const day1 = addDays(panel.lastDay, 1);
    const recomputes: Recompute[] = [];
    recomputes.push(await recompute(db.pool, 'first build (full)', day1));

    const t = performance.now();
    const changed = await step(`simulating ${day1}`, () => simulateDay(db.pool, day1, 0.03));
    await db.pool.query('ANALYZE store_price_span, national_price_span, store, retailer, collection');
    console.log(`  simulated ${day1}: ${n(changed)} store spans replaced in ${s((performance.now() - t) / 1000)}`);
    const ab = SPAN_INDEX_AB ? await spanIndexAb(db.pool) : [];

    recomputes.push(await recompute(db.pool, 'after one new day (incremental)', day1));
    recomputes.push(await recompute(db.pool, 'nothing new', day1));

    await step('VACUUM ANALYZE', () => db.pool.query('VACUUM ANALYZE'));
    const sizes = (await db.pool.query<{ t: string; rows: number; bytes: number }>(
      `SELECT c.relname AS t, c.reltuples::bigint AS rows, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
       WHERE c.relname IN ('store_price_span', 'store_listing', 'store_level_day', 'store_level', 'area_level', 'chain_level_day', 'chain_item_price', 'deal') ORDER BY bytes DESC`,
    )).rows;
    console.log(`  tables: ${sizes.map((x) => `${x.t} ${n(Math.max(0, x.rows))} rows ${mib(x.bytes)}`).join('; ')}`);

    const results = HTTP ? await httpPart(db.pool, db.url) : [];

    printRecomputes(recomputes);
    if (ab.length) {
      console.log('\nstore views, incremental build after one new day, without / with an index on store_price_span (store_id, last_day) (rolled back)');
      for (const line of ab) console.log(line);
    }
    if (results.length) printHttp(results);
    console.log(`\ntotal ${((performance.now() - began) / 1000).toFixed(0)} s`);
    const r2 = (x: number) => Math.round(x * 100) / 100;
    const run = (x: Run | null) => (x ? { requests: x.requests, rps: Math.round(x.rps), p50Ms: r2(x.p50), p99Ms: r2(x.p99), medianBytes: x.medianBytes, non200: x.errors.size ? Object.fromEntries(x.errors) : undefined } : null);
    await recordResults('levels', {
      synthetic: { stores: STORES, listings: LISTINGS, days: DAYS, matchedShare: MATCHED, quick: QUICK },
      recompute: recomputes.map((x) => ({ label: x.label, indexSeconds: r2(x.index.seconds), viewsSeconds: r2(x.views.seconds), peakRssMiB: Math.round(x.peak / 2 ** 20) })),
      http: results.map((x) => ({
        operation: x.name,
        sequential: run(x.seq), sequentialAnchor: run(x.seqAnchor),
        concurrent: run(x.conc), concurrentAnchor: run(x.concAnchor),
        p99VsAnchor: r2(x.seq.p99 / x.seqAnchor.p99),
      })),
    }, db.pool);
  } finally {
    for (const c of children) if (c.exitCode == null) c.kill('SIGTERM');
    await db.drop();
  }
}

await main();
