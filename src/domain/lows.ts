/**
 * Historical lows (issue 32 item 2, beyond the contract): the lowest price a shopper without a
 * loyalty card paid for one unit of a listing, over a window of days, ignoring prices that held
 * only briefly. The one home of the rule: check_special's `lowest_price`
 * (src/domain/special-check.ts) is {@link lowestNoCardPrice} over its window, and the lows reads
 * (src/services/lows.ts) are its SQL form over the windows {@link LOW_WINDOWS} (the SQL of the
 * no-card price is `noCardPriceSql` in src/services/span-sql.ts; test/integration/lows.test.ts
 * checks them against a day-by-day reference on the real data).
 *
 * Definitions (money in integer NZ cents per unit: per item, or per kg for a weighable listing;
 * days are NZ calendar days `YYYY-MM-DD`, ranges inclusive):
 * - **No-card price** of a span ({@link noCardPrice}): its shelf price, or its promotional price
 *   when the promotion is a special (PromoKind 1, open to everyone) with a positive price below the
 *   shelf price. Not a member/club price (PromoKind 2: it needs the chain's loyalty card), not a
 *   multibuy's unit rate (PromoKind 3: paid only when the whole set is taken; the codebase counts it
 *   as a paid price only where a shopper plans a set, in the shelf `best` offer and
 *   plan_shopping_list, and check_special's lowest has always left it out), not clearance
 *   (PromoKind 4: store-local markdowns of short-dated stock, not the product's price). A
 *   non-positive promotional price is no price (as src/domain/deals.ts dealOf).
 * - The series is the listing's **national** spans: the chain's price (the median across its
 *   stores each day; a promotion counts when more than half the stores had it), the series
 *   get_listing_history shows by default and check_special reads. A span is observed from its
 *   `first_day` to its `to` (src/domain/spans.ts spanTo: an open span holds to its chain's covered
 *   day, never past it); unobserved days are not guessed.
 * - A **run** is a maximal sequence of spans with the same no-card price, each starting the day
 *   after the previous one's `to` (a shelf-price change under an unchanged special, or a club price
 *   starting, does not end a run; an unobserved gap does). Its length is its observed days, over
 *   all history (a run cut by a window's edge is not shorter for it). A run of fewer than
 *   `minDays` days is an **outlier** and ignored (default {@link LOWS_MIN_DAYS}.default = 2: a
 *   one-day price is most often a collection glitch or a price fixed the next morning). Hence a new
 *   low that started on the last observed day is not reported until it has held `minDays` days.
 * - The **low** of a window `[from, to]`: among non-outlier runs' observed days in the window, the
 *   lowest no-card price (`price`); `day`, the most recent window day it was paid; `days`, how many
 *   window days it was paid. Null when no such day.
 */
import { spanTo, PROMO_KIND, type Span } from './spans.js';
import type { PromoFields } from './deals.js';

/**
 * Bounds and default of the outlier parameter `min_days` (days a price must have held, in a row,
 * to count): 1 counts every price; 30 keeps only prices that held a month.
 */
export const LOWS_MIN_DAYS = { min: 1, max: 30, default: 2 } as const;

/**
 * The windows of a lows answer, each ending at the `as_of` day (the last observed day of the
 * listing, or of the product's listings: the data's end, never today): `days` back including
 * `as_of` (`as_of − days + 1` … `as_of`), or all history when null.
 */
export const LOW_WINDOWS = [
  { name: 'last_90_days', days: 90 },
  { name: 'last_365_days', days: 365 },
  { name: 'all_time', days: null },
] as const;

/** A window's name ({@link LOW_WINDOWS}). */
export type LowWindowName = (typeof LOW_WINDOWS)[number]['name'];

/** The low of one window (module comment). */
export interface Low {
  /** Lowest no-card price of the window, cents. */
  price: number;
  /** The most recent window day it was paid. */
  day: string;
  /** Window days it was paid (non-outlier runs only). */
  days: number;
}

/**
 * The no-card price of a span, cents (module comment): the special's price when the span is on a
 * special (PromoKind 1) whose price is positive and below the shelf price, else the shelf price.
 * SQL form: `noCardPriceSql` (src/services/span-sql.ts).
 */
export function noCardPrice(span: PromoFields): number {
  if (span.promo_kind === PROMO_KIND.special && span.promo_price !== null && span.promo_price > 0 && span.promo_price < span.price) {
    return span.promo_price;
  }
  return span.price;
}

/** Whole days from `a` to `b` (b − a). */
function dayDiff(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/**
 * The low of a window over one listing's spans (module comment): the pure form of the rule.
 * @param spans one scope's spans (a listing's national spans), oldest first (by first_day).
 * @param scopeCoveredDay the scope's covered day, for the `to` of an open span (spanTo).
 * @param window first and last day, inclusive (`from` null: from the first span); `minDays` ≥ 1,
 *   the outlier rule's shortest run.
 * @returns null when no non-outlier run has an observed day in the window.
 */
export function lowestNoCardPrice(
  spans: readonly Span[],
  scopeCoveredDay: string | null,
  window: { from: string | null; to: string; minDays: number },
): Low | null {
  // Runs of equal no-card price over adjacent spans, with their observed days.
  const runs: { paid: number; days: number; parts: { from: string; to: string }[] }[] = [];
  let prevTo: string | null = null;
  for (const s of spans) {
    const paid = noCardPrice(s);
    const to = spanTo(s, scopeCoveredDay);
    const last = runs[runs.length - 1];
    if (last && last.paid === paid && prevTo !== null && dayDiff(prevTo, s.first_day) === 1) {
      last.days += dayDiff(s.first_day, to) + 1;
      last.parts.push({ from: s.first_day, to });
    } else {
      runs.push({ paid, days: dayDiff(s.first_day, to) + 1, parts: [{ from: s.first_day, to }] });
    }
    prevTo = to;
  }
  let low: Low | null = null;
  for (const run of runs) {
    if (run.days < window.minDays) continue;
    for (const p of run.parts) {
      const from = window.from !== null && window.from > p.from ? window.from : p.from;
      const to = p.to < window.to ? p.to : window.to;
      if (from > to) continue;
      const n = dayDiff(from, to) + 1;
      if (low === null || run.paid < low.price) low = { price: run.paid, day: to, days: n };
      else if (run.paid === low.price) {
        low.days += n;
        if (to > low.day) low.day = to;
      }
    }
  }
  return low;
}
