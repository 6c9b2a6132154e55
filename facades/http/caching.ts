/**
 * Conditional requests (api-spec Global conventions "Caching", get_index_latest): a strong `ETag`
 * (SHA-1 of the exact body bytes, the @fastify/etag scheme) on every GET/HEAD 200 response of
 * /api/v1/*, /openapi.json, /openapi.yaml, /llms.txt, /llms-full.txt and /data/latest/manifest.json,
 * and `If-None-Match` → 304 with no body when it matches (RFC 9110 §13.1.2: weak comparison, `*`,
 * lists). A route may set its own ETag (e.g. from the index's computation time); it is then kept
 * and used for the comparison. Not for /graphql or /mcp (POST, per-query bodies), nor for errors.
 *
 * Why not `app.register(@fastify/etag)`: the plugin is global (fastify-plugin) and tags every
 * string/Buffer response of every route and status, and answers 304 to a matching 404 or 429 too;
 * its hook cannot be scoped to routes that server.ts registers on the root instance. This hook
 * applies the same hashing only where the contract wants it.
 *
 * `Cache-Control: public, max-age=300` is set on every response by server.ts, 304s included; the
 * RateLimit headers of budgeted paths are added by ratelimit.ts's onSend hook, 304s included.
 */
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** Paths, besides everything under /api/v1/, whose GET 200 responses get an ETag. */
const CACHEABLE = new Set(['/openapi.json', '/openapi.yaml', '/llms.txt', '/llms-full.txt', '/data/latest/manifest.json']);

/** Whether responses of this route pattern (or path) carry an ETag. */
export function isCacheablePath(path: string): boolean {
  return path.startsWith('/api/v1/') || CACHEABLE.has(path);
}

/** Strong entity tag of a body: `"<sha1 base64url>"`. */
export function etagOf(payload: string | Buffer): string {
  return `"${crypto.createHash('sha1').update(payload).digest('base64url')}"`;
}

/**
 * Whether an `If-None-Match` header value matches `etag` (RFC 9110 §13.1.2: `*`, or any listed tag
 * equal under weak comparison, i.e. ignoring `W/`).
 */
export function ifNoneMatchMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return (value.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === wanted);
}

/** Adds ETag handling to `app` (before routes are registered). */
export async function registerCaching(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', async (req, reply, payload) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || reply.statusCode !== 200) return payload;
    if (!isCacheablePath(req.routeOptions.url ?? req.url.split('?')[0])) return payload;
    let etag = reply.getHeader('etag');
    if (etag === undefined) {
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload; // streams: no tag
      etag = etagOf(payload);
      reply.header('ETag', etag);
    }
    if (!ifNoneMatchMatches(req.headers['if-none-match'], String(etag))) return payload;
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    // No body. HEAD keeps the payload for Fastify's HEAD handler, which then sends none but states
    // the 200's Content-Length (allowed on a 304, RFC 9110 §8.6) — it cannot take a null payload.
    return req.method === 'HEAD' ? payload : null;
  });
}
