/**
 * Bounded concurrency per operation family (facades/concurrency.ts; issue 29 item 3): every
 * registry operation declares a family; a family at its limit queues the next request, refuses one
 * more when its queue is full and one that waited past the bound, while another family runs at
 * once; a running request keeps its slot to the end; the refusal is the 503 outcome with
 * `Retry-After`. Tasks are held by promises the test resolves, never by sleeps; the wait bound runs
 * on fake timers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { concurrencyOptions, createConcurrencyLimiter, FAMILIES, overloaded, type ConcurrencyOptions, type Family } from '../../facades/concurrency.js';
import type { Outcome } from '../../facades/execute.js';
import type { AnyOperation } from '../../facades/operation.js';
import { operations } from '../../facades/operations.js';
import { loadEnv, TEST_CONCURRENCY_WAIT_MS } from '../../src/env.js';

/** A task that runs until the test lets it go. */
function held<T = string>(value: T) {
  let release!: () => void;
  let started = false;
  const gate = new Promise<void>((r) => (release = r));
  return {
    task: async () => {
      started = true;
      await gate;
      return value;
    },
    release,
    get started() {
      return started;
    },
  };
}

const options = (over: Partial<Record<Family, { concurrency: number; queue: number }>> = {}, maxWaitMs = 60_000): ConcurrencyOptions => ({
  limits: {
    light: { concurrency: 2, queue: 2 },
    search: { concurrency: 1, queue: 1 },
    heavy: { concurrency: 1, queue: 1 },
    graphql: { concurrency: 1, queue: 1 },
    ...over,
  },
  maxWaitMs,
});

/** Lets queued microtasks and p-queue's next-task scheduling run. */
const settle = () => new Promise((r) => setImmediate(r));

afterEach(() => {
  vi.useRealTimers();
});

describe('operation families', () => {
  it('every registry operation declares one of the three families (healthz alone is the unbounded probe); the search operations are `search`', () => {
    const families = new Set(['light', 'search', 'heavy']);
    for (const op of operations) if (op.name !== 'healthz') expect(families.has(op.family), `${op.name}: ${String(op.family)}`).toBe(true);
    expect(operations.filter((op) => op.family === 'probe').map((op) => op.name)).toEqual(['healthz']);
    expect(operations.filter((op) => op.family === 'search').map((op) => op.name).sort()).toEqual(['search_listings', 'search_products', 'suggest']);
    // The slow ones of docs/benchmarks.md (national panel, p50 over a second) are heavy.
    for (const name of ['compare_retailers', 'get_retailer_levels', 'get_basket', 'get_store_listings']) {
      expect(operations.find((op) => op.name === name)?.family, name).toBe('heavy');
    }
    expect(FAMILIES).toEqual(['light', 'search', 'heavy', 'graphql']);
  });
});

