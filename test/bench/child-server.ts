/**
 * The two halves of a bench child server's contract with its parent (test/bench/levels-server.ts,
 * test/bench/cache-server.ts): announce the listening port on stdout, and stop when the parent goes.
 */

/** Writes `{"port": n}` and a newline on stdout, the line the parent waits for. */
export function announce(port: number): void {
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}

/** Ends this process when the parent closes our stdin (it exited or killed us without a signal reaching us), or on SIGTERM/SIGINT, after `stop`. */
export function exitWithParent(stop: () => Promise<void>): void {
  const done = () => void stop().finally(() => process.exit(0));
  process.stdin.on('end', done);
  process.stdin.on('error', done);
  process.stdin.resume();
  process.once('SIGTERM', done);
  process.once('SIGINT', done);
}

/**
 * The `app` half of a bench child: the real server (facades/server.ts) over `databaseUrl`, logging
 * off, the per-IP budget lifted (or the contract's 300 a minute and 10,000 a day with `budget`
 * `'contract'`, for a bench whose every request comes from a client address of its own), the
 * response cache `cacheMaxBytes` (`'0'` measures the operations themselves), any `extraEnv`
 * settings (e.g. EXPORT_DIR, TRUST_PROXY), announced on stdout and stopped with the parent.
 * The database role is the worker's unless `role` says `api` (the API's pool bounds, as `npm start`).
 */
export async function serveApp(
  databaseUrl: string,
  cacheMaxBytes: string,
  extraEnv: Record<string, string> = {},
  role: 'api' | 'worker' = 'worker',
  budget: 'lifted' | 'contract' = 'lifted',
): Promise<void> {
  const { openDatabase } = await import('../../src/db/database.js');
  const { loadEnv } = await import('../../src/env.js');
  const { createServer } = await import('../../facades/server.js');
  const db = await openDatabase({ databaseUrl, embeddedDir: '', embeddedPort: 0, migrate: false, role });
  const env = loadEnv({ ...extraEnv, LOG_LEVEL: 'silent', NODE_ENV: 'production', CACHE_MAX_BYTES: cacheMaxBytes });
  const app = await createServer({ db, env, rateLimit: budget === 'lifted' ? { perMinute: 1e9, perDay: 1e9 } : {} });
  await app.listen({ port: 0, host: '127.0.0.1' });
  announce((app.server.address() as { port: number }).port);
  exitWithParent(async () => {
    await app.close();
    await db.close();
  });
}
