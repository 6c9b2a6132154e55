/**
 * HTTP servers for the levels bench (test/bench/levels.ts), each run in a child process of its own
 * so that the bench's client and the server under test do not share an event loop:
 *
 * - `app <database url>`: the real server (facades/server.ts createServer) over the bench's scratch
 *   database (already migrated: no migration, no import), logging off, the per-IP budget raised out
 *   of the way (one client sends every request of the bench).
 * - `bare`: the anchor, a bare `node:http` server answering `GET /bytes/<n>` with a JSON body of
 *   exactly n bytes (built once per size) and the same kind of headers as the API (JSON content
 *   type, Cache-Control, CORS), keep-alive as Node's default.
 *
 * Each prints one line `{"port": N}` on stdout once it listens on 127.0.0.1 (a free port), and
 * stops on SIGTERM or when its parent goes away (stdin closes).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, exitWithParent, serveApp } from './child-server.js';

const [mode, url] = process.argv.slice(2);

if (mode === 'bare') {
  const bodies = new Map<number, Buffer>();
  const body = (n: number) => {
    let b = bodies.get(n);
    if (!b) {
      const pad = Math.max(0, n - '{"pad":""}'.length);
      b = Buffer.from(`{"pad":"${'x'.repeat(pad)}"}`);
      bodies.set(n, b);
    }
    return b;
  };
  const server = http.createServer((req, res) => {
    const m = /^\/bytes\/(\d{1,9})$/.exec(req.url ?? '');
    const b = body(m ? Number(m[1]) : 2);
    res.writeHead(m ? 200 : 404, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': b.length,
      'cache-control': 'public, max-age=300',
      'access-control-allow-origin': '*',
    });
    res.end(b);
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
  exitWithParent(() => new Promise((resolve) => server.close(() => resolve())));
} else if (mode === 'app' && url) {
  // The operations themselves, not the response cache (npm run bench:cache measures that).
  await serveApp(url, '0');
} else {
  console.error('usage: levels-server.ts bare | app <database url>');
  process.exit(2);
}
