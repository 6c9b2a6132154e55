/**
 * National bench (issue 19, "on the national synthetic panel every operation answers; the bench's
 * table with ratios; memory stays flat during export"): `npm run bench:national [-- --database URL]
 * [--rounds N] [--seconds S] [--connections N] [--sections ops,cache,export] [--op-budget SECONDS]
 * [--export-budget SECONDS]`. Default database: `synthetic` on TEST_DATABASE_URL's or DATABASE_URL's
 * server (what `npm run synth` fills); it must hold the SYNTHETIC marker (import_run 'synth'). The
 * synth writes listings, stores and spans only: first link products (`DATABASE_URL=… npm run worker
 * -- match`), then the basket and index (`… index --full`, which also rebuilds every stale derived
 * view; else `… views --full`). With neither TEST_DATABASE_URL nor DATABASE_URL set, a small panel is
 * generated, linked, indexed and its views built on a throwaway embedded server first
 * (test/bench/panel-database.ts; BENCH_PANEL_* for its size): a quick check that every operation
 * answers, not national-scale figures. Prints figures, asserts nothing, exits 1 when an operation did
 * not answer as the contract says.
 *
 * 1. The panel's size (stores, listings, store spans, days).
 * 2. Every operation of the registry (facades/operations.ts) over REST, the response cache off
 *    (CACHE_MAX_BYTES=0), 1 connection, `--rounds` calls each (default 30) after one cold call,
 *    parameters drawn from the database (rotating ids of real listings, stores, products, basket
 *    items, a word of the synthetic names, a store's lat/lng); an operation's calls stop after
 *    `--op-budget` seconds (default 120; at least 3 calls). An operation without a recipe below
 *    is reported "no recipe" and counts as not answered. Each 200 body is checked against the
 *    operation's zod resource once. Then get_listing and search_products over GraphQL and MCP.
 * 3. Cached hot GETs (get_listing, search_products, list_stores): autocannon, `--connections`
 *    (default 32) connections, `--seconds` (default 5) s, every request from a client address of its
 *    own (X-Forwarded-For; the server trusts it and keeps the contract's per-IP budget), against a
 *    bare node:http server sending the same bytes and headers (test/bench/cache-server.ts `bare`),
 *    both measured in this run: the ratio cached/bare (aim 0.6, issue 31 item 5).
 * 4. The export (workers/export/export.ts runExport: gzipped CSV by COPY, then Parquet by DuckDB)
 *    in a child process into a scratch folder under os.tmpdir(), its RSS, the bytes written and
 *    PostgreSQL's temp bytes sampled every 250 ms; RSS at 10/50/90 % of the run against the bytes
 *    written by then ("flat": RSS does not grow with the rows written). `--export-budget` stops it
 *    after that many seconds (the samples so far are still reported). Anchor: COPY of every store
 *    span to a null sink (the least an export of price_spans must do), as a ratio.
 *
 * Child modes of this file (each prints `{"port": n}` or JSON lines on stdout):
 *   `--serve <url> <cache bytes> <export dir> [contract]`, `--export <url> <dir>`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

process.env.LOG_LEVEL ??= 'silent';

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const msf = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const log = (s: string) => console.log(s);

/** Total size of the files under `dir` (recursively; 0 when gone). */
function dirBytes(dir: string): number {
  let n = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    try {
      if (e.isDirectory()) n += dirBytes(p);
      else if (e.isFile()) n += fs.statSync(p).size;
    } catch {
      // renamed or removed meanwhile
    }
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// The bench.

interface Ctx {
  listings: number[];
  storeListings: { store: number; listing: number }[];
  stores: { id: number; lat: number | null; lng: number | null; town: string | null; area: string | null }[];
  products: number[];
  gtins: string[];
  retailers: string[];
  words: string[];
  prefixes: string[];
  categories: { retailer: string; path: string[] }[];
  shelves: string[];
  basketItems: number[];
  groups: number[];
  indexDay: string | null;
  rnd: () => number;
}

type Params = Record<string, string | string[] | undefined>;

/** One call's parameters (path and query, as strings) and the statuses the contract gives for it. */
interface Call {
  params: Params;
  expect?: number[];
  note?: string;
}

type Recipe = (c: Ctx, i: number) => Call;

const pick = <T>(c: Ctx, xs: T[]): T => xs[Math.floor(c.rnd() * xs.length)];

/** An id of a product, or (none in the panel) an id the contract answers 404 / empty for. */
function productCall(c: Ctx, errors: readonly number[] | undefined): Call {
  if (c.products.length) return { params: { id: String(pick(c, c.products)) } };
  return { params: { id: '1' }, expect: errors?.includes(404) ? [404] : [200], note: 'no products in the panel' };
}

/** Parameter recipes, by operation name. */
const recipes: Record<string, (errors: readonly number[] | undefined) => Recipe> = {
  search_products: () => (c, i) => ({ params: i % 5 === 4 ? { q: pick(c, c.words), retailer: pick(c, c.retailers) } : { q: pick(c, c.words) } }),
  search_listings: () => (c, i) => ({ params: i % 5 === 4 ? { q: pick(c, c.words), retailer: pick(c, c.retailers) } : { q: pick(c, c.words) } }),
  suggest: () => (c) => ({ params: { q: pick(c, c.prefixes) } }),
  lookup_gtin: () => (c) => (c.gtins.length ? { params: { gtin: pick(c, c.gtins) } } : { params: { gtin: '9415077001234' }, expect: [404], note: 'no gtins' }),
  get_product: (e) => (c) => productCall(c, e),
  get_product_history: (e) => (c) => productCall(c, e),
  get_product_stores: (e) => (c) => productCall(c, e),
  get_product_spread: (e) => (c) => productCall(c, e),
  get_product_lows: (e) => (c) => productCall(c, e),
  get_listing: () => (c) => ({ params: { id: String(pick(c, c.listings)) } }),
  get_listing_lows: () => (c, i) => ({ params: i % 2 ? { id: String(pick(c, c.listings)), min_days: '1' } : { id: String(pick(c, c.listings)) } }),
  get_listing_history: () => (c, i) => {
    const sl = pick(c, c.storeListings);
    return { params: i % 2 ? { id: String(sl.listing), store: String(sl.store) } : { id: String(sl.listing) } };
  },
  check_special: () => (c) => ({ params: { id: String(pick(c, c.listings)) } }),
  list_retailers: () => () => ({ params: {} }),
  list_shelves: () => () => ({ params: {} }),
  browse_shelf: () => (c, i) => {
    const slug = pick(c, c.shelves);
    const sorts = ['popular', 'per_unit', 'price', 'deal'];
    return { params: i % 3 === 2 ? { slug, retailer: pick(c, c.retailers), sort: sorts[i % 4] } : { slug, sort: sorts[i % 4] } };
  },
  browse_retailer: () => (c, i) => {
    const cat = pick(c, c.categories);
    const depth = 1 + (i % Math.max(1, cat.path.length));
    return { params: i % 4 === 0 ? { slug: cat.retailer } : { slug: cat.retailer, c: cat.path.slice(0, depth) } };
  },
  compare_retailers: () => () => ({ params: {} }),
  get_retailer_levels: () => (_c, i) => ({ params: i % 2 ? { days: '90' } : {} }),
  list_stores: () => (c, i) => {
    const s = pick(c, c.stores);
    return { params: i % 3 === 0 ? {} : i % 3 === 1 ? { retailer: pick(c, c.retailers) } : { town: s.town ?? '' } };
  },
  get_store: () => (c) => ({ params: { id: String(pick(c, c.stores).id) } }),
  get_store_listings: () => (c, i) => ({ params: i % 3 === 2 ? { id: String(pick(c, c.stores).id), q: pick(c, c.words) } : { id: String(pick(c, c.stores).id), offset: String(24 * (i % 5)) } }),
  get_store_levels: () => (c) => ({ params: { id: String(pick(c, c.stores).id) } }),
  list_areas: () => () => ({ params: {} }),
  list_deals: () => (c, i) => ({ params: i % 3 === 0 ? {} : i % 3 === 1 ? { retailer: pick(c, c.retailers) } : { q: pick(c, c.words) } }),
  plan_shopping_list: () => (c, i) => {
    const s = pick(c, c.stores.filter((x) => x.lat != null)) ?? c.stores[0];
    const items = Array.from({ length: 4 + (i % 5) }, () => `l${pick(c, c.listings)}x${1 + Math.floor(c.rnd() * 3)}`);
    const near = s.lat != null && i % 2 === 0 ? { lat: Number(s.lat).toFixed(6), lng: Number(s.lng).toFixed(6), radius_km: '50' } : {};
    return { params: { items: [...new Set(items)].join(','), ...near } };
  },
  get_index_latest: (e) => (c) => (c.indexDay ? { params: {} } : { params: {}, expect: e?.includes(404) ? [404] : [200], note: 'index not computed' }),
  get_index_daily: () => (c, i) => ({ params: i % 2 && c.groups.length ? { group: String(pick(c, c.groups)) } : c.indexDay ? { to: c.indexDay } : {} }),
  get_index_groups: () => (_c, i) => ({ params: i % 2 ? { days: '90' } : {} }),
  get_index_items: () => (_c, i) => ({ params: i % 2 ? { days: '90' } : {} }),
  get_index_validation: () => () => ({ params: {} }),
  get_basket_item: () => (c) => (c.basketItems.length ? { params: { id: String(pick(c, c.basketItems)) } } : { params: { id: '1' }, expect: [404], note: 'basket not synced' }),
  get_basket: () => (_c, i) => ({ params: i % 2 ? { include: 'matches' } : {} }),
  // 404 "before the first export": the served EXPORT_DIR is an empty scratch folder (section 4 exports elsewhere).
  get_export_manifest: () => () => ({ params: {}, expect: [404], note: '404: no export in the served EXPORT_DIR' }),
  // How old the data is (issue 26): the national collection rows and each chain's last day.
  get_data_status: () => () => ({ params: {} }),
  healthz: () => () => ({ params: {} }),
  // Price changes (issue 32 item 3): each scope in turn; a chain's scope reads every listing of the chain.
  list_price_changes: () => (c, i) => {
    const scopes: Params[] = [
      { listing_id: String(pick(c, c.listings)) },
      { retailer: pick(c, c.retailers), kind: 'special' },
      { q: pick(c, c.words), direction: 'drop' },
      { shelf: pick(c, c.shelves), direction: 'drop' },
      { retailer: pick(c, c.retailers), days: '7' },
    ];
    return { params: scopes[i % scopes.length] };
  },
  // Shrinkflation (issue 32 item 4): the whole window, one chain, one shelf, a short window.
  list_shrinkflation: () => (c, i) => ({
    params: i % 4 === 0 ? {} : i % 4 === 1 ? { retailer: pick(c, c.retailers) } : i % 4 === 2 ? { shelf: pick(c, c.shelves) } : { days: '30', limit: '10' },
  }),
};

/** The REST URL path + query of `opPath` with `params`. */
function restUrl(opPath: string, params: Params): string {
  const rest = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<string, string | string[]>;
  const p = opPath.replace(/\{(\w+)\}/g, (_m, k: string) => {
    const v = rest[k];
    delete rest[k];
    return encodeURIComponent(String(v));
  });
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(rest)) for (const x of Array.isArray(v) ? v : [v]) qs.append(k, x);
  const s = qs.toString();
  return s ? `${p}?${s}` : p;
}

