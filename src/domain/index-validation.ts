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
 *   those of them with a first-days change); null when none counts;
 * - the **estimate of the latest month** (issue 30 item 3, {@link estimateMonth}): once the month is
 *   complete, its nowcast change (final); before that, the **same-day estimate** at day d = the
 *   day of the month last observed: the change of the means of days 1 to d of the month and of the
 *   previous month (at d = {@link FIRST_DAYS} the `firstDays` column above: one rule). Its
 *   interval comes from the errors of the same estimate (same d, or final) in the earlier counted
 *   months: a {@link INTERVAL_LEVEL} prediction interval `change ± t(n) × rms(errors)`.
 */
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { daysInMonth, type CoveredValue, type OfficialMonth } from './price-index.js';

/** Days of the month (from the 1st) the early estimate uses. */
export const FIRST_DAYS = 15;

/** Level of the estimate's prediction interval (two-sided). */
export const INTERVAL_LEVEL = 0.9;

/** Fewest past errors an interval is drawn from; with fewer, the interval is null. */
export const MIN_INTERVAL_MONTHS = 3;

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

const diff = (a: number | null, b: number | null) => (a == null || b == null ? null : a - b);
const meanAbs = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((s, x) => s + Math.abs(x), 0) / xs.length);

/** A daily series split by month: `YYYY-MM` → its points in day order. */
type ByMonth = Map<string, CoveredValue[]>;

function byMonth(series: readonly CoveredValue[]): ByMonth {
  const out: ByMonth = new Map();
  for (const p of [...series].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))) {
    const key = p.day.slice(0, 7);
    const list = out.get(key);
    if (list) list.push(p);
    else out.set(key, [p]);
  }
  return out;
}

/** Day of the month (1–31) of `YYYY-MM-DD`. */
const dayOfMonth = (day: string) => Number(day.slice(8, 10));

/** Mean of a month's values on days 1 to `through` (those present); null when none is. */
function partialMean(points: readonly CoveredValue[] | undefined, through: number): number | null {
  let sum = 0;
  let n = 0;
  for (const p of points ?? []) {
    if (dayOfMonth(p.day) > through) break;
    sum += p.value;
    n += 1;
  }
  return n > 0 ? sum / n : null;
}

/** The months of a daily series (at most one value per day), oldest first. */
export function monthValues(series: readonly CoveredValue[]): MonthValue[] {
  return [...byMonth(series).entries()].map(([month, points]) => ({
    month,
    days: points.length,
    complete: points.filter((p) => p.coverage > 0).length === daysInMonth(month),
    mean: points.reduce((s, p) => s + p.value, 0) / points.length,
    first: partialMean(points, FIRST_DAYS),
    coverage: points.reduce((s, p) => s + p.coverage, 0) / points.length,
  }));
}

/**
 * The same-day estimate of a month's change, %: means of days 1 to `through` of `month` and of the
 * month before (the days of each present in the series); null when either has none.
 */
