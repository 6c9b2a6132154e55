import { describe, expect, it } from 'vitest';
import { addDays, isDay, isFutureDay, nzDay, nzToday } from '../../src/domain/days.js';

describe('nzDay', () => {
  it('uses NZDT (UTC+13) in summer: 11:00 UTC is already the next NZ day', () => {
    expect(nzDay(new Date('2025-01-14T10:59:59Z'))).toBe('2025-01-14');
    expect(nzDay(new Date('2025-01-14T11:00:00Z'))).toBe('2025-01-15');
  });
  it('uses NZST (UTC+12) in winter: the day turns at 12:00 UTC', () => {
    expect(nzDay(new Date('2025-06-14T11:59:59Z'))).toBe('2025-06-14');
    expect(nzDay(new Date('2025-06-14T12:00:00Z'))).toBe('2025-06-15');
  });
  it('follows the daylight-saving switches of 2025 (6 April ends, 28 September starts)', () => {
    // 6 April 2025 03:00 NZDT → 02:00 NZST, i.e. at 2025-04-05T14:00Z.
    expect(nzDay(new Date('2025-04-05T11:30:00Z'))).toBe('2025-04-06'); // 00:30 NZDT
    expect(nzDay(new Date('2025-04-06T11:30:00Z'))).toBe('2025-04-06'); // 23:30 NZST
    expect(nzDay(new Date('2025-09-27T12:30:00Z'))).toBe('2025-09-28'); // 00:30 NZST
    expect(nzDay(new Date('2025-09-28T10:59:00Z'))).toBe('2025-09-28'); // 23:59 NZDT
  });
  it('accepts unix seconds, as in the Woolworths price log', () => {
    // First row of neon-ninja--woolies/price_history.csv: SKU 25, 1728880327 → 2024-10-14 17:32 NZDT.
    expect(nzDay(1728880327)).toBe('2024-10-14');
  });
});

describe('isDay and addDays', () => {
  it('rejects impossible dates and other formats', () => {
    expect(isDay('2025-02-28')).toBe(true);
    expect(isDay('2024-02-29')).toBe(true);
    expect(isDay('2025-02-29')).toBe(false);
    expect(isDay('2025-2-28')).toBe(false);
    expect(isDay('28/02/2025')).toBe(false);
  });
  it('adds calendar days across months and years', () => {
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
    expect(addDays('2025-03-01', -1)).toBe('2025-02-28');
    expect(() => addDays('nope', 1)).toThrow(RangeError);
  });
});

describe('nzToday and isFutureDay (issue 13: no collection day in the future)', () => {
  it('takes today in Pacific/Auckland from an injectable instant', () => {
    expect(nzToday(new Date('2026-11-27T10:59:59Z'))).toBe('2026-11-27'); // 23:59:59 NZDT
    expect(nzToday(new Date('2026-11-27T11:00:00Z'))).toBe('2026-11-28'); // midnight NZDT, still the 27th in UTC
    expect(nzToday()).toBe(nzDay(new Date()));
  });
  it('is true only for a day after today', () => {
    expect(isFutureDay('2026-11-28', '2026-11-27')).toBe(true);
    expect(isFutureDay('2027-01-01', '2026-11-27')).toBe(true);
    expect(isFutureDay('2026-11-27', '2026-11-27')).toBe(false);
    expect(isFutureDay('2025-12-31', '2026-11-27')).toBe(false);
    expect(isFutureDay('2099-01-01')).toBe(true);
    expect(isFutureDay('2000-01-01')).toBe(false);
  });
  it('rejects malformed days', () => {
    expect(() => isFutureDay('2026-02-30', '2026-11-27')).toThrow(RangeError);
    expect(() => isFutureDay('2026-11-27', 'today')).toThrow(RangeError);
  });
});
