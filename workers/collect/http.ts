/**
 * The collectors' HTTP client (issue 18 item 2): polite by construction, the same for every chain
 * and for the live sites and the replay server alike.
 *
 * - undici (`request`, one keep-alive Agent per client);
 * - per host: at most `concurrency` requests in flight and `ratePerSecond` started per second
 *   (p-queue, one queue per host; a retry waits outside the queue, so a backoff holds no slot);
 * - a time limit per request (headers and body, `AbortSignal.timeout`);
 * - retries on a timeout, a network error, 408, 429 and 5xx: full-jitter exponential backoff
 *   (`random(0, min(maxMs, baseMs·2^attempt))`), or the server's `Retry-After` (seconds or an HTTP
 *   date) when it sends one, capped at `maxMs`; then {@link HttpError};
 * - an identifying User-Agent on every request (project, version and a contact URL).
 */
import { Agent, request, type Dispatcher } from 'undici';
import PQueue from 'p-queue';
import type { PageRequest } from './types.js';
import { emptyRecord } from '../../src/domain/dictionary.js';
import { ExpectedError } from '../../src/errors.js';

/** Settings of an {@link HttpClient}. */
export interface HttpOptions {
  /** Sent on every request. */
  userAgent: string;
  /** Time limit of one attempt (headers and body), ms. */
  timeoutMs: number;
  /** Retries after the first attempt. */
  retries: number;
  /** Backoff of the first retry is drawn from [0, retryBaseMs), doubling per retry. */
  retryBaseMs: number;
  /** Backoff ceiling and the longest Retry-After honoured, ms. */
  retryMaxMs: number;
  /** Requests in flight per host. */
  concurrency: number;
  /** Requests started per second per host. */
  ratePerSecond: number;
  /** Where retries are reported (one line each). */
  log?: (line: string) => void;
}

/** A response as the runner reads it: status, headers (lower-case names) and the body text. */
export interface HttpResponse {
  url: string;
  status: number;
  /**
   * Response headers, lower-case names; a repeated header joined by ", " except `set-cookie`,
   * whose values are joined by "\n" (one cookie a line).
   */
  headers: Record<string, string>;
  text: string;
}

/** A request that failed for good: a non-retried status, or the last attempt's failure. */
export class HttpError extends ExpectedError {
  constructor(
    message: string,
    /** The URL requested. */
    readonly url: string,
    /** The last HTTP status, or null for a timeout or network error. */
    readonly status: number | null,
  ) {
    super(message);
  }
}

const RETRIED_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Milliseconds a `Retry-After` value asks for (delta-seconds or an HTTP date), or null when absent
 * or unreadable. `now` for tests.
 */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before retry number `attempt` (0-based): the server's Retry-After when given (capped at
 * `maxMs`), else full jitter `random(0, min(maxMs, baseMs·2^attempt))`.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, retryAfter: number | null, random: () => number = Math.random): number {
  if (retryAfter !== null) return Math.min(retryAfter, maxMs);
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A response's headers, one string each, by lower-case name (the remote server's names: a record without a prototype). */
function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out = emptyRecord<string>();
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    const name = k.toLowerCase();
    out[name] = Array.isArray(v) ? v.join(name === 'set-cookie' ? '\n' : ', ') : v;
  }
  return out;
}

/** An HTTP client with per-host queues, timeouts and retries (see the module comment). */
export class HttpClient {
  private readonly agent: Dispatcher;
  private readonly queues = new Map<string, PQueue>();
  /** Attempts made (first tries and retries) and retries alone, since the client was made. */
  readonly stats = { attempts: 0, retries: 0 };

  constructor(private readonly opts: HttpOptions) {
    this.agent = new Agent({ connections: Math.max(1, opts.concurrency), keepAliveTimeout: 10_000 });
  }

  private queue(host: string): PQueue {
    let q = this.queues.get(host);
    if (!q) {
      const perSecond = this.opts.ratePerSecond;
      // p-queue's interval cap: `intervalCap` starts per `interval` ms (a rate below 1/s widens the interval).
      const interval = perSecond >= 1 ? 1000 : Math.ceil(1000 / perSecond);
      const intervalCap = perSecond >= 1 ? Math.floor(perSecond) : 1;
      q = new PQueue({ concurrency: this.opts.concurrency, interval, intervalCap });
      this.queues.set(host, q);
    }
    return q;
  }

  /** One attempt, through the host's queue. */
  private async attempt(req: PageRequest): Promise<HttpResponse> {
    const host = new URL(req.url).host;
    return this.queue(host).add(async () => {
      this.stats.attempts += 1;
      const res = await request(req.url, {
        method: req.method ?? 'GET',
        headers: { ...req.headers, 'user-agent': this.opts.userAgent },
        body: req.body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      const text = await res.body.text();
      return { url: req.url, status: res.statusCode, headers: flatHeaders(res.headers as Record<string, string | string[] | undefined>), text };
    }) as Promise<HttpResponse>;
  }

  /**
   * Makes a request with retries; resolves with any 2xx response.
   * @throws HttpError for a status other than 2xx that is not retried (4xx), or when the last
   *   retry fails (its status, or null for a timeout or network error).
   */
  async send(req: PageRequest): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      let res: HttpResponse | null = null;
      let failure: string;
      try {
        res = await this.attempt(req);
        if (res.status >= 200 && res.status < 300) return res;
        failure = `HTTP ${res.status}`;
        if (!RETRIED_STATUS.has(res.status)) throw new HttpError(`${failure} from ${req.method ?? 'GET'} ${req.url}`, req.url, res.status);
      } catch (e) {
        if (e instanceof HttpError) throw e;
        const err = e as Error & { code?: string };
        failure = err.name === 'TimeoutError' || err.name === 'AbortError' ? `timed out after ${this.opts.timeoutMs} ms` : `${err.code ?? err.name}: ${err.message}`;
      }
      if (attempt >= this.opts.retries) {
        throw new HttpError(`${failure} from ${req.method ?? 'GET'} ${req.url} (after ${attempt + 1} attempts)`, req.url, res?.status ?? null);
      }
      const ra = res ? retryAfterMs(res.headers['retry-after']) : null;
      const wait = backoffMs(attempt, this.opts.retryBaseMs, this.opts.retryMaxMs, ra);
      this.stats.retries += 1;
      this.opts.log?.(`retry ${attempt + 1}/${this.opts.retries} of ${req.url} in ${wait} ms: ${failure}${ra !== null ? ` (Retry-After ${ra} ms)` : ''}`);
      await sleep(wait);
    }
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    for (const q of this.queues.values()) q.clear();
    await this.agent.close();
  }
}
