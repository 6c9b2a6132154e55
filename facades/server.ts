/**
 * HTTP assembly: one Fastify 5 server hosting the REST operations under /api/v1 (generated from the
 * registry), /healthz, and /graphql (GraphQL Yoga with GraphiQL). CORS is open to every origin
 * without credentials; every response carries `Cache-Control: public, max-age=300`; unknown routes
 * and unexpected errors answer with the contract's Error body. Facades never query the database
 * themselves: every read goes through the graph.
 */
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createYoga } from 'graphql-yoga';
import { createContext, type ContextSource } from '../src/context.js';
import type { Env } from '../src/env.js';
import { schema } from '../src/graph/index.js';
import { createExecutor, errorBody } from './execute.js';
import { operations } from './operations.js';
import { registerRestRoutes } from './rest/routes.js';

/** The caching rule of every response (api-spec Global conventions: Caching). */
export const CACHE_CONTROL = 'public, max-age=300';

/** What {@link createServer} needs. */
export interface ServerOptions {
  /** Database handles (a `Database` from src/db/database.ts). */
  db: ContextSource;
  /** Validated configuration from src/env.ts loadEnv(). */
  env: Readonly<Pick<Env, 'LOG_LEVEL'>>;
}

/**
 * Builds the server (routes registered, not listening). Call `listen` on it, or `inject` in tests.
 * @throws when an operation document is missing or invalid against the schema.
 */
export async function createServer({ db, env }: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: env.LOG_LEVEL === 'silent' ? false : { level: env.LOG_LEVEL },
  });

  await app.register(cors, { origin: '*', credentials: false });

  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('cache-control', CACHE_CONTROL);
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

  registerRestRoutes(app, createExecutor(db), operations);

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

  return app;
}
