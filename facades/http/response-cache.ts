/**
 * The response cache (issue 19 item 1; DESIGN "The data version, derived views and the response
 * cache"): a GET operation's 200 response is a pure function of (operation, normalised parameters,
 * data version, New Zealand day), so its bytes are kept and written again without GraphQL, SQL or
 * `JSON.stringify`.
 *
 * - Key: `<epoch>.<version>|<NZ day>|<operation>|<parameters>`, the parameters being the validated
 *   zod output (defaults applied, values coerced) as JSON with keys in canonical order — so
 *   `?limit=24` and the default 24 share one entry, `?q=beef` and `?q=lamb` do not. The parameters
 *   as received — a REST request's path and query as sent, an MCP call's arguments as canonical
 *   text — are remembered beside it (an LRU of 65,536 aliases), so a repeated request skips the
 *   zod schema (and a REST hit any text of its parameters). The day is in the key because a few answers depend on "today in New Zealand" (src/domain/days.ts nzToday:
 *   the index series' default end, the statistics window of a chain without collections).
 * - Value: the serialised body, its strong ETag (SHA-1, the facades/http/caching.ts scheme), and
 *   for bodies of {@link COMPRESS_MIN_BYTES} or more a gzip variant with its own tag (`"…-gz"`),
 *   sent when Accept-Encoding accepts gzip (q > 0). Every response of a cached operation says
 *   `Vary: Accept-Encoding`.
 * - Bound: an LRU (`lru-cache`) of at most CACHE_MAX_BYTES bytes (bodies, gzip variants and keys);
 *   an entry larger than the bound is not kept. CACHE_MAX_BYTES=0 turns the cache off: routes then
 *   run exactly as before (no compression, no Vary; the version is still watched, for Last-Modified).
 * - Version: src/db/data-version.ts watchDataVersion (LISTEN on a dedicated connection). The whole
 *   cache is dropped when the version changes; an answer computed under an older version is never
 *   stored. While the version is unknown (the listening connection is down, e.g. during a database
 *   outage) nothing is read from or written to the cache, so an outage is answered 503 as before
 *   and no bump can be missed.
 * - Misses and hits go through the same {@link sendEntry}: the same status, body bytes, ETag,
 *   Content-Type/-Encoding and Vary; the hooks of facades/server.ts (Cache-Control, CORS),
 *   ratelimit.ts (the budget counts every request in onRequest, before the route, and sets the
 *   RateLimit headers in onSend) and caching.ts (Last-Modified from the same data version; 304 on
 *   If-None-Match, using the stored tag, or on If-Modified-Since) run for both alike.
 * - Not cached: errors (400, 404, 503… — each is answered the way it was; a 404 scan must not
 *   evict useful entries), `healthz` (it exists to reach the database) and `get_export_manifest`
 *   (read from the export folder, which the export job changes without a data version bump),
 *   `get_data_status` (its `computing` and `jobs` follow the job log, which moves when a job starts
 *   or is queued, not only at a data version bump), and
 *   parameters given more than once (the executor answers them 400).
 * - MCP: the tools run through {@link ResponseCache.executor}, the same entries: a hit costs a
 *   `JSON.parse` of the stored bytes (the tool result embeds the body in a JSON-RPC envelope, so its
 *   bytes cannot be stored whole), never GraphQL or SQL.
 * - Not shared through Redis: every instance LISTENs to the same version, so each instance's cache
 *   is exact on its own; sharing would only save an instance its first miss per version.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { dataVersionToken, watchDataVersion, type DataVersionWatch } from '../../src/db/data-version.js';
import { nzToday } from '../../src/domain/days.js';
import type { Executor, Outcome } from '../execute.js';
import { paramInfo, type AnyOperation } from '../operation.js';
import { etagOf } from './caching.js';

const gzip = promisify(zlib.gzip);

/** Operations never cached (see the module comment). */
export const UNCACHED_OPERATIONS: ReadonlySet<string> = new Set(['healthz', 'get_export_manifest', 'get_data_status']);

/** Bodies smaller than this are not compressed (a gzip header and a round trip outweigh the gain). */
export const COMPRESS_MIN_BYTES = 1024;

/** Bytes counted per entry besides its buffers and key (object, headers, LRU bookkeeping). */
const ENTRY_OVERHEAD = 256;

/** One stored 200 response. */
export interface CachedResponse {
  /** Response media type. */
  contentType: string;
  /** Whether the operation answered a string (sent as is) rather than a value (sent as JSON). */
  textBody: boolean;
  /** Extra headers the operation's outcome carried (none today; kept for completeness). */
  headers?: Record<string, string>;
  /** The body as the route sends it uncompressed. */
  identity: Buffer;
  /** Strong ETag of {@link CachedResponse.identity}. */
  etag: string;
  /** The gzip variant (null for small bodies). */
  gzip: Buffer | null;
  /** ETag of the gzip variant (`"<identity tag>-gz"`), null without one. */
  gzipEtag: string | null;
}

