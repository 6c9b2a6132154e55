/**
 * /graphql: GraphQL Yoga over the Pothos schema, with GraphiQL, for explorers and dashboards.
 * Hardening (depth and cost limits, per-field rate limits, masked errors in production) lives here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createYoga } from 'graphql-yoga';
import { createContext, type ContextSource } from '../src/context.js';
import type { Env } from '../src/env.js';
import { schema } from '../src/graph/index.js';

/** What {@link registerGraphql} needs. */
export interface GraphqlOptions {
  db: ContextSource;
  env: Readonly<Env>;
}

/** Registers GET and POST /graphql on `app`. */
export function registerGraphql(app: FastifyInstance, { db }: GraphqlOptions): void {
  const yoga = createYoga<{ req: FastifyRequest; reply: FastifyReply }>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: true,
    landingPage: false,
    cors: false, // @fastify/cors answers for every route
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