describe('the limiter', () => {
  it('queues a request past the limit, refuses one more at once while another family runs, then runs the queue in order', async () => {
    const limiter = createConcurrencyLimiter(options());
    const order: string[] = [];
    const a = held('a');
    const b = held('b');
    const first = limiter.run('search', async () => {
      order.push('a');
      return a.task();
    });
    const second = limiter.run('search', async () => {
      order.push('b');
      return b.task();
    });
    await settle();
    expect(a.started).toBe(true);
    expect(b.started).toBe(false);
    expect(limiter.stats('search')).toMatchObject({ running: 1, waiting: 1 });

    // The queue (1) is full: refused at once, its task never runs.
    const third = vi.fn(async () => 'c');
    await expect(limiter.run('search', third)).resolves.toEqual({ ok: false, reason: 'queue full' });
    expect(third).not.toHaveBeenCalled();
    // Another family is not held by search's queue.
    await expect(limiter.run('light', async () => 'light')).resolves.toEqual({ ok: true, value: 'light' });

    a.release();
    await expect(first).resolves.toEqual({ ok: true, value: 'a' });
    await settle();
    expect(b.started).toBe(true);
    b.release();
    await expect(second).resolves.toEqual({ ok: true, value: 'b' });
    expect(order).toEqual(['a', 'b']);
    expect(limiter.stats('search')).toEqual({ running: 0, waiting: 0, refusedFull: 1, refusedWait: 0 });
  });

  it('refuses a request that waited past the bound; a running one keeps its slot past it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const limiter = createConcurrencyLimiter(options({ search: { concurrency: 1, queue: 4 } }, 1_000));
    const a = held('a');
    const first = limiter.run('search', a.task);
    const waiter = vi.fn(async () => 'late');
    const second = limiter.run('search', waiter);
    await settle();
    expect(limiter.stats('search')).toMatchObject({ running: 1, waiting: 1 });

    vi.advanceTimersByTime(1_000);
    await expect(second).resolves.toEqual({ ok: false, reason: 'waited too long' });
    expect(waiter).not.toHaveBeenCalled();
    // The first has run longer than the bound too, but it started in time: it holds its slot.
    const third = held('c');
    const next = limiter.run('search', third.task);
    await settle();
    expect(limiter.stats('search')).toEqual({ running: 1, waiting: 1, refusedFull: 0, refusedWait: 1 });
    expect(third.started).toBe(false);
    a.release();
    await expect(first).resolves.toEqual({ ok: true, value: 'a' });
    await settle();
    expect(third.started).toBe(true);
    third.release();
    await expect(next).resolves.toEqual({ ok: true, value: 'c' });
  });

  it('frees the slot of a task that throws, and passes its error on', async () => {
    const limiter = createConcurrencyLimiter(options());
    await expect(limiter.run('heavy', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await settle();
    expect(limiter.stats('heavy')).toMatchObject({ running: 0, waiting: 0 });
    await expect(limiter.run('heavy', async () => 1)).resolves.toEqual({ ok: true, value: 1 });
  });

  it('as an executor: an operation runs in its own family; a refusal is 503 with Retry-After and the Error body', async () => {
    const limiter = createConcurrencyLimiter(options({}, 1_500));
    const gate = held<Outcome>({ status: 200, contentType: 'application/json', body: [] });
    const ran: string[] = [];
    const run = limiter.executor(async (op) => {
      ran.push(op.name);
      return op.family === 'search' ? gate.task() : { status: 200, contentType: 'application/json', body: op.name };
    });
    const op = (name: string) => operations.find((o) => o.name === name) as AnyOperation;
    const first = run(op('search_products'), { q: 'a' });
    const queued = run(op('suggest'), { q: 'b' });
    await settle();
    const refused = await run(op('search_listings'), { q: 'c' });
    expect(refused).toEqual(overloaded('search', 2));
    expect(refused).toEqual({
      status: 503,
      contentType: 'application/json; charset=utf-8',
      body: { error: { status: 503, message: 'Service unavailable: too many search requests at once; retry shortly' } },
      headers: { 'Retry-After': '2' },
    });
    expect((await run(op('get_listing'), { id: '1' })).status).toBe(200);
    gate.release();
    expect((await first).status).toBe(200);
    expect((await queued).status).toBe(200);
    expect(ran).toEqual(['search_products', 'get_listing', 'suggest']);
  });
});

describe('the probe', () => {
  it('healthz runs outside every family: a saturated light family does not hold it or refuse it', async () => {
    const limiter = createConcurrencyLimiter(options({ light: { concurrency: 1, queue: 0 } }));
    const gate = held<Outcome>({ status: 200, contentType: 'application/json', body: [] });
    const run = limiter.executor(async (op) => (op.name === 'get_listing' ? gate.task() : { status: 200, contentType: 'text/plain', body: 'ok' }));
    const op = (name: string) => operations.find((o) => o.name === name) as AnyOperation;
    const busy = run(op('get_listing'), { id: '1' });
    await settle();
    expect((await run(op('get_product'), { id: '1' })).status).toBe(503); // the light family is full
    expect(await run(op('healthz'), {})).toEqual({ status: 200, contentType: 'text/plain', body: 'ok' });
    gate.release();
    expect((await busy).status).toBe(200);
  });
});

describe('configuration', () => {
  it('reads CONCURRENCY_* (defaults well below the pool of ten), and CONCURRENCY_LIMITS=off lifts them', () => {
    const defaults = concurrencyOptions(loadEnv({}));
    expect(defaults).toEqual({
      limits: {
        light: { concurrency: 6, queue: 64 },
        search: { concurrency: 3, queue: 64 },
        heavy: { concurrency: 2, queue: 64 },
        graphql: { concurrency: 2, queue: 64 },
      },
      maxWaitMs: 1_000,
    });
    expect(concurrencyOptions(loadEnv({ CONCURRENCY_SEARCH: '1', CONCURRENCY_QUEUE: '0', CONCURRENCY_WAIT_MS: '250' }))).toMatchObject({
      limits: { search: { concurrency: 1, queue: 0 } },
      maxWaitMs: 250,
    });
    expect(concurrencyOptions(loadEnv({ CONCURRENCY_LIMITS: 'off' }))).toBeNull();
    expect(() => loadEnv({ CONCURRENCY_SEARCH: '0' })).toThrow(/CONCURRENCY_SEARCH/);
    expect(createConcurrencyLimiter(concurrencyOptions(loadEnv({ CONCURRENCY_WAIT_MS: '250' }))!).retryAfterSeconds).toBe(1);
  });
  it('under NODE_ENV=test the wait bound defaults to TEST_CONCURRENCY_WAIT_MS (a busy test machine queues); a given bound wins', () => {
    expect(TEST_CONCURRENCY_WAIT_MS).toBe(30_000);
    expect(loadEnv({ NODE_ENV: 'test' }).CONCURRENCY_WAIT_MS).toBe(30_000);
    expect(loadEnv({ NODE_ENV: 'test', CONCURRENCY_WAIT_MS: '50' }).CONCURRENCY_WAIT_MS).toBe(50);
    expect(loadEnv({ NODE_ENV: 'production' }).CONCURRENCY_WAIT_MS).toBe(1_000);
  });
});
