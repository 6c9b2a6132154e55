/**
 * Isolation bench (issue 29 item 3, "one slow family must not starve the rest"; `npm run
 * bench:isolation`, also part of `npm run bench`). Done when the cheap routes' p99 stays within 3 ×
 * their solo p99 while search is saturated.
 *
 * The real catalogue (../shared/data imported by workers/import, then matching, as `npm start`
 * does; BENCH_DATABASE_URL reuses a database that already holds it) is served by the real server in
 * a child process (test/bench/isolation-server.ts: the API's pool of ten and its bounds, the
 * response cache OFF so that every request runs GraphQL and SQL), twice: with the concurrency bounds
 * of facades/concurrency.ts (their defaults, or the CONCURRENCY_* of this environment) and without
 * them (CONCURRENCY_LIMITS=off). Against each:
 *
 * 1. solo: four cheap (light-family) routes — get_listing, get_product, get_listing_history,
 *    list_stores, each request on a random listing or product — loaded together by autocannon,
 *    BENCH_ISOLATION_CHEAP_CONNECTIONS (default 1) connection each, BENCH_ISOLATION_SECONDS
 *    (default 10) s. One connection each, so that the cheap load alone does not saturate the
 *    server (at 4 each on these 2 cores their solo p99 was already 250–550 ms: a queue of their
 *    own, not their cost);
 * 2. saturated: the same, while BENCH_ISOLATION_SEARCH_CONNECTIONS (default 60; 64 connections in
 *    all, the issue's mix) connections send search_products, each request a new `q` (two words
 *    drawn from the catalogue's names), started 2 s before and stopped after.
 *
 * Prints each cheap route's p50/p99 solo and saturated and the ratio saturated p99 / solo p99, the
 * search family's rate and statuses, and one JSON line; records them in test/bench/results.json.
 * autocannon runs in this process, the server in its child, PostgreSQL in its own: all share the
 * machine's cores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import pg from 'pg';
import { concurrencyOptions } from '../../facades/concurrency.js';
import { loadEnv } from '../../src/env.js';
import { importRealData } from '../../workers/import/index.js';
import { runMatching } from '../../workers/match/match.js';
import { recordResults } from './results.js';
import { dropWhenGone } from './scratch-db.js';
import { benchServer } from './server.js';

process.env.LOG_LEVEL ??= 'silent';

const SECONDS = Number(process.env.BENCH_ISOLATION_SECONDS ?? 10);
const CHEAP_CONNECTIONS = Number(process.env.BENCH_ISOLATION_CHEAP_CONNECTIONS ?? 1);
const SEARCH_CONNECTIONS = Number(process.env.BENCH_ISOLATION_SEARCH_CONNECTIONS ?? 60);
/** The issue's aim: saturated p99 within this many times the solo p99. */
const AIM = 3;
const SEARCH_LEAD_SECONDS = 2;

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];

