/**
 * Worker command line: `npm run worker -- <command>` (or `npm run ingest -- <file>...`).
 *
 *   ingest [--changes] <file.csv|file.ndjson>...   ingest observation files (README "Observation format")
 *   import [--force]                               import the real data in DATA_DIR (once; --force re-checks)
 *   migrate                                        apply pending SQL migrations
 *
 * Uses DATABASE_URL, or the embedded PostgreSQL when it is unset. Exits non-zero on any error,
 * printing the message (a malformed file names its line).
 */
import { loadEnv, ConfigError } from '../src/env.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { ingest } from './ingest/ingest.js';
import { ObservationError, readObservationFile } from './ingest/format.js';
import { importRealData, DataDirError } from './import/index.js';

const USAGE = `usage: npm run worker -- <command>
  ingest [--changes] <file.csv|file.ndjson>...   ingest observation files
  import                                         import the real data in DATA_DIR (skips what is already imported)
  migrate                                        apply pending SQL migrations`;

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
    switch (command) {
      case 'migrate':
        console.log('migrations applied');
        return 0;
      case 'ingest': {
        const mode = args.includes('--changes') ? 'changes' : 'snapshot';
        const files = args.filter((a) => !a.startsWith('--'));
        if (files.length === 0) throw new ObservationError('ingest needs at least one file');
        for (const file of files) {
          const r = await ingest(db.pool, readObservationFile(file), { mode, source: file });
          console.log(`${file}: ${r.rows} rows, ${r.days.length} days, ${r.merged.length} merged, ${r.skipped} chain-days already ingested`);
        }
        return 0;
      }
      case 'import': {
        const report = await importRealData(db.pool, env.DATA_DIR);
        console.log(JSON.stringify(report, null, 2));
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof ObservationError || e instanceof ConfigError || e instanceof DataDirError) console.error(`error: ${e.message}`);
    else console.error(e);
    process.exit(1);
  },
);
