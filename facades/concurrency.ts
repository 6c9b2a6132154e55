/**
 * Bounded concurrency per operation family (issue 29 item 3, "Isolation under load"): one slow
 * family must not starve the rest. Every request that reaches the database holds one of the pool's
 * ten connections (src/db/database.ts); without a bound, 64 clients each sending a new search held
 * all ten, and cheap routes queued behind them for seconds (p99 2.4–4.3 s). So each family runs at
 * most a few requests at once — well below the pool size, so the other families always find a
 * connection — and waits in a bounded queue of its own:
 *
 * - `search` (search_products, search_listings, suggest), `heavy` (the operations that scan most:
 *   comparisons, levels, the basket, shopping lists, store listings, browsing) and `light` (the
 *   rest) come from each operation's `family` (facades/operations/*.ts); `graphql` is every ad-hoc
 *   /graphql execution (facades/graphql.ts {@link concurrencyPlugin}).
 * - A request whose family is at its limit waits, first come first served. It is refused at once
 *   when CONCURRENCY_QUEUE requests of its family already wait, and refused when it has waited
 *   CONCURRENCY_WAIT_MS: 503 with `Retry-After` (the wait bound, in whole seconds) and the Error
 *   body, `no-store` like every 503 (facades/server.ts cacheControlFor). MCP answers it as it
 *   answers an outage (a tool error carrying the same body, HTTP 200, no-store, Retry-After);
 *   /graphql as an `UNAVAILABLE` error with HTTP 503 and Retry-After.
 * - Only work that really runs is limited: the limiter wraps the executor that the response cache
 *   (facades/http/response-cache.ts) calls on a miss, so a cached answer never waits.
 * - CONCURRENCY_LIMITS=off lifts every bound (the bench's comparison, test/bench/isolation.ts).
 *
 * The queue is p-queue (already the collectors' queue, workers/collect/http.ts): one queue per
 * family with `concurrency` as the limit; `size` (waiting) gives the bound of the wait queue and an
 * AbortSignal removes a waiter from it. A tiny semaphore would be about as long once a waiter can
 * leave the queue by timer; p-queue is well kept and already here. One care: p-queue also races a
 * *running* task against its signal and frees the slot when it fires, so the signal here is aborted
 * only by the wait timer, which is cleared the moment the task starts.
 */
import PQueue from 'p-queue';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Env } from '../src/env.js';
import { errorBody, type Executor, type Outcome } from './execute.js';

/** The families: the registry's three, and ad-hoc /graphql. */
export const FAMILIES = ['light', 'search', 'heavy', 'graphql'] as const;

/** A family of requests with a concurrency limit and a wait queue of its own. */
export type Family = (typeof FAMILIES)[number];

/** Why a request was refused: its family's queue was full, or it waited past the bound. */
export type RefusalReason = 'queue full' | 'waited too long';

/** The bounds of one family. */
export interface FamilyLimit {
  /** Requests running at once. */
  concurrency: number;
  /** Requests waiting at once; one more is refused at once. */
  queue: number;
}

/** What {@link createConcurrencyLimiter} needs. */
export interface ConcurrencyOptions {
  /** The bounds of each family. */
  limits: Readonly<Record<Family, FamilyLimit>>;
  /** Longest wait in a queue, ms; past it the request is refused. */
  maxWaitMs: number;
}

/** Counters of one family since start (tests, the bench). */
export interface FamilyStats {
  /** Running now. */
  running: number;
  /** Waiting now. */
  waiting: number;
  /** Refused because the queue was full. */
  refusedFull: number;
  /** Refused after waiting the bound. */
  refusedWait: number;
}

/** The result of {@link ConcurrencyLimiter.run}: the task's value, or a refusal. */
export type Admission<T> = { ok: true; value: T } | { ok: false; reason: RefusalReason };

/** The limiter of one server. */
export interface ConcurrencyLimiter {
  /** Seconds a refused client is asked to wait (`Retry-After`). */
  readonly retryAfterSeconds: number;
  /** Runs `task` when its family has a free slot, or refuses it (never throws for a refusal). */
  run<T>(family: Family, task: () => Promise<T>): Promise<Admission<T>>;
  /** `run` with every operation limited by its family; a refusal is the 503 {@link overloaded} outcome. */
  executor(run: Executor): Executor;
  /** Counters of `family`. */
  stats(family: Family): FamilyStats;
}

/** The message of a refusal. */
export function overloadMessage(family: Family): string {
  return `Service unavailable: too many ${family === 'graphql' ? 'GraphQL' : family} requests at once; retry shortly`;
}

