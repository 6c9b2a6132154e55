/**
 * Worker command line: `npm run worker -- <command>` (or `npm run ingest -- <file>...`).
 *
 *   ingest [--changes] <file.csv|file.ndjson>...   ingest observation files (README "Observation format")
 *   import [--force]                               import the real data in DATA_DIR (once; --force re-checks)
 *   migrate                                        apply pending SQL migrations
 *   search-reindex                                 rebuild the Elasticsearch index and swap ELASTICSEARCH_ALIAS to it
 *
 * Uses DATABASE_URL, or the embedded PostgreSQL when it is unset. Exits non-zero on any error,
 * printing the message (a malformed file names its line).
 *
 * With ELASTICSEARCH_URL set, `ingest` also updates the search index incrementally once every file
 * is ingested: the listings each file touched are queued, then written to ELASTICSEARCH_ALIAS (when
 * Elasticsearch fails, the data stays ingested, the listings stay queued for the next run, and the
 * command exits non-zero).
 */
import { loadEnv, ConfigError } from '../src/env.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { ingest } from './ingest/ingest.js';
import { ObservationError, readObservationFile } from './ingest/format.js';
import { importRealData, DataDirError } from './import/index.js';
import { createElasticsearchClient, describeError } from '../src/search/elasticsearch/client.js';
import { ReindexError, reindexListings } from './search/reindex.js';
import { enqueueListings, syncPendingListings } from './search/sync.js';
import { IndexBusyError } from './search/lock.js';

const USAGE = `usage: npm run worker -- <command>
  ingest [--changes] <file.csv|file.ndjson>...   ingest observation files
  import                                         import the real data in DATA_DIR (skips what is already imported)
  migrate                                        apply pending SQL migrations
  search-reindex                                 rebuild the Elasticsearch index (needs ELASTICSEARCH_URL)`;

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
          if (env.ELASTICSEARCH_URL) await enqueueListings(db.pool, r.listingIds);
        }
        if (env.ELASTICSEARCH_URL) {
          const client = createElasticsearchClient({ url: env.ELASTICSEARCH_URL, requestTimeoutMs: 120_000, maxRetries: 3 });
          try {
            const s = await syncPendingListings({ pool: db.pool, client, alias: env.ELASTICSEARCH_ALIAS });
            if (s.skipped === 'no-index') {
              console.log(`search index: alias "${env.ELASTICSEARCH_ALIAS}" does not exist yet, ${s.pending} listings queued (run: npm run worker -- search-reindex)`);
            } else {
              console.log(`search index: ${s.indexed} listings written, ${s.deleted} removed`);
            }
          } catch (e) {
            throw new SearchUpdateError(`search index update failed, the ingested listings stay queued for the next ingest or search-reindex: ${describeError(e)}`);
          } finally {
            await client.close();
          }
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
        console.log(JSON.stringify(report, null, 2));
        // An import writes listings in bulk: rebuild the Elasticsearch index rather than queue them.
        if (env.ELASTICSEARCH_URL) await reindex(env.ELASTICSEARCH_URL, env.ELASTICSEARCH_ALIAS, db);
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
  } finally {
    await client.close();
  }
}

/** A search index write failed (the message says what state the index and the outbox are in). */
class SearchUpdateError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof ObservationError || e instanceof ConfigError || e instanceof DataDirError || e instanceof SearchUpdateError || e instanceof IndexBusyError || e instanceof ReindexError) {
      console.error(`error: ${e.message}`);
    }
    else console.error(e);
    process.exit(1);
  },
);
