/**
 * The derived-views worker (issue 16): materialises store levels and panels, store listings with
 * the chain median, area levels, chain item prices and levels, and deals (and, issue 17, the
 * chains' own category trees: workers/views/categories.ts), so the API reads rows
 * and never aggregates spans per request. Run after each ingest (after the index, whose days the
 * chain levels follow), by node-cron every ten minutes (`VIEWS_CRON`), at start-up and by hand
 * (`npm run worker -- views [--full]`).
 *
 * One transaction under an advisory lock (the `views` lock, src/db/locks.ts): the data version
 * (workers/views/version.ts) is read first; each view whose stored version (view_run) equals it is
 * skipped, the others are rebuilt (incrementally where the builder can: store days and chain days
 * already stored are kept unless their inputs changed) and their view_run row records the version,
 * time and duration. Readers see the old rows or the new ones, never a mix.
 */
import type pg from 'pg';
import { inTransaction } from '../../src/db/transaction.js';
import { lockTransaction } from '../../src/db/locks.js';
import { dataVersion } from './version.js';
import { buildStoreViews } from './stores.js';
import { buildChainViews } from './chains.js';
import { buildDeals } from './deals.js';
import { buildRetailerCategories } from './categories.js';
import { buildShelves, shelvesInputs } from './shelves.js';
import { buildSuggestViews, suggestVersion } from './suggest.js';


/** The views, in build order (areas need store levels). */
export const VIEW_NAMES = ['stores', 'chains', 'deals', 'categories', 'shelves', 'suggest'] as const;

/** What {@link runViews} did, per view: rebuilt (with the builder's report) or skipped as current. */
export interface ViewsReport {
  version: string;
  views: Record<string, { built: boolean; seconds: number; report?: unknown }>;
  seconds: number;
}

/**
 * Builds every derived view whose inputs changed (all of them with `full`).
 * @throws the builders' and the database's errors (nothing is written then).
 */
export async function runViews(pool: pg.Pool, opts: { full?: boolean; progress?: boolean } = {}): Promise<ViewsReport> {
  const t0 = performance.now();
  return inTransaction(pool, async (client) => {
    await lockTransaction(client, 'views');
    const { version, parts } = await dataVersion(client);
    const stored = new Map(
      (await client.query<{ name: string; data_version: string }>('SELECT name, data_version FROM view_run')).rows.map((r) => [r.name, r.data_version]),
    );
    const views: ViewsReport['views'] = {};
    const builders: Record<(typeof VIEW_NAMES)[number], () => Promise<unknown>> = {
      stores: () => buildStoreViews(client, { full: opts.full, progress: opts.progress }),
      chains: () => buildChainViews(client, { full: opts.full, progress: opts.progress }),
      deals: () => buildDeals(client),
      categories: () => buildRetailerCategories(client),
      shelves: () => buildShelves(client),
      suggest: () => buildSuggestViews(client),
    };
    // The shelves view (after stores: it counts the stores pricing a product) also reads links,
    // generics and availability, which matching and curators change without a collection: its
    // version mixes in their digest.
    const shelvesVersion = `${version}+${await shelvesInputs(client)}`;
    // The type-ahead view (workers/views/suggest.ts) is current for the database's data version,
    // which every write job bumps; it is recorded after this run's own bump (below).
    const suggestCurrent = await suggestVersion(client);
    const versionOf = (name: (typeof VIEW_NAMES)[number]) =>
      name === 'shelves' ? shelvesVersion : name === 'suggest' ? suggestCurrent : version;
    for (const name of VIEW_NAMES) {
      if (!opts.full && stored.get(name) === versionOf(name)) {
        views[name] = { built: false, seconds: 0 };
        continue;
      }
      const t = performance.now();
      const report = await builders[name]();
      const seconds = (performance.now() - t) / 1000;
      await client.query(
        `INSERT INTO view_run (name, data_version, built_at, seconds, detail) VALUES ($1, $2, now(), $3, $4)
         ON CONFLICT (name) DO UPDATE SET data_version = EXCLUDED.data_version, built_at = EXCLUDED.built_at, seconds = EXCLUDED.seconds, detail = EXCLUDED.detail`,
        [name, versionOf(name), seconds, JSON.stringify({ parts, report })],
      );
      views[name] = { built: true, seconds, report };
    }
    // The one data version (src/db/data-version.ts, not this module's digest) moves with the views:
    // the job runner bumps it after this commit and then calls markSuggestCurrent (workers/jobs).
    return { version, views, seconds: (performance.now() - t0) / 1000 };
  });
}
