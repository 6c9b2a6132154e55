/**
 * Worker command line: `npm run worker -- <command>` (or `npm run ingest -- <file>...`).
 *
 * The commands are listed once, in COMMANDS below: their usage (`npm run worker -- --help`, and
 * `<command> --help` or `-h` on every command, which prints it and exits 0 without touching the
 * database) and what {@link main} accepts.
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
// Only what the usage and argument checks need is imported here; the database and the jobs are
// imported once a command is about to run (see main), so `--help` answers without loading them.
import { loadEnv, ConfigError, type Env } from '../src/env.js';
import type { Database } from '../src/db/database.js';
import { describeFailure } from '../src/db/embedded.js';
import { DEFAULT_THRESHOLD } from '../src/domain/matching.js';
import { INDEX_METHODS, parseIndexMethod } from '../src/domain/index-method.js';
import { ExpectedError } from '../src/errors.js';
import { COLLECTORS } from './collect/collectors.js';
import type { BasketCommand, LinkCommand } from './jobs/catalog.js';
import type { JobRunner } from './jobs/runner.js';

/** One argument or option of a command, as its usage prints it. */
interface Param {
  /** As typed: `<file>...`, `--threshold <0..1>`. */
  name: string;
  /** What it is or does. */
  text: string;
}

/** A command's usage: the one source of `--help`, the command list and the commands {@link main} accepts. */
interface CommandUsage {
  /** One line: what the command does. */
  summary: string;
  /** Positional arguments, in order. */
  args?: readonly Param[];
  /** Options (`--name` or `--name <value>`). */
  options?: readonly Param[];
  /** Further lines of the command's own help. */
  notes?: readonly string[];
}

const NOTE: Param = { name: '--note <text>', text: "a note kept in the listing's decision log" };
const LISTING: Param = { name: '<listingId>', text: 'listing id (as in /api/v1/listings/{id})' };
const PIPELINE = 'then matching, the search index (with ELASTICSEARCH_URL), basket matching, the index and the derived views';

