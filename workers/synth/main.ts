/**
 * `npm run synth -- --stores 500 --listings 20000 --days 365 [--database URL] [--replace]
 * [--no-stats] [--views]`: writes the national SYNTHETIC panel (./panel.ts) into a database of its
 * own. Without `--database`, the database `synthetic` on DATABASE_URL's server (else
 * TEST_DATABASE_URL's, else the service's embedded PostgreSQL of EMBEDDED_PG_DIR: the one `npm
 * start` runs, or one started for the command and stopped after it), created when missing; either
 * way migrated with the project's runner (src/db/migrate.ts) first. `--views` also builds the
 * derived views (workers/views/run.ts, full); otherwise the command is printed. Exit code 2 when
 * the database holds real data (nothing written).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
// database.ts also installs the project's type parsers (DATE as 'YYYY-MM-DD' text) the views need.
import { DEFAULT_EMBEDDED_PG_PORT } from '../../src/db/database.js';
import { openEmbeddedPostgres, type EmbeddedServer } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';
import { loadEnv } from '../../src/env.js';
import { runViews } from '../views/run.js';
import { generatePanel, SynthRefusedError } from './panel.js';

const USAGE = `usage: npm run synth -- --stores <n> --listings <n per chain> --days <n> [--start YYYY-MM-DD]
       [--database URL] [--replace] [--no-stats] [--views]`;

/**
 * The server to write to: DATABASE_URL's, else TEST_DATABASE_URL's, else the service's embedded
 * PostgreSQL (attached when `npm start` runs it; else started here, `embedded.owned`, and stopped
 * by the caller).
 */
async function server(): Promise<{ url: string; embedded: EmbeddedServer | null }> {
  const given = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (given) return { url: given, embedded: null };
  const env = loadEnv();
  const embedded = await openEmbeddedPostgres(env.EMBEDDED_PG_DIR, env.EMBEDDED_PG_PORT ?? DEFAULT_EMBEDDED_PG_PORT, {
    anyFreePort: env.EMBEDDED_PG_PORT === undefined,
  });
  console.log(`server: the embedded PostgreSQL of ${env.EMBEDDED_PG_DIR} (${embedded.owned ? 'started for this command' : `npm start's, pid ${embedded.pid}`}, port ${embedded.port})`);
  return { url: embedded.url, embedded };
}

/** The target database's URL: `--database`, else `synthetic` on `serverUrl`'s server (created when missing). */
async function targetUrl(given: string | undefined, serverUrl: () => Promise<string>): Promise<string> {
  if (given) return given;
  const server = await serverUrl();
  const url = new URL(server);
  const admin = new pg.Client({ connectionString: server, connectionTimeoutMillis: 30_000 });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', ['synthetic']);
    if (!exists.rowCount) {
      await admin.query('CREATE DATABASE synthetic');
      console.log(`created database synthetic on ${url.host}`);
    }
  } finally {
    await admin.end();
  }
  url.pathname = '/synthetic';
  return url.toString();
}

/** Runs the command; @returns the exit code. */
async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      stores: { type: 'string' }, listings: { type: 'string' }, days: { type: 'string' }, start: { type: 'string' },
      database: { type: 'string' }, replace: { type: 'boolean' }, 'no-stats': { type: 'boolean' }, views: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const int = (v: string | undefined, name: string, def: number) => {
    const n = v === undefined ? def : Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer\n${USAGE}`);
    return n;
  };
  const opts = {
    stores: int(values.stores, 'stores', 500), listings: int(values.listings, 'listings', 20000), days: int(values.days, 'days', 365),
    start: values.start, stats: !values['no-stats'], replace: values.replace ?? false,
  };
  let embedded: EmbeddedServer | null = null;
  const url = await targetUrl(values.database, async () => {
    const s = await server();
    embedded = s.embedded;
    return s.url;
  });
  const shown = new URL(url);
  shown.password = shown.password ? '***' : '';
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const t0 = performance.now();
  try {
    const applied = await migrate(pool);
    if (applied.length) console.log(`migrated ${shown}: ${applied.length} migrations`);
    console.log(`SYNTHETIC panel (generated, not real prices): ${opts.stores} stores, ${opts.listings} listings per chain, ${opts.days} days → ${shown}`);
    const r = await generatePanel(pool, opts, (line) => console.log(`  ${line}`));
    const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
    console.log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${r.start} … ${r.lastDay}`);
    console.log(`  tables: ${Object.entries(r.bytes).sort((a, b) => b[1] - a[1]).map(([t, b]) => `${t} ${mib(b)}`).join(', ')}`);
    if (values.views) {
      const t = performance.now();
      const v = await runViews(pool, { full: true });
      console.log(`  derived views built in ${((performance.now() - t) / 1000).toFixed(1)} s (${Object.keys(v.views).join(', ')})`);
    } else {
      const stops = (embedded as EmbeddedServer | null)?.owned ? ' (while the server runs: this command stopped the one it started; or add --views)' : '';
      console.log(`  derived views: DATABASE_URL='${shown}' npm run worker -- views --full${stops}`);
    }
    return 0;
  } catch (e) {
    if (e instanceof SynthRefusedError) {
      console.error(`refused: ${e.message}`);
      return 2;
    }
    throw e;
  } finally {
    await pool.end();
    await (embedded as EmbeddedServer | null)?.stop();
  }
}

/** A failure as one line for the command's user (no stack trace); PostgreSQL's "database does not exist" with what the command expects. */
function failure(e: unknown): string {
  const err = e as { code?: string; message?: string };
  if (err?.code === '3D000') {
    return `${err.message}: DATABASE_URL (or TEST_DATABASE_URL) names the server through a database that exists (e.g. postgres); the panel goes into the database "synthetic" on it, created when missing, or into --database`;
  }
  return err?.message ?? String(e);
}

// An explicit exit, as workers/cli.ts: the embedded server's package hooks the process's exit
// (async-exit-hook) and would end it with 0 whatever the exit code set here.
const code = await main(process.argv.slice(2)).catch((e: unknown) => {
  console.error(`synth failed: ${failure(e)}`);
  return 1;
});
process.exit(code);
