/**
 * /graphql: GraphQL Yoga over the Pothos schema, with GraphiQL, for explorers and dashboards. Any
 * operation may be sent (the facades' persisted documents are not required here), within:
 *
 * - shape limits checked before anything runs: depth, cost, aliases, tokens, directives, and no
 *   field suggestions in production (graphql/limits.ts);
 * - per-client rate limits on the expensive root fields (graphql/field-limits.ts);
 * - text arguments: a NUL character or an unpaired surrogate in any string literal or variable is
 *   refused before anything runs, `BAD_USER_INPUT` (graphql/text.ts);
 * - JSON parameters: `variables` or `extensions` nested deeper than 64 levels are refused before
 *   anything reads them, HTTP 400 BAD_REQUEST (graphql/depth.ts);
 * - masked errors: an unexpected error reaches the caller as "Unexpected error." with code
 *   INTERNAL_SERVER_ERROR (logged in full); with NODE_ENV=development only, its original message is
 *   added — never a stack trace, whatever NODE_ENV says. The read API's own errors (src/errors.ts:
 *   BAD_REQUEST, NOT_FOUND, UNAVAILABLE) are GraphQL errors and always come through with their
 *   message and `extensions.code`;
 * - a database outage (src/errors.ts isDatabaseUnavailable) is not masked as unexpected: it is an
 *   UNAVAILABLE error and the response is HTTP 503 with `Retry-After` (no-store, see server.ts);
 * - load: executions run in the `graphql` concurrency family (facades/concurrency.ts); one refused
 *   (too many waiting, or waited too long) is answered the same way, UNAVAILABLE with HTTP 503;
 * - a malformed connection argument (a cursor Pothos cannot read: PothosValidationError) is the
 *   caller's BAD_REQUEST, not an unexpected error;
 * - automatic persisted queries (graphql/apq.ts): register a query by its sha256 hash, then send
 *   the hash alone (GET-cacheable); an unknown hash is HTTP 404 PersistedQueryNotFound, no-store;
 *   a malformed `extensions.persistedQuery` is HTTP 400 BAD_REQUEST.
 */
import { PothosValidationError } from '@pothos/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError } from 'graphql';
import { createYoga, maskError as yogaMaskError } from 'graphql-yoga';
import { createContext, type ContextSource } from '../src/context.js';
import type { Env } from '../src/env.js';
import { isDatabaseUnavailable, Unavailable } from '../src/errors.js';
import { schema } from '../src/graph/index.js';
import { concurrencyPlugin, type ConcurrencyLimiter } from './concurrency.js';
import { errorBody, UNAVAILABLE_MESSAGE } from './execute.js';
import { apqPlugin } from './graphql/apq.js';
import { jsonDepthPlugin } from './graphql/depth.js';
import { fieldLimitsPlugin } from './graphql/field-limits.js';
import { renderGraphiQLPage } from './http/graphiql.js';
import { armorPlugin } from './graphql/limits.js';
import { textArgumentsPlugin } from './graphql/text.js';

/** Messages of the bodiless refusals Yoga answers. */
const REFUSALS: Readonly<Record<number, string>> = {
  406: 'Not Acceptable: /graphql answers application/graphql-response+json, application/json or text/event-stream',
  415: 'Unsupported Media Type: send the request as application/json (or use GET with a query parameter)',
};

/** What {@link registerGraphql} needs. */
export interface GraphqlOptions {
  db: ContextSource;
  env: Readonly<Env>;
  /** Bounds every execution in the `graphql` family (facades/concurrency.ts); none when null or absent. */
  limiter?: ConcurrencyLimiter | null;
}

/** Whether `error` is an expected, coded error of the read API (shown as is, never masked). */
function isCoded(error: unknown): error is GraphQLError {
  if (!(error instanceof GraphQLError)) return false;
  const original = error.originalError;
  return original == null || original instanceof GraphQLError;
}

/**
 * Yoga's `maskError`, adjusted: a database outage becomes an UNAVAILABLE error (HTTP 503 with
 * `Retry-After` through its `http` extension) at the failing field; other unexpected errors are
 * masked as by Yoga (`development`: with the original message) but never carry a stack trace.
 */
