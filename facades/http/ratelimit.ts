/**
 * Per-IP request budget (api-spec "Limits", "Rate-limit headers", "Errors"): 300 requests a minute
 * and 10,000 a day per client address across /api/v1/* and /mcp together.
 *
 * - Budgeted: every method but OPTIONS on `/api/v1`, `/api/v1/*`, `/mcp`, `/mcp/*` (matched on the
 *   routed pattern, else the path), whatever the outcome: 2xx, 304, 400, 404, 405 and 429 alike.
 *   Every such response carries RateLimit-Limit, -Remaining, -Reset (the tighter window, integer
 *   seconds) and RateLimit-Policy (both windows); a refused request gets 429, Retry-After (integer
 *   seconds) and the Error body with `bulk_data` (the export manifest) and `docs`.
 * - Shown but not charged: /healthz and /graphql (its own per-field limiter) carry the client's
 *   RateLimit headers as they stand (the contract lists /healthz among the operations whose
 *   responses carry them), without counting.
 * - Not budgeted and without RateLimit headers: /data/latest/* (export files, never limited),
 *   /images/* (product images, facades/http/images.ts),
 *   /openapi.*, /llms*.txt, and CORS preflight
 *   (OPTIONS; answered by @fastify/cors without touching data, and a browser sends one before many
 *   cross-origin requests — counting it would halve a browser client's budget).
 * - Client address: `req.ip` — the socket address, or X-Forwarded-For only when TRUST_PROXY is set
 *   (Fastify `trustProxy`). IPv6 clients are keyed by their /64 (see budget.ts `clientKey`).
 * - Store: process memory; with REDIS_URL, Redis shared by all instances (ioredis, no offline
 *   queue, 500 ms command timeout), falling back to memory per request while Redis is unreachable
 *   (rate-limiter-flexible `insuranceLimiter`; logged once per outage). The client is closed onClose.
 * - Windows are fixed windows that start at a client's first counted request (rate-limiter-flexible),
 *   not calendar minutes or days.
 */
import { once } from 'node:events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { publicBaseUrl, type Env } from '../../src/env.js';
import { errorBody } from '../execute.js';
import type { ErrorBody } from '../resources.js';
import { clientKey, createBudget, type BudgetDecision, type WindowSpec } from './budget.js';

/** Requests a minute per client address (api-spec Limits). */
export const PER_MINUTE = 300;
/** Requests a day per client address (api-spec Limits). */
export const PER_DAY = 10_000;
/** Default store key prefix (Redis keys are `<prefix>:60:<client>` and `<prefix>:86400:<client>`). */
export const DEFAULT_KEY_PREFIX = 'nzgp:rl';
/** How long start-up waits for Redis before serving from memory, in ms. */
const REDIS_READY_TIMEOUT_MS = 3000;
/** Longest a budget command may take in Redis before memory answers instead, in ms. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/** Overrides for tests and benchmarks (the contract's figures are the defaults). */
export interface RateLimitOverrides {
  /** Requests a minute per client address (default 300). */
  perMinute?: number;
  /** Requests a day per client address (default 10,000). */
  perDay?: number;
  /** Length of the "minute" window in seconds (default 60; tests shorten it to see a reset). */
  minuteSeconds?: number;
  /** Length of the "day" window in seconds (default 86,400). */
  daySeconds?: number;
  /** Store key prefix, to isolate test runs sharing one Redis (default {@link DEFAULT_KEY_PREFIX}). */
  keyPrefix?: string;
}

/** What {@link registerRateLimit} needs. */
export interface RateLimitOptions {
  env: Readonly<Pick<Env, 'REDIS_URL' | 'PUBLIC_URL' | 'PORT'>>;
  overrides?: RateLimitOverrides;
}

/** The contract's Error body as sent with 429 (api-spec Error: `bulk_data` and `docs` URIs). */
export interface RateLimitedBody extends ErrorBody {
  error: ErrorBody['error'] & { bulk_data: string; docs: string };
}

