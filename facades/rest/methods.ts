/**
 * 405 Method Not Allowed (RFC 9110 §15.5.6) for every route: a request whose path exists with
 * another method is answered 405 with an `Allow` header listing the path's methods and the
 * contract's Error body, instead of Fastify's 404. Fastify has no such answer of its own (its router
 * matches method and path together), so routes are recorded as they are registered (`onRoute`) and,
 * once every route is in, each path gets one extra route for the standard methods it lacks.
 *
 * Every other method Node's parser accepts is completed too (TRACE, PROPFIND, QUERY, PURGE…: see
 * {@link OTHER_METHODS}; Fastify routes only a few of them by default, so the rest are added to its
 * router first), so a known path never answers an odd method 404 (issue 29).
 *
 * OPTIONS is left to @fastify/cors (it answers OPTIONS on every path). Paths that already answer
 * some other method themselves (POST /mcp registers its own 405s for GET, DELETE, PUT and PATCH)
 * are only completed, never overridden.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../execute.js';

/** Methods a path is completed with (HEAD comes with GET, as Fastify exposes it); `Allow` lists these. */
const STANDARD = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The other methods Node's HTTP parser accepts (`http.METHODS`), which no route here serves: each
 * is answered 405 on a known path. Not CONNECT (a tunnel, which Node hands to its own `connect`
 * event, never to a route) and not OPTIONS (CORS preflights).
 */
export const OTHER_METHODS: readonly string[] = http.METHODS.filter(
  (m) => !(STANDARD as readonly string[]).includes(m) && m !== 'CONNECT' && m !== 'OPTIONS',
);

/** What {@link trackRoutes} returns. */
export interface MethodTracker {
  /**
   * Registers the 405 routes for the paths recorded so far. Call once, after every other route
   * (plugins included) is registered and before the server is ready.
   * @param answeredElsewhere the methods a path really serves, for a path that registers 405 routes
   *   of its own (POST /mcp answers GET, PUT… 405 itself): its `Allow` names only these.
   */
  addMethodNotAllowed(answeredElsewhere?: ReadonlyMap<string, readonly string[]>): void;
}

/** `Allow` value for a set of methods: standard order, HEAD with GET. */
export function allowHeader(methods: ReadonlySet<string>): string {
  return STANDARD.filter((m) => methods.has(m) || (m === 'HEAD' && methods.has('GET'))).join(', ');
}

/**
 * Starts recording the routes of `app` (call before registering any route), and lets its router
 * take every method of {@link OTHER_METHODS}, each bodyless (as Fastify's own TRACE; QUERY, which
 * Fastify would parse a body for and refuse without a Content-Type, included: no route here reads
 * their bodies, and the 405 comes first). Wildcard-only paths (`*`, the CORS preflight route) are
 * ignored.
 */
export function trackRoutes(app: FastifyInstance): MethodTracker {
  for (const m of OTHER_METHODS) app.addHttpMethod(m, { hasBody: false, overrideExisting: true });
  const byUrl = new Map<string, Set<string>>();
  let done = false;
  app.addHook('onRoute', (route) => {
    if (done || route.url === '*' || route.url === '/*') return;
    const methods = byUrl.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) methods.add(String(m).toUpperCase());
    byUrl.set(route.url, methods);
  });
  return {
    addMethodNotAllowed(answeredElsewhere = new Map()) {
      done = true;
      for (const [url, methods] of byUrl) {
        const allowed = new Set(answeredElsewhere.get(url) ?? methods);
        allowed.delete('OPTIONS');
        if (allowed.size === 0) continue;
        const allow = allowHeader(allowed);
        // A route registered without an onRoute call of its own (Fastify's trailing-slash twin of a
        // plugin's prefix route, e.g. GET /docs/) is there all the same: never declared twice.
        const missing = [...STANDARD, ...OTHER_METHODS].filter(
          (m) => !methods.has(m) && !(m === 'HEAD' && methods.has('GET')) && !app.hasRoute({ method: m, url }),
        );
        if (missing.length === 0) continue;
        app.route({
          method: missing,
          url,
          // Not a GET route: no automatic HEAD twin (HEAD, when missing, is in `missing` itself).
          exposeHeadRoute: false,
          handler: async (req, reply) =>
            reply
              .code(405)
              .header('allow', allow)
              .send(errorBody(405, `Method not allowed: ${req.method} ${req.url.split('?')[0]} (allowed: ${allow})`)),
        });
      }
    },
  };
}
