/**
 * Conditional requests (api-spec Global conventions "Caching", get_index_latest): a strong `ETag`
 * (SHA-1 of the exact body bytes, the @fastify/etag scheme) on every GET/HEAD 200 response of
 * /api/v1/*, /openapi.json, /openapi.yaml, /llms.txt, /llms-full.txt and /data/latest/manifest.json,
 * and `If-None-Match` → 304 with no body when it matches (RFC 9110 §13.1.2: weak comparison, `*`,
 * lists). A route may set its own ETag (e.g. from the index's computation time); it is then kept
 * and used for the comparison. Not for /graphql or /mcp (POST, per-query bodies), nor for errors.
 *
 * `Last-Modified` (issue 26, "Say how old every fact is"; RFC 9110 §8.8.2) on every GET/HEAD 200 of
 * /api/v1/*: when the data was observed, the newest `retailer.last_run` over every chain, as an
 * IMF-fixdate in whole seconds. It is learnt once per data version (src/db/data-version.ts
 * `observedAt`, read with the version the response cache keys on), never queried per request;
 * omitted while no chain has been collected or the version is unknown (its watch is down). With
 * it, `If-Modified-Since` → 304 when Last-Modified is not later than the given date (§13.1.3),
 * evaluated only when the request has no `If-None-Match` (§13.2.2: the entity tag decides then)
 * and ignored when it is not a valid HTTP-date. A route that sets its own Last-Modified keeps it.
 *
 * Why not `app.register(@fastify/etag)`: the plugin is global (fastify-plugin) and tags every
 * string/Buffer response of every route and status, and answers 304 to a matching 404 or 429 too;
 * its hook cannot be scoped to routes that server.ts registers on the root instance. This hook
 * applies the same hashing only where the contract wants it.
 *
 * `Cache-Control: public, max-age=300` is set on every response by server.ts, 304s included; the
 * RateLimit headers of budgeted paths are added by ratelimit.ts's onSend hook, 304s included.
 */
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DataVersionWatch } from '../../src/db/data-version.js';

/** Paths, besides everything under /api/v1/, whose GET 200 responses get an ETag. */
const CACHEABLE = new Set(['/openapi.json', '/openapi.yaml', '/llms.txt', '/llms-full.txt', '/data/latest/manifest.json']);

/** Whether responses of this route pattern (or path) carry an ETag. */
export function isCacheablePath(path: string): boolean {
  return isDataPath(path) || CACHEABLE.has(path);
}

/** Whether responses of this route pattern (or path) describe the data, so carry its `Last-Modified` (/api/v1/*, and the price-change feeds /feeds/*: facades/http/feeds.ts). */
export function isDataPath(path: string): boolean {
  return path.startsWith('/api/v1/') || path.startsWith('/feeds/');
}

/** Strong entity tag of a body: `"<sha1 base64url>"`. */
export function etagOf(payload: string | Buffer): string {
  return `"${crypto.createHash('sha1').update(payload).digest('base64url')}"`;
}

/**
 * Whether an `If-None-Match` header value matches `etag` (RFC 9110 §13.1.2: `*`, or any listed tag
 * equal under weak comparison, i.e. ignoring `W/`).
 */
export function ifNoneMatchMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return (value.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === wanted);
}

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const LONG_DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = new RegExp(`^(?:${DAY_NAMES.join('|')}), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** Obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850_DATE = new RegExp(`^(?:${LONG_DAY_NAMES.join('|')}), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** Obsolete asctime form: `Sun Nov  6 08:49:37 1994`. */
const ASCTIME_DATE = new RegExp(`^(?:${DAY_NAMES.join('|')}) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * An instant as an HTTP-date (RFC 9110 §5.6.7 IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`):
 * whole seconds, the fraction dropped.
 * @param instant milliseconds since the epoch, a Date or an ISO 8601 text
 * @throws RangeError when it is not a valid instant
 */
export function httpDate(instant: number | Date | string): string {
  const ms = instant instanceof Date ? instant.getTime() : typeof instant === 'string' ? Date.parse(instant) : instant;
  if (!Number.isFinite(ms)) throw new RangeError(`not an instant: ${String(instant)}`);
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString();
}

/**
 * Parses an HTTP-date (RFC 9110 §5.6.7) in any of its three forms — IMF-fixdate, and the obsolete
 * RFC 850 and asctime forms recipients must accept — into milliseconds since the epoch (whole
 * seconds). A two-digit RFC 850 year more than 50 years ahead of `now` is taken as the most recent
 * past year with those digits. The weekday is not checked against the date.
 * @returns null for anything else (other date syntaxes, impossible dates such as 31 Feb, an hour
 *   over 23): a malformed If-Modified-Since is ignored, never guessed at.
 */
export function parseHttpDate(text: string, now: number = Date.now()): number | null {
  let day: string;
  let month: string;
  let year: number;
  let time: [string, string, string];
  let m: RegExpExecArray | null;
  if ((m = IMF_FIXDATE.exec(text))) {
    [, day, month] = m;
    year = Number(m[3]);
    time = [m[4], m[5], m[6]];
  } else if ((m = RFC850_DATE.exec(text))) {
    [, day, month] = m;
    const current = new Date(now).getUTCFullYear();
    year = Math.floor(current / 100) * 100 + Number(m[3]);
    if (year > current + 50) year -= 100;
    time = [m[4], m[5], m[6]];
  } else if ((m = ASCTIME_DATE.exec(text))) {
    [, month, day] = m;
    time = [m[3], m[4], m[5]];
    year = Number(m[6]);
  } else {
    return null;
  }
  const [h, min, sec] = time.map(Number);
  const d = Number(day.trim());
  const mon = MONTHS.indexOf(month);
  if (h > 23 || min > 59 || sec > 60 || d < 1) return null;
  const ms = Date.UTC(year, mon, d, h, min, Math.min(sec, 59));
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== mon || check.getUTCDate() !== d) return null; // 31 Feb
  return ms;
}

