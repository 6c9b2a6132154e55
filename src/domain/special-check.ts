/**
 * "Is this special real?" (issue 16 item 6, beyond the contract): a listing's current promotion
 * compared with its own national price history before the promotion started. Pure; the
 * derived-views worker (workers/views/deals.ts) applies it to every deal of the `deal` table and
 * stores the result in `special_check`, which the API reads (src/services/special-check.ts).
 *
 * Sources this relies on (found with the service's reference search; the Commission's own
 * guidance page was not in the stored corpus, only reports of it):
 * - NZ Commerce Commission reminder to retailers on the Fair Trading Act 1986, as published by
 *   the Marketing Association (https://marketing.org.nz/news/keeping-it-real-when-pricing-goods-for-sale):
 *   discounts should be "genuine savings off the usual selling price", and "prices should not be
 *   increased before a sale to immediately claim a bigger discount at sale time"; a sale "should
 *   not continue for prolonged periods of time offering the same price".
 * - The Commission's retail tips as summarised by Hesketh Henry (2021,
 *   https://www.heskethhenry.co.nz/insights-opinion/tis-the-season-to-comply-with-the-fair-trading-act/):
 *   "Discounts must be taken off the usual selling price rather than the original price"; "A
 *   'special' can only be used to convey something unusual". Retail NZ's summary
 *   (http://www.retail.org.nz/advice/fair-trading-act): misleading to publish was/now pricing when
 *   the "was" price is not usually charged, or to "inflate the price of goods to exaggerate the
 *   level of discount".
 * - ACCC Advertising and selling guide, "Two-price comparison advertising"
 *   (https://www.accc.gov.au/publications/advertising-and-selling-guide/advertising-and-selling-guide/pricing/two-price-comparison-advertising):
 *   the test is whether consumers would have paid the "was" price "for a reasonable period before
 *   the sale commenced", which depends on the product and how often its price changes; an ACCC
 *   case reported by Bird & Bird (2020) used the three months before the advertisement.
 * Hence the 90-day window before the promotion started, the usual (most-days) shelf price rather
 * than the highest, and the 30-day look-back for a shelf-price rise. These are this service's
 * screening rules, not a legal test.
 *
 * Definitions (all money integer NZ cents, per unit: per item, or per kg for a weighable listing;
 * days are NZ calendar days `YYYY-MM-DD`, ranges inclusive):
 * - The **current span** is the last span given (the one in force on the chain's last national
 *   collection day); its deal is `dealOf` (src/domain/deals.ts). `promo_price` is the deal's unit
 *   price (special/member: the promo price; multibuy: set price ÷ set size, possibly fractional);
 *   `shelf_price` is the current span's shelf price.
 * - **promo_since**: the first day of the current unbroken run of this promotion: walking back
 *   from the current span, earlier spans belong to the run while their deal is of the same kind
 *   (the promo price or the shelf price may change within a run) and no more than
 *   {@link MAX_RUN_GAP_DAYS} unobserved days separate them from the next. A span after a longer
 *   gap (e.g. the import's unknown days) starts a new run.
 * - **window**: the {@link WINDOW_DAYS} days before promo_since (`promo_since − 90` to
 *   `promo_since − 1`). Only days a span covers count as observed (a span runs from its
 *   `first_day` to its `to`, src/domain/spans.ts spanTo); unobserved days are not guessed.
 * - **usual_price**: the shelf price in force on the most observed window days **without a
 *   special** (promo_kind 1), i.e. days on which a shopper buying one unit without a card paid the
 *   shelf price (days on a club price or a multibuy count: the shelf price was still charged to
 *   them). Decision: days on a special do not count, since the Commission's test is the price
 *   usually charged, and a shelf price that only ever stood beside a special was not. Ties go to
 *   the price seen most recently (nearest promo_since), as that is the "was" a shopper remembers.
 *   Null when no such day was observed.
 * - **lowest_price**: the lowest price a shopper without a loyalty card paid for one unit on an
 *   observed window day: the special price on special days, otherwise the shelf price (club and
 *   multibuy prices need a card or a set and do not count; nor does clearance, promo_kind 4,
 *   short-dated stock). It is the historical-lows rule of src/domain/lows.ts (lowestNoCardPrice,
 *   the one home of the no-card price) over the window with {@link CHECK_MIN_DAYS} = 1 (no price
 *   ignored as an outlier), so its answers are those this module gave before the rule moved there,
 *   except for a special whose price is not positive, now no price (as dealOf: a free item is no
 *   price) instead of a low of 0 or less. **lowest_shelf_price**: the lowest shelf price of the window.
 * - **days_observed**: observed window days; **promo_days**: those on which a promotion of the
 *   deal's kind ran (a promotion that keeps coming back is less "unusual").
 * - **shelf_rise**: the shelf price rose within {@link RISE_DAYS} days before the promotion:
 *   among span changes whose new span starts in `[promo_since − 30, promo_since]` (the rise may
 *   come on the day the promotion starts) and whose shelf price went up from a price below the
 *   shelf price on promo_since (`to`), the earliest gives `from` (the shelf price before it) and
 *   `day` (its first day). Null when there is none (no rise, or the price fell back to or below
 *   where it rose from).
 * - **saving_vs_usual**: usual_price − promo_price (null without a usual price; negative when the
 *   promotion costs more than the usual price).
 * - **verdict**, the first that applies:
 *   1. `insufficient_history`: fewer than {@link MIN_OBSERVED_DAYS} observed window days;
 *   2. `no_usual_price`: every observed window day was on a special (no usual shelf price to
 *      save against: a "sale" running for prolonged periods);
 *   3. `inflated`: a shelf_rise, and promo_price ≥ shelf_rise.from (no saving against what was
 *      charged before the rise);
 *   4. `above_usual`: promo_price ≥ usual_price (no saving against the usual price);
 *   5. `not_lowest`: lowest_price < promo_price (it was cheaper within the window);
 *   6. `genuine`: below the usual price, as low as or lower than anything paid in the window, and
 *      no inflating rise.
 */
