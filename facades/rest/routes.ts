/**
 * REST routes generated from the operation registry: one GET route per operation at its contract
 * path (`{id}` becomes Fastify's `:id`); path and query values go to the executor unparsed.
 */
import type { FastifyInstance } from 'fastify';
import type { Executor } from '../execute.js';
import type { AnyOperation } from '../operation.js';

/** `/api/v1/listings/{id}` → `/api/v1/listings/:id`. */
export function fastifyPath(contractPath: string): string {
  return contractPath.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Registers a route for every operation in `ops`; unexpected errors are logged on the request
 * (database outages as warnings). The outcome's extra headers (`Retry-After` on 503) are sent.
 */
export function registerRestRoutes(app: FastifyInstance, run: Executor, ops: readonly AnyOperation[]): void {
  for (const op of ops) {
    app.route({
      method: op.method,
      url: fastifyPath(op.path),
      handler: async (req, reply) => {
        const input = { ...(req.query as Record<string, unknown>), ...(req.params as Record<string, unknown>) };
        const outcome = await run(op, input);
        if (outcome.cause !== undefined) {
          if (outcome.status === 503) req.log.warn({ err: outcome.cause, operation: op.name }, 'database unavailable');
          else req.log.error({ err: outcome.cause, operation: op.name }, 'operation failed');
        }
        if (outcome.headers) reply.headers(outcome.headers);
        return reply.code(outcome.status).type(outcome.contentType).send(outcome.body);
      },
    });
  }
}
