/**
 * The database of the benches on the national SYNTHETIC panel (synth.ts, suggest-synth.ts,
 * national.ts): `--database URL` when given; else the database `synthetic` on the benches' server
 * (test/bench/server.ts: TEST_DATABASE_URL's, else DATABASE_URL's, else a throwaway embedded
 * PostgreSQL).
 *
 * On a server the bench was pointed at, `synthetic` must already hold the panel (`npm run synth`, and
 * for national.ts also `npm run worker -- match` and `index --full`); this module says so when the
 * database is missing, the bench when it holds no panel. On the throwaway server nothing could have
 * filled it, so a SMALL panel is generated there first, with the synth's own code
 * (workers/synth/panel.ts, into a database `synthetic` opened and migrated as the workers open theirs:
 * src/db/database.ts, whose type parsers they rely on): BENCH_PANEL_STORES stores (default 20),
 * BENCH_PANEL_LISTINGS listings per chain (default 2,000) over BENCH_PANEL_DAYS days (default 30).
 * With `derived` (national.ts) it is then linked, matched to the basket, indexed and its derived views
 * built, as `npm run worker -- match` then `index --full` do (workers/jobs/pipeline.ts: matching,
 * basket matching, the index, the views). The figures of such a run describe that small panel, not the
 * national one: for national-scale figures, fill a server with `npm run synth` and point
 * TEST_DATABASE_URL (or `--database`) at it.
 */
import pg from 'pg';
import { runBasketMatching } from '../../workers/index/match.js';
import { runIndex } from '../../workers/index/compute.js';
import { runMatching } from '../../workers/match/match.js';
import { generatePanel } from '../../workers/synth/panel.js';
import { runViews } from '../../workers/views/run.js';
import { benchServer } from './server.js';

/** A positive integer from the environment, else `dflt`. @throws Error when set to anything else. */
function size(name: string, dflt: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, not "${v}"`);
  return n;
}

/**
 * The URL of the panel's database (see the module comment): `given`, else `synthetic` on the
 * benches' server, generated first on the throwaway server.
 * @param opts.derived also link, basket-match, index and build the views of a generated panel
 */
export async function panelDatabase(given: string | undefined, opts: { derived: boolean }): Promise<string> {
  if (given) return given;
  const server = await benchServer({ databaseUrl: true });
  const url = Object.assign(new URL(server.adminUrl), { pathname: '/synthetic' }).toString();
  if (!server.throwaway) {
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'synthetic'");
      if (!found.rowCount) {
        throw new Error(
          `no database synthetic on ${server.label}'s server: fill it with \`npm run synth\` (then \`npm run worker -- match\` and ` +
            '`index --full` for bench:national), pass --database URL, or unset TEST_DATABASE_URL and DATABASE_URL for a small ' +
            'panel on a throwaway server',
        );
      }
    } finally {
      await admin.end();
    }
    return url;
  }

  const stores = size('BENCH_PANEL_STORES', 20);
  const listings = size('BENCH_PANEL_LISTINGS', 2000);
  const days = size('BENCH_PANEL_DAYS', 30);
  const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
  const t0 = performance.now();
  const secs = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  log(`generating a small SYNTHETIC panel on the throwaway server: ${stores} stores, ${listings} listings per chain, ${days} days ` +
    '(BENCH_PANEL_STORES, BENCH_PANEL_LISTINGS, BENCH_PANEL_DAYS)…');
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE synthetic');
  } finally {
    await admin.end();
  }
  // Imported here: src/db/database.ts sets pg's type parsers for the whole process (days as text,
  // as the workers expect), which a bench on a server of its own has never had.
  const { openDatabase } = await import('../../src/db/database.js');
  const db = await openDatabase({ databaseUrl: url, embeddedDir: '', embeddedPort: 0 });
  const pool = db.pool;
  try {
    await generatePanel(pool, { stores, listings, days });
    log(`  panel written (${secs()})`);
    if (opts.derived) {
      await runMatching(pool, { progress: false });
      await runBasketMatching(pool, { progress: false });
      await runIndex(pool, { full: true, progress: false });
      await runViews(pool, { full: true, progress: false });
      log(`  matched, basket-matched, indexed, derived views built (${secs()})`);
    }
  } finally {
    await db.close();
  }
  return url;
}
