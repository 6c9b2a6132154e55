/**
 * browse_retailer bench (`npx tsx test/bench/retailer-browse.ts`), printing figures; nothing here
 * asserts. A SYNTHETIC catalogue of BENCH_SYNTHETIC_LISTINGS (default 120,000) generated listings
 * (test/bench/synthetic-catalogue.ts: six chains, two-level category paths with `&` and `,` in labels)
 * is ingested through workers/ingest into a fresh database on the benches' server
 * (test/bench/server.ts: TEST_DATABASE_URL's, else a throwaway embedded PostgreSQL; dropped at the
 * end). Then:
 *
 * 1. the `categories` view build (workers/views/categories.ts): first build, a rebuild with nothing
 *    changed, and a rebuild after 1 % of the listings changed path or availability;
 * 2. latency (p50/p99 ms, sequential, after a warm-up) of the service (src/services/retailer-browse.ts)
 *    and of the whole REST operation (app.inject, GraphQL and the cards included) at the top of a
 *    chain's tree, at a category, at a deep offset, and with q;
 * 3. the plans of the plain-tree statements (index reads, no scan of the catalogue).
 */
import pg from 'pg';
import { createServer } from '../../facades/server.js';
import { inTransaction } from '../../src/db/transaction.js';
import { loadEnv } from '../../src/env.js';
import { browseRetailer } from '../../src/services/retailer-browse.js';
import { buildRetailerCategories } from '../../workers/views/categories.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { syntheticListings, syntheticObservations } from './synthetic-catalogue.js';
import { benchServer } from './server.js';

await benchServer();
// test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
const { createTestDatabase } = await import('../helpers/db.js');

const COUNT = Number(process.env.BENCH_SYNTHETIC_LISTINGS ?? 120_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);

/** p50 and p99 of `RUNS` sequential calls of `fn` after 20 warm-up calls, ms. */
async function latency(fn: () => Promise<unknown>): Promise<string> {
  for (let i = 0; i < 20; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(2);
  return `p50 ${at(0.5)}  p99 ${at(0.99)}`;
}

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_retailer_browse');
  try {
    let t = performance.now();
    await ingest(db.pool, syntheticObservations(syntheticListings(COUNT)), { progress: false, source: 'bench:retailer-browse synthetic' });
    console.log(`ingested ${COUNT} SYNTHETIC listings in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const build = () => inTransaction(db.pool, (client) => buildRetailerCategories(client));
    t = performance.now();
    const first = await build();
    console.log(`view: first build ${first.seconds.toFixed(2)} s — ${first.nodes} nodes, ${first.listings} listings, ${first.membershipsWritten} memberships`);
    const same = await build();
    console.log(`view: rebuild, nothing changed ${same.seconds.toFixed(2)} s — written ${same.nodesWritten} nodes, ${same.membershipsWritten}+${same.membershipsDeleted} memberships`);
    await db.pool.query(`UPDATE listing SET available = NOT available WHERE id % 200 = 0`);
    await db.pool.query(`UPDATE listing SET category_path = ARRAY['Bench', 'Moved ' || (id % 7)] WHERE id % 200 = 100`);
    const changed = await build();
    console.log(
      `view: rebuild after 1 % changed ${changed.seconds.toFixed(2)} s — nodes +${changed.nodesWritten}/−${changed.nodesDeleted}, memberships +${changed.membershipsWritten}/−${changed.membershipsDeleted}`,
    );
    const sizes = await db.pool.query<{ t: string; size: string }>(
      `SELECT t, pg_size_pretty(pg_total_relation_size(t)) AS size FROM unnest(ARRAY['retailer_category', 'retailer_category_listing', 'listing']) AS t`,
    );
    console.log(`sizes: ${sizes.rows.map((r) => `${r.t} ${r.size}`).join(', ')}`);

    const { rows } = await db.pool.query<{ path: string[]; listings: number }>(
      `SELECT c.path, c.listings FROM retailer_category c JOIN retailer r ON r.id = c.retailer_id WHERE r.slug = 'woolworths' ORDER BY cardinality(c.path), c.listings DESC`,
    );
    const top = rows.find((r) => r.path.length === 0)!;
    const dept = rows.find((r) => r.path.length === 1)!;
    const leaf = rows.find((r) => r.path.length === 2)!;
    console.log(`woolworths: top ${top.listings} listings; "${dept.path[0]}" ${dept.listings}; ${JSON.stringify(leaf.path)} ${leaf.listings}`);

    const cases: [string, { c?: string[]; q?: string; limit?: number; offset?: number }][] = [
      ['top, first page (60)', {}],
      ['top, limit 120, offset 10,000', { limit: 120, offset: 10_000 }],
      [`category ${JSON.stringify(dept.path)}`, { c: dept.path }],
      [`category ${JSON.stringify(leaf.path)}`, { c: leaf.path }],
      ['top, q=garlic', { q: 'garlic' }],
      ['top, q=organic tomatoes', { q: 'organic tomatoes' }],
      [`category ${JSON.stringify(dept.path)}, q=sauce`, { c: dept.path, q: 'sauce' }],
      ['top, q=a (matches most)', { q: 'a' }],
    ];
    const app = await createServer({ db, env: loadEnv({ LOG_LEVEL: 'silent', NODE_ENV: 'test', CACHE_MAX_BYTES: '0' }), rateLimit: { perMinute: 1e9, perDay: 1e9 } });
    console.log(`\nlatency over ${RUNS} sequential calls, ms (service | REST operation incl. GraphQL and 60 cards):`);
    for (const [label, args] of cases) {
      const service = await latency(() => browseRetailer(db.pool, { slug: 'woolworths', ...args }));
      const qs = [...(args.c ?? []).map((l) => `c=${encodeURIComponent(l)}`), ...(['q', 'limit', 'offset'] as const).filter((k) => args[k] !== undefined).map((k) => `${k}=${encodeURIComponent(String(args[k]))}`)];
      const url = `/api/v1/retailers/woolworths/browse${qs.length ? `?${qs.join('&')}` : ''}`;
      const r = await app.inject({ url });
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
      const rest = await latency(() => app.inject({ url, headers: { 'cache-control': 'no-cache' } }));
      console.log(`  ${label.padEnd(60)} total ${String(r.json().total).padStart(6)}   ${service} | ${rest}`);
    }
    await app.close();

    console.log('\nplans of the plain-tree statements (woolworths, top):');
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const rid = (await client.query<{ id: number }>(`SELECT id FROM retailer WHERE slug = 'woolworths'`)).rows[0].id;
    const node = (await client.query<{ id: number }>(`SELECT id FROM retailer_category WHERE retailer_id = $1 AND path = '{}'`, [rid])).rows[0].id;
    for (const [sql, params] of [
      [`SELECT id, listings FROM retailer_category WHERE retailer_id = $1 AND path = $2::text[]`, [rid, dept.path]],
      [`SELECT label, listings FROM retailer_category WHERE retailer_id = $1 AND parent = $2::text[] ORDER BY listings DESC, label COLLATE "C"`, [rid, []]],
      [`SELECT listing_id FROM retailer_category_listing WHERE category_id = $1 ORDER BY sort_name, listing_id LIMIT 60 OFFSET 10000`, [node]],
    ] as [string, unknown[]][]) {
      const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params);
      console.log(`  ${sql.replace(/\s+/g, ' ')}\n${plan.rows.map((p) => `    ${p['QUERY PLAN']}`).join('\n')}`);
    }
    await client.end();
  } finally {
    await db.drop();
  }
}

await main();
