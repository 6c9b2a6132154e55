/**
 * Worker command line: `npm run worker -- <command>` (or `npm run ingest -- <file>...`).
 *
 *   ingest [--changes|--partial] [--after-gap] <file>...  ingest observation files (README "Observation format")
 *   import [--force]                               import the real data in DATA_DIR (once; --force re-checks)
 *   migrate                                        apply pending SQL migrations
 *   search-reindex                                 rebuild the Elasticsearch index and swap ELASTICSEARCH_ALIAS to it
 *   match [--threshold <0..1>] [--dry-run]         link listings across chains (workers/match; also run by ingest and import)
 *   link <listingId> <productId|new> [--note <t>]  a curator's link (locked); `new` creates a product from the listing
 *   unlink <listingId> [--note <t>]                a curator's unlink (locked: re-runs keep it unlinked)
 *   lock <listingId> | unlock <listingId>          pin a listing's link as it is / hand it back to the matcher
 *   history <listingId>                            the listing's link decisions, oldest first
 *   index [--full]                                 basket matching, then the food price index (incremental unless --full)
 *   basket-match [--dry-run]                       match listings to basket items (also run by index)
 *   basket-add <listingId> <itemId> [--note <t>]   a curator's basket match (manual, locked)
 *   basket-remove <listingId> [--note <t>]         a curator's removal (locked: the matcher never re-adds it)
 *   basket-lock <listingId> | basket-unlock <listingId>  pin a listing's basket state / hand it back to the matcher
 *   basket-history <listingId>                     the listing's basket decisions, oldest first
 *   views [--full]                                 rebuild the derived views (store, area and chain levels, deals) whose inputs changed
 *   export                                         write the nightly export into EXPORT_DIR and switch `latest` to it
 *   import-export <folder|manifest-url>            load an export into an empty instance (every sha256 checked first)
 *   schedule                                       run the nightly jobs on EXPORT_CRON (Pacific/Auckland) until stopped
 *   collect <retailer|all> [--stores id,…] [--origin URL] [--image-origin URL] [--day YYYY-MM-DD]
 *                                                  collect the chains' online shops (workers/collect/run.ts), then match,
 *                                                  the new images (workers/images), the index and the derived views once
 *                                                  (README "Collecting")
 *   images [--limit <n>] [--concurrency <n>]       download and convert new product images into IMAGE_DIR (workers/images)
 *
 * Uses DATABASE_URL, or the embedded PostgreSQL of EMBEDDED_PG_DIR when it is unset: the one
 * already running there (e.g. `npm start`'s, on whatever port its postmaster.pid names), else one
 * it starts on EMBEDDED_PG_PORT and stops when done (src/db/embedded.ts). Exits non-zero on any
 * error, printing one line `error: <message>` (a malformed file names its line); DEBUG=1 adds the
 * stack.
 *
 * Every command that writes data the API serves moves the one data version (src/db/data-version.ts;
 * API servers drop their response caches on it): the jobs themselves bump it in the transaction of
 * their writes (ingest per day, match, basket-match, index, views, images, collect); the importers,
 * the curators' commands and the search index updates bump it here once they are done.
 *
 * `ingest` runs the matching worker once every file is ingested (and `import` once the import is
 * done), so new listings are linked across chains at once.
 *
 * With ELASTICSEARCH_URL set, `ingest` also updates the search index incrementally once every file
 * is ingested and matched: the listings each file touched and the listings matching relinked are
 * queued, then written to ELASTICSEARCH_ALIAS (when Elasticsearch fails, the data stays ingested,
 * the listings stay queued for the next run, and the command exits non-zero). `match`, `link` and
 * `unlink` update the index the same way for the listings they relink.
 */
