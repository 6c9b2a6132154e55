/**
 * HTTP assembly: one Fastify 5 server hosting the REST operations under /api/v1 (generated from the
 * registry), /healthz, /graphql (facades/graphql.ts), POST /mcp (facades/mcp), and the generated
 * descriptions /openapi.{json,yaml} and /llms{,-full}.txt (facades/meta), and the nightly export
 * files under /data/latest/ (facades/http/exports.ts; one day's cache lifetime), and the product
 * images under /images/ (facades/http/images.ts; immutable, a year), and the pages for a browser —
 * the front door /, the API reference /docs and the dashboard /dashboard — with every asset they
 * load (facades/http/pages.ts; nothing from a CDN). The per-IP budget
 * (facades/http/ratelimit.ts) covers /api/v1/* and /mcp. CORS is open to every origin without
 * credentials; no cookies. Facades never query the database themselves: every read goes through
 * the graph.
 *
 * Every error a client can provoke on the REST and plain-HTTP routes is answered in the contract's
 * Error body `{"error":{"status","message"}}`: unknown routes (404), other methods of a known path,
 * odd ones such as TRACE and PROPFIND included (405 with `Allow`, facades/rest/methods.ts),
 * Fastify's parser and framework errors (400, 413, 415), malformed HTTP, oversized headers and
 * slow requests on the raw socket (400, 431, 408: {@link clientErrorHandler}), an `Expect` other
 * than 100-continue (417: {@link expectationFailed}), a missing Host header, an OPTIONS that is
 * not a CORS preflight, a database outage (503 with `Retry-After`), a server shutting down (503)
 * and unexpected errors (500, never a stack trace). /graphql and POST /mcp answer what reaches
 * them in their own protocols' error shapes (GraphQL `errors`, JSON-RPC `error`).
 *
 * Caching (api-spec "Caching": responses carry `public, max-age=300`): successes and the
 * request-determined errors of the contract, 400 and 404, carry it; every other error (429, 5xx,
 * 405, 408, 415, 431…) is `no-store`, so no cache keeps an outage, a refusal or a timeout.
 *
 * Response cache (facades/http/response-cache.ts; CACHE_MAX_BYTES, 0 = off): the REST operations'
 * and MCP tools' 200 answers are kept per data version (src/db/data-version.ts, learnt by LISTEN)
 * and written again without GraphQL or SQL; the hooks above apply to hits as to misses. The same
 * version gives /api/v1/* answers their `Last-Modified` (facades/http/caching.ts), cache on or off.
 *
 * Load (facades/concurrency.ts; CONCURRENCY_*): each operation family (search, heavy, light) and
 * ad-hoc /graphql runs a few requests at once and queues a bounded number; past the queue or the
 * wait bound, 503 with `Retry-After`. Cached answers never wait.
 *
 * Timeouts (src/env.ts HTTP_*): headers, whole request, keep-alive and socket inactivity are
 * bounded, so a slow-loris client cannot hold a connection open.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { ContextSource } from '../src/context.js';
import { publicBaseUrl, type Env } from '../src/env.js';
import { isClientDisconnect, isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '../src/errors.js';
import { createSearchBackend } from '../src/search/index.js';
import { concurrencyOptions, createConcurrencyLimiter } from './concurrency.js';
import { createExecutor, errorBody, prepareDocuments, UNAVAILABLE_MESSAGE, type Executor } from './execute.js';
import { registerGraphql } from './graphql.js';
import { lastModifiedOf, registerCaching } from './http/caching.js';
import { registerExportFiles } from './http/exports.js';
import { priceChangeFeeds, registerFeedRoutes, shrinkflationFeeds, type FeedRoute } from './http/feeds.js';
import { registerImageFiles } from './http/images.js';
import { registerPages } from './http/pages.js';
import { registerRateLimit, type RateLimitOverrides } from './http/ratelimit.js';
import { openDataVersionWatch, openResponseCache } from './http/response-cache.js';
import { MCP_PATH, registerMcp } from './mcp/index.js';
import { buildMetaDocuments, registerMeta } from './meta/index.js';
import { operations } from './operations.js';
import { trackRoutes } from './rest/methods.js';
import { registerRestRoutes } from './rest/routes.js';

/**
 * The export manifest through the registry's get_export_manifest (so through the graph), for the
 * MCP resource: null before the first export.
 * @throws Error when the operation fails otherwise (e.g. a corrupt manifest).
 */
async function exportManifest(run: Executor): Promise<Record<string, unknown> | null> {
  const op = operations.find((o) => o.name === 'get_export_manifest');
  if (!op) return null;
  const r = await run(op, {});
  if (r.status === 404) return null;
  if (r.status !== 200) throw new Error(`get_export_manifest answered ${r.status}`);
  return r.body as Record<string, unknown>;
}

/** The caching rule of every response (api-spec Global conventions: Caching). */
export const CACHE_CONTROL = 'public, max-age=300';

/** The caching rule of errors that depend on more than the request (outages, refusals, timeouts). */
export const NO_STORE = 'no-store';

