/**
 * Search bench (`npm run bench:search`, also part of `npm run bench`), printing figures; nothing
 * here asserts.
 *
 * 1. Relevance over the REAL catalogue: the judged queries of test/fixtures/relevance/queries.json
 *    through search_listings and search_products (src/services/search.ts), scored with nDCG@10,
 *    MRR and recall@10 (capped: found / min(10, relevant); src/search/relevance.ts), overall and
 *    per query category, then the queries under nDCG@10 0.5 (at least the six weakest) with
 *    their top results.
 * 2. Latency (p50/p99, ms; one client, sequential, after a warm-up) of search_listings,
 *    search_products and suggestions over the real catalogue and over a SYNTHETIC catalogue of
 *    BENCH_SYNTHETIC_LISTINGS (default 120,000) generated listings (test/bench/synthetic-catalogue.ts)
 *    ingested through workers/ingest. Each operation's run stops at BENCH_OP_SECONDS (default 30;
 *    marked with * in the table), so a slow operation shows as few calls rather than a long wait.
 *
 * Databases: fresh ones on the benches' server (test/bench/server.ts: TEST_DATABASE_URL's, else a
 * throwaway embedded PostgreSQL, started only when a fresh database is needed) as test/helpers/db.ts
 * makes them, dropped at the end, even on Ctrl-C. The real one is filled with importRealData (~45 s
 * here). To skip the import on repeated runs, set BENCH_DATABASE_URL to a migrated database that
 * already holds the real import; it is only read (no migration, no import) and kept.
 * BENCH_SYNTHETIC_LISTINGS=0 skips the synthetic part; BENCH_VERBOSE=1 prints every query's scores.
 *
 * The backend is the one createSearchBackend picks without ELASTICSEARCH_URL: the embedded
 * PostgreSQL backend (the kind is printed).
 */
import fs from 'node:fs';
import pg from 'pg';
import type { TestDatabase } from '../helpers/db.js';
import { importRealData } from '../../workers/import/index.js';
import { runMatching } from '../../workers/match/match.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { createSearchBackend, type SearchBackend } from '../../src/search/index.js';
import { searchListingIds, searchProductGroups, suggestions, type SearchDeps } from '../../src/services/search.js';
import { mean, ndcgAtK, recallAtK, reciprocalRank } from '../../src/search/relevance.js';
import { syntheticListings, syntheticObservations, SYNTHETIC_RETAILERS } from './synthetic-catalogue.js';
import { recordResults } from './results.js';
import { dropWhenGone } from './scratch-db.js';
import { percentile } from './timing.js';
import { benchServer } from './server.js';

const K = 10;
/** Results requested per relevance query (the API's default page of search_listings). */
const FETCH = 20;
const SYNTHETIC_LISTINGS = Number(process.env.BENCH_SYNTHETIC_LISTINGS ?? 120_000);
const VERBOSE = process.env.BENCH_VERBOSE === '1';
const WARMUP = 40;
/** How many of the lowest-scoring queries are shown with their results at least. */
const WEAKEST = 6;
/** Time budget of one operation's latency run, ms (BENCH_OP_SECONDS, default 30). */
const OP_BUDGET_MS = Number(process.env.BENCH_OP_SECONDS ?? 30) * 1000;

/** One judged query of queries.json. */
interface JudgedQuery {
  id: string;
  q: string;
  category: string;
  retailer?: string;
  note: string;
  judgments: { retailer: string; external_id: string; grade: number; name: string }[];
}

const fixture = JSON.parse(fs.readFileSync(new URL('../fixtures/relevance/queries.json', import.meta.url), 'utf8')) as {
  categories: Record<string, string>;
  queries: JudgedQuery[];
};

// ---------------------------------------------------------------- cleanup (also on Ctrl-C)

/** The benches' server's admin URL, once {@link testDatabases} has chosen it. */
let adminUrl = '';
const cleanups: (() => Promise<void>)[] = [];
/** Names of the databases this run created (dropped on a signal without waiting for pools). */
const created: string[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length) await cleanups.pop()!().catch((e) => console.error('cleanup:', e));
}
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // `on`, not `once`: tsx relays a Ctrl-C to this process as well, and a second signal must not
  // kill it before the databases are dropped.
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.error(`\n${signal}: dropping ${created.join(', ') || 'no databases'}`);
    const admin = new pg.Client({ connectionString: adminUrl });
    void (async () => {
      if (!created.length) return;
      await admin.connect();
      for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    })()
      .catch((e) => console.error('cleanup:', e))
      .finally(() => process.exit(130));
  });
}

