import { describe, expect, it } from 'vitest';
import { dollarsToCents } from '../../src/domain/money.js';
import { medianCents, modeOf } from '../../src/domain/median.js';

describe('dollarsToCents', () => {
  it('is exact to the cent, without float rounding', () => {
    expect(dollarsToCents('3.99')).toBe(399);
    expect(dollarsToCents('10.0')).toBe(1000);
    expect(dollarsToCents('0.29')).toBe(29); // 0.29 * 100 is 28.999999999999996 in floats
    expect(dollarsToCents('$4')).toBe(400);
    expect(dollarsToCents(' 16.99 ')).toBe(1699);
  });
  it('rejects what is not a dollar amount', () => {
    for (const bad of ['', '1.234', '-1', 'abc', '1,00']) expect(() => dollarsToCents(bad)).toThrow(RangeError);
  });
});

describe('medianCents', () => {
  it('takes the middle of an odd count', () => {
    expect(medianCents([450, 399, 429])).toBe(429);
  });
  it('averages the two middle values of an even count, halves rounded up', () => {
    expect(medianCents([100, 120])).toBe(110);
    expect(medianCents([399, 400])).toBe(400);
    expect(medianCents([399, 402, 500, 100])).toBe(401);
  });
  it('does not reorder its input and rejects an empty list', () => {
    const xs = [3, 1, 2];
    medianCents(xs);
    expect(xs).toEqual([3, 1, 2]);
    expect(() => medianCents([])).toThrow(RangeError);
  });
});

describe('modeOf', () => {
  it('returns the most frequent value, ties to the smallest', () => {
    expect(modeOf([2, 1, 2, 3])).toBe(2);
    expect(modeOf([3, 1, 3, 1])).toBe(1);
  });
});
