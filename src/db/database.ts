/**
 * Database handles for one process: a `pg` pool (bulk SQL, COPY, analytical reads) and a Prisma
 * client on the same server through `@prisma/adapter-pg`.
 *
 * **Every wait on the database is bounded, per role** (issue 29: with PostgreSQL stopped, every
 * client hung for as long as it was stopped). The pool's connections carry time bounds chosen by
 * the process's role ({@link DatabaseRole}, {@link poolTimeouts}): the API's are seconds, so a hung
 * or overloaded database turns into 503s within seconds and the pool recovers by itself once the
 * server answers (a connection whose query timed out is discarded, not reused); the worker's are
 * long enough for its heaviest statements. Migrations at start-up run on a connection with the
 * worker's bounds, whatever the role.
 */
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { openEmbeddedPostgres, type EmbeddedServer } from './embedded.js';
import { superviseEmbedded, type DatabaseState, type EmbeddedSupervisorLog } from './embedded-supervisor.js';
import { migrate } from './migrate.js';

export type { DatabaseState } from './embedded-supervisor.js';

// DATE columns come back as 'YYYY-MM-DD' strings (NZ calendar days), never as shifted JS Dates.
pg.types.setTypeParser(pg.types.builtins.DATE, (v: string) => v);
// BIGINT (GTINs, span ids) as JS numbers: GTINs have at most 14 digits, well inside 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

/**
 * Who uses the connections: `api` (the HTTP server: short reads; a request must get an answer, a
 * 503 if need be, within seconds) or `worker` (jobs, the CLI, tests' fixtures: long statements,
 * waits for a job lock by design).
 */
export type DatabaseRole = 'api' | 'worker';

/** The time bounds of one role's connections, in milliseconds (0: none). */
export interface PoolTimeouts {
  /** Wait for a connection: a new one to be established, or a free one of a full pool (pg `connectionTimeoutMillis`). */
  connectMs: number;
  /** Server side: a statement running longer is canceled (SQLSTATE 57014). */
  statementMs: number;
  /** Server side: a wait for a lock longer than this fails (55P03); 0: only `statementMs` bounds it. */
  lockMs: number;
  /** Server side: a session idle inside a transaction this long is ended (25P03). */
  idleInTransactionMs: number;
  /**
   * Client side (pg `query_timeout`): the query fails when no answer came within this, the bound
   * that holds when the server answers nothing at all (stopped, unreachable); a little longer than
   * `statementMs`, so a merely slow statement is canceled by the server first.
   */
  queryMs: number;
}

/** The API's default statement bound (API_STATEMENT_TIMEOUT_MS). */
export const API_STATEMENT_TIMEOUT_MS = 3_000;

/** The worker's default statement bound (WORKER_STATEMENT_TIMEOUT_MS): one hour. */
export const WORKER_STATEMENT_TIMEOUT_MS = 3_600_000;

/**
 * The time bounds of `role`, with its statement bound `statementMs` (default
 * {@link API_STATEMENT_TIMEOUT_MS} or {@link WORKER_STATEMENT_TIMEOUT_MS}):
 *
 * - api: connect 2 s (a healthy PostgreSQL accepts in milliseconds; also bounds the wait for a
 *   free connection of a full pool, so overload is a quick 503 and not a queue), statement 3 s
 *   (cached answers aside, the slowest operations take about a second on the national-scale
 *   synthetic panel), lock 2 s (a read waits only behind a job's brief table swap), idle in a
 *   transaction 10 s (the API holds none open), query (client) statement + 0.5 s. So a request on
 *   a stopped server is answered 503 within about 3.5 s.
 * - worker: connect 10 s, statement 1 h (a national ingest or a derived view can take tens of
 *   minutes), no lock bound (jobs wait for each other's advisory locks on purpose; the statement
 *   bound still holds), idle in a transaction as long as a statement, query (client) statement +
 *   1 min.
 */
export function poolTimeouts(role: DatabaseRole, statementMs?: number): PoolTimeouts {
  if (role === 'api') {
    const statement = statementMs ?? API_STATEMENT_TIMEOUT_MS;
    return { connectMs: 2_000, statementMs: statement, lockMs: Math.min(2_000, statement), idleInTransactionMs: 10_000, queryMs: statement + 500 };
  }
  const statement = statementMs ?? WORKER_STATEMENT_TIMEOUT_MS;
  return { connectMs: 10_000, statementMs: statement, lockMs: 0, idleInTransactionMs: statement, queryMs: statement + 60_000 };
}

/**
 * The `pg` pool configuration of `role` on `url`: the bounds of {@link poolTimeouts} (the server-side
 * ones sent as connection parameters, so they hold for every statement of every connection),
 * `application_name` `nzgp-<role>` (visible in `pg_stat_activity`), TCP keep-alive.
 */
export function poolConfig(url: string, role: DatabaseRole, timeouts: PoolTimeouts, max: number): pg.PoolConfig {
  return {
    connectionString: url,
    max,
    application_name: `nzgp-${role}`,
    keepAlive: true,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    query_timeout: timeouts.queryMs,
  };
}