/** Every command of the worker CLI, in the order `--help` lists them. */
const COMMANDS = {
  ingest: {
    summary: `ingest observation files (.csv, .ndjson), ${PIPELINE}`,
    args: [{ name: '<file>...', text: 'observation files (docs/ingest.md); a malformed file names its line' }],
    options: [
      { name: '--changes', text: 'each file is a change log covering each of its scopes' },
      { name: '--partial', text: 'only the rows given were observed (nothing else ended)' },
      { name: '--after-gap', text: "the days since each chain's last collection are unknown" },
    ],
  },
  import: { summary: `import the real data in DATA_DIR (skips what is already imported), ${PIPELINE}` },
  migrate: { summary: 'apply pending SQL migrations' },
  'search-reindex': { summary: 'rebuild the Elasticsearch index and swap the alias (needs ELASTICSEARCH_URL)' },
  match: {
    summary: 'link listings across chains (also run after ingest and import)',
    options: [
      { name: '--threshold <0..1>', text: `lowest confidence of a name link (default ${DEFAULT_THRESHOLD})` },
      { name: '--dry-run', text: 'report what would change, write nothing' },
    ],
  },
  link: {
    summary: 'link a listing to a product, locked (the matcher never overrides it)',
    args: [LISTING, { name: '<productId|new>', text: 'product id, or new: a product of the listing alone' }],
    options: [NOTE],
  },
  unlink: { summary: 'unlink a listing, locked (it stays unlinked on re-runs)', args: [LISTING], options: [NOTE] },
  lock: { summary: "pin a listing's current link (or unlinked state)", args: [LISTING], options: [NOTE] },
  unlock: { summary: 'hand a listing back to the matcher', args: [LISTING], options: [NOTE] },
  history: { summary: "print a listing's link decisions, oldest first (JSON)", args: [LISTING] },
  index: {
    summary: 'match listings to the basket, then compute the food price index (also run after ingest and import)',
    options: [
      { name: '--full', text: 'recompute every day (default: only the new days)' },
      { name: '--method <m>', text: `the items' method: ${INDEX_METHODS.join(' or ')} (default INDEX_METHOD); another method than the stored run's recomputes every day` },
    ],
  },
  'basket-match': {
    summary: 'match listings to basket items only',
    options: [{ name: '--dry-run', text: 'report what would change, write nothing' }],
  },
  'basket-add': {
    summary: "a curator's basket match (manual, locked)",
    args: [LISTING, { name: '<itemId>', text: 'basket item id (as in /api/v1/basket/{id})' }],
    options: [NOTE],
  },
  'basket-remove': { summary: 'remove a listing from the basket, locked (never re-added)', args: [LISTING], options: [NOTE] },
  'basket-lock': { summary: "pin a listing's basket state", args: [LISTING], options: [NOTE] },
  'basket-unlock': { summary: "hand a listing's basket state back to the matcher", args: [LISTING], options: [NOTE] },
  'basket-history': { summary: "print a listing's basket decisions, oldest first (JSON)", args: [LISTING] },
  views: {
    summary: 'rebuild the derived views (store, area and chain levels, deals) whose inputs changed',
    options: [{ name: '--full', text: 'rebuild every view' }],
  },
  export: { summary: 'write the nightly export (Parquet + CSV) into EXPORT_DIR and publish it as latest' },
  'import-export': {
    summary: 'load an export into an empty instance, verifying every file first',
    args: [{ name: '<folder|manifest-url>', text: 'an export folder (or its latest link), or the URL of its manifest.json' }],
  },
  start: {
    summary: 'the worker process (what npm start supervises): import into an empty database or bring the index and views up to date, then the schedule',
    notes: ['Runs until SIGINT or SIGTERM (or until its supervisor goes away).'],
  },
  schedule: {
    summary: 'run the schedule only: the index on INDEX_CRON, the export on EXPORT_CRON, collections on COLLECT_CRON',
    notes: ['Cron expressions in Pacific/Auckland; COLLECT_<RETAILER>_CRON overrides COLLECT_CRON per chain; "off" disables one.'],
  },
  collect: {
    summary: "collect the chains' online shop prices, then match, fetch new images and index",
    args: [{ name: '<retailer|all>', text: `a chain (${COLLECTORS.map((c) => c.retailer).join(', ')}) or all` }],
    options: [
      { name: '--stores <id,…>', text: 'only these stores (our store ids)' },
      { name: '--origin <URL>', text: 'the shop origin (default COLLECT_<RETAILER>_ORIGIN, else the live site)' },
      { name: '--image-origin <URL>', text: 'download product images from this origin (default COLLECT_IMAGE_ORIGIN)' },
      { name: '--day <YYYY-MM-DD>', text: 'the NZ day collected (default today; never after today)' },
    ],
  },
  images: {
    summary: "download each new product image once, convert it to AVIF (720 px and a 200 px thumbnail) in IMAGE_DIR and set the listings' image paths",
    options: [
      { name: '--limit <n>', text: 'at most n images this run' },
      { name: '--concurrency <n>', text: 'downloads in flight (default 4)' },
    ],
  },
} as const satisfies Record<string, CommandUsage>;

/** A command {@link main} knows. */
type Command = keyof typeof COMMANDS;

function isCommand(name: string): name is Command {
  return Object.hasOwn(COMMANDS, name);
}

/** `<name> <args> [options]`: the command as typed. */
function synopsis(name: Command): string {
  const u: CommandUsage = COMMANDS[name];
  return [name, ...(u.args ?? []).map((a) => a.name), ...(u.options ?? []).map((o) => `[${o.name}]`)].join(' ');
}

