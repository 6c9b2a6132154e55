/**
 * Configuration, parsed once at start-up from the environment with zod. Every problem is reported
 * together; callers get a frozen, typed object and never read `process.env` themselves.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ExpectedError } from './errors.js';
import { DEFAULT_INDEX_METHOD, INDEX_METHODS } from './domain/index-method.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** An http(s) origin: scheme, host and optional port, no path (a trailing slash is dropped). */
const originUrl = z
  .string()
  .url()
  .transform((v) => v.replace(/\/+$/, ''))
  .refine((v) => /^https?:\/\/[^/?#]+$/.test(v), 'an http(s) origin without a path, e.g. https://www.woolworths.co.nz');

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** PostgreSQL URL; when unset an embedded PostgreSQL is started in EMBEDDED_PG_DIR. */
  DATABASE_URL: z.string().url().optional(),
  EMBEDDED_PG_DIR: z.string().min(1).default(path.join(root, '.data', 'pg')),
  /**
   * Port of an embedded server this process starts (loopback). Unset: 54329
   * (src/db/database.ts DEFAULT_EMBEDDED_PG_PORT), or a free port when that one is taken (a second clone);
   * set: that port or a start error naming this variable.
   */
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** Folder holding the real public data (see ../shared/data/README.md). */
  DATA_DIR: z.string().min(1).default(path.resolve(root, '..', 'shared', 'data')),
  /**
   * Folder of the nightly exports: each run writes `<EXPORT_DIR>/<day>T<time>/` and then switches the
   * `<EXPORT_DIR>/latest` symlink to it (served at /data/latest/*).
   */
  EXPORT_DIR: z.string().min(1).default(path.join(root, '.data', 'exports')),
  /**
   * Folder of the converted product images (workers/images): `<IMAGE_DIR>/ab/cdef….avif` and its
   * `_t` thumbnail, served at `/images/ab/cdef….avif` (the ImagePath of listings and products).
   */
  IMAGE_DIR: z.string().min(1).default(path.join(root, '.data', 'images')),
  /** Nightly export schedule (node-cron expression, Pacific/Auckland); `off` disables it. */
  EXPORT_CRON: z.string().min(1).default('30 4 * * *'),
  /**
   * Index schedule (node-cron, Pacific/Auckland): basket matching, the index run and the derived
   * views (each incremental; a run with nothing new writes nothing). `off` disables it. The export
   * also runs them first.
   */
  INDEX_CRON: z.string().min(1).default('*/10 * * * *'),
  /**
   * The index's elementary method (src/domain/index-method.ts): `chained-jevons` (default, it won
   * out of sample) or `geks-jevons` (real-time 28-day GEKS-Jevons, window splice). The worker's
   * index runs use it unless `npm run worker -- index --method <m>` says otherwise; a run whose
   * method differs from the stored run's recomputes every day.
   */
  INDEX_METHOD: z.enum(INDEX_METHODS).default(DEFAULT_INDEX_METHOD),
  /**
   * `true`: `npm start` also starts the worker process (`npm run worker -- start`) and supervises
   * it, restarting it with backoff when it dies; `false`: the API alone (run the worker elsewhere).
   */
  START_WORKER: z.enum(['true', 'false', '1', '0']).default('true').transform((v) => v === 'true' || v === '1'),
  /** Import the real data into an empty database when the worker process starts. */
  IMPORT_ON_START: z.enum(['true', 'false', '1', '0']).default('true').transform((v) => v === 'true' || v === '1'),
  /**
   * `production` (the default, so `npm start` never shows internals); `development` adds the
   * original message of unexpected GraphQL errors (never a stack trace); tests pass `test`.
   */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Public base URL used in links (docs, bulk_data). */
  PUBLIC_URL: z.string().url().optional(),
  /** Elasticsearch URL; when set, search runs on Elasticsearch instead of the embedded backend. */
  ELASTICSEARCH_URL: z.string().url().optional(),
  /** Alias the Elasticsearch backend reads (each reindex builds a new index and swaps this alias). */
  ELASTICSEARCH_ALIAS: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _').default('nzgp-listings'),
  /**
   * Bound of the response cache (facades/http/response-cache.ts), bytes: the serialised 200 answers
   * of the GET operations (and their gzip variants), keyed by the data version. `0` disables it.
   */
  CACHE_MAX_BYTES: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(128 * 1024 * 1024),
  /** Redis URL for the shared per-IP budget; when unset the budget is kept in process memory. */
  REDIS_URL: z.string().url().optional(),
  /**
   * Whether to honour X-Forwarded-For: `false` (default; the socket address is the client), `true`
   * (trust every proxy), or a comma list of trusted proxy addresses/CIDRs (Fastify trustProxy).
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v): boolean | string[] => {
      if (v === 'false' || v === '0') return false;
      if (v === 'true' || v === '1') return true;
      return v.split(',').map((x) => x.trim()).filter(Boolean);
    }),
  /**
   * Longest time a client may take to send a whole request, headers and body (Node
   * `server.requestTimeout`); 408 and the connection closed past it.
   */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * Longest time a client may take to send the request headers, counted from the connection or the
   * previous response (Node `server.headersTimeout`): what ends a slow-loris connection.
   */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /**
   * How long an idle keep-alive connection is kept after a response (Node `server.keepAliveTimeout`):
   * longer than the 60 s idle timeout of common load balancers, so they close first.
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(72_000),
  /** Socket inactivity after which a connection is closed, whatever its state (Fastify `connectionTimeout`). */
  HTTP_CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  /**
   * Longest statement of the API process, ms (PostgreSQL `statement_timeout` of its connections);
   * its other database bounds follow from it (src/db/database.ts poolTimeouts: the client gives up
   * 0.5 s later when the server answers nothing). Past it a request answers 503.
   */
  API_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3_000),
  /**
   * Requests run at once per operation family (facades/concurrency.ts; the pool has 10
   * connections): search, heavy, light (families of the registry), and ad-hoc /graphql.
   */
  CONCURRENCY_SEARCH: z.coerce.number().int().min(1).max(1000).default(3),
  CONCURRENCY_HEAVY: z.coerce.number().int().min(1).max(1000).default(2),
  CONCURRENCY_LIGHT: z.coerce.number().int().min(1).max(1000).default(6),
  CONCURRENCY_GRAPHQL: z.coerce.number().int().min(1).max(1000).default(2),
  /** Requests that may wait per family; one more is answered 503 at once. */
  CONCURRENCY_QUEUE: z.coerce.number().int().min(0).max(100_000).default(64),
  /**
   * Longest wait for a family's slot, ms; 503 past it (`Retry-After`: this in whole seconds).
   * Default 1 s; {@link TEST_CONCURRENCY_WAIT_MS} under NODE_ENV=test when not set.
   */
  CONCURRENCY_WAIT_MS: z.coerce.number().int().min(1).max(60_000).default(1_000),
  /** `off` lifts the bounds above (every request runs at once, as before issue 29 item 3). */
  CONCURRENCY_LIMITS: z.enum(['on', 'off']).default('on').transform((v) => v === 'on'),
  /** Longest statement of the worker process and the CLI, ms (one hour by default). */
  WORKER_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
  /**
   * Collectors (workers/collect, docs/collecting.md). Contact URL named in the collectors'
   * User-Agent (`nz-grocery-prices/<version> (+<url>)`); PUBLIC_URL when unset. A run against a
   * non-loopback origin refuses to start without one of the two.
   */
  COLLECT_CONTACT_URL: z.string().url().optional(),
  /** Requests in flight at once per retailer host (stores are collected this many at a time). */
  COLLECT_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** Requests started per second per retailer host, at most. */
  COLLECT_RATE: z.coerce.number().positive().max(50).default(2),
  /** Time limit of one request (headers and body), ms; a request past it is retried. */
  COLLECT_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(30_000),
  /** Retries of one request on a timeout, a network error, 429 or 5xx (then the store fails). */
  COLLECT_RETRIES: z.coerce.number().int().min(0).max(10).default(4),
  /** Backoff: first retry within this many ms (full jitter, doubling per retry). */
  COLLECT_RETRY_BASE_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
  /** Backoff ceiling, ms; also the longest `Retry-After` waited (a longer one is capped to it). */
  COLLECT_RETRY_MAX_MS: z.coerce.number().int().min(0).max(3_600_000).default(120_000),
  /** Folder of the per-store spool files of runs in progress (`<dir>/<retailer>/<day>/<store>.ndjson`). */
  COLLECT_SPOOL_DIR: z.string().min(1).default(path.join(root, '.data', 'collect')),
  /**
   * Daily collection schedule of every chain (node-cron, Pacific/Auckland), e.g. `0 5 * * *`;
   * `off` (the default: nothing hits a retailer's site unless asked). COLLECT_<RETAILER>_CRON
   * overrides it per chain. Chains due at the same time run one after the other, then matching,
   * the index and the derived views, then the export.
   */
  COLLECT_CRON: z.string().min(1).default('off'),
  COLLECT_WOOLWORTHS_CRON: z.string().min(1).optional(),
  COLLECT_NEWWORLD_CRON: z.string().min(1).optional(),
  COLLECT_PAKNSAVE_CRON: z.string().min(1).optional(),
  COLLECT_FRESHCHOICE_CRON: z.string().min(1).optional(),
  COLLECT_SUPERVALUE_CRON: z.string().min(1).optional(),
  COLLECT_WAREHOUSE_CRON: z.string().min(1).optional(),
  /** Origin (scheme, host, port) of each chain's online shop; the collector's live origin when unset. */
  COLLECT_WOOLWORTHS_ORIGIN: originUrl.optional(),
  COLLECT_NEWWORLD_ORIGIN: originUrl.optional(),
  COLLECT_PAKNSAVE_ORIGIN: originUrl.optional(),
  COLLECT_FRESHCHOICE_ORIGIN: originUrl.optional(),
  COLLECT_SUPERVALUE_ORIGIN: originUrl.optional(),
  COLLECT_WAREHOUSE_ORIGIN: originUrl.optional(),
  /**
   * Origin the images run after a collection downloads product images from instead of each image
   * URL's own scheme and host (path and query kept; the stored source URL stays the retailer's):
   * a replay server standing in for the retailers' CDNs. `--image-origin` overrides it. Unset: the
   * real URLs.
   */
  COLLECT_IMAGE_ORIGIN: originUrl.optional(),
}).refine((e) => e.HTTP_HEADERS_TIMEOUT_MS <= e.HTTP_REQUEST_TIMEOUT_MS, {
  path: ['HTTP_HEADERS_TIMEOUT_MS'],
  message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS (Node refuses a headers timeout longer than the request timeout)',
});

/** The validated configuration. */
export type Env = z.infer<typeof schema>;

/** Thrown when the environment does not validate; `message` lists every problem. */
export class ConfigError extends ExpectedError {}

/**
 * CONCURRENCY_WAIT_MS under NODE_ENV=test when not set: the suite runs its files in parallel on a
 * few cores, and a server of a test that is not about the wait bound should queue, not answer 503
 * because the machine is busy (the concurrency tests set their own bound).
 */
export const TEST_CONCURRENCY_WAIT_MS = 30_000;

/**
 * Parses and validates configuration from `source` (default `process.env`).
 * @throws ConfigError listing every invalid variable.
 */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Readonly<Env> {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  if (cleaned.NODE_ENV === 'test' && cleaned.CONCURRENCY_WAIT_MS === undefined) cleaned.CONCURRENCY_WAIT_MS = String(TEST_CONCURRENCY_WAIT_MS);
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(parsed.data);
}

/** The public base URL (no trailing slash) for generated links: PUBLIC_URL, else the local address. */
export function publicBaseUrl(env: Readonly<Pick<Env, 'PUBLIC_URL' | 'PORT'>>): string {
  return (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
}

/** Repository root (for schema/ and prisma/ files). */
export const ROOT_DIR = root;
