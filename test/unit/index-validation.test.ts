import { describe, expect, it } from 'vitest';
import { changePercent, estimateMonth, FIRST_DAYS, intervalHalfWidth, MIN_INTERVAL_MONTHS, monthValues, prevMonth, sameDayChange, validateAggregate } from '../../src/domain/index-validation.js';
import type { CoveredValue } from '../../src/domain/price-index.js';

/** Days `from` to `to` of a month `YYYY-MM`, each with `value` (coverage 1 unless given). */
const days = (month: string, from: number, to: number, value: number, coverage = 1): CoveredValue[] =>
  Array.from({ length: to - from + 1 }, (_, k) => ({ day: `${month}-${String(from + k).padStart(2, '0')}`, value, coverage }));

describe('prevMonth and changePercent', () => {
  it('steps back over a year end', () => {
    expect(prevMonth('2025-01')).toBe('2024-12');
    expect(prevMonth('2025-10')).toBe('2025-09');
  });
  it('is (cur / prev − 1) × 100, null when either is missing', () => {
    expect(changePercent(110, 100)).toBeCloseTo(10, 12);
    expect(changePercent(null, 100)).toBeNull();
    expect(changePercent(100, undefined)).toBeNull();
  });
});

describe('monthValues', () => {
  it('means of the whole month and of its first 15 days, completeness and mean coverage', () => {
    // February 2025: days 1–15 at 100, 16–28 at 128 → mean (15·100 + 13·128) / 28 = 3164 / 28 = 113.
    const feb = [...days('2025-02', 1, 15, 100), ...days('2025-02', 16, 28, 128)];
    feb[2] = { ...feb[2], coverage: 0.5 };
    const [m] = monthValues(feb);
    expect(FIRST_DAYS).toBe(15);
    expect(m).toEqual({ month: '2025-02', days: 28, complete: true, mean: 113, first: 100, coverage: 27.5 / 28 });
  });
  it('a missing day or a day with coverage 0 leaves a month incomplete; no day ≤ 15 gives first null', () => {
    const ms = monthValues([...days('2025-03', 1, 31, 10).map((p, i) => (i === 4 ? { ...p, coverage: 0 } : p)), ...days('2025-04', 1, 29, 10), ...days('2025-01', 30, 31, 5)]);
    expect(ms.map((m) => [m.month, m.days, m.complete, m.first])).toEqual([
      ['2025-01', 2, false, null],
      ['2025-03', 31, false, 10],
      ['2025-04', 29, false, 10],
    ]);
  });
});

describe('validateAggregate', () => {
  // January: 30–31 only (the log starts on the 30th) at 100; February: mean 113, first 15 days 100;
  // March: every day 124.3 (= 113 × 1.1); April: 1–29 (30th missing) at 124.3.
  const series = [
    ...days('2025-01', 30, 31, 100),
    ...days('2025-02', 1, 15, 100),
    ...days('2025-02', 16, 28, 128),
    ...days('2025-03', 1, 31, 124.3),
    ...days('2025-04', 1, 29, 124.3),
  ];
  // Official: +10 % in February, +1 % in March, 1100 / 1111 − 1 in April.
  const official = [
    { month: '2025-03', value: 1111 },
    { month: '2025-01', value: 1000 },
    { month: '2025-02', value: 1100 },
    { month: '2025-04', value: 1100 },
  ];
  const { months, summary } = validateAggregate(series, official);

  it('one row per month of the series: changes, errors (nowcast − official), completeness', () => {
    expect(months.map((m) => m.month)).toEqual(['2025-01', '2025-02', '2025-03', '2025-04']);
    const [jan, feb, mar, apr] = months;
    expect(jan).toMatchObject({ official: null, nowcast: null, error: null, firstDays: null, complete: false, counted: false, days: 2 });
    // February: 113 / 100 − 1 = +13 % against +10 %: error +3; January has no day ≤ 15: no first-days change.
    expect(feb.nowcast).toBeCloseTo(13, 10);
    expect(feb.official).toBeCloseTo(10, 10);
    expect(feb.error).toBeCloseTo(3, 10);
    expect(feb).toMatchObject({ firstDays: null, firstDaysError: null, complete: true, counted: true, coverage: 1 });
    // March: 124.3 / 113 − 1 = +10 % against +1 %: error +9; first days 124.3 / 100 − 1 = +24.3 %: error +23.3.
    expect(mar.nowcast).toBeCloseTo(10, 10);
    expect(mar.error).toBeCloseTo(9, 10);
    expect(mar.firstDays).toBeCloseTo(24.3, 10);
    expect(mar.firstDaysError).toBeCloseTo(23.3, 10);
    expect(mar.counted).toBe(true);
    // April is missing its 30th: shown, not counted.
    expect(apr.nowcast).toBeCloseTo(0, 10);
    expect(apr.official).toBeCloseTo((1100 / 1111 - 1) * 100, 10);
    expect(apr).toMatchObject({ complete: false, counted: false });
  });

  it('summary: MAE over the counted months (February, March); first days over those with a first-days change', () => {
    expect(summary.months).toBe(2);
    expect(summary.nowcast).toBeCloseTo((3 + 9) / 2, 10);
    expect(summary.firstDays).toBeCloseTo(23.3, 10);
    expect(summary.flat).toBeCloseTo((10 + 1) / 2, 10);
  });

  it('no counted month: null errors', () => {
    expect(validateAggregate(days('2025-02', 1, 28, 1), []).summary).toEqual({ months: 0, nowcast: null, firstDays: null, flat: null });
  });
});

