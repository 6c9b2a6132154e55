import { describe, expect, it } from 'vitest';
import { dollarsToCents, isPlainDigits, parseCents } from '../../src/domain/money.js';
import { medianCents, modeOf } from '../../src/domain/median.js';

describe('dollarsToCents', () => {
  it('is exact to the cent, without float rounding', () => {
    expect(dollarsToCents('3.99')).toBe(399);
    expect(dollarsToCents('10.0')).toBe(1000);
    expect(dollarsToCents('0.29')).toBe(29); // 0.29 * 100 is 28.999999999999996 in floats
    expect(dollarsToCents('0.5')).toBe(50);
    expect(dollarsToCents('4')).toBe(400);
    expect(dollarsToCents('16.99')).toBe(1699);
  });
  it('rejects what is not a plain decimal dollar amount with at most two decimals (issue 13)', () => {
    // "$4" and " 16.99 " were accepted before issue 13: the grammar is now plain digits; importers
    // trim padded fields themselves (none of the real files has a "$" or padding).
    for (const bad of ['', '1.234', '-1', '+1', 'abc', '1,00', '$4', ' 16.99 ', '16.99 ', '1e3', '0x10', '01.50', '4.', '.5', '1.2.3', 'NaN', '１.00']) {
      expect(() => dollarsToCents(bad), bad).toThrow(RangeError);
    }
    expect(() => dollarsToCents('99999999999999999999')).toThrow(/too large/);
  });
});

describe('parseCents and isPlainDigits', () => {
  it('reads integer cents written as plain decimal digits', () => {
    expect(parseCents('349')).toBe(349);
    expect(parseCents('0')).toBe(0);
    expect(isPlainDigits('100000000')).toBe(true);
  });
  it('rejects signs, spaces, leading zeros, fractions, exponents, hex and binary', () => {
    for (const bad of ['', ' 12 ', '12 ', '+5', '-1', '007', '12.0', '1e3', '0x10', '0b101', 'Infinity', '١٢']) {
      expect(isPlainDigits(bad), bad).toBe(false);
      expect(() => parseCents(bad), bad).toThrow(RangeError);
    }
    expect(() => parseCents('99999999999999999999')).toThrow(/too large/);
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
