/**
 * Suggestions and "recently seen" (search without q) on the national SYNTHETIC panel (issue 19 item
 * 3), before and after the type-ahead view (workers/views/suggest.ts): `tsx
 * test/bench/suggest-synth.ts [--database URL] [--rounds N] [--view-rounds N]` (default: the database
 * `synthetic` on TEST_DATABASE_URL's or DATABASE_URL's server; with neither set, a small panel
 * generated on a throwaway embedded server: test/bench/panel-database.ts). Applies pending migrations,
 * times the live path (the view not current), builds the view alone (as the views worker would, marked
 * current for the database's data version), times the view path and checks that every answer is
 * identical. Prints p50/p99; asserts nothing beyond identity.
 *
 * Suggestions are timed over the eight type-ahead words below and (issue 19 item 5: "search and
 * suggestions p99 at 120k listings, aim < 20 ms") over a wider set: one letter, rare and absent
 * prefixes, several words, longer than a word key of the view's suggest_word.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.js';
import { inTransaction } from '../../src/db/transaction.js';
import { createEmbeddedBackend, suggestViewsCurrent } from '../../src/search/embedded.js';
import { searchListingIds, searchProductGroups, suggestions } from '../../src/services/search.js';
import { buildSuggestViews, markSuggestCurrent, suggestVersion } from '../../workers/views/suggest.js';
import { timed } from './timing.js';
import { panelDatabase } from './panel-database.js';

const { values } = parseArgs({ options: { database: { type: 'string' }, rounds: { type: 'string' }, 'view-rounds': { type: 'string' } } });
const url = await panelDatabase(values.database, { derived: false });
const ROUNDS = Number(values.rounds ?? 48);
/** Rounds of the view path (fast, so more of them make its p99 a percentile rather than the maximum). */
const VIEW_ROUNDS = Number(values['view-rounds'] ?? ROUNDS);
const pool = new pg.Pool({ connectionString: url, max: 4 });

const WORDS = ['ga', 'gar', 'garlic', 'tom', 'beef', 'sp', 'onion', 'pa'];
/** The wider set: every path of the view's listing lookup (src/search/embedded.ts viewListingOrds). */
const WIDE = [
  ...WORDS, 's', 'b', 'c', 'no', 'in', 'with', 'salt', 'san remo', 'garlic br', 'no added s', 'zq', 'xyzzy', 'q',
  'mrs rogers honest pasta sauce', 'gourmet garden wholemeal broc', 'chi', 'chicken', 'org', 'organic', 'nz', 'val',
];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function answers(deps: { pool: pg.Pool; search: ReturnType<typeof createEmbeddedBackend> }): Promise<string> {
  const slugs = (await pool.query<{ slug: string }>('SELECT slug FROM retailer ORDER BY id')).rows.map((r) => r.slug);
  const out: unknown[] = [];
  for (const q of WIDE) for (const limit of [1, 8, 12]) out.push(await suggestions(deps, { q, limit }));
  for (const retailer of [null, ...slugs]) {
    for (const limit of [1, 20, 100]) out.push(await searchListingIds(deps, { q: null, retailer, limit }));
    out.push(await searchProductGroups(deps, { q: null, retailer, limit: 100 }));
  }
  return JSON.stringify(out);
}

async function measure(label: string, deps: { pool: pg.Pool; search: ReturnType<typeof createEmbeddedBackend> }, rounds: number): Promise<void> {
  const sug = await timed(rounds, (i) => suggestions(deps, { q: WORDS[i % WORDS.length] }), { warmUp: true });
  const wide = await timed(rounds * 2, (i) => suggestions(deps, { q: WIDE[i % WIDE.length] }), { warmUp: true });
  const recent = await timed(rounds, () => searchListingIds(deps, { q: null }), { warmUp: true });
  console.log(
    `${label}: suggestions p50 ${ms(pct(sug, 0.5))} p99 ${ms(pct(sug, 0.99))}; ` +
      `suggestions, ${rounds * 2} calls over ${WIDE.length} prefixes p50 ${ms(pct(wide, 0.5))} p99 ${ms(pct(wide, 0.99))}; ` +
      `recently seen (no q) p50 ${ms(pct(recent, 0.5))} p99 ${ms(pct(recent, 0.99))}`,
  );
}

async function main(): Promise<void> {
  // Migrations are applied when they verify (a synthetic database made by an older tree may not:
  // then apply prisma/migrations/20261201000200_suggest_views by hand first).
  const applied = await migrate(pool).catch((e: Error) => `not verified (${e.name})`);
  console.log(`SYNTHETIC panel ${url.replace(/\/\/[^@]*@/, '//')}; migrations: ${applied}`);
  const deps = { pool, search: createEmbeddedBackend(pool) };
  await pool.query(`DELETE FROM view_run WHERE name = 'suggest'`);
  console.log(`view current: ${await suggestViewsCurrent(pool)}`);
  await measure('before (live)', deps, ROUNDS);
  const live = await answers(deps);
  const t = performance.now();
  const report = await inTransaction(pool, async (client) => {
    const r = await buildSuggestViews(client);
    await client.query(
      `INSERT INTO view_run (name, data_version, built_at, seconds, detail) VALUES ('suggest', $1, now(), $2, $3)
       ON CONFLICT (name) DO UPDATE SET data_version = EXCLUDED.data_version, built_at = EXCLUDED.built_at, seconds = EXCLUDED.seconds, detail = EXCLUDED.detail`,
      [await suggestVersion(client), r.seconds, JSON.stringify({ report: r })],
    );
    await markSuggestCurrent(client);
    return r;
  });
  console.log(`suggest view built in ${((performance.now() - t) / 1000).toFixed(2)} s: ${JSON.stringify(report)}; current: ${await suggestViewsCurrent(pool)}`);
  await measure('after (view)', deps, VIEW_ROUNDS);
  const viewed = await answers(deps);
  console.log(`answers identical (suggestions × ${WIDE.length * 3}, no-q searches × ${viewed === live ? 'all' : 'SOME DIFFER'}): ${viewed === live}`);
  if (viewed !== live) process.exitCode = 1;
}

try {
  await main();
} finally {
  await pool.end();
}
// Explicitly: the embedded server's package (async-exit-hook) ends the process with 0 at
// beforeExit whatever process.exitCode says.
process.exit(process.exitCode ?? 0);
