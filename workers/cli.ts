/**
 * Worker command line: `npm run worker -- <command>` (or `npm run ingest -- <file>...`).
 *
 * The commands are listed once, in USAGE below (`npm run worker -- --help`).
 *
 * Uses DATABASE_URL, or the embedded PostgreSQL of EMBEDDED_PG_DIR when it is unset: the one
 * already running there (e.g. `npm start`'s, on whatever port its postmaster.pid names), else one
 * it starts on EMBEDDED_PG_PORT and stops when done (src/db/embedded.ts). Exits non-zero on any
 * error, printing one line `error: <message>` (a malformed file names its line); DEBUG=1 adds the
 * stack.
 *
 * Every command runs its work as jobs (workers/jobs/catalog.ts) through the one runner
 * (workers/jobs/runner.ts), and its chains of jobs as the one pipeline (workers/jobs/pipeline.ts):
 * ingest, import, import-export and collect run matching, the search index (with
 * ELASTICSEARCH_URL), basket matching, the index and the derived views after their source. The
 * runner moves the data version (API servers drop their response caches on it) after each job
 * that changed what the API serves.
 *
 * `start` is the worker process `npm start` supervises (or that runs on its own beside an API
 * started with START_WORKER=false): start-up (import into an empty database, else the refresh
 * pipeline), then the schedule (workers/jobs/schedule.ts).
 */