/**
 * test/helpers/db.ts on the benches' server, the server started on first use (not at all with
 * BENCH_DATABASE_URL and BENCH_SYNTHETIC_LISTINGS=0): db.ts reads TEST_DATABASE_URL as it is
 * imported, so it is imported only once the server is known.
 */
async function testDatabases(): Promise<typeof import('../helpers/db.js')> {
  adminUrl = (await benchServer()).adminUrl;
  return import('../helpers/db.js');
}

async function freshDatabase(label: string): Promise<TestDatabase> {
  const { createTestDatabase } = await testDatabases();
  const db = await createTestDatabase(label);
  const name = new URL(db.url).pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`unexpected database name ${name}`);
  dropWhenGone(adminUrl, name);
  created.push(name);
  cleanups.push(() => db.drop());
  return db;
}

// ---------------------------------------------------------------- helpers

/** Nearest-rank percentile of sorted `xs` (p in 0..100). */
const f2 = (x: number) => (Number.isNaN(x) ? '  -  ' : x.toFixed(3));
const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lpad = (s: string | number, n: number) => String(s).padStart(n);

/** listing id ↔ retailer:external_id, names and products of a catalogue. */
interface Catalogue {
  idByKey: Map<string, number>;
  keyById: Map<number, string>;
  nameById: Map<number, string>;
  productById: Map<number, number | null>;
  listings: number;
  named: number;
  linked: number;
}

async function loadCatalogue(pool: pg.Pool): Promise<Catalogue> {
  const { rows } = await pool.query<{ id: number; slug: string; external_id: string; name: string; product_id: number | null }>(
    `SELECT l.id, r.slug, l.external_id, l.name, l.product_id FROM listing l JOIN retailer r ON r.id = l.retailer_id`,
  );
  const c: Catalogue = { idByKey: new Map(), keyById: new Map(), nameById: new Map(), productById: new Map(), listings: rows.length, named: 0, linked: 0 };
  for (const r of rows) {
    const key = `${r.slug}:${r.external_id}`;
    c.idByKey.set(key, r.id);
    c.keyById.set(r.id, key);
    c.nameById.set(r.id, r.name);
    c.productById.set(r.id, r.product_id);
    if (!/^Woolworths item \d+$/.test(r.name)) c.named++;
    if (r.product_id !== null) c.linked++;
  }
  return c;
}

// ---------------------------------------------------------------- relevance

interface QueryScore {
  query: JudgedQuery;
  listings: { ndcg: number; rr: number; recall: number; top: number[] };
  products: { ndcg: number; rr: number; recall: number };
}

async function relevance(deps: SearchDeps, cat: Catalogue): Promise<QueryScore[]> {
  const missing: string[] = [];
  const scores: QueryScore[] = [];
  for (const query of fixture.queries) {
    // Listing judgments by listing id.
    const byListing = new Map<number, number>();
    for (const j of query.judgments) {
      const id = cat.idByKey.get(`${j.retailer}:${j.external_id}`);
      if (id === undefined) missing.push(`${query.id}: ${j.retailer}:${j.external_id} (${j.name})`);
      else byListing.set(id, j.grade);
    }
    // Group judgments: a product's grade is the best grade of its judged listings.
    const groupKey = (listingId: number) => {
      const p = cat.productById.get(listingId);
      return p == null ? `l${listingId}` : `p${p}`;
    };
    const byGroup = new Map<string, number>();
    for (const [id, g] of byListing) byGroup.set(groupKey(id), Math.max(byGroup.get(groupKey(id)) ?? 0, g));

    const args = { q: query.q, retailer: query.retailer ?? null, limit: FETCH };
    const ranked = await searchListingIds(deps, args);
    const groups = await searchProductGroups(deps, args);
    const groupRanking = groups.map((g) => (g.productId === null ? `l${g.listingIds[0]}` : `p${g.productId}`));
    scores.push({
      query,
      listings: {
        ndcg: ndcgAtK(ranked, byListing, K),
        rr: reciprocalRank(ranked, byListing),
        recall: recallAtK(ranked, byListing, K, { capped: true }),
        top: ranked,
      },
      products: {
        ndcg: ndcgAtK(groupRanking, byGroup, K),
        rr: reciprocalRank(groupRanking, byGroup),
        recall: recallAtK(groupRanking, byGroup, K, { capped: true }),
      },
    });
  }
  if (missing.length) console.log(`WARNING: ${missing.length} judged listings not in the catalogue:\n  ${missing.join('\n  ')}`);
  return scores;
}

