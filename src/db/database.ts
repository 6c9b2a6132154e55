/**
 * Database handles for one process: a `pg` pool (bulk SQL, COPY, analytical reads) and a Prisma
 * client on the same server through `@prisma/adapter-pg`.
 */
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded.js';
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
  /** Closes the pool, the Prisma client and any embedded server. */
  close(): Promise<void>;
}

/** Options for {@link openDatabase}. */
export interface OpenOptions {
  databaseUrl?: string;
  embeddedDir: string;
  embeddedPort: number;
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** Called with every SQL text Prisma runs (tests count queries with it). */
  onQuery?: (sql: string) => void;
}

/**
 * Connects to `databaseUrl`, or starts the embedded server when it is unset, then applies migrations.
 * @throws when the server is unreachable or a migration fails.
 */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  let embedded: EmbeddedServer | null = null;
  let url = opts.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(opts.embeddedDir, opts.embeddedPort);
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
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
      await embedded?.stop();
    },
  };
}
