/**
 * The per-IP request budget itself, independent of HTTP (api-spec "Limits"): two fixed windows, a
 * minute and a day, kept by rate-limiter-flexible — in process memory, or in Redis shared by every
 * instance with an in-memory insurance limiter taking over while Redis fails.
 *
 * Counting rule: every budgeted request costs one point in BOTH windows, whether it is served or
 * refused. Both windows therefore always count the same requests (a refusal by the minute window
 * also counts against the day), a client that ignores `Retry-After` does not get free retries, and
 * each window is one atomic increment (no read-then-write race between instances).
 */
import net from 'node:net';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

/** One window of the budget. */
export interface WindowSpec {
  /** Requests allowed in the window. */
  points: number;
  /** Window length in seconds (60 and 86,400 by contract). */
  seconds: number;
}

/** One window's state after a request was counted. */
export interface WindowState extends WindowSpec {
  /** Requests left in the window (never negative). */
  remaining: number;
  /** Whole seconds (rounded up, at least 1) until the window resets. */
  resetSeconds: number;
  /** Whether this window refused the request (it was over the window's points). */
  refused: boolean;
}

/** What counting one request decided. */
export interface BudgetDecision {
  /** Whether the request may be served. */
  allowed: boolean;
  /**
   * The tighter window: the one with fewer requests remaining; on a tie the one resetting later
   * (its `remaining` holds until then). Source of RateLimit-Limit/-Remaining/-Reset.
   */
  tighter: WindowState;
  /**
   * Seconds until a retry can succeed: the latest reset among exhausted windows (those with nothing
   * remaining, which includes every refusing one — a window this request just emptied refuses the
   * next request too); null when allowed.
   */
  retryAfterSeconds: number | null;
  /** Every window, minute first. */
  windows: WindowState[];
}

/** How to build a {@link Budget}. */
export interface BudgetOptions {
  /** The windows, shortest first (contract: 300 per 60 s, 10,000 per 86,400 s). */
  windows: readonly WindowSpec[];
  /** Store key prefix; each window appends `:<seconds>`. */
  keyPrefix: string;
  /** ioredis client to share the budget through; memory only when absent. */
  redis?: Redis;
  /** Called (at most once per outage, see {@link Budget.storeRecovered}) when Redis failed and memory took over. */
  onFallback?: () => void;
  /**
   * Clients the memory-only budget remembers at most (default {@link DEFAULT_MAX_CLIENTS}); the
   * least recently counted is forgotten beyond it (see MemoryBudget). Not used with Redis, whose
   * keys expire with their windows.
   */
  maxClients?: number;
}

/** A per-key request budget over several windows. */
export interface Budget {
  /** The windows, as configured. */
  readonly windows: readonly WindowSpec[];
  /** `RateLimit-Policy` value: `300;w=60, 10000;w=86400`. */
  readonly policy: string;
  /**
   * Counts `points` requests (default 1; an MCP batch of n calls costs n) for `key` in every window
   * and decides; refused points count too.
   * @throws only on an unexpected store error with no insurance (never with the defaults).
   */
  consume(key: string, points?: number): Promise<BudgetDecision>;
  /**
   * {@link Budget.consume} answered synchronously, present only when the budget is kept in process
   * memory (no Redis): the same counting and decision without a promise per window (the hot path of
   * every budgeted request).
   */
  readonly consumeNow?: (key: string, points?: number) => BudgetDecision;
  /**
   * The state of `key`'s budget without counting anything (for responses that show the budget but
   * are not charged to it, such as /healthz and /graphql): always allowed.
   * @throws on a store error (the caller then sends no RateLimit headers).
   */
  peek(key: string): Promise<BudgetDecision>;
  /** Re-arms {@link BudgetOptions.onFallback} (call when Redis is ready again). */
  storeRecovered(): void;
}

/** In-memory limiter that reports when it is used as Redis's insurance. */
class InsuranceMemory extends RateLimiterMemory {
  constructor(
    opts: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly used: () => void,
  ) {
    super(opts);
  }

  override consume(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.used();
    return super.consume(key, points, options);
  }
}

function stateOf(spec: WindowSpec, res: RateLimiterRes, refused: boolean): WindowState {
  return windowState(spec, res.consumedPoints, res.msBeforeNext, refused);
}

/**
 * One window's state from its count and the milliseconds before it resets (a literal of one fixed
 * shape: this runs twice per request).
 */