function printRelevance(scores: QueryScore[], cat: Catalogue): void {
  const categories = [...new Set(fixture.queries.map((q) => q.category))];
  const rows: [string, QueryScore[]][] = [...categories.map((c) => [c, scores.filter((s) => s.query.category === c)] as [string, QueryScore[]]), ['ALL', scores]];
  console.log(`\nrelevance (real catalogue: ${cat.listings} listings, ${cat.named} with real names, ${cat.linked} linked to products)`);
  console.log(`  ${fixture.queries.length} judged queries; @${K} of ${FETCH} fetched; recall@${K} capped = found / min(${K}, relevant)`);
  console.log(`  ${pad('category', 12)} ${lpad('n', 3)} │ ${pad('search_listings', 27)} │ ${pad('search_products', 27)}`);
  console.log(`  ${pad('', 12)} ${lpad('', 3)} │ nDCG@10  MRR    recall@10  │ nDCG@10  MRR    recall@10`);
  for (const [name, xs] of rows) {
    if (name === 'ALL') console.log(`  ${'─'.repeat(12)} ${'─'.repeat(3)} ┼${'─'.repeat(29)}┼${'─'.repeat(28)}`);
    const l = (f: (s: QueryScore) => number) => f2(mean(xs.map(f)));
    console.log(
      `  ${pad(name, 12)} ${lpad(xs.length, 3)} │ ${l((s) => s.listings.ndcg)}    ${l((s) => s.listings.rr)}  ${l((s) => s.listings.recall)}      │ ${l((s) => s.products.ndcg)}    ${l((s) => s.products.rr)}  ${l((s) => s.products.recall)}`,
    );
  }
  const gradeOf = (s: QueryScore, id: number) => s.query.judgments.find((j) => `${j.retailer}:${j.external_id}` === cat.keyById.get(id))?.grade ?? 0;
  const describe = (s: QueryScore, n: number) =>
    s.listings.top
      .slice(0, n)
      .map((id, i) => `      ${i + 1}. [${gradeOf(s, id)}] ${cat.nameById.get(id)} (${cat.keyById.get(id)?.split(':')[0]})`)
      .join('\n') || '      (no results)';
  if (VERBOSE) {
    console.log('\n  per query (search_listings nDCG@10 / MRR / recall@10):');
    for (const s of scores) console.log(`    ${pad(s.query.id, 15)} ${f2(s.listings.ndcg)} ${f2(s.listings.rr)} ${f2(s.listings.recall)}  ${JSON.stringify(s.query.q)}${s.query.retailer ? ` @${s.query.retailer}` : ''}`);
  }
  const byScore = [...scores].sort((a, b) => a.listings.ndcg - b.listings.ndcg || a.listings.rr - b.listings.rr);
  const failing = byScore.filter((s) => s.listings.ndcg < 0.5);
  // The failing queries, or at least the WEAKEST weakest ones, with their top results.
  const worst = failing.length >= WEAKEST ? failing : byScore.slice(0, WEAKEST);
  console.log(`\n  queries with search_listings nDCG@${K} < 0.5: ${failing.length}${failing.length < WEAKEST ? `; the ${WEAKEST} weakest:` : ''}`);
  for (const s of worst) {
    const best = [...s.query.judgments].sort((a, b) => b.grade - a.grade).slice(0, 3).map((j) => `[${j.grade}] ${j.name}`).join('; ');
    console.log(`    ${s.query.id} ${JSON.stringify(s.query.q)}${s.query.retailer ? ` @${s.query.retailer}` : ''}: nDCG ${f2(s.listings.ndcg)}, MRR ${f2(s.listings.rr)}, recall ${f2(s.listings.recall)}`);
    console.log(`      wanted: ${best}`);
    console.log(describe(s, 5));
  }
}