/** Aligned `name  text` lines under a heading. */
function section(heading: string, params: readonly Param[]): string[] {
  if (params.length === 0) return [];
  const width = Math.max(...params.map((p) => p.name.length));
  return ['', `${heading}:`, ...params.map((p) => `  ${p.name.padEnd(width)}  ${p.text}`)];
}

/** The usage of the whole CLI: every command with its one-line summary. */
function usage(): string {
  return [
    'usage: npm run worker -- <command> [arguments] [options]',
    '       npm run worker -- <command> --help    (or -h, or: help <command>) for one command',
    '',
    'commands:',
    ...(Object.keys(COMMANDS) as Command[]).flatMap((name) => [`  ${synopsis(name)}`, `      ${COMMANDS[name].summary}`]),
  ].join('\n');
}

/** The usage of one command: how to type it, what it does, its arguments and options. */
function commandUsage(name: Command): string {
  const u: CommandUsage = COMMANDS[name];
  return [
    `usage: npm run worker -- ${synopsis(name)}`,
    '',
    u.summary,
    ...section('arguments', u.args ?? []),
    ...section('options', [...(u.options ?? []), { name: '-h, --help', text: 'print this help' }]),
    ...(u.notes?.length ? ['', ...u.notes] : []),
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command) {
    console.error(usage());
    return 2;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    const topic = args[0];
    if (topic === undefined) console.log(usage());
    else if (isCommand(topic)) console.log(commandUsage(topic));
    else {
      console.error(`unknown command "${topic}"\n${usage()}`);
      return 2;
    }
    return 0;
  }
  if (!isCommand(command)) {
    console.error(`unknown command "${command}"\n${usage()}`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    console.log(commandUsage(command));
    return 0;
  }
  // Checked before the configuration and the database: a bad value fails at once, saying why.
  const methodArg = command === 'index' ? option(args, '--method') : undefined;
  const indexMethod = methodArg === undefined ? undefined : parseIndexMethod(methodArg, '--method');
  const env = loadEnv();
  const [
    { openDatabase },
    { ObservationError },
    { LinkCommandError, linkHistory },
    { BasketCommandError, basketHistory },
    { basketCommandJob, basketMatchJob, exportJob, imagesJob, linkJob, matchJob, searchReindexJob, searchSyncJob, viewsJob },
    { runPipeline },
    { JobRunner },
  ] = await Promise.all([
    import('../src/db/database.js'),
    import('./ingest/format.js'),
    import('./match/admin.js'),
    import('./index/admin.js'),
    import('./jobs/catalog.js'),
    import('./jobs/pipeline.js'),
    import('./jobs/runner.js'),
  ]);
  let db: Database | null = null;
  try {
    db = await openDatabase({
      databaseUrl: env.DATABASE_URL,
      embeddedDir: env.EMBEDDED_PG_DIR,
      embeddedPort: env.EMBEDDED_PG_PORT,
      role: 'worker',
      statementTimeoutMs: env.WORKER_STATEMENT_TIMEOUT_MS,
    });
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
        await runPipeline(runner, { source: { kind: 'none' }, full: args.includes('--full'), method: indexMethod });
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
      default: {
        const unhandled: never = command; // every command of COMMANDS has its case (a type error otherwise)
        throw new Error(`command "${String(unhandled)}" is listed but not handled`);
      }
    }
  } finally {
    await db?.close();
  }
}

/**
 * The worker process (`start`: what `npm start` supervises): start-up (./jobs/startup.ts), then the
 * schedule (./jobs/schedule.ts) until SIGINT/SIGTERM, or until its supervisor goes away (the IPC
 * channel closes). `schedule` skips start-up. Resolves 0 at once after start-up when nothing is
 * scheduled (every *_CRON is off).
 */
async function runWorker(runner: JobRunner, env: Env, opts: { startup: boolean }): Promise<number> {
  const [{ scheduleEntries, startSchedule }, { startup }] = await Promise.all([import('./jobs/schedule.js'), import('./jobs/startup.js')]);
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