import { loadEnv, ConfigError, type Env } from '../src/env.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { describeFailure } from '../src/db/embedded.js';
import { ExpectedError } from '../src/errors.js';
import { ObservationError } from './ingest/format.js';
import { LinkCommandError, linkHistory } from './match/admin.js';
import { BasketCommandError, basketHistory } from './index/admin.js';
import {
  basketCommandJob, basketMatchJob, exportJob, imagesJob, linkJob, matchJob, searchReindexJob, searchSyncJob, viewsJob,
  type BasketCommand, type LinkCommand,
} from './jobs/catalog.js';
import { runPipeline } from './jobs/pipeline.js';
import { JobRunner } from './jobs/runner.js';
import { scheduleEntries, startSchedule } from './jobs/schedule.js';
import { startup } from './jobs/startup.js';

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
  start                                          the worker process (what npm start supervises): import into an empty
                                                 database or bring the index and views up to date, then the schedule
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
  if (!COMMANDS.has(command)) {
    console.error(`unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  const env = loadEnv();
  let db: Database | null = null;
  try {
    db = await openDatabase({ databaseUrl: env.DATABASE_URL, embeddedDir: env.EMBEDDED_PG_DIR, embeddedPort: env.EMBEDDED_PG_PORT });
    if (db.embedded && !db.embedded.owned) {
      console.error(`database: the embedded PostgreSQL already running on ${db.embedded.dir} (pid ${db.embedded.pid}, port ${db.embedded.port})`);
    }
    const worker = command === 'start' || command === 'schedule';
    const toParent = process.send ? (m: unknown) => process.send?.(m) : null;
    const runner = new JobRunner(
      { pool: db.pool, env, progress: worker ? false : undefined, log: (line) => console.log(line) },
      {
        onEvent: (e) => {
          toParent?.({ type: 'job', ...e });
          if (e.kind === 'retry') console.error(`${e.job}: attempt ${e.attempt} failed (${e.error}); retrying in ${e.waitMs / 1000} s`);
          else if (worker && e.kind === 'failed') console.error(`${e.job} failed after ${e.seconds.toFixed(1)} s: ${e.error}`);
        },
      },
    );
    switch (command) {
      case 'migrate':
        console.log('migrations applied');
        return 0;
      case 'ingest': {
        const mode = args.includes('--partial') ? 'partial' : args.includes('--changes') ? 'changes' : 'snapshot';
        const files = args.filter((a) => !a.startsWith('--'));
        if (files.length === 0) throw new ObservationError('ingest needs at least one file');
        await runPipeline(runner, { source: { kind: 'ingest', input: { files, mode, afterGap: args.includes('--after-gap') } } });
        return 0;
      }
      case 'import':
        await runPipeline(runner, { source: { kind: 'import', dataDir: env.DATA_DIR } });
        return 0;
      case 'import-export': {
        const source = args.find((a) => !a.startsWith('--'));
        if (!source) throw new UsageError('import-export needs an export folder or a manifest URL');
        // Links come from the export; matching writes only what exports do not carry (sizes,
        // generics); the index tables are derived: recomputed from the imported spans.
        await runPipeline(runner, { source: { kind: 'import-export', source } });
        return 0;
      }
      case 'collect': {
        const valued = new Set(['--stores', '--origin', '--image-origin', '--day']);
        const target = args.find((a, i) => !a.startsWith('--') && !valued.has(args[i - 1]));
        if (!target) throw new UsageError('collect needs a retailer (e.g. woolworths) or "all"');
        const stores = option(args, '--stores');
        const imageOrigin = option(args, '--image-origin');
        if (imageOrigin !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(imageOrigin)) throw new UsageError(`--image-origin must be an http(s) origin without a path, not "${imageOrigin}"`);
        await runPipeline(runner, {
          source: {
            kind: 'collect',
            input: {
              retailers: target === 'all' ? 'all' : [target],
              stores: stores === undefined ? undefined : stores.split(',').map((x) => parseId(x.trim(), 'store id')),
              origin: option(args, '--origin'),
              day: option(args, '--day'),
            },
          },
          match: 'if-new-data',
          images: { imageOrigin: imageOrigin?.replace(/\/+$/, '') },
          refresh: 'if-new-data',
        });
        return 0;
      }
      case 'index':
        await runPipeline(runner, { source: { kind: 'none' }, full: args.includes('--full') });
        return 0;
      case 'views':
        await runner.run(viewsJob, { full: args.includes('--full') });
        return 0;
      case 'basket-match':
        await runner.run(basketMatchJob, { dryRun: args.includes('--dry-run') });
        return 0;
      case 'match': {
        const threshold = option(args, '--threshold');
        const m = await runner.run(matchJob, { threshold: threshold === undefined ? undefined : parseThreshold(threshold), dryRun: args.includes('--dry-run') });
        if (env.ELASTICSEARCH_URL && !m.dryRun && m.listingIds.length > 0) {
          await runner.run(searchSyncJob, { listingIds: m.listingIds, stays: 'the relinked listings stay queued for the next ingest or search-reindex' });
        }
        return 0;
      }
      case 'search-reindex':
        if (!env.ELASTICSEARCH_URL) throw new ConfigError('search-reindex needs ELASTICSEARCH_URL (the embedded search backend reads PostgreSQL directly)');
        await runner.run(searchReindexJob, undefined);
        return 0;
      case 'images': {
        const limit = option(args, '--limit');
        const concurrency = option(args, '--concurrency');
        await runner.run(imagesJob, {
          limit: limit === undefined ? undefined : parseId(limit, '--limit'),
          concurrency: concurrency === undefined ? undefined : parseId(concurrency, '--concurrency'),
        });
        return 0;
      }
      case 'export':
        await runner.run(exportJob, undefined);
        return 0;
      case 'history':
        console.log(JSON.stringify(await linkHistory(db.pool, curatorArgs(args).id), null, 2));
        return 0;
      case 'basket-history':
        console.log(JSON.stringify(await basketHistory(db.pool, curatorArgs(args).id), null, 2));
        return 0;
      case 'link':
      case 'unlink':
      case 'lock':
      case 'unlock': {
        const { positional, id, note } = curatorArgs(args);
        let c: LinkCommand;
        if (command === 'link') {
          const target = positional[1];
          if (target === undefined) throw new LinkCommandError('link needs a listing id and a product id (or "new")');
          c = { command, listingId: id, target: target === 'new' ? 'new' : parseId(target, 'product id'), note };
        } else {
          c = { command, listingId: id, note };
        }
        const r = await runner.run(linkJob, c);
        if (env.ELASTICSEARCH_URL && r.changed && r.productId !== r.previousProductId) {
          await runner.run(searchSyncJob, { listingIds: [r.listingId], stays: 'the listing stays queued for the next ingest or search-reindex' });
        }
        return 0;
      }
      case 'basket-add':
      case 'basket-remove':
      case 'basket-lock':
      case 'basket-unlock': {
        const { positional, id, note } = curatorArgs(args);
        let c: BasketCommand;
        if (command === 'basket-add') {
          if (positional[1] === undefined) throw new BasketCommandError('basket-add needs a listing id and a basket item id');
          c = { command, listingId: id, itemId: parseId(positional[1], 'basket item id'), note };
        } else {
          c = { command, listingId: id, note };
        }
        await runner.run(basketCommandJob, c);
        return 0;
      }
      case 'start':
      case 'schedule':
        return await runWorker(runner, env, { startup: command === 'start' });
      default:
        throw new Error(`command "${command}" is listed but not handled`);
    }
  } finally {
    await db?.close();
  }
}

/** The commands {@link main} knows. */
const COMMANDS = new Set([
  'migrate', 'ingest', 'import', 'import-export', 'collect', 'index', 'views', 'basket-match', 'match', 'search-reindex', 'images', 'export',
  'history', 'basket-history', 'link', 'unlink', 'lock', 'unlock', 'basket-add', 'basket-remove', 'basket-lock', 'basket-unlock', 'start', 'schedule',
]);

/**
 * The worker process (`start`: what `npm start` supervises): start-up (./jobs/startup.ts), then the
 * schedule (./jobs/schedule.ts) until SIGINT/SIGTERM, or until its supervisor goes away (the IPC
 * channel closes). `schedule` skips start-up. Resolves 0 at once after start-up when nothing is
 * scheduled (every *_CRON is off).
 */
async function runWorker(runner: JobRunner, env: Env, opts: { startup: boolean }): Promise<number> {
  const entries = scheduleEntries(env);
  if (!opts.startup && entries.length === 0) throw new UsageError('INDEX_CRON, EXPORT_CRON and COLLECT_CRON are all off: nothing to schedule');
  let stopped = false;
  const stop = new Promise<void>((resolve) => {
    const done = () => {
      stopped = true;
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    process.once('disconnect', done); // the supervising API process is gone
  });
  if (opts.startup) {
    await Promise.race([startup(runner), stop]);
    if (stopped) return 0;
    process.send?.({ type: 'ready' });
  }
  if (entries.length === 0) {
    console.log('schedule: INDEX_CRON, EXPORT_CRON and COLLECT_CRON are all off: the worker has nothing more to do');
    return 0;
  }
  const schedule = startSchedule(runner, entries);
  console.log(`schedule: ${entries.map((e) => `${e.name} at "${e.expr}"`).join(', ')} (Pacific/Auckland); exports into ${env.EXPORT_DIR}`);
  await stop;
  await schedule.stop();
  return 0;
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
class UsageError extends ExpectedError {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    // One line for every failure: the message of an error we expect (bad input, a locked export, …:
    // an ExpectedError, src/errors.ts) as is; anything else (a database error, a bug) described the
    // same way, with a hint for the stack, which DEBUG prints (read here, not through env.ts:
    // configuration itself may have failed).
    const known = e instanceof ExpectedError;
    const debug = Boolean(process.env.DEBUG);
    console.error(`error: ${describeFailure(e)}${known || debug ? '' : ' (set DEBUG=1 for the stack)'}`);
    if (debug) console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