// ---------------------------------------------------------------- latency

/** ≥ 300 query variations built from the judged queries (as typed, lower case, first word, prefixes, per chain). */
function latencyQueries(): { q: string; retailer: string | null }[] {
  const out: { q: string; retailer: string | null }[] = [];
  const chains = ['woolworths', 'paknsave', 'newworld'];
  fixture.queries.forEach((j, i) => {
    const words = j.q.split(/\s+/);
    out.push({ q: j.q, retailer: j.retailer ?? null });
    out.push({ q: j.q.toLowerCase(), retailer: null });
    out.push({ q: words[0], retailer: null });
    out.push({ q: j.q.slice(0, Math.max(3, Math.ceil(j.q.length / 2))), retailer: null });
    out.push({ q: words.slice(-2).join(' '), retailer: chains[i % chains.length] });
    out.push({ q: `${words[0]} ${SYNTHETIC_WORDS[i % SYNTHETIC_WORDS.length]}`, retailer: null });
  });
  return out;
}
/** Extra words to vary queries with (descriptors both catalogues use). */
const SYNTHETIC_WORDS = ['organic', 'italian', '500g', 'nz', 'premium', 'fresh', 'value', 'gluten free'];

/** Type-ahead prefixes: 2 to 6 first characters of each query's words. */
function suggestPrefixes(): string[] {
  const out: string[] = [];
  fixture.queries.forEach((j, i) => {
    const words = j.q.split(/\s+/).filter((w) => w.length >= 2);
    for (let n = 2; n <= 6; n++) out.push(words[(i + n) % words.length].slice(0, n));
    out.push(j.q.slice(0, 8).trim());
  });
  return out;
}

interface Timing {
  label: string;
  /** Calls measured, of `of` planned (fewer when the time budget ran out). */
  n: number;
  of: number;
  p50: number;
  p99: number;
  mean: number;
}

/**
 * Runs `calls` once each after warming up on the first ones; stops early (and says so) when the
 * operation's time budget is spent, so a slow operation cannot hold the bench for long.
 */
async function time(label: string, calls: (() => Promise<unknown>)[]): Promise<Timing> {
  const warmEnd = performance.now() + (OP_BUDGET_MS / 4);
  for (const call of calls.slice(0, WARMUP)) {
    await call();
    if (performance.now() > warmEnd) break;
  }
  const ms: number[] = [];
  const end = performance.now() + OP_BUDGET_MS;
  for (const call of calls) {
    const t0 = performance.now();
    await call();
    ms.push(performance.now() - t0);
    if (performance.now() > end) break;
  }
  ms.sort((a, b) => a - b);
  return { label, n: ms.length, of: calls.length, p50: percentile(ms, 50), p99: percentile(ms, 99), mean: mean(ms) };
}

async function latency(deps: SearchDeps, catalogueLabel: string): Promise<Timing[]> {
  const queries = latencyQueries();
  const prefixes = suggestPrefixes();
  return [
    await time(`${catalogueLabel} search_listings`, queries.map((a) => () => searchListingIds(deps, { ...a, limit: 20 }))),
    await time(`${catalogueLabel} search_products`, queries.map((a) => () => searchProductGroups(deps, { ...a, limit: 40 }))),
    await time(`${catalogueLabel} suggestions`, prefixes.map((q) => () => suggestions(deps, { q, limit: 8 }))),
  ];
}

function printLatency(timings: Timing[]): void {
  console.log(`\nlatency (ms; one client, sequential, after ${WARMUP} warm-up calls; nearest-rank percentiles)`);
  console.log(`  ${pad('catalogue / operation', 38)} ${lpad('calls', 9)} ${lpad('p50', 8)} ${lpad('p99', 8)} ${lpad('mean', 8)}`);
  for (const t of timings) {
    const calls = t.n < t.of ? `${t.n}/${t.of}*` : String(t.n);
    console.log(`  ${pad(t.label, 38)} ${lpad(calls, 9)} ${lpad(t.p50.toFixed(2), 8)} ${lpad(t.p99.toFixed(2), 8)} ${lpad(t.mean.toFixed(2), 8)}`);
  }
  if (timings.some((t) => t.n < t.of)) console.log(`  * stopped at the ${OP_BUDGET_MS / 1000} s budget of one operation (BENCH_OP_SECONDS)`);
}