/** What {@link FastifyInstance.chargeBudget} decided. */
export interface BudgetCharge {
  /** The 429 Error body when the units did not fit the budget (the caller sends it with status 429); null when allowed. */
  refused: RateLimitedBody | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Charges `units` more units of the per-IP budget to the client of `req` (a budgeted request
     * that stands for several calls, e.g. an MCP batch: the request's own unit is charged by the
     * onRequest hook). The response then carries the RateLimit headers of this charge, and
     * Retry-After when refused. Present only when the budget is registered.
     */
    chargeBudget?: (req: FastifyRequest, units: number) => Promise<BudgetCharge>;
  }
}

/** Whether a path (routed pattern or raw path without query) falls under the budget. */
export function isBudgetedPath(path: string): boolean {
  return path === '/api/v1' || path.startsWith('/api/v1/') || path === '/mcp' || path.startsWith('/mcp/') || path.startsWith('/feeds/');
}

/**
 * Paths whose responses carry the client's RateLimit headers without being charged to the budget:
 * /healthz (an operation the contract lists: "every response listed carries the rate-limit
 * headers"; probes must not spend a client's budget) and /graphql (its own per-field limits).
 */
export function isShownBudgetPath(path: string): boolean {
  return path === '/healthz' || path === '/graphql';
}

/** Opens the shared store and waits (bounded) for it; start-up never fails on Redis. */
async function openRedis(app: FastifyInstance, url: string, name: string, onReady: () => void): Promise<Redis> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_READY_TIMEOUT_MS,
    connectionName: name,
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    app.log.warn({ err: { message: err.message } }, 'rate limit: Redis unavailable; budget kept in process memory until it is back');
  });
  redis.on('ready', () => {
    if (down) app.log.info('rate limit: Redis is back; budget shared again');
    down = false;
    onReady();
  });
  const timeout = AbortSignal.timeout(REDIS_READY_TIMEOUT_MS);
  await Promise.race([once(redis, 'ready', { signal: timeout }), once(redis, 'error', { signal: timeout })]).catch(() => undefined);
  if (redis.status !== 'ready') app.log.warn('rate limit: Redis not ready at start-up; serving from memory meanwhile');
  app.addHook('onClose', async () => {
    if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
    else redis.disconnect();
  });
  return redis;
}

function setBudgetHeaders(reply: FastifyReply, decision: BudgetDecision, policy: string): void {
  const t = decision.tighter;
  reply.header('RateLimit-Limit', String(t.points));
  reply.header('RateLimit-Remaining', String(t.remaining));
  reply.header('RateLimit-Reset', String(t.resetSeconds));
  reply.header('RateLimit-Policy', policy);
  if (decision.retryAfterSeconds !== null) reply.header('Retry-After', String(decision.retryAfterSeconds));
}

/**
 * Adds the budget hooks to `app` (before routes are registered): an onRequest hook that counts the
 * request and answers 429 when over budget, and an onSend hook that puts the RateLimit headers on
 * every budgeted response, whatever produced it (route, 404 handler, error handler, 304).
 */
