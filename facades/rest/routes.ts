/**
 * REST routes generated from the operation registry: one GET route per operation at its contract
 * path (`{id}` becomes Fastify's `:id`); path and query values go to the executor unparsed.
 */
import type { FastifyInstance } from 'fastify';
import { describeFailure } from '../../src/db/embedded.js';
import type { Executor } from '../execute.js';
import type { ResponseCache } from '../http/response-cache.js';
import type { AnyOperation } from '../operation.js';

/** `/api/v1/listings/{id}` → `/api/v1/listings/:id`. */
export function fastifyPath(contractPath: string): string {
  return contractPath.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Registers a route for every operation in `ops`; unexpected errors are logged on the request
 * (database outages as warnings). The outcome's extra headers (`Retry-After` on 503) are sent.
 * With `cache` (facades/http/response-cache.ts), a cached operation's 200 answers are sent by the
 * cache (stored bytes on a hit); every other outcome is sent here as without it.
 */
export function registerRestRoutes(app: FastifyInstance, run: Executor, ops: readonly AnyOperation[], cache?: ResponseCache | null): void {
  for (const op of ops) {
    app.route({
      method: op.method,
      url: fastifyPath(op.path),
      handler: async (req, reply) => {
        const input = { ...(req.query as Record<string, unknown>), ...(req.params as Record<string, unknown>) };
        const outcome = cache ? await cache.respond(req, reply, op, input) : await run(op, input);
        if (outcome === null) return reply; // sent by the cache
        if (outcome.cause !== undefined) {
          // An outage is the database's state, not a bug: one line with its reason, no stack (as MCP logs it).
          if (outcome.status === 503) req.log.warn({ operation: op.name, reason: describeFailure(outcome.cause) }, 'database unavailable');
          else req.log.error({ err: outcome.cause, operation: op.name }, 'operation failed');
        }
        if (outcome.headers) reply.headers(outcome.headers);
        return reply.code(outcome.status).type(outcome.contentType).send(outcome.body);
      },
    });
  }
}
