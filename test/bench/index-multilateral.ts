/**
 * The multilateral nowcast for `npm run validate:index` (issue 30, item 2): the same basket, the
 * same matched listings and the same fixed-weight upper levels as the chained nowcast, but each
 * basket item's elementary index is a **GEKS-Jevons over a rolling window of days with a splice**
 * instead of the daily chained Jevons with link factors. The method is src/domain/geks-index.ts
 * (`prepareGeksItem`, `geksIndex`), the one the index worker runs with `INDEX_METHOD=geks-jevons`;
 * this file only shapes the validation's inputs and outputs.
 *
 * Per item: a daily price panel of its matched listings (listing × day → price; the log's prices
 * carried forward between changes, as the chained run gets them). The panel starts on the item's
 * first priced day (relative 1 there; null before, so the item is linked into the upper levels on
 * that day, as in the chained run). Prices are the listings' shelf prices as logged: a listing's
 * basis (per kg / per pack) is a constant multiple of its price, and Jevons ratios of one listing
 * do not depend on it.
 */
import { geksIndex, prepareGeksItem, type GeksItem } from '../../src/domain/geks-index.js';
import type { Splice } from '../../src/domain/multilateral.js';
import type { BasketItem } from '../../src/domain/price-index.js';

/** One item's panel, prepared once for every window and splice tried. */
export interface PreparedItem extends GeksItem {
  item: BasketItem;
}

/**
 * Prepares every observable item of `items` that has a priced listing (src/domain/geks-index.ts
 * `prepareGeksItem`, every pair of days: the validation tries expanding windows).
 * @param prices by item code, each matched listing's price on every run day (null = not priced),
 *   index-aligned with `days` (consecutive calendar days).
 */
export function prepareItems(items: readonly BasketItem[], days: readonly string[], prices: ReadonlyMap<string, (number | null)[][]>): PreparedItem[] {
  const out: PreparedItem[] = [];
  for (const item of items) {
    if (!item.observable) continue;
    const listings = prices.get(item.code) ?? [];
    const panel = days.map((_, d) => {
      const m = new Map<number, number>();
      listings.forEach((p, j) => {
        const v = p[d];
        if (v != null && v > 0) m.set(j, v);
      });
      return m;
    });
    const g = prepareGeksItem(item.code, panel);
    if (g) out.push({ ...g, item });
  }
  return out;
}

/** All food and group raw series (base 1000 on the first day), aligned with the run's days. */
export interface Nowcast {
  all: number[];
  groups: Map<string, number[]>;
  /** Item relatives by item code (null before the item's first priced day). */
  items: Map<string, (number | null)[]>;
}

/**
 * The nowcast with GEKS-Jevons items (src/domain/geks-index.ts `geksIndex`): rolling window
 * `window` days, `splice` on the published series, real time by default (the window grows from the
 * item's first day until it is full, so a day's value uses no later day: what a daily nowcast could
 * have published); upper levels chain-linked daily with `upperStep` exactly as the chained nowcast.
 * `realTime = false` with a window as long as the log is the single-window GEKS over the whole log
 * (transitive, drift-free, but every day's value uses the whole log): a reference for drift, not a
 * nowcast.
 */
export function geksNowcast(basket: readonly BasketItem[], prepared: readonly PreparedItem[], days: readonly string[], window: number, splice: Splice, realTime = true): Nowcast {
  const r = geksIndex(basket, prepared, days, { window, splice, realTime });
  const prices = new Set(prepared.map((p) => p.item.code));
  return {
    all: r.all.raw,
    groups: new Map([...r.groups].map(([g, s]) => [g, s.raw])),
    items: new Map([...r.items].filter(([code]) => prices.has(code)).map(([code, s]) => [code, s.relative])),
  };
}