export function maskGraphqlError(error: unknown, message: string, development = false): Error {
  // Pothos' validation errors are GraphQLErrors without a code: checked before isCoded.
  const cause = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (cause instanceof PothosValidationError) {
    const located = error instanceof GraphQLError ? error : undefined;
    return new GraphQLError(cause.message, { nodes: located?.nodes, path: located?.path, extensions: { code: 'BAD_REQUEST' } });
  }
  if (isCoded(error)) return error;
  // A bare SyntaxError is Yoga's JSON.parse of a GET request's `variables` or `extensions`: the
  // client's malformed parameter (400), not an unexpected error. (A resolver's own JSON error arrives
  // wrapped in a located GraphQLError and is masked below.)
  if (error instanceof SyntaxError) {
    return new GraphQLError('Malformed request: the variables and extensions parameters must be JSON objects', {
      extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
    });
  }
  if (isDatabaseUnavailable(error)) {
    const located = error instanceof GraphQLError ? error : undefined;
    return new GraphQLError(UNAVAILABLE_MESSAGE, {
      nodes: located?.nodes,
      path: located?.path,
      extensions: { ...new Unavailable().extensions },
    });
  }
  const masked = yogaMaskError(error, message, development);
  if (masked instanceof GraphQLError) {
    const original = masked.extensions?.originalError as { stack?: unknown; cause?: unknown } | undefined;
    if (original && typeof original === 'object') {
      delete original.stack;
      delete original.cause;
    }
  }
  return masked;
}

/** Registers GET and POST /graphql on `app`. */
export function registerGraphql(app: FastifyInstance, { db, env, limiter }: GraphqlOptions): void {
  const production = env.NODE_ENV === 'production';
  const development = env.NODE_ENV === 'development';
  const yoga = createYoga<{ req: FastifyRequest; reply: FastifyReply }>({
    schema,
    graphqlEndpoint: '/graphql',
    // GraphiQL from the installed package, no CDN (facades/http/graphiql.ts); `?query=` prefills it.
    graphiql: { title: 'NZ Grocery Prices — GraphiQL' },
    renderGraphiQL: renderGraphiQLPage,
    landingPage: false,
    cors: false, // @fastify/cors answers for every route
    maskedErrors: { isDev: development, maskError: maskGraphqlError },
    // The depth check first: every later plugin may read variables and extensions.
    // The concurrency bound last: it wraps the execution alone, after every check has passed.
    plugins: [
      jsonDepthPlugin(),
      apqPlugin(),
      armorPlugin({ production }),
      fieldLimitsPlugin(),
      textArgumentsPlugin(),
      ...(limiter ? [concurrencyPlugin(limiter)] : []),
    ],
    context: () => createContext(db),
    logging: {
      debug: (...args) => args.forEach((a) => app.log.debug(a)),
      info: (...args) => args.forEach((a) => app.log.info(a)),
      warn: (...args) => args.forEach((a) => app.log.warn(a)),
      error: (...args) => args.forEach((a) => app.log.error(a)),
    },
  });

  app.route({
    url: yoga.graphqlEndpoint,
    method: ['GET', 'POST'],
    // After server.ts's global onSend: a persisted-query miss (the only 404 /graphql answers) must
    // not be cached, or a cache would keep answering it after the client registers the query.
    onSend: async (_req, reply, payload) => {
      if (reply.statusCode === 404) reply.header('cache-control', 'no-store');
      return payload;
    },
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => {
        reply.header(key, value);
      });
      reply.status(response.status);
      if (response.body === null && response.status >= 400) {
        // Yoga answers some refusals without a body (415 for an unsupported Content-Type, 406 for an
        // unacceptable Accept): send the contract's Error body instead of "null".
        return reply.type('application/json; charset=utf-8').send(errorBody(response.status, REFUSALS[response.status] ?? 'Request refused'));
      }
      reply.send(response.body);
      return reply;
    },
  });
}