const children: ChildProcess[] = [];

/** Spawns `file args…` under tsx, resolves the first stdout line parsed as JSON. */
function startChild(file: string, args: string[]): Promise<{ port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${path.basename(file)} ${args[0]} exited with ${code}`)));
    lines.once('line', (line) => resolve(JSON.parse(line) as { port: number }));
  });
}

async function stopChildren(): Promise<void> {
  for (const c of children) if (c.exitCode == null && c.signalCode == null) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode == null && c.signalCode == null ? new Promise((r) => c.once('exit', r)) : null)));
  children.length = 0;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      database: { type: 'string' }, rounds: { type: 'string' }, seconds: { type: 'string' }, connections: { type: 'string' },
      sections: { type: 'string' }, 'export-budget': { type: 'string' }, 'op-budget': { type: 'string' },
    },
  });
  const { panelDatabase } = await import('./panel-database.js');
  const url = await panelDatabase(values.database, { derived: true });
  const ROUNDS = Number(values.rounds ?? 30);
  const SECONDS = Number(values.seconds ?? 5);
  const CONNECTIONS = Number(values.connections ?? 32);
  const EXPORT_BUDGET = Number(values['export-budget'] ?? 0);
  const OP_BUDGET_MS = Number(values['op-budget'] ?? 120) * 1000;
  const REQUEST_TIMEOUT_MS = 300_000;
  const sections = new Set((values.sections ?? 'ops,cache,export').split(','));
  const { operations, documentText } = await import('../../facades/operations.js');
  const { readResults, recordResults } = await import('./results.js');
  const { prng } = await import('../../workers/synth/prng.js');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const self = new URL(import.meta.url).pathname;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'nzgp-bench-national-'));
  const figures: Record<string, unknown> = {};
  let failed = 0;
  try {
    // 1. The panel.
    const marker = await pool.query<{ digest: string }>(`SELECT digest FROM import_run WHERE name = 'synth'`).catch(() => ({ rowCount: 0, rows: [] }));
    if (!marker.rowCount) throw new Error(`${url} holds no SYNTHETIC panel (no import_run 'synth'): run npm run synth first`);
    const size = (await pool.query<{ stores: number; listings: number; spans: number; open: number; first: string; last: string; days: number }>(
      `SELECT (SELECT count(*) FROM store)::int AS stores, (SELECT count(*) FROM listing)::int AS listings,
         (SELECT reltuples::bigint FROM pg_class WHERE oid = 'store_price_span'::regclass)::float8 AS spans,
         (SELECT count(*) FROM store_listing)::int AS open,
         (SELECT min(first_day)::text FROM national_price_span) AS first, (SELECT max(last_day)::text FROM store) AS last,
         (SELECT max(last_day) - min(first_day) + 1 FROM (SELECT min(first_day) AS first_day, NULL::date AS last_day FROM national_price_span
            UNION ALL SELECT NULL, max(last_day) FROM store) x)::int AS days`,
    )).rows[0];
    log(`SYNTHETIC panel ${marker.rows[0].digest} at ${new URL(url).host}${new URL(url).pathname}`);
    log(`  ${size.stores.toLocaleString('en-NZ')} stores, ${size.listings.toLocaleString('en-NZ')} listings, ≈${Math.round(size.spans).toLocaleString('en-NZ')} store spans (planner estimate), ` +
      `${size.open.toLocaleString('en-NZ')} store×listing prices this week, ${size.days} days (${size.first} … ${size.last})`);
    figures.panel = { digest: JSON.parse(marker.rows[0].digest), stores: size.stores, listings: size.listings, storeSpansEstimate: Math.round(size.spans), storeListingRows: size.open, days: size.days };
    const views = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM view_run').catch(() => ({ rows: [{ n: 0 }] }));
    if (!views.rows[0].n) log('  WARNING: no derived views built (view_run empty): run `npm run worker -- index --full` or `views --full` on it first');

    // Parameters from the database.
    const q = async <T extends pg.QueryResultRow>(sql: string) => (await pool.query<T>(sql)).rows;
    const ctx: Ctx = {
      listings: (await q<{ id: number }>('SELECT listing_id AS id FROM store_listing TABLESAMPLE SYSTEM (1) LIMIT 400')).map((r) => r.id),
      storeListings: (await q<{ store: number; listing: number }>('SELECT store_id AS store, listing_id AS listing FROM store_listing TABLESAMPLE SYSTEM (1) LIMIT 200')),
      stores: await q('SELECT id, lat, lng, town, area FROM store WHERE active ORDER BY random() LIMIT 100'),
      products: (await q<{ id: number }>('SELECT id FROM product ORDER BY random() LIMIT 200')).map((r) => r.id),
      gtins: (await q<{ g: string }>('SELECT gtin AS g FROM listing WHERE gtin IS NOT NULL ORDER BY random() LIMIT 100')).map((r) => r.g),
      retailers: (await q<{ slug: string }>('SELECT slug FROM retailer ORDER BY id')).map((r) => r.slug),
      words: [],
      prefixes: [],
      categories: (await q<{ retailer: string; path: string[] }>(
        `SELECT r.slug AS retailer, l.category_path AS path FROM listing l JOIN retailer r ON r.id = l.retailer_id
         WHERE l.available AND cardinality(l.category_path) > 0 ORDER BY random() LIMIT 100`,
      )),
      shelves: [],
      basketItems: (await q<{ id: number }>('SELECT id FROM basket_item WHERE active ORDER BY id')).map((r) => r.id),
      groups: (await q<{ id: number }>('SELECT id FROM basket_group WHERE observable ORDER BY id')).map((r) => r.id),
      indexDay: (await q<{ d: string | null }>('SELECT max(day)::text AS d FROM index_day'))[0].d,
      rnd: prng(19),
    };
    if (!ctx.listings.length) ctx.listings = (await q<{ id: number }>('SELECT id FROM listing ORDER BY random() LIMIT 400')).map((r) => r.id);
    if (!ctx.storeListings.length) ctx.storeListings = ctx.listings.map((l) => ({ listing: l, store: ctx.stores[0]?.id ?? 1 }));
    const names = await q<{ name: string }>('SELECT name FROM listing ORDER BY random() LIMIT 300');
    const counts = new Map<string, number>();
    for (const { name } of names) for (const w of name.toLowerCase().split(/[^a-z]+/)) if (w.length >= 4 && w !== 'synthetic') counts.set(w, (counts.get(w) ?? 0) + 1);
    ctx.words = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([w]) => w);
    ctx.prefixes = ctx.words.map((w, i) => w.slice(0, 2 + (i % 3)));
    log(`  parameters: ${ctx.listings.length} listings, ${ctx.stores.length} stores, ${ctx.products.length} products, ${ctx.gtins.length} gtins, ` +
      `${ctx.basketItems.length} basket items, index to ${ctx.indexDay ?? '(none)'}, words ${ctx.words.slice(0, 8).join(' ')} …`);

    // 2. Every operation.
    if (sections.has('ops')) {
      const emptyExport = path.join(scratch, 'no-export');
      fs.mkdirSync(emptyExport);
      const { port } = await startChild(self, ['--serve', url, '0', emptyExport]);
      const base = `http://127.0.0.1:${port}`;
      const shelves = (await (await fetch(`${base}/api/v1/shelves`)).json()) as { slug: string; products: number }[];
      ctx.shelves = shelves.filter((s) => s.products > 0).map((s) => s.slug);
      if (!ctx.shelves.length) ctx.shelves = shelves.map((s) => s.slug);
      log(`\n2. every operation over REST, response cache off, 1 connection, 1 cold call + ${ROUNDS} calls each (${operations.length} operations in the registry)`);
      const rows: { op: string; statuses: string; cold: number; p50: number; p99: number; max: number; bytes: number; ok: boolean; note: string; error?: string }[] = [];
      for (const op of operations) {
        const make = recipes[op.name]?.(op.errors);
        if (!make) {
          rows.push({ op: op.name, statuses: '-', cold: NaN, p50: NaN, p99: NaN, max: NaN, bytes: 0, ok: false, note: 'no recipe' });
          log(`  ${op.name}: NO RECIPE`);
          continue;
        }
        const seen = new Map<number, number>();
        const times: number[] = [];
        let cold = 0;
        let bytes = 0;
        let ok = true;
        let error: string | undefined;
        let checked = false;
        let note = '';
        const opStart = performance.now();
        for (let i = 0; i <= ROUNDS; i++) {
          if (i > 2 && performance.now() - opStart > OP_BUDGET_MS) {
            note = `${note ? `${note}; ` : ''}stopped after ${i} calls (--op-budget)`;
            break;
          }
          const call = make(ctx, i);
          note = call.note ?? note;
          const u = restUrl(op.path, call.params);
          const t = performance.now();
          let res: Response;
          let body: Buffer;
          try {
            res = await fetch(base + u, { headers: { 'accept-encoding': 'identity' }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
            body = Buffer.from(await res.arrayBuffer());
          } catch (err) {
            ok = false;
            error ??= `GET ${u}: ${(err as Error).message}`;
            seen.set(0, (seen.get(0) ?? 0) + 1);
            break;
          }
          const dt = performance.now() - t;
          if (i === 0) cold = dt;
          else times.push(dt);
          bytes += body.length;
          seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
          const expected = call.expect ?? [200];
          if (!expected.includes(res.status)) {
            ok = false;
            error ??= `GET ${u} → ${res.status}: ${body.toString('utf8').slice(0, 400)}`;
          } else if (res.status === 200 && !checked && String(res.headers.get('content-type')).startsWith('application/json')) {
            checked = true;
            const parsed = op.result.safeParse(JSON.parse(body.toString('utf8')));
            if (!parsed.success) {
              ok = false;
              error ??= `GET ${u}: body does not match the contract: ${parsed.error.message.slice(0, 400)}`;
            }
          }
        }
        const row = {
          op: op.name, statuses: [...seen].map(([s, n]) => `${s}×${n}`).join(' '), cold, p50: pct(times, 0.5), p99: pct(times, 0.99), max: Math.max(...times),
          bytes: Math.round(bytes / (times.length + 1)), ok, note, error,
        };
        rows.push(row);
        log(`  ${op.name.padEnd(22)} ${row.statuses.padEnd(14)} cold ${msf(cold).padStart(6)} ms  p50 ${msf(row.p50).padStart(6)} ms  p99 ${msf(row.p99).padStart(6)} ms  ${String(row.bytes).padStart(8)} B${ok ? '' : '  FAILED'}${note ? `  (${note})` : ''}`);
        if (error) log(`      ${error}`);
      }
      const answered = rows.filter((r) => r.ok).length;
      failed += rows.length - answered;
      log('\n| operation | statuses | cold ms | p50 ms | p99 ms | max ms | mean body B | note |');
      log('|---|---|---:|---:|---:|---:|---:|---|');
      for (const r of rows) log(`| ${r.op} | ${r.statuses} | ${msf(r.cold)} | ${msf(r.p50)} | ${msf(r.p99)} | ${msf(r.max)} | ${r.bytes} | ${r.ok ? '' : 'FAILED '}${r.note} |`);
      const slow = rows.filter((r) => r.p99 > 1000).map((r) => r.op);
      if (slow.length) log(`slow (p99 > 1 s): ${slow.join(', ')}`);
      for (const r of rows.filter((x) => x.error)) log(`error ${r.op}: ${r.error}`);

      // GraphQL and MCP, two operations each.
      const other: Record<string, { p50: number; p99: number; status: number }> = {};
      for (const name of ['get_listing', 'search_products']) {
        const op = operations.find((o) => o.name === name)!;
        const make = recipes[name](op.errors);
        for (const facade of ['graphql', 'mcp'] as const) {
          const times: number[] = [];
          let status = 0;
          let bad = '';
          for (let i = 0; i <= ROUNDS; i++) {
            const params = Object.fromEntries(Object.entries(make(ctx, i).params).filter(([, v]) => v !== undefined));
            const args = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]));
            const init: RequestInit = facade === 'graphql'
              ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: documentText(name), operationName: name, variables: op.variables(op.params.parse(params)) }) }
              : {
                method: 'POST',
                headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
                body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name, arguments: args, _meta: {
                  'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } } } }),
              };
            const t = performance.now();
            const res = await fetch(`${base}/${facade}`, init);
            const text = await res.text();
            if (i > 0) times.push(performance.now() - t);
            status = res.status;
            if (res.status !== 200 || /"errors"\s*:|"isError"\s*:\s*true/.test(text)) bad ||= `${res.status} ${text.slice(0, 300)}`;
          }
          other[`${facade} ${name}`] = { p50: pct(times, 0.5), p99: pct(times, 0.99), status };
          log(`  ${facade.padEnd(7)} ${name.padEnd(16)} ${status}  p50 ${msf(pct(times, 0.5))} ms  p99 ${msf(pct(times, 0.99))} ms${bad ? `  FAILED: ${bad}` : ''}`);
          if (bad) failed++;
        }
      }
      log(`\n${answered}/${rows.length} operations answered`);
      figures.operations = {
        rounds: ROUNDS, cache: 'off', connections: 1, answered, total: rows.length,
        byOperation: Object.fromEntries(rows.map((r) => [r.op, { statuses: r.statuses, coldMs: Math.round(r.cold), p50Ms: Math.round(r.p50 * 10) / 10, p99Ms: Math.round(r.p99 * 10) / 10, meanBodyBytes: r.bytes, ok: r.ok, ...(r.note ? { note: r.note } : {}) }])),
        otherFacades: Object.fromEntries(Object.entries(other).map(([k, v]) => [k, { p50Ms: Math.round(v.p50 * 10) / 10, p99Ms: Math.round(v.p99 * 10) / 10 }])),
      };
      await stopChildren();
    }

    // 3. Cached hot GETs against a bare node:http server.
    if (sections.has('cache')) {
      // Every request from a client address of its own (issue 31 item 5: the per-IP budget is on
      // the measured path): the server trusts X-Forwarded-For and keeps the contract's budget.
      const { port: cached } = await startChild(self, ['--serve', url, String(64 * 1024 * 1024), path.join(scratch, 'no-export'), 'contract']);
      const hot = [
        { name: 'get_listing', path: `/api/v1/listings/${ctx.listings[0]}` },
        { name: 'search_products', path: `/api/v1/search?q=${encodeURIComponent(ctx.words[0] ?? 'milk')}` },
        { name: 'list_stores', path: '/api/v1/stores' },
      ];
      const files: string[] = [];
      for (const [i, op] of hot.entries()) {
        const res = await fetch(`http://127.0.0.1:${cached}${op.path}`, { headers: { 'accept-encoding': 'identity' } });
        if (res.status !== 200) throw new Error(`${op.path} answered ${res.status}`);
        files.push(path.join(scratch, `hot-${i}.json`));
        fs.writeFileSync(files[i], Buffer.from(await res.arrayBuffer()));
        // The anchor sends the API's own headers as answered (as bench:cache), so both write the same bytes.
        const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
        fs.writeFileSync(`${files[i]}.headers.json`, JSON.stringify(Object.fromEntries([...res.headers].filter(([k]) => !skip.has(k)))));
      }
      let clientCount = 0;
      const nextAddress = () => {
        const n = (clientCount = (clientCount + 1) % 0xff_ffff) || (clientCount = 1);
        return `10.${n >> 16}.${(n >> 8) & 255}.${n & 255}`;
      };
      const requests = [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': nextAddress() } }) }];
      const { port: bare } = await startChild(new URL('./cache-server.ts', import.meta.url).pathname, ['bare', ...files]);
      const load = async (u: string, seconds: number) => {
        const r = await autocannon({ url: u, connections: CONNECTIONS, duration: seconds, pipelining: 1, requests });
        return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors + r.timeouts };
      };
      log(`\n3. cached hot GETs: autocannon ${CONNECTIONS} connections, ${SECONDS} s each (after 1 s warm-up), a distinct client address (X-Forwarded-For) per request, API (cache on, contract budget) vs bare node:http with the same bytes and headers`);
      const out: Record<string, unknown> = {};
      for (const [i, op] of hot.entries()) {
        await load(`http://127.0.0.1:${bare}/${i}`, 1);
        const b = await load(`http://127.0.0.1:${bare}/${i}`, SECONDS);
        await load(`http://127.0.0.1:${cached}${op.path}`, 1);
        const c = await load(`http://127.0.0.1:${cached}${op.path}`, SECONDS);
        const ratio = c.rps / b.rps;
        const bytes = fs.statSync(files[i]).size;
        log(`  ${op.name.padEnd(16)} ${String(bytes).padStart(7)} B  bare ${b.rps.toFixed(0).padStart(6)} req/s (p99 ${b.p99} ms)  cached ${c.rps.toFixed(0).padStart(6)} req/s (p99 ${c.p99} ms)  ratio ${ratio.toFixed(2)}${b.bad || c.bad ? `  WARNING ${b.bad}/${c.bad} bad responses` : ''}`);
        out[op.name] = { bytes, bareRps: Math.round(b.rps), cachedRps: Math.round(c.rps), bareP99Ms: b.p99, cachedP99Ms: c.p99, cachedVsBare: Math.round(ratio * 1000) / 1000 };
      }
      figures.cache = { connections: CONNECTIONS, secondsPerRun: SECONDS, clientAddresses: 'a distinct X-Forwarded-For per request (TRUST_PROXY=true, contract budget)', aim: 'cached/bare ≥ 0.6', operations: out };
      await stopChildren();
    }

    // 4. The export's memory.
    if (sections.has('export')) {
      const dir = path.join(scratch, 'export');
      const temp = async () => Number((await pool.query(`SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()`)).rows[0].temp_bytes);
      const temp0 = await temp();
      log(`\n4. export (runExport: CSV by COPY, then Parquet) in a child process into ${dir}, sampled every 250 ms${EXPORT_BUDGET ? `, stopped after ${EXPORT_BUDGET} s` : ''}`);
      const child = spawn(process.execPath, ['--import', 'tsx', self, '--export', url, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      const samples: { t: number; rss: number; bytes: number }[] = [];
      let done: { seconds: { csv: number; parquet: number; total: number }; rows: Record<string, number>; bytes: number; maxRss: number } | null = null;
      let exportError: string | null = null;
      let stopped = false;
      let lastShown = 0;
      let tempPeak = 0;
      const tempTimer = setInterval(() => void temp().then((b) => (tempPeak = Math.max(tempPeak, b - temp0))).catch(() => {}), 1000);
      const budget = EXPORT_BUDGET ? setTimeout(() => { stopped = true; child.kill('SIGTERM'); }, EXPORT_BUDGET * 1000) : null;
      for await (const line of createInterface({ input: child.stdout! })) {
        const m = JSON.parse(line) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
        if ('rss' in m) {
          samples.push(m);
          if (m.t - lastShown >= 30) {
            lastShown = m.t;
            log(`  … ${(m.t as number).toFixed(0)} s: RSS ${mib(m.rss)}, ${mib(m.bytes)} written`);
          }
        } else if ('done' in m) done = m;
        else if ('error' in m) exportError = m.error;
      }
      if (budget) clearTimeout(budget);
      clearInterval(tempTimer);
      await new Promise((r) => setTimeout(r, 600));
      tempPeak = Math.max(tempPeak, (await temp()) - temp0);
      if (exportError) {
        log(`  export FAILED: ${exportError}`);
        failed++;
      }
      const last = samples.at(-1);
      const at = (f: number) => samples.find((s) => s.t >= f * (last?.t ?? 0)) ?? last!;
      if (last) {
        const peak = samples.reduce((a, s) => Math.max(a, s.rss), 0);
        const bytesOut = done?.bytes ?? last.bytes;
        log(`  ${done ? 'done' : stopped ? 'STOPPED at the budget' : 'ended'} after ${last.t.toFixed(1)} s${done ? ` (CSV ${done.seconds.csv.toFixed(1)} s, Parquet ${done.seconds.parquet.toFixed(1)} s)` : ''}: ${mib(bytesOut)} written` +
          `${done ? `, ${Object.entries(done.rows).map(([k, v]) => `${k} ${v.toLocaleString('en-NZ')}`).join(', ')} rows` : ''}`);
        log(`  peak RSS ${mib(peak)}${done ? ` (maxRSS ${mib(done.maxRss)})` : ''}; PostgreSQL temp files ${mib(tempPeak)}`);
        for (const f of [0.1, 0.5, 0.9]) {
          const s = at(f);
          log(`  at ${(f * 100).toFixed(0).padStart(2)} % (${s.t.toFixed(0)} s): RSS ${mib(s.rss)}, ${mib(s.bytes)} written`);
        }
        figures.export = {
          completed: Boolean(done), budgetSeconds: EXPORT_BUDGET || null, seconds: Math.round(last.t * 10) / 10,
          csvSeconds: done?.seconds.csv, parquetSeconds: done?.seconds.parquet, bytesWritten: bytesOut, rows: done?.rows,
          peakRssMiB: Math.round(peak / 2 ** 20), postgresTempMiB: Math.round(tempPeak / 2 ** 20),
          rssMiBAt: Object.fromEntries([0.1, 0.5, 0.9].map((f) => [`${f * 100}%`, { rssMiB: Math.round(at(f).rss / 2 ** 20), writtenMiB: Math.round(at(f).bytes / 2 ** 20) }])),
        };
      }
      if (!last) log(`  ${stopped ? 'stopped' : 'ended'} before the first sample`);
      fs.rmSync(dir, { recursive: true, force: true });

      // Anchor: every store span COPYed out to a null sink.
      log('  anchor: COPY store_price_span TO STDOUT → null sink …');
      const c = await pool.connect();
      try {
        const t = performance.now();
        let n = 0;
        await pipeline(c.query(copyTo('COPY store_price_span TO STDOUT')), new Writable({ write(chunk: Buffer, _e, cb) { n += chunk.length; cb(); } }));
        const s = (performance.now() - t) / 1000;
        const csv = done?.seconds.csv;
        log(`  anchor: ${s.toFixed(1)} s, ${mib(n)} of text${csv ? `; export CSV phase ${csv.toFixed(1)} s = ${(csv / s).toFixed(2)} × anchor, whole export ${(done!.seconds.total / s).toFixed(2)} × anchor` : ''}`);
        figures.exportAnchor = { what: 'COPY store_price_span TO STDOUT to a null sink', seconds: Math.round(s * 10) / 10, bytes: n,
          csvVsAnchor: csv ? Math.round((csv / s) * 100) / 100 : null, totalVsAnchor: done ? Math.round((done.seconds.total / s) * 100) / 100 : null };
      } finally {
        c.release();
      }
    }

    // A partial run (--sections) keeps the other sections' figures of the previous record.
    const previous = readResults().benches.national?.figures;
    const merged = sections.size < 3 && previous && typeof previous === 'object' ? { ...(previous as object), ...figures } : figures;
    await recordResults('national', merged, pool);
  } finally {
    await stopChildren();
    fs.rmSync(scratch, { recursive: true, force: true });
    await pool.end();
  }
  if (failed) {
    console.log(`${failed} failure(s)`);
    // Explicitly: the embedded server's package (async-exit-hook) ends the process with 0 at
    // beforeExit whatever process.exitCode says.
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Child modes.

if (process.argv[2] === '--serve') {
  const [url, cacheBytes, exportDir, budget] = process.argv.slice(3);
  const { serveApp } = await import('./child-server.js');
  if (budget === 'contract') await serveApp(url, cacheBytes, { EXPORT_DIR: exportDir, TRUST_PROXY: 'true' }, 'worker', 'contract');
  else await serveApp(url, cacheBytes, { EXPORT_DIR: exportDir });
} else if (process.argv[2] === '--export') {
  const [url, dir] = process.argv.slice(3);
  const { runExport } = await import('../../workers/export/export.js');
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const t0 = performance.now();
  const emit = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
  const sample = () => emit({ t: (performance.now() - t0) / 1000, rss: process.memoryUsage.rss(), bytes: dirBytes(dir) });
  const timer = setInterval(sample, 250);
  process.once('SIGTERM', () => process.exit(3));
  try {
    const r = await runExport(pool, { dir, progress: false });
    clearInterval(timer);
    sample();
    emit({ done: true, seconds: r.seconds, rows: r.rows, bytes: dirBytes(r.path), maxRss: process.resourceUsage().maxRSS * 1024 });
  } catch (err) {
    emit({ error: (err as Error).message });
  } finally {
    clearInterval(timer);
    await pool.end();
  }
} else {
  await main();
}