function windowState(spec: WindowSpec, consumed: number, msBeforeNext: number, refused: boolean): WindowState {
  // msBeforeNext is -1 for a key without expiry (never the case here); fall back to the full window.
  const ms = msBeforeNext >= 0 ? msBeforeNext : spec.seconds * 1000;
  return {
    points: spec.points,
    seconds: spec.seconds,
    remaining: Math.max(0, spec.points - consumed),
    resetSeconds: Math.min(spec.seconds, Math.max(1, Math.ceil(ms / 1000))),
    refused,
  };
}

/** Picks the tighter window and the retry delay from per-window states (pure; exported for tests). */
export function decide(windows: WindowState[]): BudgetDecision {
  // Plain loops (no closures or intermediate arrays): this runs on every budgeted request.
  let tighter = windows[0];
  let allowed = !tighter.refused;
  let retry = tighter.remaining === 0 ? tighter.resetSeconds : -Infinity;
  for (let i = 1; i < windows.length; i++) {
    const b = windows[i];
    if (b.remaining < tighter.remaining || (b.remaining === tighter.remaining && b.resetSeconds > tighter.resetSeconds)) tighter = b;
    if (b.refused) allowed = false;
    if (b.remaining === 0 && b.resetSeconds > retry) retry = b.resetSeconds;
  }
  return { allowed, tighter, retryAfterSeconds: allowed ? null : retry, windows };
}

/**
 * Clients the memory-only budget remembers at most (see {@link MemoryBudget}): about 190 bytes
 * each with the contract's two windows (IPv4 key, record, LRU slot), so some 40 MB at the bound.
 */
export const DEFAULT_MAX_CLIENTS = 200_000;

/**
 * The memory-only budget, every window of every client answered synchronously: the counting of
 * rate-limiter-flexible's RateLimiterMemory (fixed windows starting at a key's first counted
 * request, no block duration, not executed evenly) without a promise, a RateLimiterRes and a timer
 * per key and window.
 *
 * - One record per client (one lookup per request, whatever the number of windows): an array
 *   of `[count, end]` pairs, one pair per window, `end` in epoch milliseconds. A
 *   window that has ended is started afresh when the client is next counted (no timers).
 * - Bounded memory: the records live in an LRU (`lru-cache`) of at most `maxClients` clients, not
 *   in a structure that grows with every address ever seen (a day window lasts 24 hours, and a
 *   client that rotates addresses, or a server behind a proxy, sees many). At the bound the least
 *   recently counted client is forgotten, so its budget starts afresh should it come back. Only a
 *   crowd of `maxClients` other addresses, all counted since that client's last request, can do
 *   that — a client already holding that many addresses has that many budgets anyway — so the
 *   per-address limits hold for any client that keeps asking.
 */
class MemoryBudget {
  private readonly clients: LRUCache<string, number[]>;
  private readonly ms: number[];

  constructor(
    private readonly windows: readonly WindowSpec[],
    maxClients: number,
  ) {
    this.clients = new LRUCache<string, number[]>({ max: maxClients });
    this.ms = windows.map((w) => w.seconds * 1000);
  }

  /** Counts `points` for `key` at `now` (epoch ms) in every window; each window's state, refused when over. */
  consume(key: string, points: number, now: number): WindowState[] {
    const n = this.windows.length;
    let r = this.clients.get(key);
    if (r === undefined) {
      r = new Array<number>(2 * n).fill(0); // every window ended at 0: started below
      this.clients.set(key, r);
    }
    const states = new Array<WindowState>(n);
    for (let i = 0; i < n; i++) {
      const spec = this.windows[i];
      if (r[2 * i + 1] - now <= 0) {
        r[2 * i] = points;
        r[2 * i + 1] = now + this.ms[i];
      } else {
        r[2 * i] += points;
      }
      const count = r[2 * i];
      states[i] = windowState(spec, count, r[2 * i + 1] - now, count > spec.points);
    }
    return states;
  }

  /** Every window's state for `key` at `now` without counting (as RateLimiterMemory `get`); an unknown client has its whole budget. */
  peek(key: string, now: number): WindowState[] {
    const r = this.clients.peek(key);
    return this.windows.map((spec, i) =>
      r === undefined || r[2 * i + 1] - now <= 0
        ? { ...spec, remaining: spec.points, resetSeconds: spec.seconds, refused: false }
        : windowState(spec, r[2 * i], r[2 * i + 1] - now, false),
    );
  }

