/**
 * Database handles for one process: a `pg` pool (bulk SQL, COPY, analytical reads) and a Prisma
 * client on the same server through `@prisma/adapter-pg`.
 */
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { openEmbeddedPostgres, type EmbeddedServer } from './embedded.js';
import { migrate } from './migrate.js';

// DATE columns come back as 'YYYY-MM-DD' strings (NZ calendar days), never as shifted JS Dates.
pg.types.setTypeParser(pg.types.builtins.DATE, (v: string) => v);
// BIGINT (GTINs, span ids) as JS numbers: GTINs have at most 14 digits, well inside 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

/** Open connections of one process. */
export interface Database {
  url: string;
  pool: pg.Pool;
  prisma: PrismaClient;
  /**
   * The embedded server in use (null with DATABASE_URL): `owned` says whether this process started
   * it or attached to the one another process runs on the same data directory.
   */
  embedded: Omit<EmbeddedServer, 'stop' | 'url'> | null;
  /** Closes the pool, the Prisma client and the embedded server if this process started it (never one it attached to). */
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
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {}); // idle-client errors surface on the next query instead
  try {
    if (opts.migrate !== false) await migrate(pool);
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
  return {
    url,
    pool,
    prisma,
    embedded: embedded && { dir: embedded.dir, pid: embedded.pid, port: embedded.port, owned: embedded.owned },
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
      await embedded?.stop();
    },
  };
}