import { addDays } from './days.js';
import { dealOf, type Deal, type DealKind, type PromoFields } from './deals.js';
import { lowestNoCardPrice } from './lows.js';
import { PROMO_KIND, spanTo, type Span } from './spans.js';

/** Days of history before the promotion that are compared (ACCC: a reasonable period; three months). */
export const WINDOW_DAYS = 90;
/** How far before the promotion a shelf-price rise counts as "shortly before", days. */
export const RISE_DAYS = 30;
/** Fewer observed window days than this: `insufficient_history`. */
export const MIN_OBSERVED_DAYS = 28;
/** Most unobserved days between two spans of one unbroken run (a weekly collection). */
export const MAX_RUN_GAP_DAYS = 7;

/**
 * The outlier rule's shortest run for `lowest_price` (src/domain/lows.ts `minDays`): 1, every
 * price paid counts (see the call in {@link checkSpecial}).
 */
export const CHECK_MIN_DAYS = 1;

/** Verdicts, in the order they are tried (module comment). */
export const SPECIAL_VERDICTS = ['insufficient_history', 'no_usual_price', 'inflated', 'above_usual', 'not_lowest', 'genuine'] as const;

/** A verdict of {@link checkSpecial}. */
export type SpecialVerdict = (typeof SPECIAL_VERDICTS)[number];

/** A shelf-price rise shortly before a promotion. */
export interface ShelfRise {
  /** Shelf price before the rise, cents. */
  from: number;
  /** Shelf price on the day the promotion started, cents (> from). */
  to: number;
  /** First day at the higher price. */
  day: string;
}

/** The check of one current promotion against its history (module comment). */
export interface SpecialCheck {
  kind: DealKind;
  /** Unit price on the promotion, cents (multibuy: set price ÷ set size, may be fractional). */
  promoPrice: number;
  /** Current shelf price, cents. */
  shelfPrice: number;
  /** First day of the current unbroken run of this promotion. */
  promoSince: string;
  /** First and last day of the window (promoSince − 90, promoSince − 1). */
  windowFrom: string;
  windowTo: string;
  daysObserved: number;
  promoDays: number;
  /** Shelf price on most non-special window days, cents; null when none. */
  usualPrice: number | null;
  /** Lowest no-card single-unit price paid in the window (shelf or special), cents; null when none. */
  lowestPrice: number | null;
  /** Lowest shelf price of the window, cents; null when none. */
  lowestShelfPrice: number | null;
  shelfRise: ShelfRise | null;
  /** usualPrice − promoPrice, cents (may be negative or fractional); null without a usual price. */
  savingVsUsual: number | null;
  verdict: SpecialVerdict;
}

