/**
 * The food-price index with **GEKS-Jevons** elementary aggregates (issue 30: the selectable
 * alternative to the chained Jevons, `INDEX_METHOD=geks-jevons`): each basket item's daily relative
 * is a **real-time rolling GEKS-Jevons** over its counted listings' prices, and the upper levels
 * are the chained run's fixed-weight aggregates (src/domain/price-index.ts `upperStep`, through
 * `appendAggregateDay`). Pure functions, no I/O; the one source of the method for the index worker
 * (workers/index/compute.ts) and the validation script (test/bench/index-multilateral.ts,
 * `npm run validate:index`).
 *
 * Per item (units: prices in cents on the item's basis, per kg/litre or per pack; relatives
 * unitless, 1 on the item's first day with a counted listing; periods are consecutive calendar
 * days):
 *
 * 1. **Panel**: day → (listing → price) — in the worker the counted prices of the chained run
 *    (price-index.ts `countedPanels`: a match in force, the listing's latest price within the
 *    14-day cap, specials counted, club prices not), in the validation script the log's prices
 *    carried forward between changes.
 * 2. **Bilateral Jevons** J(s,t) between days at most w − 1 apart (the worker; every pair in the
 *    validation): the geometric mean of p_i(t)/p_i(s) over the listings priced on both days
 *    (multilateral.ts `bilateralJevons`, computed here on log-price arrays: {@link prepareGeksItem});
 *    the GEKS and the splice are multilateral.ts `rollingGeksFromLogMatrix`.
 * 3. **GEKS over the window** of the last w = {@link GEKS_WINDOW_DAYS} days (growing from the item's
 *    first day until it has w days: **real time**, no day's value uses a later day), spliced onto
 *    the **published** series with the **window splice** (the new window's movement from its first
 *    day to today times the published value of that first day), published every day: a day
 *    without a defined value (no counted listing, or no listing in common with any day of the
 *    window) carries the previous relative forward, and the window splice falls back to the
 *    earliest day of the window with a defined movement (multilateral.ts `RollingOptions.carry`;
 *    this only matters after a spell of ≥ 1 day without counted listings).
 * 4. **n** = listings in the panel that day; **stale** (as in the chained run): n = 0 and the
 *    last day with n ≥ 1 more than {@link STALE_DAYS} days back. The cap therefore applies twice,
 *    exactly as in the chained run: a listing leaves the panel 15 days after its last price, and an
 *    item with an empty panel is carried forward, stale after 14 carried days.
 *
 * The parameters are those the validation chose on the first three complete months (2024-11 →
 * 2025-01) before looking at the last three: **28-day window, window splice, real time**
 * (docs/price-index.md "Multilateral alternative"); out of sample the chained Jevons won narrowly
 * (all food 0.43 vs 0.44 pp), so it stays the default.
 *
 * Sources:
 * - ONS (2020), *New index number methods in consumer price statistics*,
 *   https://www.ons.gov.uk/economy/inflationandpriceindices/articles/newindexnumbermethodsinconsumerpricestatistics/2020-09-01 :
 *   "in the absence of expenditure information, we propose the GEKS-Jevons" (Annex A).
 * - Eurostat (2022), *Guide on multilateral methods in the Harmonised Index of Consumer Prices*,
 *   2022 edition: the GEKS, rolling windows and their extension by splicing (window splice), and
 *   publishing without revisions.
 * - Further sources of the splices and of GEKS over a rolling window: src/domain/multilateral.ts.
 */
import { rollingGeksFromLogMatrix, type Splice } from './multilateral.js';
import {
  appendAggregateDay, daysBetween, newAggregates, STALE_DAYS,
  type AggregateLevels, type BasketItem, type IndexRun, type ItemPair,
} from './price-index.js';

/** The window of the rolling GEKS, days (chosen in sample by `npm run validate:index`). */
export const GEKS_WINDOW_DAYS = 28;

/** The splice extending the window day by day (chosen in sample): the window's first day. */
export const GEKS_SPLICE: Splice = 'window';

/** Real time: the first window grows from the item's first day, so no value uses a later day. */
export const GEKS_REAL_TIME = true;

