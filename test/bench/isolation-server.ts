/**
 * The API server of the isolation bench (test/bench/isolation.ts), in a child process of its own so
 * that the load client and the server under test do not share an event loop:
 *
 * `app <database url> <on|off>`: the real server (facades/server.ts createServer) over the bench's
 * database with the API's database role (the pool of ten with the API's bounds, as `npm start`),
 * the response cache off (every request runs GraphQL and SQL), logging off, the per-IP budget out of
 * the way, and the concurrency bounds of facades/concurrency.ts on (their defaults) or off
 * (CONCURRENCY_LIMITS=off: every request runs at once, as before issue 29 item 3). Other
 * CONCURRENCY_* variables of this process's environment are passed on (to try other bounds).
 *
 * It prints one line `{"port": N}` on stdout once it listens on 127.0.0.1, and stops on SIGTERM or
 * when its parent goes away (stdin closes).
 */
import { serveApp } from './child-server.js';

const [mode, url, limits] = process.argv.slice(2);

if (mode === 'app' && url && (limits === 'on' || limits === 'off')) {
  const bounds = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('CONCURRENCY_') && e[1] !== undefined));
  await serveApp(url, '0', { ...bounds, CONCURRENCY_LIMITS: limits }, 'api');
} else {
  console.error('usage: isolation-server.ts app <database url> <on|off>');
  process.exit(2);
}