import cron from 'node-cron';
import { loadEnv, ConfigError, publicBaseUrl, type Env } from '../src/env.js';
import { ExportCheckError, ExportLockedError, runExport, type ExportResult } from './export/export.js';
import { ExportImportError, importExport } from './export/import.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { bumpDataVersion } from '../src/db/data-version.js';
import { describeFailure, EmbeddedPostgresError } from '../src/db/embedded.js';
import { ingest } from './ingest/ingest.js';
import { ObservationError, readObservationFile } from './ingest/format.js';
import { importRealData, DataDirError } from './import/index.js';
import { createElasticsearchClient, describeError } from '../src/search/elasticsearch/client.js';
import { ReindexError, reindexListings } from './search/reindex.js';
import { enqueueListings, syncPendingListings } from './search/sync.js';
import { IndexBusyError } from './search/lock.js';
import { runMatching, type MatchReport } from './match/match.js';
import { LinkCommandError, linkHistory, linkListing, setLocked, unlinkListing } from './match/admin.js';
import { runBasketMatching, type BasketMatchReport } from './index/match.js';
import { BasketCommandError, basketHistory, basketLock, basketMatch, basketUnmatch } from './index/admin.js';
import { runIndex, type IndexReport } from './index/compute.js';
import { runViews, type ViewsReport } from './views/run.js';
import { OfficialIndexError } from './index/official.js';
import { BasketError } from '../src/domain/basket.js';
import { processNewImages, type ImageReport } from './images/images.js';
import { imageUserAgent } from './images/fetch.js';
import { collectConfig, runCollect, CollectAborted, CollectError, type CollectReport } from './collect/run.js';
import { CollectLockedError } from './collect/checkpoint.js';
import { COLLECTORS } from './collect/collectors.js';