/** The 503 outcome of a refused operation: Error body and `Retry-After`. */
export function overloaded(family: Family, retryAfterSeconds: number): Outcome {
  return {
    status: 503,
    contentType: 'application/json; charset=utf-8',
    body: errorBody(503, overloadMessage(family)),
    headers: { 'Retry-After': String(retryAfterSeconds) },
  };
}

/** The configured bounds (src/env.ts CONCURRENCY_*), or null when CONCURRENCY_LIMITS is off. */
export function concurrencyOptions(env: Readonly<Env>): ConcurrencyOptions | null {
  if (!env.CONCURRENCY_LIMITS) return null;
  const queue = env.CONCURRENCY_QUEUE;
  return {
    limits: {
      light: { concurrency: env.CONCURRENCY_LIGHT, queue },
      search: { concurrency: env.CONCURRENCY_SEARCH, queue },
      heavy: { concurrency: env.CONCURRENCY_HEAVY, queue },
      graphql: { concurrency: env.CONCURRENCY_GRAPHQL, queue },
    },
    maxWaitMs: env.CONCURRENCY_WAIT_MS,
  };
}

/** The wait timer's abort reason (told apart from anything the task itself throws). */
const WAITED = Symbol('waited too long');

/**
 * Builds a limiter over `opts` (see the module comment).
 * @throws RangeError when a bound is not a positive integer (a queue may be 0: refuse at once).
 */
export function createConcurrencyLimiter(opts: ConcurrencyOptions): ConcurrencyLimiter {
  const families = new Map<Family, { queue: PQueue; limit: FamilyLimit; refusedFull: number; refusedWait: number }>();
  for (const family of FAMILIES) {
    const limit = opts.limits[family];
    if (!Number.isInteger(limit.concurrency) || limit.concurrency < 1) throw new RangeError(`${family}: concurrency must be a positive integer`);
    if (!Number.isInteger(limit.queue) || limit.queue < 0) throw new RangeError(`${family}: queue must be a non-negative integer`);
    families.set(family, { queue: new PQueue({ concurrency: limit.concurrency }), limit, refusedFull: 0, refusedWait: 0 });
  }
  if (!(opts.maxWaitMs > 0)) throw new RangeError('maxWaitMs must be positive');
  const retryAfterSeconds = Math.max(1, Math.ceil(opts.maxWaitMs / 1000));
  const of = (family: Family) => families.get(family)!;

  async function run<T>(family: Family, task: () => Promise<T>): Promise<Admission<T>> {
    const f = of(family);
    // A free slot: p-queue starts the task at once. Otherwise it waits, if the queue has room.
    if (f.queue.pending >= f.limit.concurrency && f.queue.size >= f.limit.queue) {
      f.refusedFull += 1;
      return { ok: false, reason: 'queue full' };
    }
    const waited = new AbortController();
    const timer = setTimeout(() => waited.abort(WAITED), opts.maxWaitMs);
    let started = false;
    try {
      const value = await f.queue.add(
        () => {
          started = true;
          clearTimeout(timer); // from now on nothing aborts the signal: the slot is held to the end
          return task();
        },
        { signal: waited.signal },
      );
      return { ok: true, value };
    } catch (e) {
      if (!started && e === WAITED) {
        f.refusedWait += 1;
        return { ok: false, reason: 'waited too long' };
      }
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    retryAfterSeconds,
    run,
    executor(inner) {
      return async (op, input) => {
        if (op.family === 'probe') return inner(op, input); // healthz: never bounded (facades/operation.ts)
        const admitted = await run(op.family, () => inner(op, input));
        return admitted.ok ? admitted.value : overloaded(op.family, retryAfterSeconds);
      };
    },
    stats(family) {
      const f = of(family);
      return { running: f.queue.pending, waiting: f.queue.size, refusedFull: f.refusedFull, refusedWait: f.refusedWait };
    },
  };
}

/**
 * The /graphql half: every execution (after parsing, validation and the shape limits; GraphiQL and
 * refusals never wait) runs in the `graphql` family. A refusal is the result
 * `{ errors: [UNAVAILABLE] }` whose `http` extension makes Yoga answer HTTP 503 with `Retry-After`,
 * as for a database outage (src/errors.ts Unavailable).
 */
export function concurrencyPlugin(limiter: ConcurrencyLimiter): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(async (args) => {
        const admitted = await limiter.run('graphql', async () => executeFn(args));
        if (admitted.ok) return admitted.value;
        return {
          errors: [
            new GraphQLError(overloadMessage('graphql'), {
              extensions: { code: 'UNAVAILABLE', http: { status: 503, headers: { 'Retry-After': String(limiter.retryAfterSeconds) } } },
            }),
          ],
        };
      });
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's concurrency limiter (null when CONCURRENCY_LIMITS is off); see facades/concurrency.ts. */
    concurrency: ConcurrencyLimiter | null;
  }
}