/** Window (days, ≥ 2), splice and real-time switch of a GEKS-Jevons index. */
export interface GeksOptions {
  window: number;
  splice: Splice;
  realTime: boolean;
}

/** The service's parameters: {@link GEKS_WINDOW_DAYS}, {@link GEKS_SPLICE}, {@link GEKS_REAL_TIME}. */
export const GEKS_OPTIONS: Readonly<GeksOptions> = Object.freeze({ window: GEKS_WINDOW_DAYS, splice: GEKS_SPLICE, realTime: GEKS_REAL_TIME });

/** One basket item's panel, prepared once (the bilateral indices) for any window and splice. */
export interface GeksItem {
  /** Basket item code. */
  code: string;
  /** Index into the run's days of the item's first day with a priced listing. */
  start: number;
  /** Listings priced on each day from `start` on (count). */
  n: number[];
  /**
   * ln J(s,t) between the days from `start` on (`[s − start][t − start]`), null for an empty
   * overlap — and for pairs farther apart than `maxLag` days when {@link prepareGeksItem} got one.
   */
  logJevons: (number | null)[][];
}

/**
 * Prepares one item from its daily panel: `prices[d]` maps listing → price (> 0 and finite, cents
 * on the item's basis) on day d of the run (consecutive calendar days); other values are left out.
 * `maxLag` (days, default: every pair) limits the bilateral indices to days at most that far
 * apart: a window of w days needs w − 1 (the worker's long panels); the validation's expanding
 * windows need every pair.
 *
 * ln J(s,t) = mean over the listings priced on both days of ln p(t) − ln p(s) (the log of
 * multilateral.ts `bilateralJevons`, computed on a listing × day array of log prices rather than
 * maps: the same value up to rounding in the last bits, a unit test compares them).
 * @returns null when no listing is priced on any day (the item has no relative).
 */
export function prepareGeksItem<K>(code: string, prices: readonly ReadonlyMap<K, number>[], maxLag = Infinity): GeksItem | null {
  const ok = (p: number) => p > 0 && Number.isFinite(p);
  const start = prices.findIndex((m) => [...m.values()].some(ok));
  if (start < 0) return null;
  const T = prices.length - start;
  // Log prices, listing × day (NaN: not priced), and the listings priced on each day.
  const column = new Map<K, number>();
  const logs: Float64Array[] = [];
  const priced: number[][] = [];
  const n: number[] = [];
  for (let d = 0; d < T; d++) {
    const here: number[] = [];
    for (const [k, p] of prices[start + d]) {
      if (!ok(p)) continue;
      let j = column.get(k);
      if (j === undefined) {
        column.set(k, (j = logs.length));
        logs.push(new Float64Array(T).fill(NaN));
      }
      logs[j][d] = Math.log(p);
      here.push(j);
    }
    priced.push(here);
    n.push(here.length);
  }
  const m: (number | null)[][] = Array.from({ length: T }, () => new Array<number | null>(T).fill(null));
  for (let s = 0; s < T; s++) {
    m[s][s] = n[s] ? 0 : null;
    const here = priced[s];
    for (let t = s + 1; t < T && t - s <= maxLag; t++) {
      let sum = 0;
      let c = 0;
      for (const j of here) {
        const b = logs[j][t];
        if (b === b) {
          sum += b - logs[j][s];
          c++;
        }
      }
      if (c) {
        m[s][t] = sum / c;
        m[t][s] = -sum / c;
      }
    }
  }
  return { code, start, n, logJevons: m };
}

/**
 * The item's relative on each of the run's `length` days: null before `item.start`, 1 on it, then
 * the rolling GEKS-Jevons with `opts` (default {@link GEKS_OPTIONS}), published every day (an
 * undefined day carries the previous relative; module comment, step 3).
 * @throws RangeError on a window below 2, or a `maxLag` too short for the window (a needed pair
 *   was not computed).
 */
