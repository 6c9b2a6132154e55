/** HTTP-dates (RFC 9110 §5.6.7) for Last-Modified and If-Modified-Since (facades/http/caching.ts). */
import { describe, expect, it } from 'vitest';
import { httpDate, notModifiedSince, parseHttpDate } from '../../facades/http/caching.js';

const EXAMPLE = Date.UTC(1994, 10, 6, 8, 49, 37);

describe('httpDate', () => {
  it('writes an IMF-fixdate in whole seconds (the fraction dropped, never rounded up)', () => {
    expect(httpDate(EXAMPLE)).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(httpDate('2026-08-06T09:15:42.999Z')).toBe('Thu, 06 Aug 2026 09:15:42 GMT');
    expect(httpDate(new Date('2026-08-06T09:15:42Z'))).toBe('Thu, 06 Aug 2026 09:15:42 GMT');
  });

  it('refuses what is not an instant', () => {
    expect(() => httpDate('not a date')).toThrow(RangeError);
    expect(() => httpDate(Number.NaN)).toThrow(RangeError);
  });
});

describe('parseHttpDate', () => {
  it('reads the three forms recipients must accept', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(EXAMPLE);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(EXAMPLE);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(EXAMPLE);
    expect(parseHttpDate(httpDate('2026-08-06T09:15:42Z'))).toBe(Date.parse('2026-08-06T09:15:42Z'));
  });

  it('takes a two-digit year more than 50 years ahead as the past century\'s', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(new Date(parseHttpDate('Thursday, 06-Nov-80 08:49:37 GMT', now)!).getUTCFullYear()).toBe(1980);
    expect(new Date(parseHttpDate('Wednesday, 06-Nov-75 08:49:37 GMT', now)!).getUTCFullYear()).toBe(2075);
  });

  it('refuses anything else (null)', () => {
    for (const text of [
      '', 'yesterday', '0', '1994-11-06', '1994-11-06T08:49:37Z', 'sun, 06 nov 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 08:49:37 UTC',
      'Sun, 6 Nov 1994 08:49:37 GMT', 'Sun, 31 Feb 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 24:00:00 GMT', 'Sun, 06 Nov 1994 08:60:00 GMT',
      ' Sun, 06 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT', 'Sun, 00 Nov 1994 08:49:37 GMT',
    ]) expect(parseHttpDate(text), JSON.stringify(text)).toBeNull();
  });
});

describe('notModifiedSince', () => {
  const lm = 'Thu, 06 Aug 2026 09:15:42 GMT';
  it('is true when Last-Modified is not later than the date', () => {
    expect(notModifiedSince(lm, lm)).toBe(true);
    expect(notModifiedSince('Thu, 06 Aug 2026 09:15:43 GMT', lm)).toBe(true);
    expect(notModifiedSince('Thu, 06 Aug 2026 09:15:41 GMT', lm)).toBe(false);
  });
  it('is false for an absent, repeated or malformed value', () => {
    expect(notModifiedSince(undefined, lm)).toBe(false);
    expect(notModifiedSince([lm, lm], lm)).toBe(false);
    expect(notModifiedSince('2099-01-01', lm)).toBe(false);
  });
});