/** Starts an isolation-server.ts child and resolves its port. */
async function startChild(databaseUrl: string, limits: 'on' | 'off'): Promise<{ port: number; child: ChildProcess }> {
  const file = new URL('./isolation-server.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', file, 'app', databaseUrl, limits], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`isolation-server.ts ${limits} exited with ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return { port, child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode != null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

/** The real catalogue: BENCH_DATABASE_URL's, or a fresh scratch database with the import and matching. */
async function realCatalogue(): Promise<{ url: string; pool: pg.Pool; label: string }> {
  if (process.env.BENCH_DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 2 });
    cleanups.push(() => pool.end());
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM listing');
    if (rows[0].n === 0) throw new Error('BENCH_DATABASE_URL has no listings: import the real data into it first (npm run import), or leave it unset');
    return { url: process.env.BENCH_DATABASE_URL, pool, label: `reused ${new URL(process.env.BENCH_DATABASE_URL).pathname.slice(1)}` };
  }
  const { adminUrl } = await benchServer();
  // test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
  const { createTestDatabase, DATA_DIR } = await import('../helpers/db.js');
  const db = await createTestDatabase('bench_isolation');
  const name = new URL(db.url).pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`unexpected database name ${name}`);
  dropWhenGone(adminUrl, name);
  cleanups.push(() => db.drop());
  const t0 = performance.now();
  await importRealData(db.pool, DATA_DIR, { progress: false });
  await runMatching(db.pool);
  await db.pool.query('ANALYZE');
  return { url: db.url, pool: db.pool, label: `fresh, imported and matched in ${((performance.now() - t0) / 1000).toFixed(1)} s` };
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  statuses: Record<string, number>;
  errors: number;
}

function figures(r: autocannon.Result): Figures {
  const statuses: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statuses[code] = s.count ?? 0;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, ok: r['2xx'], statuses, errors: r.errors + r.timeouts };
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)];

/** One autocannon run of GETs whose path `path()` draws anew for every request. */
function load(port: number, path: () => string, connections: number, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    pipelining: 1,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }],
  });
}

interface Route {
  name: string;
  path: () => string;
}

async function main(): Promise<void> {
  const cat = await realCatalogue();
  const listings = (await cat.pool.query<{ id: number }>('SELECT id FROM listing ORDER BY random() LIMIT 2000')).rows.map((r) => r.id);
  const products = (await cat.pool.query<{ id: number }>('SELECT id FROM product ORDER BY random() LIMIT 2000')).rows.map((r) => r.id);
  const words = (
    await cat.pool.query<{ w: string }>(
      `SELECT DISTINCT w FROM (SELECT lower(regexp_split_to_table(name, '[^[:alpha:]]+')) AS w FROM listing) t WHERE length(w) BETWEEN 3 AND 12 LIMIT 5000`,
    )
  ).rows.map((r) => r.w);
  const counts = (await cat.pool.query<{ l: number; p: number }>('SELECT (SELECT count(*)::int FROM listing) AS l, (SELECT count(*)::int FROM product) AS p')).rows[0];
  if (listings.length === 0 || products.length === 0 || words.length < 100) throw new Error('the catalogue holds too little to bench');
  console.error(`isolation bench: real catalogue (${counts.l} listings, ${counts.p} products; ${cat.label}); ${words.length} words for queries`);

  const cheap: Route[] = [
    { name: 'get_listing', path: () => `/api/v1/listings/${pick(listings)}` },
    { name: 'get_product', path: () => `/api/v1/products/${pick(products)}` },
    { name: 'get_listing_history', path: () => `/api/v1/listings/${pick(listings)}/history` },
    { name: 'list_stores', path: () => '/api/v1/stores' },
  ];
  let n = 0;
  const seen = new Set<string>();
  const searchPath = () => {
    // A new q each time: two words of the catalogue's names, never the same pair twice.
    let q: string;
    do q = `${pick(words)} ${pick(words)}`;
    while (seen.has(q) && n < 1e7);
    seen.add(q);
    n += 1;
    return `/api/v1/search?q=${encodeURIComponent(q)}`;
  };

  const results: Record<string, { solo: Record<string, Figures>; saturated: Record<string, Figures>; search: Figures }> = {};
  for (const limits of ['off', 'on'] as const) {
    const { port, child } = await startChild(cat.url, limits);
    for (const r of cheap) {
      const res = await fetch(`http://127.0.0.1:${port}${r.path()}`);
      if (res.status !== 200) throw new Error(`${r.name} answered ${res.status}`);
    }
    // Warm-up: JIT, connections, PostgreSQL's buffers.
    await Promise.all([...cheap.map((r) => load(port, r.path, CHEAP_CONNECTIONS, 2)), load(port, searchPath, 4, 2)]);

    const solo = await Promise.all(cheap.map((r) => load(port, r.path, CHEAP_CONNECTIONS, SECONDS)));
    const search = load(port, searchPath, SEARCH_CONNECTIONS, SEARCH_LEAD_SECONDS + SECONDS + 1);
    await new Promise((r) => setTimeout(r, SEARCH_LEAD_SECONDS * 1000));
    const saturated = await Promise.all(cheap.map((r) => load(port, r.path, CHEAP_CONNECTIONS, SECONDS)));
    results[limits] = {
      solo: Object.fromEntries(cheap.map((r, i) => [r.name, figures(solo[i])])),
      saturated: Object.fromEntries(cheap.map((r, i) => [r.name, figures(saturated[i])])),
      search: figures(await search),
    };
    await stopChild(child);
  }

  const total = SEARCH_CONNECTIONS + CHEAP_CONNECTIONS * cheap.length;
  const mine = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('CONCURRENCY_')));
  const opts = concurrencyOptions(loadEnv({ ...mine, CONCURRENCY_LIMITS: 'on' }))!;
  const bounds = `${Object.entries(opts.limits).map(([f, l]) => `${f} ${l.concurrency}`).join(', ')}; queue ${opts.limits.search.queue}; wait ${opts.maxWaitMs} ms`;
  const ms = (x: number) => `${String(x).padStart(5)} ms`;
  const st = (f: Figures) => Object.entries(f.statuses).map(([c, k]) => `${c}×${k}`).join(' ') + (f.errors ? ` errors×${f.errors}` : '');
  console.log(
    `\nisolation: ${cheap.length} cheap routes × ${CHEAP_CONNECTIONS} connections, alone then beside search_products at ${SEARCH_CONNECTIONS} connections (${total} in all), a new q each request; ${SECONDS} s per run, response cache off; real catalogue ${counts.l} listings (${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load average ${os.loadavg()[0].toFixed(1)}, Node ${process.version})`,
  );
  const summary: Record<string, unknown> = {};
  for (const limits of ['off', 'on'] as const) {
    const r = results[limits];
    console.log(`\nconcurrency bounds ${limits === 'on' ? `ON (${bounds})` : 'OFF (CONCURRENCY_LIMITS=off)'}`);
    console.log(`  ${'route'.padEnd(20)} ${'solo p50'.padStart(9)} ${'solo p99'.padStart(9)}   ${'sat. p50'.padStart(9)} ${'sat. p99'.padStart(9)}   ratio p99   statuses saturated`);
    const ratios: Record<string, number> = {};
    for (const route of cheap) {
      const a = r.solo[route.name];
      const b = r.saturated[route.name];
      const ratio = b.p99 / Math.max(a.p99, 1);
      ratios[route.name] = Math.round(ratio * 100) / 100;
      console.log(`  ${route.name.padEnd(20)} ${ms(a.p50)}  ${ms(a.p99)}   ${ms(b.p50)}  ${ms(b.p99)}   ${ratio.toFixed(2).padStart(6)} ×   ${st(b)}${a.ok !== a.statuses['200'] ? `  (solo ${st(a)})` : ''}`);
    }
    const worst = Math.max(...Object.values(ratios));
    console.log(`  worst ratio ${worst.toFixed(2)} × (aim ≤ ${AIM} ×: ${worst <= AIM ? 'met' : 'NOT met'})`);
    console.log(`  search_products: ${r.search.rps.toFixed(1)} req/s, p50 ${r.search.p50} ms, p99 ${r.search.p99} ms; ${st(r.search)}`);
    summary[limits] = {
      ratios,
      worstRatio: Math.round(worst * 100) / 100,
      cheap: Object.fromEntries(
        cheap.map((route) => [
          route.name,
          {
            solo: { rps: Math.round(r.solo[route.name].rps), p50Ms: r.solo[route.name].p50, p99Ms: r.solo[route.name].p99, statuses: r.solo[route.name].statuses },
            saturated: { rps: Math.round(r.saturated[route.name].rps), p50Ms: r.saturated[route.name].p50, p99Ms: r.saturated[route.name].p99, statuses: r.saturated[route.name].statuses },
          },
        ]),
      ),
      search: { rps: Math.round(r.search.rps * 10) / 10, p50Ms: r.search.p50, p99Ms: r.search.p99, statuses: r.search.statuses, errors: r.search.errors },
    };
  }
  const record = { catalogue: { listings: counts.l, products: counts.p }, bounds, loadAverage: Math.round(os.loadavg()[0] * 10) / 10, secondsPerRun: SECONDS, cheapConnections: CHEAP_CONNECTIONS, searchConnections: SEARCH_CONNECTIONS, aim: `saturated p99 ≤ ${AIM} × solo p99`, ...summary };
  console.log(JSON.stringify({ bench: 'isolation', ...record }));
  await recordResults('isolation', record, cat.pool);
}

async function cleanUp(): Promise<void> {
  await Promise.all(children.map(stopChild));
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanUp().finally(() => process.exit(130));
  });
}

try {
  await main();
} finally {
  await cleanUp();
}
