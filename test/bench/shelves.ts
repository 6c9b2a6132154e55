/**
 * Benchmark (not a test) of browse_shelf (issue 17): p50/p99 latency of every sort, through the
 * assembled server in-process (app.inject: REST parameters, persisted document, graph, the one
 * statement over the shelves view, the groups' offers and prices), at BENCH_SYNTHETIC_LISTINGS
 * (default 120,000) SYNTHETIC listings (test/bench/synthetic-catalogue.ts) ingested through the real
 * ingest, matched, given promotions on a share of their spans, and the shelves view built by the
 * derived-views worker (its build time is printed too).
 *
 * Each sort runs BENCH_REQUESTS (default 300) requests on the biggest department, cycling through
 * plain, `retailer`, `deals`, `q` and deep `offset` variants. Absolute times depend on the machine,
 * so each is also given against an anchor measured in the same run the same way right after it:
 * GET /healthz through the same server (one `SELECT 1`); × = operation ÷ anchor.
 *
 * Run: `npm run bench:shelves` (a fresh database, dropped afterwards, on the benches' server:
 * test/bench/server.ts, TEST_DATABASE_URL's, else a throwaway embedded PostgreSQL).
 */
import { createServer } from '../../facades/server.js';
import { getShelf, SHELVES } from '../../src/domain/shelves.js';
import { loadEnv } from '../../src/env.js';
import { SHELF_SORTS } from '../../src/services/shelves.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { runViews } from '../../workers/views/run.js';
import { runMatching } from '../../workers/match/match.js';
import { recordResults } from './results.js';
import { syntheticListings, syntheticObservations } from './synthetic-catalogue.js';
import { benchServer } from './server.js';

await benchServer();
// test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
const { createTestDatabase } = await import('../helpers/db.js');

const LISTINGS = Number(process.env.BENCH_SYNTHETIC_LISTINGS ?? 120_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);