export async function registerRateLimit(app: FastifyInstance, { env, overrides = {} }: RateLimitOptions): Promise<void> {
  const windows: WindowSpec[] = [
    { points: overrides.perMinute ?? PER_MINUTE, seconds: overrides.minuteSeconds ?? 60 },
    { points: overrides.perDay ?? PER_DAY, seconds: overrides.daySeconds ?? 86_400 },
  ];
  for (const w of windows) {
    if (!Number.isInteger(w.points) || w.points < 0 || !Number.isInteger(w.seconds) || w.seconds < 1) {
      throw new Error(`rate limit: invalid window ${JSON.stringify(w)}`);
    }
  }
  const base = publicBaseUrl(env);
  const links = { bulk_data: `${base}/data/latest/manifest.json`, docs: `${base}/llms.txt` };

  const keyPrefix = overrides.keyPrefix ?? DEFAULT_KEY_PREFIX;
  let recovered = () => {};
  // The connection is named after the key prefix (CLIENT LIST shows `ratelimit:<prefix>`).
  const redis = env.REDIS_URL ? await openRedis(app, env.REDIS_URL, `ratelimit:${keyPrefix}`.replace(/\s/g, '_'), () => recovered()) : undefined;
  const budget = createBudget({
    windows,
    keyPrefix,
    redis,
    onFallback: () => app.log.warn('rate limit: Redis command failed; counting this client in process memory'),
  });
  recovered = () => budget.storeRecovered();

  // The decision of a request, kept on the request itself (a decoration under a symbol of this
  // budget: no WeakMap entry per request).
  const kDecision = Symbol('budget decision');
  app.decorateRequest(kDecision, null);
  type Decided = { [kDecision]: BudgetDecision | null };
  const remember = (req: FastifyRequest, decision: BudgetDecision) => {
    (req as unknown as Decided)[kDecision] = decision;
  };

  /** The 429 body of a refused decision. */
  const refusal = (decision: BudgetDecision): RateLimitedBody => {
    const { points, seconds } = decision.tighter;
    const per = seconds === 60 ? 'minute' : seconds === 86_400 ? 'day' : `${seconds} s`;
    return {
      error: {
        ...errorBody(
          429,
          `Rate limit exceeded: ${points} requests per ${per} per client address. ` +
            `Retry after ${decision.retryAfterSeconds} s, or download the nightly exports instead of crawling.`,
        ).error,
        ...links,
      },
    };
  };

  /** Counts `units` for the client of `req`; null when the store failed (served uncounted). */
  const charge = async (req: FastifyRequest, units: number): Promise<BudgetDecision | null> => {
    let decision: BudgetDecision;
    try {
      decision = await budget.consume(clientKey(req.ip ?? 'unknown'), units);
    } catch (err) {
      // Only reachable on an unexpected store error without insurance: serve rather than fail.
      req.log.error({ err }, 'rate limit: budget unavailable; request served uncounted');
      return null;
    }
    remember(req, decision);
    return decision;
  };
  /** The memory-only budget's synchronous count (see Budget.consumeNow); undefined with Redis. */
  const consumeNow = budget.consumeNow;
  const policy = budget.policy;

  app.decorate('chargeBudget', async (req: FastifyRequest, units: number): Promise<BudgetCharge> => {
    if (!Number.isInteger(units) || units < 0) throw new RangeError(`budget units must be a non-negative integer, not ${units}`);
    if (units === 0) return { refused: null };
    const decision = await charge(req, units);
    return { refused: decision && !decision.allowed ? refusal(decision) : null };
  });

  const refuse = (reply: FastifyReply, decision: BudgetDecision) =>
    reply.code(429).type('application/json; charset=utf-8').send(refusal(decision));

  // Callback-style hooks: with the memory store a budgeted request is counted and decided without
  // a promise (the hot path of every request, cache hits included); with Redis it waits as before.
  app.addHook('onRequest', (req, reply, done) => {
    if (req.method === 'OPTIONS') return done();
    const path = req.routeOptions.url ?? req.url.split('?')[0];
    if (isShownBudgetPath(path)) {
      budget.peek(clientKey(req.ip ?? 'unknown')).then(
        (decision) => {
          remember(req, decision);
          done();
        },
        // The store is unreachable: no headers rather than a failed request.
        () => done(),
      );
      return;
    }
    if (!isBudgetedPath(path)) return done();
    if (consumeNow) {
      const decision = consumeNow(clientKey(req.ip ?? 'unknown'), 1);
      remember(req, decision);
      if (decision.allowed) return done();
      refuse(reply, decision);
      return;
    }
    charge(req, 1).then(
      (decision) => {
        if (!decision || decision.allowed) done();
        else refuse(reply, decision);
      },
      (err: Error) => done(err),
    );
  });

  app.addHook('onSend', (req, reply, payload, done) => {
    const decision = (req as unknown as Decided)[kDecision];
    if (decision) setBudgetHeaders(reply, decision, policy);
    done(null, payload);
  });
}