export function geksItemRelatives(item: GeksItem, length: number, opts: Readonly<GeksOptions> = GEKS_OPTIONS): (number | null)[] {
  const rel = rollingGeksFromLogMatrix(item.logJevons, { window: opts.window, splice: opts.splice, realTime: opts.realTime, carry: true });
  const out: (number | null)[] = new Array(length).fill(null);
  rel.forEach((r, i) => (out[item.start + i] = r));
  return out;
}

/** One item's daily series (index_item_day `relative`, `n`, `stale`), aligned with the run's days. */
export type GeksItemSeries = { relative: (number | null)[]; n: (number | null)[]; stale: (boolean | null)[] };

/**
 * One item's series over `days` (consecutive calendar days, `YYYY-MM-DD`): `relative` from
 * {@link geksItemRelatives} (all null for an item without a prepared panel, `item` null), `n` =
 * listings in its panel (null before its first day), `stale` = n = 0 and its last day with n ≥ 1
 * more than {@link STALE_DAYS} days back (null before its first day): module comment, step 4.
 * @throws RangeError as {@link geksItemRelatives}.
 */
export function geksItemSeries(item: GeksItem | null, days: readonly string[], opts: Readonly<GeksOptions> = GEKS_OPTIONS): GeksItemSeries {
  const relative = item ? geksItemRelatives(item, days.length, opts) : new Array<number | null>(days.length).fill(null);
  const n: (number | null)[] = new Array(days.length).fill(null);
  const stale: (boolean | null)[] = new Array(days.length).fill(null);
  if (item) {
    let lastCounted = days[item.start];
    for (let d = item.start; d < days.length; d++) {
      n[d] = item.n[d - item.start];
      if (n[d]! >= 1) lastCounted = days[d];
      stale[d] = n[d] === 0 && daysBetween(lastCounted, days[d]) > STALE_DAYS;
    }
  }
  return { relative, n, stale };
}

/** The GEKS-Jevons index over the run's days: the chained run's series shapes ({@link IndexRun} without links and state). */
export type GeksIndex = Pick<IndexRun, 'days' | 'all' | 'groups' | 'items'>;

/**
 * The index over `days` from each observable basket item's series ({@link geksItemSeries}; a
 * missing item counts as never priced): all food and each observable group, raw chained daily
 * from price-index.ts `RAW_BASE` on the first day with `upperStep`'s fixed weights, with coverage
 * and the items and listings counted — exactly as the chained run aggregates its items
 * (price-index.ts `appendAggregateDay`).
 */
export function aggregateItemSeries(basket: readonly BasketItem[], series: ReadonlyMap<string, GeksItemSeries>, days: readonly string[]): GeksIndex {
  const observable = basket.filter((b) => b.observable);
  const items: GeksIndex['items'] = new Map();
  for (const b of observable) items.set(b.code, series.get(b.code) ?? geksItemSeries(null, days));
  const { all, groups } = newAggregates(basket);
  const levels: AggregateLevels = { all: null, groups: new Map() };
  for (let d = 0; d < days.length; d++) {
    const pairs: ItemPair[] = observable.map((b) => {
      const s = items.get(b.code)!;
      return { ...b, prev: d > 0 ? s.relative[d - 1] : null, cur: s.relative[d], n: s.n[d] };
    });
    appendAggregateDay(pairs, levels, all, groups);
  }
  return { days: [...days], all, groups, items };
}

/**
 * The index with GEKS-Jevons items over `days` (consecutive calendar days): {@link geksItemSeries}
 * of every prepared item, then {@link aggregateItemSeries}. (The worker does the same one item at a
 * time, holding one item's bilateral indices at once.)
 *
 * Computes every day from scratch; since every value is real time (uses no later day), a day's
 * values are the same whether the run ends on that day or later, so recomputing in full each run
 * gives what an incremental computation would.
 * @throws RangeError as {@link geksItemRelatives}.
 */
export function geksIndex(basket: readonly BasketItem[], items: readonly GeksItem[], days: readonly string[], opts: Readonly<GeksOptions> = GEKS_OPTIONS): GeksIndex {
  return aggregateItemSeries(basket, new Map(items.map((p) => [p.code, geksItemSeries(p, days, opts)])), days);
}