/** The p-th percentile (0–100) of sorted values. */
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function step<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  const out = await fn();
  console.log(`${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return out;
}

const db = await createTestDatabase('bench_shelves');
try {
  await step(`ingest ${LISTINGS} SYNTHETIC listings`, () => ingest(db.pool, syntheticObservations(syntheticListings(LISTINGS)), { progress: false, source: 'bench:shelves synthetic' }));
  await step('matching (links, generics)', () => runMatching(db.pool));
  await db.pool.query(`UPDATE national_price_span SET promo_kind = 1, promo_price = (price * 8) / 10 WHERE listing_id % 5 = 0`);
  await db.pool.query(`UPDATE national_price_span SET promo_kind = 2, promo_price = price - 30 WHERE listing_id % 7 = 0 AND promo_kind IS NULL`);
  await db.pool.query(`UPDATE national_price_span SET promo_kind = 3, multibuy_qty = 3, multibuy_price = price * 3 - 100 WHERE listing_id % 11 = 0 AND promo_kind IS NULL`);
  const views = await step('derived views (runViews, all)', () => runViews(db.pool, { full: true }));
  console.log(`shelves view: ${JSON.stringify(views.views.shelves?.report)}`);
  await db.pool.query('ANALYZE');

  // CACHE_MAX_BYTES 0: the operation itself, not the response cache (npm run bench:cache measures that).
  const app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'production', CACHE_MAX_BYTES: '0' }), rateLimit: { perMinute: 1e9, perDay: 1e9 } });
  const { rows } = await db.pool.query<{ slug: string; products: number }>('SELECT slug, products FROM shelf_count ORDER BY products DESC');
  const dept = rows.find((r) => getShelf(r.slug)?.depth === 1)!;
  const leaf = rows.find((r) => getShelf(r.slug)?.children.length === 0)!;
  console.log(`biggest department: ${dept.slug} (${dept.products} products); biggest leaf: ${leaf.slug} (${leaf.products}); ${SHELVES.length} shelves`);

  const time = async (url: string) => {
    const t = performance.now();
    const r = await app.inject({ method: 'GET', url });
    const ms = performance.now() - t;
    if (r.statusCode !== 200) throw new Error(`${url} → ${r.statusCode} ${r.body.slice(0, 200)}`);
    return ms;
  };
  const run = async (urls: string[]) => {
    for (const u of urls.slice(0, 20)) await time(u); // warm-up
    const ms: number[] = [];
    for (let i = 0; i < REQUESTS; i++) ms.push(await time(urls[i % urls.length]));
    return ms.sort((a, b) => a - b);
  };
  const variants = (slug: string, sort: string) => [
    `/api/v1/shelves/${slug}?sort=${sort}`,
    `/api/v1/shelves/${slug}?sort=${sort}&retailer=woolworths`,
    `/api/v1/shelves/${slug}?sort=${sort}&deals=1`,
    `/api/v1/shelves/${slug}?sort=${sort}&q=garlic`,
    `/api/v1/shelves/${slug}?sort=${sort}&offset=2000&limit=96`,
  ];

  console.log(`\nbrowse_shelf, in-process (app.inject), ${REQUESTS} requests per row, limit 48 unless said; anchor = GET /healthz the same way; × = ÷ anchor`);
  console.log(`${'shelf'.padEnd(22)} ${'sort'.padEnd(14)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} │ ${'anchor p50'.padStart(10)} ${'p99'.padStart(6)} │ ${'× p50'.padStart(6)} ${'× p99'.padStart(6)}`);
  const worst: number[] = [];
  const recorded: { shelf: string; sort: string; p50Ms: number; p99Ms: number; anchorP50Ms: number; anchorP99Ms: number }[] = [];
  for (const shelf of [dept.slug, leaf.slug]) {
    for (const sort of SHELF_SORTS) {
      const ms = await run(variants(shelf, sort));
      const anchor = await run(['/healthz']);
      const [p50, p99, a50, a99] = [pct(ms, 50), pct(ms, 99), pct(anchor, 50), pct(anchor, 99)];
      worst.push(p99);
      recorded.push({ shelf, sort, p50Ms: +p50.toFixed(2), p99Ms: +p99.toFixed(2), anchorP50Ms: +a50.toFixed(3), anchorP99Ms: +a99.toFixed(3) });
      console.log(
        `${shelf.padEnd(22)} ${sort.padEnd(14)} ${p50.toFixed(1).padStart(7)} ${p99.toFixed(1).padStart(7)} │ ${a50.toFixed(2).padStart(10)} ${a99.toFixed(2).padStart(6)} │ ${(p50 / a50).toFixed(1).padStart(6)} ${(p99 / a99).toFixed(1).padStart(6)}`,
      );
    }
  }
  // Each variant alone on the biggest department (popular and price), to show which paths cost what.
  console.log(`\n${dept.slug} by variant (${REQUESTS} requests each)`);
  console.log(`${'variant'.padEnd(40)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} │ ${'× p50'.padStart(6)} ${'× p99'.padStart(6)}`);
  for (const sort of ['popular', 'price']) {
    for (const url of variants(dept.slug, sort)) {
      const ms = await run([url]);
      const anchor = await run(['/healthz']);
      const label = url.replace(`/api/v1/shelves/${dept.slug}?`, '');
      console.log(`${label.padEnd(40)} ${pct(ms, 50).toFixed(1).padStart(7)} ${pct(ms, 99).toFixed(1).padStart(7)} │ ${(pct(ms, 50) / pct(anchor, 50)).toFixed(1).padStart(6)} ${(pct(ms, 99) / pct(anchor, 99)).toFixed(1).padStart(6)}`);
    }
  }
  const list = await run(['/api/v1/shelves']);
  console.log(`list_shelves: p50 ${pct(list, 50).toFixed(1)} ms, p99 ${pct(list, 99).toFixed(1)} ms`);
  console.log(`worst browse_shelf p99: ${Math.max(...worst).toFixed(1)} ms (aim: under 20 ms)`);
  await recordResults('shelves', {
    listings: LISTINGS,
    requestsPerRow: REQUESTS,
    browseShelf: recorded,
    listShelves: { p50Ms: +pct(list, 50).toFixed(2), p99Ms: +pct(list, 99).toFixed(2) },
    worstBrowseShelfP99Ms: +Math.max(...worst).toFixed(2),
    aim: 'browse_shelf p99 < 20 ms',
  }, db.pool);
  await app.close();
} finally {
  await db.drop();
}
