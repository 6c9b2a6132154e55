/**
 * The memory-only per-IP budget (facades/http/budget.ts): fixed windows without timers, a bounded
 * number of clients remembered, and the budget key of an address. The HTTP side (headers, 429
 * bodies, Redis) is test/integration/ratelimit.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clientKey, createBudget } from '../../facades/http/budget.js';

const windows = [
  { points: 3, seconds: 60 },
  { points: 5, seconds: 86_400 },
];

describe('memory budget', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-03T00:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts every window, refuses over the tighter one and starts a window afresh once it has ended', () => {
    const b = createBudget({ windows, keyPrefix: 't' });
    const take = () => b.consumeNow!('10.0.0.1');
    expect(take().tighter).toMatchObject({ points: 3, remaining: 2, resetSeconds: 60 });
    take();
    const third = take();
    expect(third.allowed).toBe(true);
    expect(third.tighter.remaining).toBe(0);
    const refused = take();
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(60);
    vi.setSystemTime(new Date('2026-12-03T00:00:30Z'));
    expect(take().windows[0].resetSeconds).toBe(30); // the fifth request: the day is spent too (the tighter on a tie)
    // The minute has ended: a new one starts at the next request; the day has counted all six.
    vi.setSystemTime(new Date('2026-12-03T00:01:00Z'));
    const next = take();
    expect(next.windows[0]).toMatchObject({ remaining: 2, resetSeconds: 60, refused: false });
    expect(next.windows[1]).toMatchObject({ remaining: 0, refused: true });
    expect(next.allowed).toBe(false);
  });

  it('peeks without counting, and shows an unknown client its whole budget', async () => {
    const b = createBudget({ windows, keyPrefix: 't' });
    b.consumeNow!('10.0.0.1');
    expect((await b.peek('10.0.0.1')).tighter.remaining).toBe(2);
    expect((await b.peek('10.0.0.1')).tighter.remaining).toBe(2);
    expect((await b.peek('10.0.0.2')).tighter).toMatchObject({ remaining: 3, resetSeconds: 60 });
    expect(await b.consume('10.0.0.1')).toMatchObject({ allowed: true, tighter: { remaining: 1 } });
  });

  it('remembers at most maxClients clients, forgetting the least recently counted', () => {
    const b = createBudget({ windows, keyPrefix: 't', maxClients: 2 });
    b.consumeNow!('a');
    b.consumeNow!('a');
    b.consumeNow!('b');
    b.consumeNow!('a'); // a is now the most recently counted
    b.consumeNow!('c'); // b goes
    expect(b.consumeNow!('a').tighter.remaining).toBe(0); // a kept its count
    expect(b.consumeNow!('b').tighter.remaining).toBe(2); // b starts afresh
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => createBudget({ windows, keyPrefix: 't', maxClients: 0 })).toThrow(RangeError);
  });
});

describe('clientKey', () => {
  it('keys IPv4 (also IPv4-mapped) as the address, IPv6 by its /64, anything else verbatim', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('unknown')).toBe('unknown');
  });
});