const USAGE = `usage: npm run worker -- <command>
  ingest [--changes|--partial] [--after-gap] <file>...  ingest observation files (.csv, .ndjson); --changes: a change log
                                                  covering each scope; --partial: only the rows were observed; --after-gap: the days
                                                 since each chain's last collection are unknown
  import                                         import the real data in DATA_DIR (skips what is already imported)
  migrate                                        apply pending SQL migrations
  search-reindex                                 rebuild the Elasticsearch index (needs ELASTICSEARCH_URL)
  match [--threshold <0..1>] [--dry-run]         link listings across chains (also run after ingest and import)
  link <listingId> <productId|new> [--note <t>]  link a listing to a product, locked (new: a product from the listing)
  unlink <listingId> [--note <t>]                unlink a listing, locked (stays unlinked on re-runs)
  lock <listingId>                               pin a listing's current link (or unlinked state)
  unlock <listingId>                             hand a listing back to the matcher
  history <listingId>                            a listing's link decisions, oldest first
  index [--full]                                 match listings to the basket, then compute the food price index
                                                 (only the new days unless --full; also run after ingest and import)
  basket-match [--dry-run]                       match listings to basket items only
  basket-add <listingId> <itemId> [--note <t>]   a curator's basket match (manual, locked)
  basket-remove <listingId> [--note <t>]         remove a listing from the basket, locked (never re-added)
  basket-lock <listingId>                        pin a listing's basket state
  basket-unlock <listingId>                      hand a listing's basket state back to the matcher
  basket-history <listingId>                     a listing's basket decisions, oldest first
  views [--full]                                 rebuild the derived views (store, area and chain levels, deals)
                                                 whose inputs changed (also run after index, ingest and import)
  export                                         write the nightly export (Parquet + CSV) and publish it as latest
  import-export <folder|manifest-url>            load an export into an empty instance, verifying every file first
  schedule                                       run the index on INDEX_CRON and the nightly export on EXPORT_CRON
                                                 (Pacific/Auckland) until stopped; each chain's collection on
                                                 COLLECT_CRON / COLLECT_<RETAILER>_CRON, then the index and the export
  collect <retailer|all> [--stores id,…] [--origin URL] [--image-origin URL] [--day YYYY-MM-DD]
                                                 collect online shop prices (our store ids; the origin defaults to
                                                 COLLECT_<RETAILER>_ORIGIN or the live site), then match, fetch new
                                                 images (from --image-origin / COLLECT_IMAGE_ORIGIN when set) and index
  images [--limit <n>] [--concurrency <n>]       download each new product image once, convert it to AVIF (720 px and
                                                 a 200 px thumbnail) in IMAGE_DIR and set the listings' image paths`;

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const env = loadEnv();
  let db: Database | null = null;
  try {
    db = await openDatabase({ databaseUrl: env.DATABASE_URL, embeddedDir: env.EMBEDDED_PG_DIR, embeddedPort: env.EMBEDDED_PG_PORT });
    if (db.embedded && !db.embedded.owned) {
      console.error(`database: the embedded PostgreSQL already running on ${db.embedded.dir} (pid ${db.embedded.pid}, port ${db.embedded.port})`);
    }
    switch (command) {
      case 'migrate':
        console.log('migrations applied');
        return 0;
      case 'ingest': {
        const mode = args.includes('--partial') ? 'partial' : args.includes('--changes') ? 'changes' : 'snapshot';
        const files = args.filter((a) => !a.startsWith('--'));
        if (files.length === 0) throw new ObservationError('ingest needs at least one file');
        for (const file of files) {
          const r = await ingest(db.pool, readObservationFile(file), { mode, afterGap: args.includes('--after-gap'), source: file });
          console.log(`${file}: ${r.rows} rows, ${r.days.length} days, ${r.merged.length} merged, ${r.skipped} chain-days already ingested`);
          if (env.ELASTICSEARCH_URL) await enqueueListings(db.pool, r.listingIds);
        }
        const m = await runMatching(db.pool);
        printMatch(m);
        if (env.ELASTICSEARCH_URL) {
          await enqueueListings(db.pool, m.listingIds);
          await syncSearch(env.ELASTICSEARCH_URL, env.ELASTICSEARCH_ALIAS, db, 'the ingested and relinked listings stay queued for the next ingest or search-reindex');
        }
        await refreshIndex(db, env);
        return 0;
      }
      case 'match': {
        const threshold = option(args, '--threshold');
        const m = await runMatching(db.pool, {
          threshold: threshold === undefined ? undefined : parseThreshold(threshold),
          dryRun: args.includes('--dry-run'),
        });
        printMatch(m);
        if (env.ELASTICSEARCH_URL && !m.dryRun && m.listingIds.length > 0) {
          await enqueueListings(db.pool, m.listingIds);
          await syncSearch(env.ELASTICSEARCH_URL, env.ELASTICSEARCH_ALIAS, db, 'the relinked listings stay queued for the next ingest or search-reindex');
        }
        return 0;
      }
      case 'link':
      case 'unlink':
      case 'lock':
      case 'unlock':
      case 'history': {
        const { positional, id, note } = curatorArgs(args);
        if (command === 'history') {
          console.log(JSON.stringify(await linkHistory(db.pool, id), null, 2));
          return 0;
        }
        let r;
        if (command === 'link') {
          const target = positional[1];
          if (target === undefined) throw new LinkCommandError('link needs a listing id and a product id (or "new")');
          r = await linkListing(db.pool, id, target === 'new' ? 'new' : parseId(target, 'product id'), note);
        } else if (command === 'unlink') {
          r = await unlinkListing(db.pool, id, note);
        } else {
          r = await setLocked(db.pool, id, command === 'lock', note);
        }
        if (r.changed) await bumpDataVersion(db.pool, `${command} ${id}`);
        console.log(JSON.stringify(r, null, 2));
        if (env.ELASTICSEARCH_URL && r.changed && r.productId !== r.previousProductId) {
          await enqueueListings(db.pool, [r.listingId]);
          await syncSearch(env.ELASTICSEARCH_URL, env.ELASTICSEARCH_ALIAS, db, 'the listing stays queued for the next ingest or search-reindex');
        }
        return 0;
      }
      case 'search-reindex': {
        if (!env.ELASTICSEARCH_URL) throw new ConfigError('search-reindex needs ELASTICSEARCH_URL (the embedded search backend reads PostgreSQL directly)');
        await reindex(env.ELASTICSEARCH_URL, env.ELASTICSEARCH_ALIAS, db);
        return 0;
      }
      case 'import': {
        const report = await importRealData(db.pool, env.DATA_DIR);
        await bumpDataVersion(db.pool, 'import');
        console.log(JSON.stringify(report, null, 2));
        printMatch(await runMatching(db.pool));
        // An import writes listings in bulk: rebuild the Elasticsearch index rather than queue them.
        if (env.ELASTICSEARCH_URL) await reindex(env.ELASTICSEARCH_URL, env.ELASTICSEARCH_ALIAS, db);
        await refreshIndex(db, env);
        return 0;
      }
      case 'export': {
        printExport(await runExport(db.pool, { dir: env.EXPORT_DIR, serviceUrl: publicBaseUrl(env) }));
        return 0;
      }
      case 'import-export': {
        const source = args.find((a) => !a.startsWith('--'));
        if (!source) throw new UsageError('import-export needs an export folder or a manifest URL');
        const imported = await importExport(db.pool, source);
        await bumpDataVersion(db.pool, 'import-export');
        console.log(JSON.stringify(imported, null, 2));
        // Links come from the export; the run writes only what exports do not carry (sizes, generics).
        printMatch(await runMatching(db.pool));
        if (env.ELASTICSEARCH_URL) await reindex(env.ELASTICSEARCH_URL, env.ELASTICSEARCH_ALIAS, db);
        // The index tables are derived: recomputed from the imported spans and the basket matcher.
        await refreshIndex(db, env);
        return 0;
      }
      case 'index': {
        await refreshIndex(db, env, { full: args.includes('--full') });
        return 0;
      }
      case 'views': {
        printViews(await runViews(db.pool, { full: args.includes('--full') }));
        return 0;
      }
      case 'basket-match': {
        printBasketMatch(await runBasketMatching(db.pool, { dryRun: args.includes('--dry-run') }));
        return 0;
      }
      case 'basket-add':
      case 'basket-remove':
      case 'basket-lock':
      case 'basket-unlock':
      case 'basket-history': {
        const { positional, id, note } = curatorArgs(args);
        if (command === 'basket-history') {
          console.log(JSON.stringify(await basketHistory(db.pool, id), null, 2));
          return 0;
        }
        let r;
        if (command === 'basket-add') {
          if (positional[1] === undefined) throw new BasketCommandError('basket-add needs a listing id and a basket item id');
          r = await basketMatch(db.pool, id, parseId(positional[1], 'basket item id'), note);
        } else if (command === 'basket-remove') {
          r = await basketUnmatch(db.pool, id, note);
        } else {
          r = await basketLock(db.pool, id, command === 'basket-lock', note);
        }
        if (r.changed) await bumpDataVersion(db.pool, `${command} ${id}`);
        console.log(JSON.stringify(r, null, 2));
        return 0;
      }
      case 'collect': {
        const valued = new Set(['--stores', '--origin', '--image-origin', '--day']);
        const target = args.find((a, i) => !a.startsWith('--') && !valued.has(args[i - 1]));
        if (!target) throw new UsageError('collect needs a retailer (e.g. woolworths) or "all"');
        const stores = option(args, '--stores');
        const report = await runCollect(db.pool, {
          retailers: target === 'all' ? 'all' : [target],
          stores: stores === undefined ? undefined : stores.split(',').map((x) => parseId(x.trim(), 'store id')),
          origin: option(args, '--origin'),
          day: option(args, '--day'),
          config: collectConfig(env),
        });
        const imageOrigin = option(args, '--image-origin');
        if (imageOrigin !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(imageOrigin)) throw new UsageError(`--image-origin must be an http(s) origin without a path, not "${imageOrigin}"`);
        await afterCollect(db, env, report, { imageOrigin: imageOrigin?.replace(/\/+$/, '') });
        return 0;
      }
      case 'schedule': {
        await runSchedule(db, env);
        return 0;
      }
      case 'images': {
        const limit = option(args, '--limit');
        const concurrency = option(args, '--concurrency');
        const r = await processNewImages(db.pool, {
          dir: env.IMAGE_DIR,
          limit: limit === undefined ? undefined : parseId(limit, '--limit'),
          concurrency: concurrency === undefined ? undefined : parseId(concurrency, '--concurrency'),
          userAgent: imageUserAgent(publicBaseUrl(env)),
        });
        printImages(r);
        return 0;
      }
      default:
        console.error(`unknown command "${command}"\n${USAGE}`);
        return 2;
    }
  } finally {
    await db?.close();
  }
}