/**
 * The errors the contract's global rule ("Responses carry `Cache-Control: public, max-age=300`")
 * keeps cacheable, the two of its status table that the request alone decides for a data version:
 * a malformed parameter (400) and no such thing (404). Every other error is `no-store`.
 */
const CACHEABLE_ERRORS = new Set([400, 404]);

/** `Cache-Control` for a response of `status`: {@link CACHE_CONTROL}, or {@link NO_STORE} for other errors. */
export function cacheControlFor(status: number): string {
  return status < 400 || CACHEABLE_ERRORS.has(status) ? CACHE_CONTROL : NO_STORE;
}

/** Message of the 503 answered while the server shuts down. */
const CLOSING_MESSAGE = 'Service unavailable: the server is shutting down; retry shortly';

/**
 * Fastify's `clientErrorHandler`: errors Node's HTTP parser raises on the raw socket before any
 * route runs — headers too large (431), a request not received within the timeouts (408), malformed
 * HTTP (400) — answered as a well-formed HTTP/1.1 response with the Error body, then the connection
 * is closed (as Node's own handler does). Nothing is written to a reset or unwritable socket.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let message = 'Bad request: malformed HTTP request';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'Request timeout: the request was not received in time';
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    message = 'Request header fields too large';
  }
  if (socket.writable) {
    const body = JSON.stringify(errorBody(status, message));
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: ${NO_STORE}\r\n` +
        'Access-Control-Allow-Origin: *\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

/** Message of the 417 answered for an `Expect` header other than 100-continue. */
const EXPECTATION_MESSAGE = 'Expectation failed: the only Expect this server meets is 100-continue';

/**
 * Node's `checkExpectation` event: a request whose `Expect` header is not `100-continue` (RFC 9110
 * §10.1.1). Node would answer a bare 417 with no body; this answers 417 in the Error body, no-store,
 * and closes the connection (the client may send a body it was not asked for). No route runs.
 */
export function expectationFailed(_req: http.IncomingMessage, res: http.ServerResponse): void {
  const body = JSON.stringify(errorBody(417, EXPECTATION_MESSAGE));
  res.writeHead(417, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': cacheControlFor(417),
    'access-control-allow-origin': '*',
    connection: 'close',
  });
  res.end(body);
}

/** What {@link createServer} needs. */
export interface ServerOptions {
  /** Database handles (a `Database` from src/db/database.ts); `search` overrides the configured backend. */
  db: ContextSource;
  /** Validated configuration from src/env.ts loadEnv(). */
  env: Readonly<Env>;
  /** Per-IP budget overrides (tests); the contract's figures by default. */
  rateLimit?: RateLimitOverrides;
}

/**
 * Builds the server (routes registered, not listening). Call `listen` on it, or `inject` in tests.
 * @throws before building anything when an operation document is missing or invalid against the
 *   schema (facades/execute.ts prepareDocuments: "Invalid operation documents: …").
 */
