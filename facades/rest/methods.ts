/**
 * 405 Method Not Allowed (RFC 9110 §15.5.6) for every route: a request whose path exists with
 * another method is answered 405 with an `Allow` header listing the path's methods and the
 * contract's Error body, instead of Fastify's 404. Fastify has no such answer of its own (its router
 * matches method and path together), so routes are recorded as they are registered (`onRoute`) and,
 * once every route is in, each path gets one extra route for the standard methods it lacks.
 *
 * OPTIONS is left to @fastify/cors (it answers OPTIONS on every path). Paths that already answer
 * some other method themselves (POST /mcp registers its own 405s for GET, DELETE, PUT and PATCH)
 * are only completed, never overridden.
 */
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../execute.js';

/** Methods a path is completed with (HEAD comes with GET, as Fastify exposes it). */
const STANDARD = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** What {@link trackRoutes} returns. */
export interface MethodTracker {
  /**
   * Registers the 405 routes for the paths recorded so far. Call once, after every other route
   * (plugins included) is registered and before the server is ready.
   */
  addMethodNotAllowed(): void;
}

/** `Allow` value for a set of methods: standard order, HEAD with GET. */
export function allowHeader(methods: ReadonlySet<string>): string {
  return STANDARD.filter((m) => methods.has(m) || (m === 'HEAD' && methods.has('GET'))).join(', ');
}

/**
 * Starts recording the routes of `app` (call before registering any route). Wildcard-only paths
 * (`*`, the CORS preflight route) are ignored.
 */
export function trackRoutes(app: FastifyInstance): MethodTracker {
  const byUrl = new Map<string, Set<string>>();
  let done = false;
  app.addHook('onRoute', (route) => {
    if (done || route.url === '*' || route.url === '/*') return;
    const methods = byUrl.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) methods.add(String(m).toUpperCase());
    byUrl.set(route.url, methods);
  });
  return {
    addMethodNotAllowed() {
      done = true;
      for (const [url, methods] of byUrl) {
        const allowed = new Set(methods);
        allowed.delete('OPTIONS');
        if (allowed.size === 0) continue;
        const allow = allowHeader(allowed);
        // A route registered without an onRoute call of its own (Fastify's trailing-slash twin of a
        // plugin's prefix route, e.g. GET /docs/) is there all the same: never declared twice.
        const missing = STANDARD.filter((m) => !methods.has(m) && !(m === 'HEAD' && methods.has('GET')) && !app.hasRoute({ method: m, url }));
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
