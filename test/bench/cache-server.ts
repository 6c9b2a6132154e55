/**
 * HTTP servers for the response-cache bench (test/bench/cache.ts), each in a child process of its
 * own so that the load client and the server under test do not share an event loop:
 *
 * - `app <database url> <cache bytes> [distinct|one]`: the real server (facades/server.ts
 *   createServer) over the bench's database, logging off, CACHE_MAX_BYTES as given (0: the cache
 *   off). `distinct` (the default): TRUST_PROXY=true and the contract's per-IP budget (300 a minute,
 *   10,000 a day), the client address of each request being its X-Forwarded-For — the bench sends a
 *   new one per request, so the budget's bookkeeping of a new client is on the measured path.
 *   `one`: the socket address is the client (TRUST_PROXY off) and the budget is raised out of the
 *   way (one client sends every request).
 * - `bare <file>…`: the anchor, a bare `node:http` server answering `GET /<i>` with the bytes of
 *   the i-th file (the very bytes the API answered for the bench's i-th URL), with the headers of
 *   `<file>.headers.json` when there is one (the API's own, as answered), else the API's kind of
 *   headers (JSON type, Cache-Control, CORS, ETag, Vary), keep-alive as Node's default.
 *
 * Each prints one line `{"port": N}` on stdout once it listens on 127.0.0.1 (a free port), and
 * stops on SIGTERM or when its parent goes away (stdin closes).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, exitWithParent, serveApp } from './child-server.js';

const [mode, ...args] = process.argv.slice(2);

if (mode === 'bare') {
  const few = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'public, max-age=300',
    'access-control-allow-origin': '*',
    etag: '"0123456789012345678901234567"',
    vary: 'Accept-Encoding',
  };
  const answers = args.map((f) => {
    const body = fs.readFileSync(f);
    const headers = fs.existsSync(`${f}.headers.json`) ? (JSON.parse(fs.readFileSync(`${f}.headers.json`, 'utf8')) as Record<string, string>) : few;
    return { body, headers: { ...headers, 'content-length': String(body.length) } };
  });
  const server = http.createServer((req, res) => {
    const a = answers[Number((req.url ?? '/').slice(1))];
    if (!a) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, a.headers);
    res.end(a.body);
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
  exitWithParent(() => new Promise((resolve) => server.close(() => resolve())));
} else if (mode === 'app' && (args.length === 2 || (args.length === 3 && ['distinct', 'one'].includes(args[2])))) {
  if ((args[2] ?? 'distinct') === 'distinct') await serveApp(args[0], args[1], { TRUST_PROXY: 'true' }, 'worker', 'contract');
  else await serveApp(args[0], args[1]);
} else {
  console.error('usage: cache-server.ts bare <file>… | app <database url> <cache bytes> [distinct|one]');
  process.exit(2);
}