describe('the latest month estimate and its interval (issue 30 item 3)', () => {
  it('intervalHalfWidth: t quantile (n degrees of freedom) × rms of the past errors; none under 3 errors', () => {
    // rms(1, −1, 1, −1) = 1; t(0.95; 4) = 2.1318 (Student t table).
    expect(intervalHalfWidth([1, -1, 1, -1]).rmse).toBeCloseTo(1, 12);
    expect(intervalHalfWidth([1, -1, 1, -1]).half).toBeCloseTo(2.1318, 4);
    // At 95 %: t(0.975; 4) = 2.7764.
    expect(intervalHalfWidth([1, -1, 1, -1], 0.95).half).toBeCloseTo(2.7764, 4);
    expect(MIN_INTERVAL_MONTHS).toBe(3);
    expect(intervalHalfWidth([3, 4])).toEqual({ half: null, rmse: Math.sqrt(12.5) });
    expect(intervalHalfWidth([])).toEqual({ half: null, rmse: null });
  });

  // Jan 100, Feb 110, Mar 121, Apr 133.1 every day; May 1–15 at 150 and 16–31 at 130; June 1–10 at 140.
  const series = [
    ...days('2025-01', 1, 31, 100),
    ...days('2025-02', 1, 28, 110),
    ...days('2025-03', 1, 31, 121),
    ...days('2025-04', 1, 30, 133.1),
    ...days('2025-05', 1, 15, 150),
    ...days('2025-05', 16, 31, 130),
    ...days('2025-06', 1, 10, 140),
  ];
  // Official changes: Feb +9, Mar +11, Apr +10, May (150 / 133.1 − 1) × 100 − 2; June not published.
  const mayOfficial = (150 / 133.1 - 1) * 100 - 2;
  const official = [
    { month: '2025-01', value: 1000 },
    { month: '2025-02', value: 1090 },
    { month: '2025-03', value: 1209.9 },
    { month: '2025-04', value: 1330.89 },
    { month: '2025-05', value: 1330.89 * (1 + mayOfficial / 100) },
  ];

  it('a month in progress: the same-day estimate (days 1 to the last observed day of both months) with the interval of its past errors', () => {
    const e = estimateMonth(series, official)!;
    // Days 1–10: June 140 against May 150; past same-day (d = 10) errors: Feb 10 − 9 = +1, Mar 10 − 11 = −1, Apr 10 − 10 = 0, May +2.
    expect(e).toMatchObject({ month: '2025-06', asOf: '2025-06-10', days: 10, final: false, throughDay: 10, pastMonths: 4, official: null, error: null, level: 0.9 });
    expect(e.change).toBeCloseTo((140 / 150 - 1) * 100, 10);
    expect(e.pastRmse).toBeCloseTo(Math.sqrt((1 + 1 + 0 + 4) / 4), 10);
    const half = 2.1318 * Math.sqrt(1.5);
    expect(e.low!).toBeCloseTo(e.change! - half, 3);
    expect(e.high!).toBeCloseTo(e.change! + half, 3);
    expect(sameDayChange(series, '2025-06', 10)).toBe(e.change);
  });

  it('a complete month: the final nowcast change, its interval from the earlier counted months only, and its error once published', () => {
    const e = estimateMonth(series, official, '2025-05')!;
    const change = (4330 / 31 / 133.1 - 1) * 100;
    expect(e).toMatchObject({ month: '2025-05', asOf: '2025-05-31', days: 31, final: true, throughDay: 31, pastMonths: 3 });
    expect(e.change).toBeCloseTo(change, 10);
    expect(e.official).toBeCloseTo(mayOfficial, 10);
    expect(e.error).toBeCloseTo(change - mayOfficial, 10);
    // Past final errors Feb +1, Mar −1, Apr 0: rms √(2/3); t(0.95; 3) = 2.3534.
    expect(e.pastRmse).toBeCloseTo(Math.sqrt(2 / 3), 10);
    expect(e.high! - e.change!).toBeCloseTo(2.3534 * Math.sqrt(2 / 3), 3);
    // The final change is the track record's nowcast column.
    expect(validateAggregate(series.filter((p) => p.day < '2025-06'), official).months.at(-1)!.nowcast).toBe(e.change);
  });

  it('too few past months: no interval; no day in the month: null', () => {
    const e = estimateMonth(series, official, '2025-03')!;
    expect(e).toMatchObject({ pastMonths: 1, low: null, high: null });
    expect(estimateMonth(series, official, '2025-09')).toBeNull();
    expect(estimateMonth([], official)).toBeNull();
  });

  it('validateAggregate carries the latest month, and its first-days column is the same-day estimate at day 15 (one rule)', () => {
    const v = validateAggregate(series, official);
    expect(v.estimate).toEqual(estimateMonth(series, official));
    for (const m of v.months) expect(m.firstDays).toBe(sameDayChange(series, m.month, FIRST_DAYS));
  });
});