/** Open connections of one process. */
export interface Database {
  /** The database URL (after a restart of the embedded server on another port, the new one). */
  url: string;
  pool: pg.Pool;
  prisma: PrismaClient;
  /**
   * The embedded server in use (null with DATABASE_URL): `owned` says whether this process started
   * it or attached to the one another process runs on the same data directory.
   */
  embedded: Omit<EmbeddedServer, 'stop' | 'url'> | null;
  /** The role the pool's time bounds were chosen for. */
  role: DatabaseRole;
  /** The pool's time bounds. */
  timeouts: PoolTimeouts;
  /** Embedded or external, up or restarting, restarts so far (see {@link OpenOptions.supervise}). */
  state(): DatabaseState;
  /**
   * Stops supervising, closes the pool, the Prisma client and the embedded server if this process
   * started it (never one it attached to).
   */
  close(): Promise<void>;
}

/** The embedded server's port when EMBEDDED_PG_PORT is unset and the port is free. */
export const DEFAULT_EMBEDDED_PG_PORT = 54329;

/** Options for {@link openDatabase}. */
export interface OpenOptions {
  databaseUrl?: string;
  embeddedDir: string;
  /** Port of an embedded server started here; undefined: {@link DEFAULT_EMBEDDED_PG_PORT}, or any free port when it is taken. */
  embeddedPort?: number;
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** Called with every SQL text Prisma runs (tests count queries with it). */
  onQuery?: (sql: string) => void;
  /** Whose connections these are (default `worker`: the CLI, jobs and test fixtures; the API passes `api`). */
  role?: DatabaseRole;
  /** The role's statement bound, ms (API_STATEMENT_TIMEOUT_MS / WORKER_STATEMENT_TIMEOUT_MS; default per role). */
  statementTimeoutMs?: number;
  /** The pool's size (default 10). */
  maxConnections?: number;
  /**
   * Supervise the embedded server (src/db/embedded-supervisor.ts): when it is gone, start it again
   * on the same port with backoff, logging to `log`. Ignored with `databaseUrl`. The API process
   * passes it; the worker does not (it reconnects to the server the API starts again).
   */
  supervise?: { log?: EmbeddedSupervisorLog };
}

/**
 * Connects to `databaseUrl`, or, when it is unset, to the embedded PostgreSQL of `embeddedDir`:
 * the server already running there (e.g. `npm start`'s, whatever its port) or else one it starts
 * on `embeddedPort` (see `openEmbeddedPostgres`); then applies migrations.
 * @throws EmbeddedPostgresError when the embedded server cannot be started or reached; the
 *   database error when the server is unreachable or a migration fails.
 */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  let embedded: EmbeddedServer | null = null;
  let url = opts.databaseUrl;
  if (!url) {
    embedded = await openEmbeddedPostgres(opts.embeddedDir, opts.embeddedPort ?? DEFAULT_EMBEDDED_PG_PORT, { anyFreePort: opts.embeddedPort === undefined });
    url = embedded.url;
  }
  const role = opts.role ?? 'worker';
  const timeouts = poolTimeouts(role, opts.statementTimeoutMs);
  const pool = new pg.Pool(poolConfig(url, role, timeouts, opts.maxConnections ?? 10));
  pool.on('error', () => {}); // idle-client errors surface on the next query instead
  try {
    if (opts.migrate !== false) {
      // A migration may build an index over a large table: the worker's bounds, whatever the role.
      const migrations = new pg.Pool(poolConfig(url, role, poolTimeouts('worker'), 2));
      migrations.on('error', () => {});
      try {
        await migrate(migrations);
      } finally {
        await migrations.end().catch(() => {});
      }
    }
  } catch (e) {
    await pool.end();
    await embedded?.stop();
    throw e;
  }
  const adapter = new PrismaPg(pool as never);
  const prisma = new PrismaClient({
    adapter,
    log: opts.onQuery ? [{ emit: 'event', level: 'query' }] : [],
  });
  if (opts.onQuery) {
    const cb = opts.onQuery;
    (prisma as unknown as { $on(e: 'query', f: (ev: { query: string }) => void): void }).$on('query', (ev) => cb(ev.query));
  }
  const info = embedded && { dir: embedded.dir, pid: embedded.pid, port: embedded.port, owned: embedded.owned };
  const db: Database = {
    url,
    pool,
    prisma,
    embedded: info,
    role,
    timeouts,
    state: () => ({ kind: embedded ? 'embedded' : 'external', state: 'up', restarts: 0 }),
    async close() {
      await supervisor?.stop();
      await prisma.$disconnect();
      await pool.end().catch(() => {});
      await (supervisor?.server() ?? embedded)?.stop();
    },
  };
  const supervisor =
    embedded && opts.supervise
      ? superviseEmbedded({
          server: embedded,
          log: opts.supervise.log,
          onRestart: (next) => {
            Object.assign(info!, { pid: next.pid, port: next.port, owned: next.owned });
            if (next.url !== db.url) {
              // Another process started the server on another port: new connections go there (pg
              // reads the pool's options for every new client; the data-version watch reads them too).
              db.url = next.url;
              (pool.options as pg.PoolConfig).connectionString = next.url;
            }
          },
        })
      : null;
  if (supervisor) db.state = () => supervisor.state();
  return db;
}