// ---------------------------------------------------------------- main

function backendFor(pool: pg.Pool): SearchBackend {
  return createSearchBackend({ ELASTICSEARCH_URL: undefined, ELASTICSEARCH_ALIAS: 'x' }, pool);
}

async function realCatalogue(): Promise<{ pool: pg.Pool; close: () => Promise<void>; label: string }> {
  if (process.env.BENCH_DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 4 });
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM listing');
    if (rows[0].n === 0) throw new Error('BENCH_DATABASE_URL has no listings: import the real data into it first (npm run import, which also runs matching), or leave it unset');
    return { pool, close: () => pool.end(), label: `reused ${new URL(process.env.BENCH_DATABASE_URL).pathname.slice(1)}` };
  }
  const db = await freshDatabase('bench_search_real');
  const { DATA_DIR } = await testDatabases();
  const t0 = performance.now();
  await importRealData(db.pool, DATA_DIR, { progress: false });
  // As `npm start` and `npm run import` do: products, sizes and generics (the kind prior ranks on them).
  await runMatching(db.pool);
  await db.pool.query('ANALYZE');
  return { pool: db.pool, close: async () => {}, label: `fresh, imported in ${((performance.now() - t0) / 1000).toFixed(1)} s` };
}

async function main(): Promise<void> {
  const started = performance.now();
  const timings: Timing[] = [];

  const real = await realCatalogue();
  cleanups.push(real.close);
  const realDeps: SearchDeps = { pool: real.pool, search: backendFor(real.pool) };
  const server = await real.pool.query<{ v: string; jit: string }>(`SELECT current_setting('server_version') AS v, current_setting('jit') AS jit`);
  console.log(
    `search bench — backend: ${realDeps.search.name}; real catalogue database: ${real.label}; PostgreSQL ${server.rows[0].v}, jit ${server.rows[0].jit}`,
  );
  const cat = await loadCatalogue(real.pool);
  const scores = await relevance(realDeps, cat);
  printRelevance(scores, cat);
  timings.push(...(await latency(realDeps, `real (${cat.listings})`)));

  if (SYNTHETIC_LISTINGS > 0) {
    const db = await freshDatabase('bench_search_synthetic');
    const t0 = performance.now();
    await ingest(db.pool, syntheticObservations(syntheticListings(SYNTHETIC_LISTINGS)), { progress: false, source: 'bench:search synthetic' });
    await db.pool.query('ANALYZE');
    const secs = (performance.now() - t0) / 1000;
    console.log(`\nsynthetic catalogue: ${SYNTHETIC_LISTINGS} SYNTHETIC listings over ${SYNTHETIC_RETAILERS.length} chains ingested in ${secs.toFixed(1)} s`);
    const synDeps: SearchDeps = { pool: db.pool, search: backendFor(db.pool) };
    timings.push(...(await latency(synDeps, `SYNTHETIC (${SYNTHETIC_LISTINGS})`)));
  }
  printLatency(timings);
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  await recordResults('search', {
    database: real.label,
    syntheticListings: SYNTHETIC_LISTINGS,
    relevance: {
      queries: scores.length,
      listings: { ndcg10: r3(mean(scores.map((x) => x.listings.ndcg))), mrr: r3(mean(scores.map((x) => x.listings.rr))), recall10: r3(mean(scores.map((x) => x.listings.recall))) },
      products: { ndcg10: r3(mean(scores.map((x) => x.products.ndcg))), mrr: r3(mean(scores.map((x) => x.products.rr))), recall10: r3(mean(scores.map((x) => x.products.recall))) },
    },
    latency: timings.map((t) => ({ label: t.label, n: t.n, of: t.of, p50Ms: r3(t.p50), p99Ms: r3(t.p99), meanMs: r3(t.mean) })),
    aim: 'search and suggestions p99 < 20 ms at 120k listings',
  }, real.pool);
}

try {
  await main();
} finally {
  await cleanUp();
}
