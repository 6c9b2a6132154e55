/**
 * HTTP assembly: one Fastify 5 server hosting the REST operations under /api/v1 (generated from the
 * registry), /healthz, /graphql (facades/graphql.ts), POST /mcp (facades/mcp), and the generated
 * descriptions /openapi.{json,yaml} and /llms{,-full}.txt (facades/meta), and the nightly export
 * files under /data/latest/ (facades/http/exports.ts; one day's cache lifetime). The per-IP budget
 * (facades/http/ratelimit.ts) covers /api/v1/* and /mcp. CORS is open to every origin without
 * credentials; every response carries `Cache-Control: public, max-age=300` and no cookies; unknown
 * routes and unexpected errors answer with the contract's Error body. Facades never query the
 * database themselves: every read goes through the graph.
 */
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { ContextSource } from '../src/context.js';
import { publicBaseUrl, type Env } from '../src/env.js';
import { createSearchBackend } from '../src/search/index.js';
import { createExecutor, errorBody, type Executor } from './execute.js';
import { registerGraphql } from './graphql.js';
import { registerCaching } from './http/caching.js';
import { registerExportFiles } from './http/exports.js';
import { registerRateLimit, type RateLimitOverrides } from './http/ratelimit.js';
import { registerMcp } from './mcp/index.js';
import { buildMetaDocuments, registerMeta } from './meta/index.js';
import { operations } from './operations.js';
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
 * @throws when an operation document is missing or invalid against the schema.
 */
export async function createServer({ db, env, rateLimit }: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: env.LOG_LEVEL === 'silent' ? false : { level: env.LOG_LEVEL },
    trustProxy: env.TRUST_PROXY,
    // Fastify's own refusals (a malformed URL such as /api/v1/listings/%, a bad content type) in the
    // contract's Error body instead of Fastify's.
    frameworkErrors: (err, _req, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
      void (reply as unknown as FastifyReply).code(status).send(errorBody(status, status === 400 ? `Bad request: ${err.message}` : err.message));
    },
  });

  await app.register(cors, {
    origin: '*',
    credentials: false,
    // Let browser scripts read the budget and the entity tag (CORS exposes none of them by default).
    exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After', 'ETag', 'Accept-Ranges', 'Content-Range'],
  });

  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('cache-control', CACHE_CONTROL);
    reply.removeHeader('set-cookie');
    return payload;
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorBody(404, `Not found: ${req.method} ${req.url.split('?')[0]}`));
  });

  app.setErrorHandler((err: { statusCode?: number; message?: string }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'request failed');
    reply.code(status).send(errorBody(status, status === 500 ? 'Internal server error' : (err.message ?? 'Bad request')));
  });

  await registerRateLimit(app, { env, overrides: rateLimit });
  await registerCaching(app);

  // One search backend per server: the configured one (Elasticsearch), else the embedded one.
  const source: ContextSource = { ...db, search: db.search ?? createSearchBackend(env, db.pool), exportDir: env.EXPORT_DIR };
  app.addHook('onClose', async () => source.search?.close());
  const run = createExecutor(source);
  const documents = buildMetaDocuments(operations, publicBaseUrl(env), () => exportManifest(run));
  registerRestRoutes(app, run, operations);
  await registerExportFiles(app, env.EXPORT_DIR);
  registerMeta(app, documents);
  registerGraphql(app, { db: source, env });
  await registerMcp(app, { run, operations, documents, env });

  return app;
}