/** Rebuilds the Elasticsearch index behind `alias` from the database and prints the report. */
async function reindex(url: string, alias: string, db: Database): Promise<void> {
  const client = createElasticsearchClient({ url, requestTimeoutMs: 120_000, maxRetries: 3 });
  try {
    console.log(JSON.stringify(await reindexListings({ pool: db.pool, client, alias }), null, 2));
    // Search answers come from the new index now: cached ones are stale.
    await bumpDataVersion(db.pool, 'search-reindex');
  } finally {
    await client.close();
  }
}

/** Drains the search outbox into `alias` and prints what it did; `stays` says what stays queued on failure. */
async function syncSearch(url: string, alias: string, db: Database, stays: string): Promise<void> {
  const client = createElasticsearchClient({ url, requestTimeoutMs: 120_000, maxRetries: 3 });
  try {
    const s = await syncPendingListings({ pool: db.pool, client, alias });
    if (s.skipped === 'no-index') {
      console.log(`search index: alias "${alias}" does not exist yet, ${s.pending} listings queued (run: npm run worker -- search-reindex)`);
    } else {
      console.log(`search index: ${s.indexed} listings written, ${s.deleted} removed`);
      if (s.indexed + s.deleted > 0) await bumpDataVersion(db.pool, 'search-sync');
    }
  } catch (e) {
    throw new SearchUpdateError(`search index update failed, ${stays}: ${describeError(e)}`);
  } finally {
    await client.close();
  }
}