export function sameDayChange(series: readonly CoveredValue[], month: string, through: number): number | null {
  const months = byMonth(series);
  return changePercent(partialMean(months.get(month), through), partialMean(months.get(prevMonth(month)), through));
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

/**
 * The estimate of one month's change (resource MonthEstimate): final once the month is complete,
 * else the same-day estimate, with a prediction interval from the same estimate's past errors.
 * Changes in %, errors and widths in pp.
 */
export interface MonthEstimate {
  month: string;
  /** Last day of the month in the series, `YYYY-MM-DD`: the day the estimate describes. */
  asOf: string;
  /** Days of the month in the series. */
  days: number;
  /** The month is complete: `change` is the nowcast's final change. */
  final: boolean;
  /** The estimate uses days 1 to `throughDay` of the month and of the previous one (the month's length when final). */
  throughDay: number;
  /** Estimated change; null without the previous month. */
  change: number | null;
  /** Interval at {@link INTERVAL_LEVEL}; null with fewer than {@link MIN_INTERVAL_MONTHS} past errors. */
  low: number | null;
  high: number | null;
  level: number;
  /** Earlier counted months whose errors of the same estimate give the interval. */
  pastMonths: number;
  /** Root mean square of those errors; null when there is none. */
  pastRmse: number | null;
  /** Official change when Stats NZ has published it, else null. */
  official: number | null;
  /** change − official. */
  error: number | null;
}

/**
 * A `level` prediction interval for a new estimate from the estimate's past errors `errors` (pp),
 * assumed independent draws of a normal error with mean 0: the new error over rms(errors) follows
 * Student's t with n = errors.length degrees of freedom (σ² estimated by Σe²/n, n degrees of
 * freedom; e.g. Hahn & Meeker, Statistical Intervals, 2017, ch. 4). Returns the half-width, pp,
 * and the rms; half-width null when n < {@link MIN_INTERVAL_MONTHS}. Quantile:
 * @stdlib/stats-base-dists-t-quantile.
 */
export function intervalHalfWidth(errors: readonly number[], level = INTERVAL_LEVEL): { half: number | null; rmse: number | null } {
  const n = errors.length;
  if (n === 0) return { half: null, rmse: null };
  const rmse = Math.sqrt(errors.reduce((s, e) => s + e * e, 0) / n);
  return { half: n < MIN_INTERVAL_MONTHS ? null : tQuantile(1 - (1 - level) / 2, n) * rmse, rmse };
}

/**
 * The estimate of `month` (default: the latest month of `series`) of one aggregate, as it could
 * have been published on the month's last day in the series: past errors come from the counted
 * months before it only. Null when the series has no day in the month.
 * @param series daily raw values with coverage (index_day), at most one per day.
 * @param official official monthly levels (any order).
 */
export function estimateMonth(series: readonly CoveredValue[], official: readonly OfficialMonth[], month?: string): MonthEstimate | null {
  const months = byMonth(series);
  const target = month ?? [...months.keys()].at(-1);
  const points = target == null ? undefined : months.get(target);
  if (target == null || !points) return null;
  const off = new Map(official.map((o) => [o.month, o.value]));
  const officialChange = (m: string) => changePercent(off.get(m), off.get(prevMonth(m)));
  const values = monthValues(series);
  const value = new Map(values.map((v) => [v.month, v]));
  const final = value.get(target)!.complete;
  const asOf = points[points.length - 1].day;
  const through = final ? daysInMonth(target) : dayOfMonth(asOf);
  const estimate = (m: string) =>
    final ? changePercent(value.get(m)?.mean, value.get(prevMonth(m))?.mean) : changePercent(partialMean(months.get(m), through), partialMean(months.get(prevMonth(m)), through));
  const errors: number[] = [];
  for (const v of values) {
    if (v.month >= target || !v.complete) continue;
    const e = estimate(v.month);
    const o = officialChange(v.month);
    if (e != null && o != null) errors.push(e - o);
  }
  const change = estimate(target);
  const o = officialChange(target);
  const { half, rmse } = intervalHalfWidth(errors);
  return {
    month: target, asOf, days: points.length, final, throughDay: through, change,
    low: change == null || half == null ? null : change - half,
    high: change == null || half == null ? null : change + half,
    level: INTERVAL_LEVEL, pastMonths: errors.length, pastRmse: rmse, official: o, error: diff(change, o),
  };
}


/**
 * The track record of one aggregate: one row per month of `series` (oldest first), the summary and
 * the estimate of the latest month ({@link estimateMonth}).
 * @param series the aggregate's daily raw values with coverage (index_day), at most one per day.
 * @param official the aggregate's official monthly levels (any order).
 */
export function validateAggregate(
  series: readonly CoveredValue[],
  official: readonly OfficialMonth[],
): { months: ValidationMonth[]; summary: ValidationSummary; estimate: MonthEstimate | null } {
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
    estimate: estimateMonth(series, official),
  };
}
