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
  // msBeforeNext is -1 for a key without expiry (never the case here); fall back to the full window.
  const ms = res.msBeforeNext >= 0 ? res.msBeforeNext : spec.seconds * 1000;
  return {
    ...spec,
    remaining: Math.max(0, spec.points - res.consumedPoints),
    resetSeconds: Math.min(spec.seconds, Math.max(1, Math.ceil(ms / 1000))),
    refused,
  };
}

/** Picks the tighter window and the retry delay from per-window states (pure; exported for tests). */
export function decide(windows: WindowState[]): BudgetDecision {
  const tighter = windows.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a,
  );
  const allowed = windows.every((w) => !w.refused);
  const exhausted = windows.filter((w) => w.remaining === 0);
  return {
    allowed,
    tighter,
    retryAfterSeconds: allowed ? null : Math.max(...exhausted.map((w) => w.resetSeconds)),
    windows,
  };
}

/** Builds the budget; Redis-backed (with memory insurance) when `redis` is given. */
export function createBudget({ windows, keyPrefix, redis, onFallback }: BudgetOptions): Budget {
  if (windows.length === 0) throw new Error('a budget needs at least one window');
  let fallbackReported = false;
  const used = () => {
    if (fallbackReported) return;
    fallbackReported = true;
    onFallback?.();
  };
  const limiters = windows.map((w) => {
    const opts = { points: w.points, duration: w.seconds, keyPrefix: `${keyPrefix}:${w.seconds}` };
    if (!redis) return new RateLimiterMemory(opts);
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
    policy: windows.map((w) => `${w.points};w=${w.seconds}`).join(', '),
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
  const address = ip.replace(/%.*$/, '');
  if (net.isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