/** Prints what an export published. */
function printExport(r: ExportResult): void {
  console.log(`export: ${r.folder} published as latest (${r.seconds.total.toFixed(1)} s): ${JSON.stringify(r.rows)}${r.removed.length ? `; removed ${r.removed.join(', ')}` : ''}`);
}

/**
 * The scheduled jobs (node-cron, Pacific/Auckland), until SIGINT/SIGTERM: basket matching and the
 * index on INDEX_CRON (incremental: a run with nothing new writes nothing), the export on
 * EXPORT_CRON after an index run (so the export carries the index of the newest data). No job
 * overlaps itself; a failed run is logged, leaves what was published, and the schedule goes on.
 */
async function runSchedule(db: Database, env: Env): Promise<void> {
  const jobs: { name: string; expr: string; run: () => Promise<void> }[] = [];
  if (env.INDEX_CRON !== 'off') {
    jobs.push({ name: 'index', expr: env.INDEX_CRON, run: () => refreshIndex(db, env, { progress: false }) });
  }
  if (env.EXPORT_CRON !== 'off') {
    jobs.push({
      name: 'export',
      expr: env.EXPORT_CRON,
      run: async () => {
        await refreshIndex(db, env, { progress: false });
        printExport(await runExport(db.pool, { dir: env.EXPORT_DIR, serviceUrl: publicBaseUrl(env), progress: false }));
      },
    });
  }
  // Collection: chains due at the same time run one after the other, then matching, the index and
  // the views once, then the export (each stage under its own lock: collect per chain, match, index,
  // views, export).
  const byExpr = new Map<string, string[]>();
  for (const c of COLLECTORS) {
    const expr = (env[`COLLECT_${c.retailer.toUpperCase()}_CRON` as keyof Env] as string | undefined) ?? env.COLLECT_CRON;
    if (expr !== 'off') byExpr.set(expr, [...(byExpr.get(expr) ?? []), c.retailer]);
  }
  for (const [expr, chains] of byExpr) {
    jobs.push({
      name: `collect ${chains.join('+')}`,
      expr,
      run: async () => {
        let report: CollectReport | null = null;
        try {
          report = await runCollect(db.pool, { retailers: chains, config: collectConfig(env), progress: false });
        } finally {
          // Whatever was ingested before a failure is matched, indexed and exported.
          await afterCollect(db, env, report, { progress: false, quiet: true });
          printExport(await runExport(db.pool, { dir: env.EXPORT_DIR, serviceUrl: publicBaseUrl(env), progress: false }));
        }
        failIfStoresFailed(report);
      },
    });
  }
  if (jobs.length === 0) throw new UsageError('INDEX_CRON, EXPORT_CRON and COLLECT_CRON are all off: nothing to schedule');
  for (const j of jobs) {
    if (!cron.validate(j.expr)) throw new ConfigError(`${j.name.startsWith('collect') ? `${j.name}: COLLECT_CRON or COLLECT_<RETAILER>_CRON` : `${j.name.toUpperCase()}_CRON`} is not a cron expression: "${j.expr}"`);
  }
  const tasks = jobs.map((j) =>
    cron.schedule(
      j.expr,
      async () => {
        try {
          await j.run();
        } catch (e) {
          console.error(`${j.name} failed, what was published stays: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
      { timezone: 'Pacific/Auckland', noOverlap: true, name: j.name },
    ),
  );
  console.log(`schedule: ${jobs.map((j) => `${j.name} at "${j.expr}"`).join(', ')} (Pacific/Auckland); exports into ${env.EXPORT_DIR}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  for (const t of tasks) await t.stop();
}

/**
 * Basket matching, then the index run (workers/index), then the derived views (workers/views),
 * which follow the index's days: what `index`, `ingest`, `import`, `import-export` and the schedule
 * run. Prints the three reports.
 */
async function refreshIndex(db: Database, env: Env, opts: { full?: boolean; progress?: boolean } = {}): Promise<void> {
  printBasketMatch(await runBasketMatching(db.pool, { progress: opts.progress }));
  printIndex(await runIndex(db.pool, { full: opts.full, dataDir: env.DATA_DIR, progress: opts.progress }));
  printViews(await runViews(db.pool, { progress: opts.progress }));
}

/** Prints an images report. */
function printImages(r: ImageReport): void {
  console.log(
    `images: ${r.due} due, ${r.converted} converted, ${r.reused} already converted, ${r.failed} skipped (retried later); ` +
      `${r.listings} listings and ${r.products} products updated; ${(r.sourceBytes / 1e6).toFixed(1)} MB read, ` +
      `${(r.writtenBytes / 1e6).toFixed(1)} MB written in ${(r.ms / 1000).toFixed(1)} s`,
  );
}

/**
 * After a collection command (or a scheduled collection): prints each chain's report; when a day
 * was merged, runs matching; then the images worker (new image URLs downloaded once and converted,
 * from `imageOrigin` / COLLECT_IMAGE_ORIGIN instead of the URLs' own hosts when set); then the
 * search index update and the index with the derived views once, for the whole run. Then fails
 * when a store failed, so the command exits non-zero.
 */
async function afterCollect(db: Database, env: Env, report: CollectReport | null, opts: { progress?: boolean; quiet?: boolean; imageOrigin?: string } = {}): Promise<void> {
  for (const c of report?.chains ?? []) {
    const { ingest: ing, malformed, failed, ...rest } = c;
    console.log(`collect ${c.retailer}: ${JSON.stringify({ ...rest, malformed: malformed.length, failed: failed.length, merged: ing?.merged ?? [], listings: ing?.listingIds.length ?? 0 })}`);
  }
  const m = report?.ingested ? await runMatching(db.pool, { progress: opts.progress }) : null;
  if (m) printMatch(m);
  const imgs = report
    ? await processNewImages(db.pool, {
        dir: env.IMAGE_DIR, userAgent: imageUserAgent(publicBaseUrl(env)), imageOrigin: opts.imageOrigin ?? env.COLLECT_IMAGE_ORIGIN, progress: opts.progress,
      })
    : null;
  if (imgs) printImages(imgs);
  if (report?.ingested || (imgs?.listings ?? 0) > 0) {
    if (env.ELASTICSEARCH_URL) {
      await enqueueListings(db.pool, [...(report?.listingIds ?? []), ...(m?.listingIds ?? []), ...(imgs?.listingIds ?? [])]);
      await syncSearch(env.ELASTICSEARCH_URL, env.ELASTICSEARCH_ALIAS, db, 'the collected and relinked listings stay queued for the next ingest or search-reindex');
    }
  }
  if (report?.ingested) await refreshIndex(db, env, { progress: opts.progress });
  if (!opts.quiet) failIfStoresFailed(report);
}

/** @throws CollectError naming the chains and stores that could not be collected. */
function failIfStoresFailed(report: CollectReport | null): void {
  const failed = (report?.chains ?? []).filter((c) => c.status === 'failed' || c.failed.length > 0);
  if (failed.length) {
    throw new CollectError(`collection incomplete: ${failed.map((c) => `${c.retailer} ${c.failed.length ? `${c.failed.length} stores failed (${c.failed.map((f) => f.scope || 'national').join(', ')})` : 'failed'}`).join('; ')}; what was collected is ingested`);
  }
}

/** Prints a derived-views report (which views were rebuilt, in how long). */
function printViews(r: ViewsReport): void {
  const views = Object.entries(r.views).map(([name, v]) => `${name} ${v.built ? `rebuilt in ${v.seconds.toFixed(2)} s` : 'current'}`);
  console.log(`views (data version ${r.version}): ${views.join(', ')}`);
}

/** Prints a basket-matching report. */
function printBasketMatch(m: BasketMatchReport): void {
  const { basket, ...rest } = m;
  console.log(`basket matching${m.dryRun ? ' (dry run, nothing written)' : ''}: ${JSON.stringify({ ...rest, basketChanged: basket.changed })}`);
}

/** Prints an index report. */
function printIndex(r: IndexReport): void {
  const { basket, anchors, ...rest } = r;
  console.log(`index: ${JSON.stringify({ ...rest, anchors: anchors.map((a) => `${a.code} ${a.month ?? '-'}`).join(', ') })}`);
}

/** Prints a matching report (without the long list of listing ids). */
function printMatch(m: MatchReport): void {
  const { listingIds, ...rest } = m;
  console.log(`matching${m.dryRun ? ' (dry run, nothing written)' : ''}: ${JSON.stringify({ ...rest, relinkedListings: listingIds.length })}`);
}

/** A curator command's arguments: positional ones (the listing id first) and `--note <text>`. */
function curatorArgs(args: readonly string[]): { positional: string[]; id: number; note: string | undefined } {
  const positional = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--note');
  return { positional, id: parseId(positional[0], 'listing id'), note: option(args, '--note') };
}

/** The value after `name` in `args` (`--threshold 0.8`), or undefined. */
function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
  return v;
}

function parseThreshold(v: string): number {
  const n = Number(v);
  if (!(n >= 0 && n <= 1)) throw new UsageError(`--threshold must be a number within [0, 1], not "${v}"`);
  return n;
}

function parseId(v: string | undefined, what: string): number {
  if (v === undefined || !/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) === 0) throw new UsageError(`${what} must be a positive integer, not "${v ?? ''}"`);
  return Number(v);
}

/** Bad command-line arguments. */
class UsageError extends Error {}

/** A search index write failed (the message says what state the index and the outbox are in). */
class SearchUpdateError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    // One line for every failure: the message of an error we expect (bad input, a locked export, …)
    // as is; anything else (a database error, a bug) described the same way, with a hint for the
    // stack, which DEBUG prints (read here, not through env.ts: configuration itself may have failed).
    const known = e instanceof ObservationError || e instanceof ConfigError || e instanceof DataDirError || e instanceof SearchUpdateError || e instanceof IndexBusyError || e instanceof ReindexError || e instanceof LinkCommandError || e instanceof BasketCommandError || e instanceof BasketError || e instanceof OfficialIndexError || e instanceof UsageError || e instanceof ExportLockedError || e instanceof ExportCheckError || e instanceof ExportImportError || e instanceof EmbeddedPostgresError || e instanceof CollectError || e instanceof CollectLockedError || e instanceof CollectAborted;
    const debug = Boolean(process.env.DEBUG);
    console.error(`error: ${describeFailure(e)}${known || debug ? '' : ' (set DEBUG=1 for the stack)'}`);
    if (debug) console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
