/**
 * Per-IP request budget (api-spec "Limits"): 300 a minute and 10,000 a day across /api/v1/* and
 * /mcp together, with RateLimit-* headers on every response and 429 + Retry-After + the Error body
 * (with `bulk_data`) when exceeded. STUB: filled in by the rate-limit work of issue 3.
 */
import type { FastifyInstance } from 'fastify';
import type { Env } from '../../src/env.js';

/** Overrides for tests and benchmarks (the contract's figures are the defaults). */
export interface RateLimitOverrides {
  /** Requests a minute per client address (default 300). */
  perMinute?: number;
  /** Requests a day per client address (default 10,000). */
  perDay?: number;
}

/** What {@link registerRateLimit} needs. */
export interface RateLimitOptions {
  env: Readonly<Pick<Env, 'REDIS_URL' | 'PUBLIC_URL'>>;
  overrides?: RateLimitOverrides;
}

/** Adds the budget hooks to `app` (before routes are registered). */
export async function registerRateLimit(_app: FastifyInstance, _opts: RateLimitOptions): Promise<void> {}