/** Counters since start (tests and logs). */
export interface ResponseCacheStats {
  /** Answers served from a stored entry (REST and MCP). */
  hits: number;
  /** Cacheable requests that ran the operation (then stored when it answered 200 and the version held). */
  misses: number;
  /** Requests of a cacheable operation answered without the cache because the version was unknown. */
  bypassed: number;
  /** Entries stored. */
  stored: number;
  /** Times the whole cache was dropped for a new data version. */
  invalidations: number;
}

/** What {@link createResponseCache} needs. */
export interface ResponseCacheOptions {
  /** The executor misses run. */
  run: Executor;
  /** Bound of the stored bytes (> 0). */
  maxBytes: number;
  /** The data version (src/db/data-version.ts watchDataVersion). */
  watch: DataVersionWatch;
  /** Today in New Zealand (default src/domain/days.ts nzToday, re-read at most once a second). */
  today?: () => string;
}

/** The cache of one server. */
export interface ResponseCache {
  /** The data version it keys on. */
  readonly watch: DataVersionWatch;
  /** Bytes held now (≤ the bound). */
  readonly bytes: number;
  /** Entries held now. */
  readonly entries: number;
  /** Counters since start. */
  readonly stats: ResponseCacheStats;
  /** Whether `op` is ever served from the cache. */
  handles(op: AnyOperation): boolean;
  /**
   * Answers a REST request of `op` (raw path and query values in `input`) through the cache: a hit,
   * or a 200 miss (then stored), is sent here and null returned; any other outcome (errors,
   * uncacheable operations) is returned for the caller to send as it always did.
   */
  respond(req: FastifyRequest, reply: FastifyReply, op: AnyOperation, input: Record<string, unknown>): Promise<Outcome | null>;
  /** `run` with the cache in front (the MCP tools): a hit returns the stored body parsed. */
  executor(run: Executor): Executor;
  /** Drops every entry. */
  clear(): void;
}

/**
 * A canonical text of a validated parameter object, for cache keys: object keys sorted at every
 * depth, undefined members left out, strings quoted with `"` and `\\` escaped (injective, and no
 * `JSON.stringify` on the hit path).
 */