/**
 * Whether an `If-Modified-Since` value says the representation is unchanged (RFC 9110 §13.1.3):
 * it is a valid HTTP-date and `lastModified` (an HTTP-date) is not later than it. False for an
 * absent, repeated or malformed value (the precondition is then ignored).
 */
export function notModifiedSince(header: string | string[] | undefined, lastModified: string): boolean {
  if (typeof header !== 'string') return false;
  const since = parseHttpDate(header.trim());
  const modified = parseHttpDate(lastModified);
  return since !== null && modified !== null && modified <= since;
}

/** What {@link registerCaching} needs. */
export interface CachingOptions {
  /**
   * The `Last-Modified` of /api/v1/* answers now (an HTTP-date), or null to send none; called once
   * per such response, so it must be cheap (see {@link lastModifiedOf}).
   */
  lastModified?: () => string | null;
}

/**
 * The `Last-Modified` getter of a data version watch: the version's observation time
 * (src/db/data-version.ts `observedAt`, the newest `retailer.last_run`) as an HTTP-date, formatted
 * once per value; null while the version is unknown or no chain has been collected.
 */
export function lastModifiedOf(watch: Pick<DataVersionWatch, 'current'>): () => string | null {
  let seen: string | null = null;
  let date: string | null = null;
  return () => {
    const at = watch.current()?.observedAt ?? null;
    if (at !== seen) {
      seen = at;
      date = at === null ? null : httpDate(at);
    }
    return date;
  };
}

/** Adds ETag, Last-Modified and conditional-request handling to `app` (before routes are registered). */
export async function registerCaching(app: FastifyInstance, { lastModified }: CachingOptions = {}): Promise<void> {
  // Callback style (no promise per response): this runs on every answer the server sends.
  app.addHook('onSend', (req, reply, payload, done) => {
    done(null, conditional(req, reply, payload));
  });

  /** The payload to send: `payload`, or none for a 304 (the headers set on `reply` on the way). */
  function conditional(req: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || reply.statusCode !== 200) return payload;
    const path = req.routeOptions.url ?? req.url.split('?')[0];
    if (!isCacheablePath(path)) return payload;
    let modified = reply.getHeader('last-modified');
    if (modified === undefined && lastModified && isDataPath(path)) {
      const date = lastModified();
      if (date !== null) reply.header('Last-Modified', (modified = date));
    }
    let etag = reply.getHeader('etag');
    if (etag === undefined && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      etag = etagOf(payload);
      reply.header('ETag', etag);
    } // streams: no tag
    // RFC 9110 §13.2.2: If-None-Match decides when present; If-Modified-Since only without it.
    const ifNoneMatch = req.headers['if-none-match'];
    const unchanged =
      ifNoneMatch !== undefined
        ? etag !== undefined && ifNoneMatchMatches(ifNoneMatch, String(etag))
        : modified !== undefined && notModifiedSince(req.headers['if-modified-since'], String(modified));
    if (!unchanged) return payload;
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    // No body. HEAD keeps the payload for Fastify's HEAD handler, which then sends none but states
    // the 200's Content-Length (allowed on a 304, RFC 9110 §8.6) — it cannot take a null payload.
    return req.method === 'HEAD' ? payload : null;
  }
}