/** Whole days from `a` to `b` (b − a). */
function dayDiff(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/** The deal kind of a span's promotion when it is a deal, else null. */
function kindOf(s: PromoFields): DealKind | null {
  return dealOf(s)?.kind ?? null;
}

/**
 * Checks the current promotion of a listing (module comment).
 * @param spans the listing's national spans, oldest first (by first_day); the last is the current
 *   span. Spans starting after the last one's start are not expected.
 * @param scopeCoveredDay the chain's national covered day (for the `to` of an open span, spanTo).
 * @returns null when there is no span or the current span's promotion is no deal (dealOf).
 */
export function checkSpecial(spans: readonly Span[], scopeCoveredDay: string | null): SpecialCheck | null {
  const current = spans[spans.length - 1];
  if (!current) return null;
  const deal: Deal | null = dealOf(current);
  if (!deal) return null;
  const to = (s: Span) => spanTo(s, scopeCoveredDay);

  // The current unbroken run of this promotion.
  let start = spans.length - 1;
  while (start > 0) {
    const prev = spans[start - 1];
    if (kindOf(prev) !== deal.kind) break;
    if (dayDiff(to(prev), spans[start].first_day) - 1 > MAX_RUN_GAP_DAYS) break;
    start--;
  }
  const promoSince = spans[start].first_day;
  const windowFrom = addDays(promoSince, -WINDOW_DAYS);
  const windowTo = addDays(promoSince, -1);

  // Observed window days: shelf price per day (for the usual price), lowest prices, promo days.
  let daysObserved = 0;
  let promoDays = 0;
  let lowestShelfPrice: number | null = null;
  /** Non-special days per shelf price, and the last window day each was seen. */
  const shelfDays = new Map<number, { days: number; last: string }>();
  for (const s of spans.slice(0, start)) {
    const from = s.first_day > windowFrom ? s.first_day : windowFrom;
    const end = to(s) < windowTo ? to(s) : windowTo;
    if (from > end) continue;
    const n = dayDiff(from, end) + 1;
    daysObserved += n;
    if (kindOf(s) === deal.kind) promoDays += n;
    const special = s.promo_kind === PROMO_KIND.special && s.promo_price !== null;
    lowestShelfPrice = lowestShelfPrice === null ? s.price : Math.min(lowestShelfPrice, s.price);
    if (!special) {
      const e = shelfDays.get(s.price) ?? { days: 0, last: end };
      e.days += n;
      if (end > e.last) e.last = end;
      shelfDays.set(s.price, e);
    }
  }
  // The lowest no-card price: the historical-lows rule (src/domain/lows.ts), its one home, with
  // min_days 1: the verdict asks whether a shopper paid less in the window, and a one-day price was
  // paid (the lows operations' default of 2 screens such prices out of a headline low instead).
  const lowestPrice = lowestNoCardPrice(spans, scopeCoveredDay, { from: windowFrom, to: windowTo, minDays: CHECK_MIN_DAYS })?.price ?? null;
  let usualPrice: number | null = null;
  let best: { days: number; last: string } | null = null;
  for (const [price, e] of shelfDays) {
    if (best === null || e.days > best.days || (e.days === best.days && (e.last > best.last || (e.last === best.last && price > (usualPrice as number))))) {
      best = e;
      usualPrice = price;
    }
  }

  // A shelf-price rise in [promoSince − 30, promoSince], across consecutive spans.
  const riseFrom = addDays(promoSince, -RISE_DAYS);
  let shelfRise: ShelfRise | null = null;
  for (let i = 1; i <= start; i++) {
    const day = spans[i].first_day;
    if (day < riseFrom || day > promoSince || spans[i].price <= spans[i - 1].price) continue;
    if (spans[start].price <= spans[i - 1].price) continue; // fell back since: no rise against it
    shelfRise = { from: spans[i - 1].price, to: spans[start].price, day };
    break;
  }

  const promoPrice = deal.unitPrice;
  const savingVsUsual = usualPrice === null ? null : usualPrice - promoPrice;
  let verdict: SpecialVerdict;
  if (daysObserved < MIN_OBSERVED_DAYS) verdict = 'insufficient_history';
  else if (usualPrice === null) verdict = 'no_usual_price';
  else if (shelfRise && promoPrice >= shelfRise.from) verdict = 'inflated';
  else if (promoPrice >= usualPrice) verdict = 'above_usual';
  else if (lowestPrice !== null && lowestPrice < promoPrice) verdict = 'not_lowest';
  else verdict = 'genuine';

  return {
    kind: deal.kind,
    promoPrice,
    shelfPrice: current.price,
    promoSince,
    windowFrom,
    windowTo,
    daysObserved,
    promoDays,
    usualPrice,
    lowestPrice,
    lowestShelfPrice,
    shelfRise,
    savingVsUsual,
    verdict,
  };
}
