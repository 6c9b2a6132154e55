/**
 * POST /mcp: the stateless tool-protocol endpoint (api-spec "Meta", "Errors" 4, "Versioning" 4).
 * Every non-internal operation of the registry is a read-only tool returning the same JSON as its
 * REST body; the OpenAPI document, llms-full.txt and the export manifest are resources. Protocol
 * handling is the MCP SDK's (./http.ts); this file is the Fastify glue: an ordinary route (so the
 * app's onRequest/onSend hooks, such as the per-IP budget and Cache-Control, run as for any other
 * route), a raw-text body parser scoped to /mcp (so malformed JSON reaches the SDK and is answered
 * with JSON-RPC -32700 rather than Fastify's own 400), and 405 with `Allow: POST` and the Error
 * body for GET, DELETE, PUT and PATCH (no SSE stream, no sessions to end). Responses are JSON; the
 * one exception is the SDK's `subscriptions/listen` answer, which the protocol frames as SSE and
 * which closes at once here (nothing can change), streamed through the reply so hooks still run.
 *
 * Bounds (issue 13 #1; rules in ./batch.ts): the body is at most {@link MAX_BODY_BYTES} bytes (else
 * 413 with the Error body); a JSON-RPC batch is refused (400, -32600) unless it is 2025-03-26 traffic
 * of at most ten messages, and an admitted batch of n messages costs n units of the per-IP budget:
 * the app's budget hook charged the POST itself, and the other n - 1 units are charged through the
 * budget's `chargeBudget` (facades/http/ratelimit.ts) before anything runs. When they do not fit, the
 * answer is the budget's own 429 (Error body, Retry-After); either way the response carries the
 * RateLimit headers of the whole charge.
 *
 * Tool errors (docs/http.md "MCP"): a tool whose operation fails answers a JSON-RPC result with
 * `isError: true` and the REST Error body (the MCP idiom; the SDK allows no other), HTTP 200. The
 * HTTP answer is then `no-store` unless every tool error in it is a 400 or 404, and a database
 * outage (503) adds `Retry-After`; the outage is logged at warn with its reason, without a stack.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { publicBaseUrl, type Env } from '../../src/env.js';
import { describeFailure } from '../../src/db/embedded.js';
import { RETRY_AFTER_SECONDS } from '../../src/errors.js';
import { errorBody, type Executor } from '../execute.js';
import type { MetaDocuments } from '../meta/index.js';
import type { AnyOperation } from '../operation.js';
import { MAX_BODY_BYTES } from './batch.js';
import { createMcpEndpoint, type BatchAdmission, type McpEndpoint } from './http.js';
import { createServerFactory } from './server.js';
import { toolStatuses, type ToolAnswer } from './tools.js';

/** What {@link registerMcp} needs. */
export interface McpOptions {
  /** Runs an operation exactly as REST does. */
  run: Executor;
  /** The registry (tools are its non-internal entries). */
  operations: readonly AnyOperation[];
  /** The generated descriptions, exposed as resources. */
  documents: MetaDocuments;
  /** Configuration: PUBLIC_URL (or PORT) gives the base of the resource URIs. */
  env: Readonly<Env>;
}

/** The endpoint's path. */
export const MCP_PATH = '/mcp';

/**
 * Registers POST /mcp, plus 405 (`Allow: POST`, Error body) for GET, DELETE, PUT and PATCH /mcp, on
 * `app`, in an encapsulated plugin whose only body parser hands the raw text to the SDK. The
 * endpoint is closed with the app. Call it after the app-wide hooks are added (they apply to it).
 * @throws when a tool's schemas cannot be built from the registry (at start-up).
 */