export function canonicalJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return `"${v.replace(/["\\]/g, '\\$&')}"`;
    case 'number':
    case 'boolean':
      return String(v);
    case 'bigint':
      return `${v}n`;
    default:
  }
  if (v instanceof Date) return `D${v.toISOString()}`;
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
    return `{${keys.map((k) => `${canonicalJson(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return String(v);
}

/**
 * Whether parameters as received are flat — each a string, number, boolean or null, or an array of
 * those (what a query string gives) — so their text can key an alias before validation. Anything
 * deeper (an MCP tool's arguments can be any JSON, nested thousands deep) goes to the schema first.
 */
export function isFlat(input: Record<string, unknown>): boolean {
  for (const k in input) {
    const v = input[k];
    if (isPrimitive(v) || v === undefined) continue;
    if (!Array.isArray(v) || !v.every(isPrimitive)) return false;
  }
  return true;
}

/** A string, number, boolean or null (module level: the hot path defines no closure per call). */
function isPrimitive(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/**
 * Whether an Accept-Encoding value accepts gzip: `gzip` (or `x-gzip`) listed with q > 0, or `*`
 * with q > 0 and gzip not refused by name (RFC 9110 §12.5.3).
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  if (typeof header !== 'string') return parseAcceptsGzip(header.join(','));
  // Clients send a handful of distinct values (`gzip, deflate, br`, …): each is parsed once.
  let known = gzipAnswers.get(header);
  if (known === undefined) {
    known = parseAcceptsGzip(header);
    if (gzipAnswers.size >= GZIP_ANSWERS_MAX) gzipAnswers.clear(); // bounded: a flood of odd values only costs the parse again
    gzipAnswers.set(header, known);
  }
  return known;
}

/** Accept-Encoding values whose answer {@link acceptsGzip} remembers at most. */
const GZIP_ANSWERS_MAX = 1024;
const gzipAnswers = new Map<string, boolean>();

/** {@link acceptsGzip} of one header value, parsed. */
function parseAcceptsGzip(value: string): boolean {
  let star: boolean | null = null;
  for (const part of value.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
    const ok = q ? Number(q[1]) > 0 : true;
    if (coding === 'gzip' || coding === 'x-gzip') return ok;
    if (coding === '*') star = ok;
  }
  return star === true;
}

/** Adds `token` to a Vary header value unless it is there (or `*`). */
function varyWith(current: unknown, token: string): string {
  if (current === undefined) return token; // the usual case: nothing varies yet
  const list = String(current).split(',').map((s) => s.trim()).filter(Boolean);
  if (list.includes('*') || list.some((s) => s.toLowerCase() === token.toLowerCase())) return list.join(', ');
  return [...list, token].join(', ');
}

/** Builds the entry of a 200 outcome, or null when its body cannot be stored (not JSON-serialisable). */
async function entryOf(outcome: Outcome): Promise<CachedResponse | null> {
  const text = typeof outcome.body === 'string' ? outcome.body : JSON.stringify(outcome.body);
  if (typeof text !== 'string') return null;
  const identity = Buffer.from(text);
  const etag = etagOf(identity);
  const compressed = identity.length >= COMPRESS_MIN_BYTES ? await gzip(identity) : null;
  return {
    contentType: outcome.contentType,
    textBody: typeof outcome.body === 'string',
    ...(outcome.headers ? { headers: outcome.headers } : {}),
    identity,
    etag,
    gzip: compressed,
    gzipEtag: compressed ? `${etag.slice(0, -1)}-gz"` : null,
  };
}

/**
 * Sends a stored (or just built) entry: the gzip variant when the request accepts it, else the
 * identity bytes, each with its own ETag; `Vary: Accept-Encoding` always. Hits and misses both
 * come here, so they cannot differ in anything but the time taken.
 */
export function sendEntry(req: FastifyRequest, reply: FastifyReply, entry: CachedResponse): FastifyReply {
  const zipped = entry.gzip !== null && acceptsGzip(req.headers['accept-encoding']);
  if (entry.headers) reply.headers(entry.headers);
  reply.header('vary', varyWith(reply.getHeader('vary'), 'Accept-Encoding'));
  if (zipped) reply.header('content-encoding', 'gzip');
  reply.header('etag', zipped ? entry.gzipEtag : entry.etag);
  return reply.code(200).type(entry.contentType).send(zipped ? entry.gzip : entry.identity);
}

/** Today in New Zealand, re-read at most once a second. */
function dayClock(): () => string {
  let day = '';
  let until = 0;
  return () => {
    const now = Date.now();
    if (now >= until) {
      day = nzToday(new Date(now));
      until = now + 1000;
    }
    return day;
  };
}

/**
 * Builds the cache (see the module comment); the caller closes `watch` when the server closes.
 * @throws RangeError when `maxBytes` is not a positive integer
 */
export function createResponseCache({ run, maxBytes, watch, today = dayClock() }: ResponseCacheOptions): ResponseCache {
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new RangeError(`response cache: maxBytes must be a positive integer, not ${maxBytes}`);
  const lru = new LRUCache<string, CachedResponse>({
    maxSize: maxBytes,
    sizeCalculation: (e, key) => e.identity.length + (e.gzip?.length ?? 0) + key.length * 2 + ENTRY_OVERHEAD,
  });
  // The parameters exactly as received → their normalised key, so that a repeated request finds
  // its entry without running the zod schema (the hit path's largest cost after the write).
  const aliases = new LRUCache<string, string>({ max: 65_536 });
  const stats: ResponseCacheStats = { hits: 0, misses: 0, bypassed: 0, stored: 0, invalidations: 0 };
  let token: string | null = null;
  watch.onChange((v) => {
    if (v === null) return; // unknown for now: nothing is served; the entries may still be current
    const next = dataVersionToken(v);
    if (next === token) return;
    token = next;
    if (lru.size > 0) stats.invalidations += 1;
    lru.clear();
    aliases.clear();
  });
  const known = watch.current();
  token = known ? dataVersionToken(known) : null;

  const singleValued = new Map<string, ReadonlySet<string>>();
  const single = (op: AnyOperation) => {
    let s = singleValued.get(op.name);
    if (!s) {
      s = new Set(paramInfo(op).filter((p) => !p.repeatable).map((p) => p.name));
      singleValued.set(op.name, s);
    }
    return s;
  };

  /** The key of a request, or null when it cannot be cached (unknown version, invalid parameters). */
  const keyOf = (op: AnyOperation, input: Record<string, unknown>, version: string): string | null => {
    const once = single(op);
    for (const k in input) if (once.has(k) && Array.isArray(input[k])) return null;
    const parsed = op.params.safeParse(input);
    if (!parsed.success) return null;
    return `${version}|${today()}|${op.name}|${canonicalJson(parsed.data)}`;
  };
  // The token of the version last seen, built once per version rather than once per request.
  let seen: { epoch: string; version: number; token: string } | null = null;
  const currentToken = () => {
    const v = watch.current();
    if (v === null) return null;
    if (seen === null || seen.epoch !== v.epoch || seen.version !== v.version) seen = { epoch: v.epoch, version: v.version, token: dataVersionToken(v) };
    return seen.token;
  };

  /**
   * The version, key and stored entry of a request, counting it as a hit, a miss or a bypass
   * (version unknown). `url`, a REST request's path and query as received, stands for `input`
   * (derived from it alone) in the alias, sparing the canonical text of the input on every hit.
   */
  const lookup = (op: AnyOperation, input: Record<string, unknown>, url?: string) => {
    const version = currentToken();
    const raw =
      version === null
        ? null
        : url !== undefined
          ? `${version}|${today()}|${op.name}|U${url}`
          : isFlat(input)
            ? `${version}|${today()}|${op.name}|${canonicalJson(input)}`
            : null;
    let key = raw === null ? null : aliases.get(raw) ?? null;
    if (key === null && version !== null) {
      key = keyOf(op, input, version);
      if (key !== null && raw !== null) aliases.set(raw, key);
    }
    if (version === null) stats.bypassed += 1;
    const hit = key === null ? undefined : lru.get(key);
    if (key !== null) {
      if (hit) stats.hits += 1;
      else stats.misses += 1;
    }
    return { version, key, hit };
  };

  /** Runs a miss and stores its entry when the version held; null entry for anything but a storable 200. */
  const miss = async (runner: Executor, op: AnyOperation, input: Record<string, unknown>, key: string | null, version: string | null) => {
    const outcome = await runner(op, input);
    if (outcome.status !== 200) return { outcome, entry: null };
    const entry = await entryOf(outcome);
    if (entry && key !== null && version !== null && currentToken() === version) {
      lru.set(key, entry);
      if (lru.has(key)) stats.stored += 1;
    }
    return { outcome, entry };
  };

  const handles = (op: AnyOperation) => op.method === 'GET' && !UNCACHED_OPERATIONS.has(op.name);

  return {
    watch,
    get bytes() {
      return lru.calculatedSize;
    },
    get entries() {
      return lru.size;
    },
    stats,
    handles,
    async respond(req, reply, op, input) {
      if (!handles(op)) return run(op, input);
      const { version, key, hit } = lookup(op, input, req.url);
      if (hit) {
        sendEntry(req, reply, hit);
        return null;
      }
      const { outcome, entry } = await miss(run, op, input, key, version);
      if (!entry) return outcome;
      sendEntry(req, reply, entry);
      return null;
    },
    executor(inner) {
      return async (op, input) => {
        if (!handles(op)) return inner(op, input);
        const { version, key, hit } = lookup(op, input);
        if (hit) {
          const text = hit.identity.toString('utf8');
          const body = hit.textBody ? text : (JSON.parse(text) as unknown);
          return { status: 200, contentType: hit.contentType, body, ...(hit.headers ? { headers: hit.headers } : {}) };
        }
        return (await miss(inner, op, input, key, version)).outcome;
      };
    },
    clear() {
      lru.clear();
      aliases.clear();
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's response cache (null when CACHE_MAX_BYTES is 0); see facades/http/response-cache.ts. */
    responseCache: ResponseCache | null;
    /** The server's data version watch (src/db/data-version.ts), opened by {@link openDataVersionWatch}. */
    dataVersion: DataVersionWatch;
  }
}

/**
 * Starts the server's data-version watch (one dedicated connection, closed with the server) and
 * decorates `app.dataVersion`. The response cache keys on it and `Last-Modified`
 * (facades/http/caching.ts) comes from it, so it is opened whether or not the cache is on.
 */
export async function openDataVersionWatch(app: FastifyInstance, pool: pg.Pool): Promise<DataVersionWatch> {
  const watch = await watchDataVersion(pool.options, {
    log: { warn: (m) => app.log.warn(m), info: (m) => app.log.info(m) },
  });
  app.addHook('onClose', async () => watch.close());
  app.decorate('dataVersion', watch);
  return watch;
}

/** What {@link openResponseCache} needs. */
export interface OpenResponseCacheOptions {
  /** The executor misses run. */
  run: Executor;
  /** The server's data version watch ({@link openDataVersionWatch}). */
  watch: DataVersionWatch;
  /** CACHE_MAX_BYTES; 0 disables the cache. */
  maxBytes: number;
}

/** Builds the cache over the server's data version watch; decorates `app.responseCache`. Resolves null when `maxBytes` is 0. */
export async function openResponseCache(app: FastifyInstance, { run, watch, maxBytes }: OpenResponseCacheOptions): Promise<ResponseCache | null> {
  if (maxBytes <= 0) {
    app.decorate('responseCache', null);
    return null;
  }
  const cache = createResponseCache({ run, maxBytes, watch });
  app.decorate('responseCache', cache);
  return cache;
}
