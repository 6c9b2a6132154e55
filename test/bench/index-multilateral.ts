/**
 * The multilateral nowcast for `npm run validate:index` (issue 30, item 2): the same basket, the
 * same matched listings and the same fixed-weight upper levels as the chained nowcast
 * (src/domain/price-index.ts `upperStep`), but each basket item's elementary index is a
 * **GEKS-Jevons over a rolling window of days with a splice** (src/domain/multilateral.ts) instead of
 * the daily chained Jevons with link factors.
 *
 * Per item: a daily price panel of its matched listings (listing × day → price; the log's prices
 * carried forward between changes, as the chained run gets them). The panel starts on the item's
 * first priced day (relative 1 there; null before, so the item is linked into the upper levels on
 * that day, as in the chained run). Prices are the listings' shelf prices as logged: a listing's
 * basis (per kg / per pack) is a constant multiple of its price, and Jevons ratios of one listing
 * do not depend on it.
 */
import { logJevonsMatrix, rollingGeksFromLogMatrix, type Splice } from '../../src/domain/multilateral.js';
import { RAW_BASE, upperStep, type BasketItem, type ItemPair } from '../../src/domain/price-index.js';

/** One item's panel, prepared once for every window and splice tried. */
export interface PreparedItem {
  item: BasketItem;
  /** Index into the run's days of the item's first priced day. */
  start: number;
  /** Listings priced each day from `start` on. */
  n: number[];
  /** ln bilateral Jevons between every pair of days from `start` on. */
  logJevons: (number | null)[][];
}

/**
 * @param prices by item code, each matched listing's price on every run day (null = not priced).
 */
export function prepareItems(items: readonly BasketItem[], days: readonly string[], prices: ReadonlyMap<string, (number | null)[][]>): PreparedItem[] {
  const out: PreparedItem[] = [];
  for (const item of items) {
    if (!item.observable) continue;
    const listings = prices.get(item.code) ?? [];
    let start = -1;
    for (let d = 0; d < days.length && start < 0; d++) if (listings.some((p) => p[d] != null)) start = d;
    if (start < 0) continue;
    const maps: Map<string, number>[] = [];
    const n: number[] = [];
    for (let d = start; d < days.length; d++) {
      const m = new Map<string, number>();
      listings.forEach((p, j) => {
        const v = p[d];
        if (v != null && v > 0) m.set(String(j), v);
      });
      maps.push(m);
      n.push(m.size);
    }
    out.push({ item, start, n, logJevons: logJevonsMatrix({ periods: days.slice(start), prices: maps }) });
  }
  return out;
}

/** All food and group raw series (base {@link RAW_BASE} on the first day), aligned with the run's days. */
export interface Nowcast {
  all: number[];
  groups: Map<string, number[]>;
  /** Item relatives by item code (null before the item's first priced day). */
  items: Map<string, (number | null)[]>;
}

/**
 * The nowcast with GEKS-Jevons items: rolling window `window` days, `splice` on the published
 * series, real time by default (the window grows from the item's first day until it is full, so a
 * day's value uses no later day: what a daily nowcast could have published); upper levels
 * chain-linked daily with `upperStep` exactly as the chained nowcast. `realTime = false` with a
 * window as long as the log is the single-window GEKS over the whole log (transitive, drift-free,
 * but every day's value uses the whole log): a reference for drift, not a nowcast.
 */
export function geksNowcast(basket: readonly BasketItem[], prepared: readonly PreparedItem[], days: readonly string[], window: number, splice: Splice, realTime = true): Nowcast {
  const items = new Map<string, (number | null)[]>();
  for (const p of prepared) {
    const rel = rollingGeksFromLogMatrix(p.logJevons, { window, splice, realTime });
    const full: (number | null)[] = new Array(days.length).fill(null);
    rel.forEach((r, i) => (full[p.start + i] = r));
    // A day whose splice is undefined carries the item's previous relative (never happens when every listing is carried forward).
    for (let d = p.start + 1; d < days.length; d++) if (full[d] == null) full[d] = full[d - 1];
    items.set(p.item.code, full);
  }
  const all = [RAW_BASE];
  const groups = new Map<string, number[]>();
  const observable = basket.filter((b) => b.observable);
  for (const b of observable) if (!groups.has(b.group)) groups.set(b.group, [RAW_BASE]);
  const byCode = new Map(prepared.map((p) => [p.item.code, p]));
  for (let d = 1; d < days.length; d++) {
    // Every observable item, as the chained run passes them (never-priced items weigh in the group weights).
    const pairs: ItemPair[] = observable.map((b) => {
      const p = byCode.get(b.code);
      const r = items.get(b.code);
      return {
        code: b.code, group: b.group, weight: b.weight, observable: true,
        prev: r ? r[d - 1] : null, cur: r ? r[d] : null, n: p && d >= p.start ? p.n[d - p.start] : 0,
      };
    });
    const step = upperStep(pairs);
    all.push(all[d - 1] * step.all.ratio);
    for (const [g, s] of groups) s.push(s[d - 1] * (step.groups.get(g)?.ratio ?? 1));
  }
  return { all, groups, items };
}