export async function registerMcp(app: FastifyInstance, opts: McpOptions): Promise<void> {
  const factory = createServerFactory({
    run: opts.run,
    operations: opts.operations,
    documents: opts.documents,
    baseUrl: publicBaseUrl(opts.env),
    // An outage is the database's state, not a bug here: a warning with its one-line reason, no stack.
    onFailure: (op, cause, status) =>
      status === 503
        ? app.log.warn({ operation: op.name, reason: describeFailure(cause) }, 'database unavailable')
        : app.log.error({ err: cause, operation: op.name }, 'operation failed'),
  });
  const endpoint = createMcpEndpoint(factory, (err) => app.log.debug({ err }, 'mcp request rejected'));
  app.addHook('onClose', async () => endpoint.close());

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((err: FastifyError, _req, reply) => {
      if (err.statusCode !== 413) throw err; // the app's own error handler answers the rest
      return reply.code(413).send(errorBody(413, `Request body too large: POST ${MCP_PATH} accepts at most ${MAX_BODY_BYTES} bytes`));
    });

    scope.post(MCP_PATH, { bodyLimit: MAX_BODY_BYTES, onSend: uncacheableOnSend }, (req, reply) => {
      // The POST paid one unit in the budget hook; a batch of n pays the other n − 1 here, and the
      // budget's onSend hook then puts this charge's RateLimit headers on the answer.
      const admit: BatchAdmission = async (messages) => {
        const charged = await app.chargeBudget?.(req, messages - 1);
        if (!charged?.refused) return undefined;
        return new Response(JSON.stringify(charged.refused), { status: 429, headers: { 'content-type': 'application/json; charset=utf-8' } });
      };
      return serve(endpoint, req, reply, admit);
    });
    scope.route({
      method: ['GET', 'DELETE', 'PUT', 'PATCH'],
      url: MCP_PATH,
      exposeHeadRoute: false,
      handler: (req, reply) =>
        reply.code(405).header('allow', 'POST').send(errorBody(405, `Method not allowed: ${req.method} ${MCP_PATH} (use POST)`)),
    });
  });
}

/**
 * The tool statuses an answer may be cached with: success and the request-determined errors 400 and
 * 404, as for REST (facades/server.ts cacheControlFor).
 */
const CACHEABLE_TOOL_STATUSES = new Set([200, 400, 404]);

/** Requests whose answer carries a tool result that no cache may keep (an outage, a 500). */
const uncacheable = new WeakSet<FastifyRequest>();

/**
 * Route-level onSend of POST /mcp, after the app's own (which gives a 200 `public, max-age=300`):
 * an answer carrying a tool error other than 400 or 404 is `no-store`.
 */
async function uncacheableOnSend(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (uncacheable.has(req)) reply.header('cache-control', 'no-store');
  return payload;
}

/**
 * Runs one exchange through `endpoint` and sends its answer through Fastify (hooks included). A
 * tool call answered 503 inside the JSON-RPC result (a database outage, or a refusal under load:
 * `isError: true` with the Error body, see docs/http.md "MCP") makes the HTTP answer `no-store`
 * with `Retry-After` (the longest asked); any other tool error but 400 and 404 makes it `no-store`.
 */
async function serve(endpoint: McpEndpoint, req: FastifyRequest, reply: FastifyReply, admit?: BatchAdmission): Promise<FastifyReply> {
  const answers: ToolAnswer[] = [];
  const response = await toolStatuses.run(answers, () => endpoint.handle(toWebRequest(req, reply), admit));
  if (answers.some((a) => !CACHEABLE_TOOL_STATUSES.has(a.status))) uncacheable.add(req);
  // The longest wait any 503 asked for: an outage's, or a refusal under load's (facades/concurrency.ts).
  const waits = answers.filter((a) => a.status === 503).map((a) => Number(a.retryAfter ?? RETRY_AFTER_SECONDS));
  if (waits.length) reply.header('retry-after', String(Math.max(...waits)));
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'mcp-session-id') reply.header(name, value);
  });
  if (response.body === null) return reply.send();
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return reply.send(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>));
  }
  return reply.send(await response.text());
}

/** The Fastify request as a web-standard `Request` carrying the raw body text, aborted if the client goes away. */
function toWebRequest(req: FastifyRequest, reply: FastifyReply): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else headers.set(name, String(value));
  }
  headers.delete('content-length');
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const body = typeof req.body === 'string' ? req.body : undefined;
  return new Request(`http://${req.host || 'localhost'}${req.url}`, {
    method: req.method,
    headers,
    signal: abort.signal,
    ...(body !== undefined && body.length > 0 && { body }),
  });
}
