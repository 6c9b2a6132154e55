/**
 * Collection throughput benchmark (not a test; issue 18 "Benchmark"): the Woolworths collector and
 * the shared runner against the local replay server, on a synthetic catalogue built from the
 * recorded page shape (test/fixtures/collect/woolworths/9441-fruit-veg-p1.json: every field kept,
 * SKUs and prices varied; named as synthetic here). Prints pages/s and rows/s of the whole run
 * (fetch, parse, validate, spool, one ingest) and of collection alone, against a same-run anchor:
 * the raw rate at which undici fetches and JSON-parses the same pages from the same server at the
 * same concurrency. Politeness limits are lifted (rate 1000/s) so the figures are the code's.
 *
 *   npm run bench:collect   (BENCH_COLLECT_STORES, BENCH_COLLECT_DEPTS, BENCH_COLLECT_PAGES to resize)
 *
 * The ingest goes into a scratch database on the benches' server (test/bench/server.ts:
 * TEST_DATABASE_URL's, else a throwaway embedded PostgreSQL).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { recordResults } from './results.js';
import { startReplayServer, type ReplayRoute } from '../helpers/replay-server.js';
import { runCollect } from '../../workers/collect/run.js';
import { woolworths, WOOLWORTHS_PAGE_SIZE } from '../../workers/collect/woolworths.js';
import { benchServer } from './server.js';

await benchServer();
// test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
const { createTestDatabase } = await import('../helpers/db.js');

const STORES = Number(process.env.BENCH_COLLECT_STORES ?? 12);
const DEPTS = Number(process.env.BENCH_COLLECT_DEPTS ?? 3);
const PAGES = Number(process.env.BENCH_COLLECT_PAGES ?? 4);
const CONCURRENCY = 4;
const FIX = new URL('../fixtures/collect/woolworths/', import.meta.url).pathname;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-collect-'));
  const template = JSON.parse(fs.readFileSync(`${FIX}9441-fruit-veg-p1.json`, 'utf8'));
  const item = template.products.items[0];
  const depts = Array.from({ length: DEPTS }, (_, d) => ({ id: d + 1, label: `Department ${d + 1}`, url: `dept-${d + 1}` }));
  fs.writeFileSync(path.join(dir, 'departments.json'), JSON.stringify(depts));
  const routes: ReplayRoute[] = [{ path: '/api/v1/products/departments', respond: { file: 'departments.json' } }];
  const pageUrls: { url: string; cookie: string }[] = [];
  const total = PAGES * WOOLWORTHS_PAGE_SIZE;
  for (let s = 0; s < STORES; s++) {
    const pickup = 1_000_000 + s;
    const f = 9000 + s;
    fs.writeFileSync(path.join(dir, `select-${s}.json`), JSON.stringify({ context: { fulfilment: { method: 'Pickup', pickupAddressId: pickup, fulfilmentStoreId: f } }, isSuccessful: true }));
    routes.push({ method: 'PUT', path: '/api/v1/fulfilment/my/pickup-addresses', body: `"addressId":${pickup}`, respond: { file: `select-${s}.json`, headers: { 'set-cookie': `cw-lrkswrdjp=dm-Pickup,f-${f},a-1,s-38; path=/` } } });
    for (let d = 0; d < DEPTS; d++) {
      for (let p = 1; p <= PAGES; p++) {
        const items = Array.from({ length: WOOLWORTHS_PAGE_SIZE }, (_, i) => {
          const sku = String(100_000 + (d * PAGES + p - 1) * WOOLWORTHS_PAGE_SIZE + i);
          const cents = 100 + ((Number(sku) * 7 + s * 13) % 2000);
          return { ...item, sku, name: `synthetic product ${sku}`, barcode: null, price: { ...item.price, originalPrice: cents / 100, salePrice: cents / 100 } };
        });
        const file = `p-${s}-${d}-${p}.json`;
        fs.writeFileSync(path.join(dir, file), JSON.stringify({ ...template, products: { items, totalItems: total }, context: { fulfilment: { ...template.context.fulfilment, fulfilmentStoreId: f } } }));
        const q = { target: 'browse', dasFilter: `Department;;dept-${d + 1};false`, page: String(p), size: String(WOOLWORTHS_PAGE_SIZE) };
        routes.push({ path: '/api/v1/products', query: q, headers: { cookie: `f-${f},` }, respond: { file } });
        pageUrls.push({ url: `/api/v1/products?${new URLSearchParams({ ...q, inStockProductsOnly: 'false' })}`, cookie: `cw-lrkswrdjp=dm-Pickup,f-${f},a-1,s-38` });
      }
    }
  }
  const server = await startReplayServer(routes, dir);
  const db = await createTestDatabase('bench_collect');
  try {
    for (let s = 0; s < STORES; s++) {
      await db.pool.query(`INSERT INTO store (retailer_id, external_id, name, lat, lng, town, area) SELECT id, $1, $2, -36.8, 174.7, 'Auckland', 'Auckland' FROM retailer WHERE slug = 'woolworths'`, [String(1_000_000 + s), `Synthetic store ${s}`]);
    }
    // Anchor: raw fetch + JSON.parse of the same product pages, same concurrency.
    const agent = new Agent({ connections: CONCURRENCY });
    let next = 0;
    const a0 = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < pageUrls.length) {
        const u = pageUrls[next++];
        const r = await request(server.origin + u.url, { headers: { cookie: u.cookie, 'x-requested-with': 'OnlineShopping.WebApp' }, dispatcher: agent });
        JSON.parse(await r.body.text());
      }
    }));
    const anchorS = (performance.now() - a0) / 1000;
    await agent.close();

    const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-collect-spool-'));
    const c0 = performance.now();
    const report = await runCollect(db.pool, {
      retailers: ['woolworths'], collectors: [woolworths], origin: server.origin, progress: false, log: () => {},
      config: { contactUrl: 'https://example.org/bench', concurrency: CONCURRENCY, ratePerSecond: 1000, timeoutMs: 30_000, retries: 2, retryBaseMs: 10, retryMaxMs: 100, spoolDir: spool, origins: {} },
    });
    const runS = (performance.now() - c0) / 1000;
    const ch = report.chains[0];
    if (!ch.ingest || server.unmatched.length) throw new Error(`bench run did not ingest (${server.unmatched.length} unmatched requests)`);
    const ingestS = ch.ingest.seconds.stage + ch.ingest.seconds.check + ch.ingest.seconds.merge;
    const collectS = runS - ingestS;
    const productPages = pageUrls.length;
    console.log(`collect bench (synthetic: ${STORES} stores × ${DEPTS} departments × ${PAGES} pages × ${WOOLWORTHS_PAGE_SIZE} items; concurrency ${CONCURRENCY})`);
    console.log(`  anchor  raw fetch+parse : ${productPages} pages in ${anchorS.toFixed(2)} s = ${(productPages / anchorS).toFixed(0)} pages/s, ${(productPages * WOOLWORTHS_PAGE_SIZE / anchorS).toFixed(0)} items/s`);
    console.log(`  collect (fetch→spool)  : ${ch.pages} pages, ${ch.ingest.rows} rows in ${collectS.toFixed(2)} s = ${(ch.pages / collectS).toFixed(0)} pages/s, ${(ch.ingest.rows / collectS).toFixed(0)} rows/s (${((productPages / collectS) / (productPages / anchorS) * 100).toFixed(0)} % of the anchor's page rate)`);
    console.log(`  ingest (one call)      : ${ch.ingest.rows} rows in ${ingestS.toFixed(2)} s = ${(ch.ingest.rows / ingestS).toFixed(0)} rows/s`);
    console.log(`  whole run              : ${runS.toFixed(2)} s = ${(ch.pages / runS).toFixed(0)} pages/s, ${(ch.ingest.rows / runS).toFixed(0)} rows/s; ${ch.requests.attempts} requests`);
    fs.rmSync(spool, { recursive: true, force: true });
    await recordResults('collect', {
      stores: STORES, departments: DEPTS, pagesPerDepartment: PAGES, itemsPerPage: WOOLWORTHS_PAGE_SIZE, concurrency: CONCURRENCY,
      anchorPagesPerSecond: Math.round(productPages / anchorS),
      collectPagesPerSecond: Math.round(ch.pages / collectS),
      collectRowsPerSecond: Math.round(ch.ingest.rows / collectS),
      collectVsAnchor: Math.round(((productPages / collectS) / (productPages / anchorS)) * 1000) / 1000,
      ingestRowsPerSecond: Math.round(ch.ingest.rows / ingestS),
      wholeRunSeconds: Math.round(runS * 100) / 100,
      requests: ch.requests.attempts,
    }, db.pool);
  } finally {
    await server.close();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