export async function createServer({ db, env, rateLimit }: ServerOptions): Promise<FastifyInstance> {
  // First: parse and validate every persisted document once, so a broken one stops the start.
  prepareDocuments(operations);
  const app = Fastify({
    logger: env.LOG_LEVEL === 'silent' ? false : { level: env.LOG_LEVEL },
    trustProxy: env.TRUST_PROXY,
    // Timeouts (slow-loris): Fastify sets requestTimeout, keepAliveTimeout and the socket's
    // inactivity timeout (connectionTimeout) on the server; headersTimeout goes to Node's
    // createServer. Node checks the first two only every connectionsCheckingInterval (30 s by
    // default), so the interval follows the headers timeout.
    requestTimeout: env.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: env.HTTP_CONNECTION_TIMEOUT_MS,
    http: {
      headersTimeout: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: env.HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(env.HTTP_HEADERS_TIMEOUT_MS / 4))),
      // Node would answer a missing Host with an empty 400 itself; the hook below answers it in the Error body.
      requireHostHeader: false,
    },
    clientErrorHandler,
    // While closing, the hook below answers 503 in the Error body (Fastify's own body is not).
    return503OnClosing: false,
    // Fastify's own refusals (a malformed URL such as /api/v1/listings/%, a bad content type) in the
    // contract's Error body instead of Fastify's. No hooks run for these, so the headers are set here.
    frameworkErrors: (err, _req, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
      void (reply as unknown as FastifyReply)
        .code(status)
        .header('cache-control', cacheControlFor(status))
        .header('access-control-allow-origin', '*')
        .send(errorBody(status, status === 400 ? `Bad request: ${err.message}` : err.message));
    },
  });
  const methods = trackRoutes(app);
  // Without a listener Node answers an unmet Expect itself, bodiless.
  app.server.on('checkExpectation', expectationFailed);

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Before CORS, so these refusals are not taken for preflights (and they say so to every origin).
  // Callback style, as the other hooks every request runs: no promise per request.
  app.addHook('onRequest', (req, reply, done) => {
    const host = req.headers.host;
    if (!closing && host && req.method !== 'OPTIONS') return done(); // the usual request
    reply.header('access-control-allow-origin', '*');
    if (closing) {
      reply
        .code(503)
        .header('connection', 'close')
        .header('retry-after', String(RETRY_AFTER_SECONDS))
        .send(errorBody(503, CLOSING_MESSAGE));
      return;
    }
    // HTTP/1.1 requires Host (RFC 9112 §3.2); HTTP/1.0 may omit it.
    if (req.raw.httpVersion === '1.1' && !host) {
      reply.code(400).send(errorBody(400, 'Bad request: the Host header is required'));
      return;
    }
    // @fastify/cors answers every OPTIONS as a preflight; one without Origin and
    // Access-Control-Request-Method is none, and it would refuse it in plain text.
    if (req.method === 'OPTIONS' && (!req.headers.origin || !req.headers['access-control-request-method'])) {
      reply
        .code(400)
        .send(errorBody(400, 'Bad request: OPTIONS is answered as a CORS preflight; send Origin and Access-Control-Request-Method'));
      return;
    }
    done();
  });

  await app.register(cors, {
    origin: '*',
    credentials: false,
    // Let browser scripts read the budget and the entity tag (CORS exposes none of them by default).
    // One text, not a list the plugin would join again on every response.
    exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Accept-Ranges', 'Content-Range'].join(', '),
  });

  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header('cache-control', cacheControlFor(reply.statusCode));
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    reply.removeHeader('set-cookie');
    done(null, payload);
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody(404, `Not found: ${req.method} ${req.url.split('?')[0]}`));
  });

  app.setErrorHandler((err: { statusCode?: number; message?: string }, req, reply) => {
    // A client that closed the connection mid-body (ECONNRESET 'aborted') is no outage: nobody reads this answer.
    if (isClientDisconnect(err)) {
      req.log.info({ url: req.url }, 'client closed the connection');
      return reply.code(400).send(errorBody(400, 'Bad request: the client closed the connection before the body was read'));
    }
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ err }, 'database unavailable');
      return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send(errorBody(503, UNAVAILABLE_MESSAGE));
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'request failed');
    return reply.code(status).send(errorBody(status, status === 500 ? 'Internal server error' : (err.message ?? 'Bad request')));
  });

  await registerRateLimit(app, { env, overrides: rateLimit });
  // The data version (LISTEN on its own connection): the response cache keys on it, and the
  // Last-Modified of /api/v1/* answers is its observation time.
  const watch = await openDataVersionWatch(app, db.pool);
  await registerCaching(app, { lastModified: lastModifiedOf(watch) });

  // One search backend per server: the configured one (Elasticsearch), else the embedded one.
  const source: ContextSource = { ...db, search: db.search ?? createSearchBackend(env, db.pool), exportDir: env.EXPORT_DIR };
  app.addHook('onClose', async () => source.search?.close());
  const run = createExecutor(source);
  const documents = buildMetaDocuments(operations, publicBaseUrl(env), () => exportManifest(run));
  // Bounded concurrency per operation family (facades/concurrency.ts) around the executor that
  // really runs: the response cache calls it on a miss only, so a hit never waits.
  const limits = concurrencyOptions(env);
  const limiter = limits && createConcurrencyLimiter(limits);
  const limited = limiter ? limiter.executor(run) : run;
  app.decorate('concurrency', limiter);
  const cache = await openResponseCache(app, { run: limited, watch, maxBytes: env.CACHE_MAX_BYTES });
  registerRestRoutes(app, limited, operations, cache);
  // The feeds (facades/http/feeds.ts): list_price_changes and list_shrinkflation through the executor MCP uses.
  const listPriceChanges = operations.find((o) => o.name === 'list_price_changes');
  const listShrinkflation = operations.find((o) => o.name === 'list_shrinkflation');
  const feeds = [
    ...(listPriceChanges ? (priceChangeFeeds(listPriceChanges) as FeedRoute[]) : []),
    ...(listShrinkflation ? (shrinkflationFeeds(listShrinkflation) as FeedRoute[]) : []),
  ];
  registerFeedRoutes(app, cache ? cache.executor(limited) : limited, publicBaseUrl(env), feeds);
  await registerExportFiles(app, env.EXPORT_DIR);
  await registerImageFiles(app, env.IMAGE_DIR);
  registerMeta(app, documents);
  // The pages for a browser: / (or a JSON index), /docs, /dashboard, and their assets (no CDN).
  await registerPages(app, { documents, baseUrl: publicBaseUrl(env), exportDir: env.EXPORT_DIR });
  registerGraphql(app, { db: source, env, limiter });
  await registerMcp(app, { run: cache ? cache.executor(limited) : limited, operations, documents, env });
  // POST /mcp answers GET, PUT, PATCH and DELETE 405 itself: it serves POST alone.
  methods.addMethodNotAllowed(new Map([[MCP_PATH, ['POST']]]));

  return app;
}
