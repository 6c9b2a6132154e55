/**
 * The nowcast's track record against Stats NZ's Food Price Index (issue 30 item 4; api-spec
 * get_index_validation): per month and per aggregate, the official monthly change, the nowcast's
 * monthly change (whole month and first {@link FIRST_DAYS} days) and their errors; per aggregate,
 * the mean absolute errors against the flat (0 %) forecast. Pure functions, no I/O.
 *
 * The one source of the comparison's formula: the API (src/services/index-validation.ts, from the
 * stored index_day rows and official_index) and `npm run validate:index` (test/bench/index-validate.ts,
 * in memory) both call {@link validateAggregate}, so the endpoint and the script agree by
 * construction. The rules:
 *
 * - a month's **nowcast value** = the mean of its daily raw values (every day of the month present
 *   in the series); its **first-days value** = the mean over its days 1 to 15 only;
 * - a **monthly change**, % = value(m) / value(m − 1) − 1, × 100 (official: the published levels);
 *   null when either month has no value;
 * - a month is **complete** when every calendar day of it is present with coverage > 0 (the rule
 *   of price-index.ts `anchorSeries`); only the previous month needs a value, so the change of the
 *   first complete month may compare with a partial first month of the log;
 * - a month **counts** in the summary when it is complete and has both an official and a nowcast
 *   change; the summary is the mean absolute error, pp, of the nowcast, of the first-days estimate
 *   and of the flat forecast (|official change|) over the counted months (the first-days one over
 *   those of them with a first-days change); null when none counts.
 */
import { daysInMonth, type CoveredValue, type OfficialMonth } from './price-index.js';

/** The method the nowcast uses (src/domain/price-index.ts). */
export const VALIDATION_METHOD = 'chained Jevons';

/** Days of the month (from the 1st) the early estimate uses. */
export const FIRST_DAYS = 15;

/** One month of a daily series. */
export interface MonthValue {
  /** `YYYY-MM`. */
  month: string;
  /** Days of the month present in the series. */
  days: number;
  /** Every calendar day present with coverage > 0. */
  complete: boolean;
  /** Mean of the month's daily values. */
  mean: number;
  /** Mean of the values of days 1 to {@link FIRST_DAYS}; null when none is present. */
  first: number | null;
  /** Mean coverage over the month's days (0 to 1). */
  coverage: number;
}

/** The month before `YYYY-MM`. */
export function prevMonth(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return m === 1 ? `${String(y - 1).padStart(4, '0')}-12` : `${String(y).padStart(4, '0')}-${String(m - 1).padStart(2, '0')}`;
}

/** (cur / prev − 1) × 100; null when either is missing or not positive. */
export function changePercent(cur: number | null | undefined, prev: number | null | undefined): number | null {
  if (cur == null || prev == null || !(cur > 0) || !(prev > 0)) return null;
  return (cur / prev - 1) * 100;
}

/** The months of a daily series (at most one value per day), oldest first. */
export function monthValues(series: readonly CoveredValue[]): MonthValue[] {
  const acc = new Map<string, { days: number; covered: number; sum: number; firstSum: number; firstN: number; cov: number }>();
  for (const p of series) {
    const key = p.day.slice(0, 7);
    let a = acc.get(key);
    if (!a) acc.set(key, (a = { days: 0, covered: 0, sum: 0, firstSum: 0, firstN: 0, cov: 0 }));
    a.days += 1;
    a.sum += p.value;
    a.cov += p.coverage;
    if (p.coverage > 0) a.covered += 1;
    if (Number(p.day.slice(8, 10)) <= FIRST_DAYS) {
      a.firstSum += p.value;
      a.firstN += 1;
    }
  }
  return [...acc.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([month, a]) => ({
      month,
      days: a.days,
      complete: a.covered === daysInMonth(month),
      mean: a.sum / a.days,
      first: a.firstN > 0 ? a.firstSum / a.firstN : null,
      coverage: a.cov / a.days,
    }));
}

/** One month of the track record of one aggregate (changes in %, errors in pp = nowcast − official). */
export interface ValidationMonth {
  month: string;
  /** Official monthly change; null without both official months. */
  official: number | null;
  /** Nowcast change from the months' means; null without the previous month. */
  nowcast: number | null;
  error: number | null;
  /** Change of the first-days means. */
  firstDays: number | null;
  firstDaysError: number | null;
  /** Mean coverage over the month's days. */
  coverage: number;
  /** Days of the month in the series. */
  days: number;
  complete: boolean;
  /** Counted in the summary. */
  counted: boolean;
}

/** Mean absolute errors, pp, over the counted months. */
export interface ValidationSummary {
  months: number;
  nowcast: number | null;
  firstDays: number | null;
  flat: number | null;
}

const diff = (a: number | null, b: number | null) => (a == null || b == null ? null : a - b);
const meanAbs = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + Math.abs(x), 0) / xs.length);

/**
 * The track record of one aggregate: one row per month of `series` (oldest first) and the summary.
 * @param series the aggregate's daily raw values with coverage (index_day), at most one per day.
 * @param official the aggregate's official monthly levels (any order).
 */
export function validateAggregate(series: readonly CoveredValue[], official: readonly OfficialMonth[]): { months: ValidationMonth[]; summary: ValidationSummary } {
  const off = new Map(official.map((o) => [o.month, o.value]));
  const values = monthValues(series);
  const byMonth = new Map(values.map((v) => [v.month, v]));
  const months = values.map((v): ValidationMonth => {
    const prev = byMonth.get(prevMonth(v.month));
    const o = changePercent(off.get(v.month), off.get(prevMonth(v.month)));
    const n = changePercent(v.mean, prev?.mean);
    const f = changePercent(v.first, prev?.first);
    return {
      month: v.month, official: o, nowcast: n, error: diff(n, o), firstDays: f, firstDaysError: diff(f, o),
      coverage: v.coverage, days: v.days, complete: v.complete, counted: v.complete && o != null && n != null,
    };
  });
  const counted = months.filter((m) => m.counted);
  const firsts = counted.filter((m) => m.firstDaysError != null).map((m) => m.firstDaysError as number);
  return {
    months,
    summary: {
      months: counted.length,
      nowcast: meanAbs(counted.map((m) => m.error as number)),
      firstDays: meanAbs(firsts),
      flat: meanAbs(counted.map((m) => m.official as number)),
    },
  };
}