  /** Clients remembered now. */
  get size(): number {
    return this.clients.size;
  }
}

/** Builds the budget; Redis-backed (with memory insurance) when `redis` is given. */
export function createBudget({ windows, keyPrefix, redis, onFallback, maxClients = DEFAULT_MAX_CLIENTS }: BudgetOptions): Budget {
  if (windows.length === 0) throw new Error('a budget needs at least one window');
  if (!Number.isInteger(maxClients) || maxClients < 1) throw new RangeError(`a budget's maxClients must be a positive integer, not ${maxClients}`);
  let fallbackReported = false;
  const used = () => {
    if (fallbackReported) return;
    fallbackReported = true;
    onFallback?.();
  };
  const policy = windows.map((w) => `${w.points};w=${w.seconds}`).join(', ');
  if (!redis) {
    // Process memory only: every window answered synchronously (see MemoryBudget).
    const memory = new MemoryBudget(windows, maxClients);
    const consumeNow = (key: string, points = 1): BudgetDecision => decide(memory.consume(key, points, Date.now()));
    return {
      windows,
      policy,
      storeRecovered() {
        fallbackReported = false;
      },
      consumeNow,
      async peek(key) {
        return { ...decide(memory.peek(key, Date.now())), allowed: true, retryAfterSeconds: null };
      },
      async consume(key, points = 1) {
        return consumeNow(key, points);
      },
    };
  }
  const limiters = windows.map((w) => {
    const opts = { points: w.points, duration: w.seconds, keyPrefix: `${keyPrefix}:${w.seconds}` };
    return new RateLimiterRedis({
      ...opts,
      storeClient: redis,
      // Do not wait for a reconnect: answer from memory at once while Redis is not ready.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new InsuranceMemory(opts, used),
    });
  });

  return {
    windows,
    policy,
    storeRecovered() {
      fallbackReported = false;
    },
    async peek(key) {
      const got = await Promise.all(limiters.map((l) => l.get(key)));
      const states = got.map((res, i): WindowState =>
        res === null
          ? { ...windows[i], remaining: windows[i].points, resetSeconds: windows[i].seconds, refused: false }
          : stateOf(windows[i], res, false),
      );
      return { ...decide(states), allowed: true, retryAfterSeconds: null };
    },
    async consume(key, points = 1) {
      const settled = await Promise.allSettled(limiters.map((l) => l.consume(key, points)));
      const states = settled.map((s, i) => {
        if (s.status === 'fulfilled') return stateOf(windows[i], s.value, false);
        if (s.reason instanceof RateLimiterRes) return stateOf(windows[i], s.reason, true);
        throw s.reason;
      });
      return decide(states);
    },
  };
}

/** Expands an IPv6 address (no zone) into its eight 16-bit groups, or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  if (!net.isIPv6(address)) return null;
  // An embedded IPv4 tail (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) becomes two hex groups first.
  const text = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a: string, b: string, c: string, d: string) =>
    `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const parse = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const at = text.indexOf('::');
  if (at < 0) return parse(text);
  const left = parse(text.slice(0, at));
  const right = parse(text.slice(at + 2));
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The budget key of a client address: an IPv4 address as is (also when IPv4-mapped, `::ffff:a.b.c.d`);
 * an IPv6 address by its /64 prefix, the block one subscriber or LAN normally gets, so rotating
 * through one's own addresses does not multiply the budget. Anything else is used verbatim.
 */
export function clientKey(ip: string): string {
  // Without a colon or a zone it is IPv4 (or no address at all): the key is the text itself, and
  // remembering it would only fill the memo with addresses seen once.
  if (!ip.includes(':') && !ip.includes('%')) return ip;
  let key = clientKeys.get(ip);
  if (key === undefined) {
    key = keyOfAddress(ip);
    // Bounded: a flood of distinct addresses only costs the computation again.
    if (clientKeys.size >= CLIENT_KEY_CACHE_SIZE) clientKeys.clear();
    clientKeys.set(ip, key);
  }
  return key;
}

/** Addresses whose keys {@link clientKey} remembers (a pure function of the address) at most. */
const CLIENT_KEY_CACHE_SIZE = 10_000;
const clientKeys = new Map<string, string>();

function keyOfAddress(ip: string): string {
  const address = ip.replace(/%.*$/, '');
  if (net.isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
