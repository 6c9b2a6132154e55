/**
 * /graphql: GraphQL Yoga over the Pothos schema, with GraphiQL, for explorers and dashboards. Any
 * operation may be sent (the facades' persisted documents are not required here), within:
 *
 * - shape limits checked before anything runs: depth, cost, aliases, tokens, directives, and no
 *   field suggestions in production (graphql/limits.ts);
 * - per-client rate limits on the expensive root fields (graphql/field-limits.ts);
 * - masked errors: an unexpected error reaches the caller as "Unexpected error." with code
 *   INTERNAL_SERVER_ERROR (logged in full), with its message and stack only outside production.
 *   The read API's own errors (src/errors.ts: BAD_REQUEST, NOT_FOUND, UNAVAILABLE) are GraphQL
 *   errors and always come through with their message and `extensions.code`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createYoga } from 'graphql-yoga';
import { createContext, type ContextSource } from '../src/context.js';
import type { Env } from '../src/env.js';
import { schema } from '../src/graph/index.js';
import { fieldLimitsPlugin } from './graphql/field-limits.js';
import { armorPlugin } from './graphql/limits.js';

/** What {@link registerGraphql} needs. */
export interface GraphqlOptions {
  db: ContextSource;
  env: Readonly<Env>;
}

/** Registers GET and POST /graphql on `app`. */
export function registerGraphql(app: FastifyInstance, { db, env }: GraphqlOptions): void {
  const production = env.NODE_ENV === 'production';
  const yoga = createYoga<{ req: FastifyRequest; reply: FastifyReply }>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: true,
    landingPage: false,
    cors: false, // @fastify/cors answers for every route
    maskedErrors: { isDev: !production },
    plugins: [armorPlugin({ production }), fieldLimitsPlugin()],
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
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => {
        reply.header(key, value);
      });
      reply.status(response.status);
      reply.send(response.body);
      return reply;
    },
  });
}
