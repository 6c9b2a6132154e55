/** How old the data is: stale chains and fresh data (src/domain/freshness.ts). */
import { describe, expect, it } from 'vitest';
import { isFresh, isStale, STALE_AFTER_DAYS } from '../../src/domain/freshness.js';

describe('isStale', () => {
  it('flags a chain collected more than two days ago, or never', () => {
    expect(STALE_AFTER_DAYS).toBe(2);
    expect([0, 1, 2].map(isStale)).toEqual([false, false, false]);
    expect(isStale(3)).toBe(true);
    expect(isStale(null)).toBe(true);
  });
});

describe('isFresh', () => {
  it('needs some chain collected and every collected chain within two days', () => {
    expect(isFresh([0, 2, null])).toBe(true);
    expect(isFresh([0, 3])).toBe(false);
    expect(isFresh([null, null])).toBe(false);
    expect(isFresh([])).toBe(false);
  });
});
