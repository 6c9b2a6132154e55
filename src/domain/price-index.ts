/**
 * The daily food-price index (a nowcast of Stats NZ's Food Price Index, not an official statistic):
 * the method as pure functions. No I/O; the index worker feeds it rows and stores what it returns.
 * Design: shared/DESIGN.md "The basket and the index"; contract: api-spec "Index resources",
 * "Basket resources", "Food price index".
 *
 * Method, bottom up (every rule is stated again, exactly, on the function that applies it):
 *
 * 1. **Basis price** ({@link basisPrice}) of a listing on a day, cents: the shelf price, or the
 *    special price when a special (PromoKind 1) applies; per kg or litre for a per-unit item.
 * 2. **Counted listings** ({@link countedBasis}): a matched listing counts on day t when it was
 *    priced on some day d with t − 14 ≤ d ≤ t ({@link STALE_DAYS}); its latest such price is used
 *    (listing-level carry-forward inside the cap).
 * 3. **Elementary aggregate** ({@link stepItem}): an item's relative is the geometric mean (Jevons)
 *    of its counted listings' linked relatives. A listing joins with a **link factor**
 *    ({@link linkListing}): `ref_price` = its basis price that day, `linked_relative` = the item's
 *    relative that day; later its relative is `linked_relative × basis(t) / ref_price`
 *    ({@link linkedRelative}). Joins and drops never move the item's relative on the day they
 *    happen. No counted listing: the previous relative is carried forward with n = 0, `stale`
 *    after more than 14 carried days.
 * 4. **Upper levels** ({@link upperStep}): groups and all food are fixed-weight (Laspeyres-type)
 *    arithmetic aggregates of item relatives, linked daily over the items present on both days
 *    (chained, base 1000 on the first day), weights renormalised over the observable items and
 *    groups present; `coverage` = weight share of observable items with ≥ 1 counted listing.
 * 5. **Series** ({@link anchorSeries}, {@link headlineChanges}, {@link sparkline}): `anchored` =
 *    raw scaled to the latest official month the nowcast observed on every day; d1/d30/yoy
 *    percent changes; the sparkline.
 *
 * The run ({@link computeIndex}) takes prices as national price spans ({@link ListingSpan}, runs of
 * days at one price) or daily observations, and can resume from a stored state
 * ({@link IndexState}, {@link stateToJson}) with the same result as an uninterrupted run: the index
 * worker (workers/index/compute.ts) computes only new days.
 *
 * Sources (cited by the functions that follow them):
 * - [CPI-M] ILO, IMF, OECD, Eurostat, UNECE, World Bank (2020), *Consumer Price Index Manual:
 *   Concepts and Methods*, IMF, doi:10.5089/9781484354841.069. Chapter 8, the chapter on how CPIs
 *   are calculated in practice (https://www.elibrary.imf.org/view/book/9781484354841/ch08.xml):
 *   8.3, calculation in two stages, elementary price indices for elementary aggregates (lowest
 *   level, no weights), then higher-level indices as weighted averages of them with fixed
 *   expenditure weights; the chapter's comparison of Dutot and Jevons (Table 8.1) and its advice
 *   that the Carli "should be avoided because it has a known, and potentially substantial, upward
 *   bias" — hence Jevons (geometric mean) for elementary aggregates.
 * - [CPI-M04] ILO et al. (2004), *Consumer Price Index Manual: Theory and Practice*, Chapter 9
 *   "Calculating consumer price indices in practice" (the 2004 edition of the same chapter):
 *   elementary aggregates, missing prices and carry-forward, linking in new and replacement
 *   products, higher-level (Laspeyres-type / Young) aggregation and chain linking.
 * - [SNZ-FPI-DQ] Stats NZ, *Food Price Index: March 2015*, Data quality ("Imputation": prices
 *   unavailable at collection are imputed "by carrying forward the previous month's price"),
 *   http://archive.stats.govt.nz/browse_for_stats/economic_indicators/prices_indexes/FoodPriceIndex_HOTPMar15/Data%20Quality.aspx
 * - [SNZ-FPI-TN] Stats NZ, *Food Price Index: April 2011*, Technical notes ("Grocery food
 *   specials": items on or off special "are included in the FPI at the price levels observed at
 *   the time prices are collected"),
 *   http://archive.stats.govt.nz/browse_for_stats/economic_indicators/prices_indexes/FoodPriceIndex_HOTPApr11/Technical%20Notes.aspx
 * - [SNZ-FPI] Stats NZ, Food Price Index series metadata (five subgroups; each basket item is
 *   allocated an expenditure weight, items with higher weights have a larger impact),
 *   https://datainfoplus.stats.govt.nz/Item/nz.govt.stats/749d8c27-1bed-45fb-b941-a1905aee632f ;
 *   and FPI review 2017 (indexes re-set to base June 2017 = 1000),
 *   https://datainfoplus.stats.govt.nz/item/nz.govt.stats/aaa36abf-2cdc-462e-adbe-9f8540592cc1/2
 */
import { addDays } from './days.js';
import { CAP_DAYS, PROMO_KIND, type PromoKind } from './spans.js';

// ---------------------------------------------------------------------------------------------
// Inputs

/**
 * Listing price cap, days: a price observed on day t − 14 still counts on day t; t − 15 does not.
 * The contract's one cap (src/domain/spans.ts CAP_DAYS).
 */
export const STALE_DAYS = CAP_DAYS;

/** Base of the raw series on its first day (the official FPI expression base is also 1000). */
export const RAW_BASE = 1000;

/** One observation of a listing's national price on one day (integer NZ cents). */
export interface ListingDay {
  listingId: number;
  /** `YYYY-MM-DD`, NZ calendar. */
  day: string;
  /** Shelf price, cents (per kg when `weighable`). */
  price: number;
  /** Promotional single-unit price, cents, or null. */
  promoPrice: number | null;
  /** Who gets `promoPrice` (api-spec PromoKind): 1 special, 2 club, 3 multibuy, 4 clearance. */
  promoKind: PromoKind | null;
  /** Pack quantity in `unit`, or null when unknown. */
  qty: number | null;
  unit: 'g' | 'ml' | 'each' | 'm' | null;
  /** Sold loose by weight: `price` is already per kg. */
  weighable: boolean;
}

/**
 * A listing matched to a basket item from `validFrom` (inclusive) until `validTo` (exclusive;
 * null or absent = still matched). `refPrice` / `linkedRelative` are the stored link (BasketMatch
 * `ref_price`, `linked_relative`); this module computes them ({@link ItemState.links}) rather than
 * reading them, so they are optional here.
 */
export interface Match {
  listingId: number;
  itemCode: string;
  validFrom: string;
  validTo?: string | null;
  refPrice?: number | null;
  linkedRelative?: number | null;
}

/** A basket item (api-spec BasketItem): `weight` is its share of the basket, any positive unit. */
export interface BasketItem {
  code: string;
  /** Group code (one of the five FPI groups). */
  group: string;
  weight: number;
  /** Compared per kg or litre rather than per pack. */
  perUnit: boolean;
  /** Observable on supermarket shelves (restaurant meals & ready-to-eat food are not). */
  observable: boolean;
}

// ---------------------------------------------------------------------------------------------
// 1. Basis price

/**
 * The price that counts, in cents, from one observation: first the **transaction price**, then
 * the **comparison basis**.
 *
 * Transaction price: `promoPrice` when `promoKind` is 1 (a special, open to everyone) and it is
 * below the shelf price, else the shelf price. Specials count because Stats NZ includes items on
 * or off special at the price observed [SNZ-FPI-TN]. Not counted (shelf price used):
 * - 2 club/member prices: need a loyalty card, not open to every household (DESIGN.md);
 * - 3 multibuy: the price is conditional on buying several units; the single-unit price stands;
 * - 4 clearance: markdowns of short-dated or discontinued stock, usually store-local and brief,
 *   so not the same quality of product on the shelf day to day — treated as not a special;
 * - a promo price with an unknown kind (null).
 *
 * Comparison basis: a weighable listing's price is per kg already (returned as is); for a
 * per-unit item (`perUnit`) with a known positive pack quantity in g or ml, cents per kg or litre
 * = price ÷ qty × 1000; otherwise per pack (the price as is). A listing keeps its basis over time,
 * so mixing per-kg and per-pack listings in one item does not bias the Jevons ratios.
 */
export function basisPrice(obs: Omit<ListingDay, 'listingId' | 'day'>, perUnit: boolean): number {
  const special = obs.promoKind === PROMO_KIND.special && obs.promoPrice != null && obs.promoPrice > 0 && obs.promoPrice < obs.price;
  const paid = special ? (obs.promoPrice as number) : obs.price;
  if (obs.weighable) return paid;
  if (perUnit && obs.qty != null && obs.qty > 0 && (obs.unit === 'g' || obs.unit === 'ml')) {
    return (paid / obs.qty) * 1000;
  }
  return paid;
}

// ---------------------------------------------------------------------------------------------
// 2. Link factor

/** A listing's link into its item (BasketMatch `ref_price`, `linked_relative`). */
export interface Link {
  /** Basis price (cents) on the day the listing joined. */
  refPrice: number;
  /** The item's relative on that day (rescaled when other listings drop; see {@link stepItem}). */
  linkedRelative: number;
}

/**
 * The link of a listing joining an item on a day: `refPrice` = the listing's basis price that
 * day, `linkedRelative` = the item's relative that day. Linking in a new product this way
 * attributes none of its price-level difference to price change ([CPI-M04] ch. 9, linking in new
 * and replacement products): the listing's relative equals the item's on the join day, so the
 * geometric mean — and the item — do not move.
 */
export function linkListing(itemRelative: number, basis: number): Link {
  if (!(basis > 0)) throw new RangeError(`basis price must be positive: ${basis}`);
  return { refPrice: basis, linkedRelative: itemRelative };
}

/** A listing's relative on a later day: `linkedRelative × basis(t) / refPrice` (unitless). */
export function linkedRelative(link: Link, basis: number): number {
  return (link.linkedRelative * basis) / link.refPrice;
}

/**
 * Geometric mean (the Jevons elementary index of price relatives, [CPI-M] ch. 8).
 * @throws RangeError on an empty list or a non-positive value.
 */
export function jevons(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('geometric mean of no values');
  let s = 0;
  for (const v of values) {
    if (!(v > 0)) throw new RangeError(`relative must be positive: ${v}`);
    s += Math.log(v);
  }
  return Math.exp(s / values.length);
}

// ---------------------------------------------------------------------------------------------
// 3. Counted listings and the elementary aggregate

/** A listing's latest price within the cap: its basis (cents) and the day it was observed. */
export interface Priced {
  basis: number;
  pricedOn: string;
}

/**
 * Whether a listing priced on `pricedOn` counts on `day`: `day − 14 ≤ pricedOn ≤ day` (api-spec
 * get_basket_item: "a listing priced more than 14 days ago ... does not count").
 */
export function counts(pricedOn: string, day: string): boolean {
  return pricedOn <= day && pricedOn >= addDays(day, -STALE_DAYS);
}

/**
 * The counted listings of one item on `day`, each with the basis price that counts: for every
 * match in force (`validFrom ≤ day`, and `day < validTo` when set), the latest observation on a
 * day d with `day − 14 ≤ d ≤ day` (listing-level carry-forward for up to 14 days, the daily
 * analogue of Stats NZ carrying forward an unavailable price [SNZ-FPI-DQ]). Listings with no
 * such observation are not counted.
 *
 * @param obsByListing each listing's observations keyed by day (one per day).
 */
export function countedBasis(
  day: string,
  item: BasketItem,
  matches: readonly Match[],
  obsByListing: ReadonlyMap<number, ReadonlyMap<string, ListingDay>>,
): Map<number, Priced> {
  const out = new Map<number, Priced>();
  const back = Array.from({ length: STALE_DAYS + 1 }, (_, k) => (k === 0 ? day : addDays(day, -k)));
  for (const m of matches) {
    if (m.itemCode !== item.code || m.validFrom > day) continue;
    if (m.validTo != null && day >= m.validTo) continue;
    const obs = obsByListing.get(m.listingId);
    if (!obs) continue;
    for (const d of back) {
      const o = obs.get(d);
      if (o) {
        out.set(m.listingId, { basis: basisPrice(o, item.perUnit), pricedOn: d });
        break;
      }
    }
  }
  return out;
}

/** One item on one day (api-spec ItemSeries `relative`, `n`; BasketItem `stale`). */
export interface ItemState {
  day: string;
  /** Relative price, 1.0 on the item's base day (its first day with a counted listing); null before. */
  relative: number | null;
  /** Counted listings; 0 when carried forward; null while `relative` is null. */
  n: number | null;
  /** Carried forward for more than {@link STALE_DAYS} days; null while `relative` is null. */
  stale: boolean | null;
  /** Last day with n ≥ 1 (null before the first). */
  lastCounted: string | null;
  /** Links of the listings counted this day, with the basis that counted (next day's comparison). */
  links: Map<number, Link & { basis: number }>;
}

/**
 * The item's state on `day` from the previous day's state (`prev`, null on the first day) and
 * the listings counted today ({@link countedBasis}). Jevons elementary aggregate with link
 * factors, in chained form:
 *
 * - K = listings counted both yesterday (in `prev.links`) and today. When K is non-empty,
 *   R(t) = R(t−1) × Π_{i∈K} (b_i(t) / b_i(t−1))^(1/|K|), the Jevons index of the matched
 *   listings' day-on-day price relatives ([CPI-M] ch. 8). Then if some of yesterday's listings
 *   dropped, K's linked relatives are rescaled by R(t) / GM_K(linked relatives) (re-linking), so
 *   the identity **R(t) = geometric mean of the counted listings' linked relatives** holds on
 *   every day; when nothing dropped it holds already and links are left untouched. Because the
 *   chained ratio uses only listings priced both days, a drop does not move R.
 * - Listings counted today but not yesterday join with {@link linkListing}(R(t), b_i(t)): their
 *   linked relative equals R(t), so they do not move it either. When K is empty (first day, or
 *   after an empty spell) R(t) = R(t−1), or 1.0 on the item's first counted day.
 * - No counted listing: R(t) = R(t−1) carried forward, n = 0 ([SNZ-FPI-DQ], [CPI-M04] ch. 9 on
 *   carry-forward), and **stale** once it has been carried for more than 14 days:
 *   `stale ⇔ n = 0 ∧ t − lastCounted > 14` (last counted on day L: days L+1 … L+14 are carried
 *   but not stale, L+15 is stale). Since a listing counts for 14 days after its last price, an
 *   item goes stale on the 30th day after its last observed price.
 *
 * On days when K equals yesterday's set this is exactly "R(t) = GM of linked_relative ×
 * basis(t) / ref_price"; the chained form is what keeps drops from moving the index.
 */
export function stepItem(prev: ItemState | null, day: string, counted: ReadonlyMap<number, Pick<Priced, 'basis'>>): ItemState {
  const links = new Map<number, Link & { basis: number }>();
  const prevRel = prev?.relative ?? null;
  if (counted.size === 0) {
    if (prevRel == null) return { day, relative: null, n: null, stale: null, lastCounted: null, links };
    const lastCounted = prev!.lastCounted as string;
    return { day, relative: prevRel, n: 0, stale: daysBetween(lastCounted, day) > STALE_DAYS, lastCounted, links };
  }
  // K and the Jevons index of K's day-on-day relatives: exp(mean of the logs) — the arithmetic of
  // jevons(), written without intermediate arrays (an unchanged price adds log 1 = 0).
  const prevLinks = prevRel != null ? prev!.links : null;
  let kept = 0;
  let logSum = 0;
  if (prevLinks) {
    counted.forEach((p, id) => {
      const l = prevLinks.get(id);
      if (!l) return;
      if (!(p.basis > 0)) throw new RangeError(`relative must be positive: ${p.basis / l.basis}`);
      kept++;
      if (p.basis !== l.basis) logSum += Math.log(p.basis / l.basis);
    });
  }
  const relative = kept > 0 ? prevRel! * Math.exp(logSum / kept) : prevRel ?? 1;
  // Re-linking after a drop: f = R(t) / GM_K(linked relatives); 1 when nothing dropped.
  let f = 1;
  if (kept > 0 && prevLinks!.size > kept) {
    let s = 0;
    counted.forEach((p, id) => {
      const l = prevLinks!.get(id);
      if (l) s += Math.log(linkedRelative(l, p.basis));
    });
    f = relative / Math.exp(s / kept);
  }
  // Links in `counted` order: K's (rescaled; unchanged ones kept as they are), then joins.
  if (kept > 0) {
    counted.forEach((p, id) => {
      const l = prevLinks!.get(id);
      if (l) links.set(id, f === 1 && l.basis === p.basis ? l : { refPrice: l.refPrice, linkedRelative: l.linkedRelative * f, basis: p.basis });
    });
  }
  if (links.size < counted.size) {
    counted.forEach((p, id) => {
      if (!links.has(id)) links.set(id, { ...linkListing(relative, p.basis), basis: p.basis });
    });
  }
  return { day, relative, n: counted.size, stale: false, lastCounted: day, links };
}

/** Calendar days from `a` to `b` (b − a), both `YYYY-MM-DD`. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

// ---------------------------------------------------------------------------------------------
// 4. Upper levels

/** One item's relative on two consecutive days, with its weight and counted listings today. */
export interface ItemPair {
  code: string;
  group: string;
  weight: number;
  observable: boolean;
  prev: number | null;
  cur: number | null;
  /** Counted listings today (0 = carried forward). */
  n: number | null;
}

/** The daily link of one aggregate: value ratio today / yesterday, and today's coverage. */
export interface UpperStep {
  /** I(t) / I(t−1); 1 when no item is present on both days. */
  ratio: number;
  /** Share (0–1) of the aggregate's observable weight whose item had n ≥ 1 today. */
  coverage: number;
}

/**
 * Group and all-food daily links: a fixed-weight, Laspeyres-type (Young) aggregate of item
 * relatives — a weighted arithmetic mean of the elementary indices with fixed basket weights, as
 * in [CPI-M] ch. 8 (8.3) and Stats NZ's FPI, where each item carries a fixed expenditure weight
 * [SNZ-FPI] — chain-linked daily over the items present on both days:
 *
 * - group g: P_g = observable items of g with a relative on t−1 and t;
 *   A_g(x) = Σ_{P_g} w_i R_i(x) / Σ_{P_g} w_i (weights renormalised over the items present);
 *   ratio_g = A_g(t) / A_g(t−1).
 * - all food: Q = groups with P_g non-empty, W_g = Σ of g's observable item weights;
 *   ratio = Σ_Q W_g A_g(t) / Σ_Q W_g A_g(t−1) (weights renormalised over the groups present).
 *
 * Over a span where the item set does not change the links telescope to the direct form
 * I(t) / I(0) = Σ W_g A_g(t) / Σ W_g A_g(0): no chain drift from bouncing specials (unlike a
 * chained mean of daily ratios). An item entering (first priced) or leaving is linked in/out on
 * the day it happens ([CPI-M04] ch. 9, linking) and moves nothing.
 *
 * Coverage = Σ w_i over observable items of the aggregate with n ≥ 1 / Σ w_i over all its
 * observable items (non-observable items are outside the index entirely).
 */
export function upperStep(items: readonly ItemPair[]): { all: UpperStep; groups: Map<string, UpperStep> } {
  const byGroup = new Map<string, ItemPair[]>();
  for (const it of items) {
    if (!it.observable) continue;
    const g = byGroup.get(it.group) ?? [];
    g.push(it);
    byGroup.set(it.group, g);
  }
  const groups = new Map<string, UpperStep>();
  let allNum = 0;
  let allDen = 0;
  let allW = 0;
  let allCovered = 0;
  for (const [code, list] of byGroup) {
    let wSum = 0;
    let covered = 0;
    let wP = 0;
    let cur = 0;
    let prev = 0;
    for (const it of list) {
      wSum += it.weight;
      if (it.n != null && it.n >= 1) covered += it.weight;
      if (it.prev != null && it.cur != null) {
        wP += it.weight;
        cur += it.weight * it.cur;
        prev += it.weight * it.prev;
      }
    }
    groups.set(code, { ratio: wP > 0 ? cur / prev : 1, coverage: wSum > 0 ? covered / wSum : 0 });
    allW += wSum;
    allCovered += covered;
    if (wP > 0) {
      allNum += wSum * (cur / wP);
      allDen += wSum * (prev / wP);
    }
  }
  return { all: { ratio: allDen > 0 ? allNum / allDen : 1, coverage: allW > 0 ? allCovered / allW : 0 }, groups };
}

// ---------------------------------------------------------------------------------------------
// Whole run

/**
 * A listing's national price over a run of days (a `national_price_span` row with its end
 * resolved): the listing was priced at this tuple on every day from `firstDay` to `lastDay`
 * inclusive. The caller applies the open-span rule (an open span ends at its chain's last national
 * collection day: src/domain/spans.ts `spanTo`, SQL `spanToSql`) before handing spans over. A
 * listing's spans must not overlap (national spans never do). Feeding spans is equivalent to feeding
 * one {@link ListingDay} per covered day (a unit test checks it), without the per-day objects.
 */
export interface ListingSpan extends Omit<ListingDay, 'day'> {
  /** First day priced at this tuple, `YYYY-MM-DD`. */
  firstDay: string;
  /** Last day priced at this tuple (inclusive), `YYYY-MM-DD`, ≥ `firstDay`. */
  lastDay: string;
}

/** Day number (days since 1970-01-01) of a `YYYY-MM-DD` day: the run compares days as integers. */
function dayNumber(day: string): number {
  return Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
}

/**
 * One price entry of a listing in a {@link SpanLookup}: the days it covers (as day numbers) and its
 * basis price on either basis, computed once ({@link basisPrice} with perUnit false / true).
 */
interface SpanEntry {
  first: number;
  last: number;
  perPack: { basis: number };
  perUnit: { basis: number };
}

/**
 * Each listing's price entries (spans, or one-day spans for daily observations), sorted by first
 * day, with a cursor per listing: asked for days in ascending order, finding the latest entry
 * starting on or before a day costs O(1) amortised (a backwards question restarts the cursor).
 */
class SpanLookup {
  private readonly byListing = new Map<number, { entries: SpanEntry[]; cursor: number }>();

  add(listingId: number, first: string, last: string, src: Omit<ListingDay, 'listingId' | 'day'>): void {
    let e = this.byListing.get(listingId);
    if (!e) this.byListing.set(listingId, (e = { entries: [], cursor: -1 }));
    e.entries.push({
      first: dayNumber(first), last: dayNumber(last),
      perPack: { basis: basisPrice(src, false) }, perUnit: { basis: basisPrice(src, true) },
    });
  }

  /** Sorts each listing's entries by first day (stable: of two entries starting the same day, the later added wins). */
  finish(): void {
    for (const e of this.byListing.values()) e.entries.sort((a, b) => a.first - b.first);
  }

  /** The listing's entries and cursor (null when it has none). */
  of(listingId: number): { entries: SpanEntry[]; cursor: number } | null {
    return this.byListing.get(listingId) ?? null;
  }
}

/** A match of one item in the run's form: interval as day numbers, and its listing's entries. */
interface RunMatch {
  listingId: number;
  from: number;
  /** Exclusive; Infinity while open. */
  to: number;
  prices: { entries: SpanEntry[]; cursor: number } | null;
}

/**
 * {@link countedBasis} over a {@link SpanLookup}: the same rule (a match in force on day `t`; the
 * listing's latest price on a day d with `t − 14 ≤ d ≤ t`), where the latest priced day of the
 * latest entry starting on or before `t` is `min(entry.last, t)`: it counts when `entry.last ≥
 * t − 14`. `t` is a day number; `matches` are the item's own. Values carry the basis only (all
 * {@link stepItem} reads).
 */
function countedFromLookup(t: number, perUnit: boolean, matches: readonly RunMatch[]): Map<number, { basis: number }> {
  const out = new Map<number, { basis: number }>();
  const lo = t - STALE_DAYS;
  for (let k = 0; k < matches.length; k++) {
    const m = matches[k];
    if (m.from > t || t >= m.to || m.prices == null) continue;
    const p = m.prices;
    const entries = p.entries;
    let c = p.cursor;
    if (c >= 0 && entries[c].first > t) c = -1;
    while (c + 1 < entries.length && entries[c + 1].first <= t) c++;
    p.cursor = c;
    if (c < 0) continue;
    const e = entries[c];
    if (e.last < lo) continue;
    out.set(m.listingId, perUnit ? e.perUnit : e.perPack);
  }
  return out;
}

/** One aggregate's daily series (api-spec IndexPoint / GroupSeries `raw`, `coverage`; index_day `items`, `listings`). */
export interface AggregateSeries {
  /** Chained, 1000 on the first day (or continuing a resumed state's level). */
  raw: number[];
  coverage: number[];
  /** Observable items of the aggregate with n ≥ 1 that day. */
  items: number[];
  /** Listings counted that day (Σ n over the aggregate's items). */
  listings: number[];
}

/**
 * Everything needed to continue the computation after `day` as if it had never stopped: each
 * observable item's {@link ItemState} on `day` (items never priced are absent, which is the same
 * as a null state) and each aggregate's raw level on `day` (the chain continues from it).
 */
export interface IndexState {
  /** The last computed day, `YYYY-MM-DD`. */
  day: string;
  raw: {
    /** All food's raw level on `day`. */
    all: number;
    /** Each observable group's raw level on `day`, by group code. */
    groups: Map<string, number>;
  };
  /** By item code. */
  items: Map<string, ItemState>;
}

/** The latest link of a listing in an item during a run, with the last day it was counted (`day`). */
export type DatedLink = Link & { day: string };

/** Result of {@link computeIndex}, arrays aligned with `days`. */
export interface IndexRun {
  days: string[];
  all: AggregateSeries;
  /** By group code (observable groups only). */
  groups: Map<string, AggregateSeries>;
  /** By item code (observable items only): api-spec ItemSeries `relative`, `n`; and `stale`. */
  items: Map<string, { relative: (number | null)[]; n: (number | null)[]; stale: (boolean | null)[] }>;
  /** Each observable item's state on the last day (its `links` are the BasketMatch links to store). */
  last: Map<string, ItemState>;
  /** The state on the last day, to resume from ({@link stateToJson} stores it). */
  state: IndexState;
  /**
   * By item code, then listing id: every listing counted in the item on some day of this run (or
   * on the resumed state's day), with its link as of the last day it was counted in the item (a
   * listing that dropped keeps the link it had on its last counted day). What BasketMatch
   * `ref_price` / `linked_relative` hold.
   */
  links: Map<string, Map<number, DatedLink>>;
}

/**
 * The index over every day from `from` to `to` (inclusive): per item {@link countedBasis} (over
 * spans) → {@link stepItem}, then {@link upperStep}, chained from {@link RAW_BASE} on `from`.
 * Prices come from `observations` (one per listing and day) and/or `spans` (runs of days at one
 * price, {@link ListingSpan}); either may be omitted. Observations and spans before `from` are used
 * only as carried-forward prices within the 14-day cap.
 *
 * `resume` continues a previous run instead of starting afresh: `from` must be the day after
 * `resume.day`; item states and aggregate levels continue from it, so computing days 1…k, then
 * resuming for k+1…N, gives the same numbers as computing 1…N at once (same operations in the same
 * order; a unit test checks it). Prices of days before `from` are then needed only within the cap.
 *
 * `onDay` is called after each computed day (progress).
 * @throws RangeError when `to < from`, or `resume.day` is not the day before `from`.
 */
export function computeIndex(input: {
  from: string;
  to: string;
  basket: readonly BasketItem[];
  matches: readonly Match[];
  observations?: readonly ListingDay[];
  spans?: readonly ListingSpan[];
  resume?: IndexState | null;
  onDay?: (day: string) => void;
}): IndexRun {
  const { from, to, basket, resume = null, onDay } = input;
  if (to < from) throw new RangeError(`empty range ${from}..${to}`);
  if (resume && addDays(resume.day, 1) !== from) throw new RangeError(`cannot resume from ${resume.day} at ${from}: not the next day`);
  const { observable, matchesByItem } = prepareRun(input);
  const days: string[] = [];
  const { all, groups } = newAggregates(basket);
  const items: IndexRun['items'] = new Map();
  for (const b of observable) items.set(b.code, { relative: [], n: [], stale: [] });
  const state = new Map<string, ItemState | null>(observable.map((b) => [b.code, resume?.items.get(b.code) ?? null]));
  const levels: AggregateLevels = { all: resume ? resume.raw.all : null, groups: new Map<string, number>(resume ? resume.raw.groups : []) };
  const links = new Map<string, Map<number, DatedLink>>();
  const record = (code: string, id: number, l: Link, day: string) => {
    let m = links.get(code);
    if (!m) links.set(code, (m = new Map()));
    m.set(id, { refPrice: l.refPrice, linkedRelative: l.linkedRelative, day });
  };

  const none: RunMatch[] = [];
  for (let day = from, t = dayNumber(from); day <= to; day = addDays(day, 1), t++) {
    days.push(day);
    const pairs: ItemPair[] = [];
    for (const b of observable) {
      const prev = state.get(b.code) ?? null;
      const next = stepItem(prev, day, countedFromLookup(t, b.perUnit, matchesByItem.get(b.code) ?? none));
      state.set(b.code, next);
      if (prev && prev.links.size > 0) {
        prev.links.forEach((l, id) => {
          if (!next.links.has(id)) record(b.code, id, l, prev.day);
        });
      }
      const s = items.get(b.code)!;
      s.relative.push(next.relative);
      s.n.push(next.n);
      s.stale.push(next.stale);
      pairs.push({ ...b, prev: prev?.relative ?? null, cur: next.relative, n: next.n });
    }
    appendAggregateDay(pairs, levels, all, groups);
    onDay?.(day);
  }
  const last = new Map<string, ItemState>();
  for (const [code, s] of state) {
    if (!s) continue;
    last.set(code, s);
    for (const [id, l] of s.links) record(code, id, l, s.day);
  }
  const groupRaw = new Map<string, number>();
  for (const code of groups.keys()) groupRaw.set(code, levels.groups.get(code)!);
  return { days, all, groups, items, last, state: { day: to, raw: { all: levels.all!, groups: groupRaw }, items: last }, links };
}

/** The prices and matches of a run (input of {@link computeIndex} and {@link countedPanels}). */
export interface RunPrices {
  from: string;
  to: string;
  basket: readonly BasketItem[];
  matches: readonly Match[];
  /** One per listing and day. */
  observations?: readonly ListingDay[];
  /** Runs of days at one price. */
  spans?: readonly ListingSpan[];
}

/** The observable items and, per item code, its matches in force on some day of the range with their listings' prices. */
function prepareRun(input: RunPrices): { observable: BasketItem[]; matchesByItem: Map<string, RunMatch[]> } {
  const { from, to, basket, matches, observations = [], spans = [] } = input;
  if (to < from) throw new RangeError(`empty range ${from}..${to}`);
  const lookup = new SpanLookup();
  for (const o of observations) lookup.add(o.listingId, o.day, o.day, o);
  for (const s of spans) {
    if (s.lastDay < s.firstDay) throw new RangeError(`span of listing ${s.listingId} ends ${s.lastDay} before it starts ${s.firstDay}`);
    lookup.add(s.listingId, s.firstDay, s.lastDay, s);
  }
  lookup.finish();
  const observable = basket.filter((b) => b.observable);
  const matchesByItem = new Map<string, RunMatch[]>();
  for (const m of matches) {
    if (m.validFrom > to || (m.validTo != null && m.validTo <= from)) continue; // never in force in the range
    const l = matchesByItem.get(m.itemCode) ?? [];
    l.push({ listingId: m.listingId, from: dayNumber(m.validFrom), to: m.validTo == null ? Infinity : dayNumber(m.validTo), prices: lookup.of(m.listingId) });
    matchesByItem.set(m.itemCode, l);
  }
  return { observable, matchesByItem };
}

/**
 * Each observable item's daily **counted-price panel** over `from`…`to` (inclusive): for every day
 * (aligned with `days`), the map listing id → basis price (cents, on the item's basis:
 * {@link basisPrice}) of the listings **counted** that day — exactly the prices the chained run
 * hands {@link stepItem} ({@link countedBasis}: a match in force that day, the listing's latest
 * price on a day d with day − 14 ≤ d ≤ day, so a price is carried forward for up to
 * {@link STALE_DAYS} days and then the listing leaves the panel; specials count, club prices,
 * multibuys and clearance do not). An empty map: no listing counted (the chained run carries the
 * item forward with n = 0). The input of the multilateral items of src/domain/geks-index.ts.
 *
 * The prices are indexed once; `panel(code)` builds one item's panel when asked (so a caller can
 * hold one item's panel at a time), for the item's code among the observable items of `basket`.
 * @throws RangeError when `to < from` or a span ends before it starts; `panel` throws RangeError
 *   for a code that is not an observable basket item.
 */
export function countedPanels(input: RunPrices): { days: string[]; codes: string[]; panel: (code: string) => Map<number, number>[] } {
  const { observable, matchesByItem } = prepareRun(input);
  const days: string[] = [];
  for (let day = input.from; day <= input.to; day = addDays(day, 1)) days.push(day);
  const byCode = new Map(observable.map((b) => [b.code, b]));
  const t0 = dayNumber(input.from);
  const none: RunMatch[] = [];
  const panel = (code: string): Map<number, number>[] => {
    const b = byCode.get(code);
    if (!b) throw new RangeError(`not an observable basket item: ${code}`);
    const matches = matchesByItem.get(code) ?? none;
    // Each item asks for its days in ascending order (a listing's cursor restarts when another item asked later days first).
    return days.map((_, i) => {
      const counted = countedFromLookup(t0 + i, b.perUnit, matches);
      return new Map([...counted].map(([id, p]) => [id, p.basis]));
    });
  };
  return { days, codes: observable.map((b) => b.code), panel };
}

/** The aggregates' raw levels on the previous day (null before the first day); {@link appendAggregateDay} moves them on. */
export interface AggregateLevels {
  all: number | null;
  /** By group code. */
  groups: Map<string, number>;
}

/** Empty series for all food and each observable group of the basket (by group code). */
export function newAggregates(basket: readonly BasketItem[]): { all: AggregateSeries; groups: Map<string, AggregateSeries> } {
  const newSeries = (): AggregateSeries => ({ raw: [], coverage: [], items: [], listings: [] });
  const groups = new Map<string, AggregateSeries>();
  for (const b of basket) if (b.observable && !groups.has(b.group)) groups.set(b.group, newSeries());
  return { all: newSeries(), groups };
}

/**
 * Appends one day to the aggregate series from that day's item pairs (every observable item, with
 * yesterday's and today's relative and today's counted listings): {@link upperStep}'s ratios chain
 * each raw level from `levels` ({@link RAW_BASE} on the first day, when a level is null or absent),
 * with the day's coverage and the counts of items with n ≥ 1 and of their listings. `levels` is
 * updated to today's. The upper levels of both index methods (chained Jevons and GEKS-Jevons items).
 */
export function appendAggregateDay(pairs: readonly ItemPair[], levels: AggregateLevels, all: AggregateSeries, groups: ReadonlyMap<string, AggregateSeries>): void {
  const up = upperStep(pairs);
  const rawAll = levels.all == null ? RAW_BASE : levels.all * up.all.ratio;
  all.raw.push(rawAll);
  all.coverage.push(up.all.coverage);
  levels.all = rawAll;
  let allItems = 0;
  let allListings = 0;
  const counts = new Map<string, { items: number; listings: number }>();
  for (const p of pairs) {
    const c = counts.get(p.group) ?? { items: 0, listings: 0 };
    if (p.n != null && p.n >= 1) {
      c.items += 1;
      c.listings += p.n;
      allItems += 1;
      allListings += p.n;
    }
    counts.set(p.group, c);
  }
  all.items.push(allItems);
  all.listings.push(allListings);
  for (const [code, g] of groups) {
    const st = up.groups.get(code)!;
    const prevRaw = levels.groups.get(code);
    const raw = prevRaw == null ? RAW_BASE : prevRaw * st.ratio;
    g.raw.push(raw);
    levels.groups.set(code, raw);
    g.coverage.push(st.coverage);
    g.items.push(counts.get(code)?.items ?? 0);
    g.listings.push(counts.get(code)?.listings ?? 0);
  }
}

/** {@link IndexState} as JSON (index_run.state): maps become objects, links `[listing id, ref_price, linked_relative, basis]`. */
export interface IndexStateJson {
  day: string;
  raw: { all: number; groups: Record<string, number> };
  items: Record<
    string,
    { relative: number | null; n: number | null; stale: boolean | null; lastCounted: string | null; links: [number, number, number, number][] }
  >;
}

/**
 * Serialises a state for storage (lossless: JavaScript numbers print their shortest round-trip
 * form, and PostgreSQL jsonb keeps the digits). Items whose relative is still null are left out
 * (the same as no state). Inverse: {@link stateFromJson}.
 */
export function stateToJson(state: IndexState): IndexStateJson {
  const items: IndexStateJson['items'] = {};
  for (const [code, s] of state.items) {
    if (s.relative == null) continue;
    items[code] = {
      relative: s.relative, n: s.n, stale: s.stale, lastCounted: s.lastCounted,
      links: [...s.links].map(([id, l]) => [id, l.refPrice, l.linkedRelative, l.basis]),
    };
  }
  return { day: state.day, raw: { all: state.raw.all, groups: Object.fromEntries(state.raw.groups) }, items };
}

/**
 * Parses a stored state ({@link stateToJson}'s output).
 * @throws TypeError when the value does not have that shape (the caller recomputes in full).
 */
export function stateFromJson(json: unknown): IndexState {
  const j = json as IndexStateJson;
  if (!j || typeof j !== 'object' || typeof j.day !== 'string' || typeof j.raw?.all !== 'number' || typeof j.raw.groups !== 'object' || typeof j.items !== 'object') {
    throw new TypeError('not an index state');
  }
  const items = new Map<string, ItemState>();
  for (const [code, s] of Object.entries(j.items)) {
    if (!Array.isArray(s.links)) throw new TypeError(`index state of ${code}: no links`);
    items.set(code, {
      day: j.day, relative: s.relative, n: s.n, stale: s.stale, lastCounted: s.lastCounted,
      links: new Map(s.links.map(([id, refPrice, linkedRelative, basis]) => [id, { refPrice, linkedRelative, basis }])),
    });
  }
  return { day: j.day, raw: { all: j.raw.all, groups: new Map(Object.entries(j.raw.groups)) }, items };
}

// ---------------------------------------------------------------------------------------------
// 5. Series

/** A daily value. */
export interface DayValue {
  day: string;
  value: number;
}

/** An official monthly FPI value (`month` = `YYYY-MM`, value on the official base, June 2017 = 1000). */
export interface OfficialMonth {
  month: string;
  value: number;
}

/** A daily raw value with that day's coverage (index_day `raw`, `coverage`). */
export interface CoveredValue extends DayValue {
  /** Share (0–1) of the aggregate's observable weight with a counted listing that day. */
  coverage: number;
}

/** Calendar days in a month `YYYY-MM` (28 to 31). */
export function daysInMonth(month: string): number {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/**
 * The anchored series (api-spec IndexPoint `anchored`): anchored(t) = raw(t) × k for every day,
 * one factor k per aggregate (all food against Stats NZ's all-food FPI, each group against its
 * group index), where:
 *
 * - the **anchor month** M is the latest official month that the nowcast **observed in full**:
 *   every calendar day of M (28 to 31 of them) is in `raw` with `coverage > 0`, i.e. on every day
 *   of M at least one of the aggregate's items had a counted listing. A month with a missing day,
 *   or with a day on which every item was only carried forward (coverage 0, as over a gap in the
 *   collected data), is skipped: its raw values are not a measurement of that month;
 * - k = official(M) / mean(raw(t) over the calendar days t of M), so the mean of the anchored
 *   values over M equals the official value of M (Stats NZ collects grocery prices over part of the
 *   month only; the calendar-month mean is this nowcast's approximation).
 *
 * When a new official month arrives (or a month becomes complete) the anchor moves and every
 * anchored value is rescaled by the new k: `anchored` is a presentation of `raw`, never chained.
 * All values are null (month and factor too) when no official month was observed in full.
 * `raw` holds at most one value per day.
 */
export function anchorSeries(raw: readonly CoveredValue[], official: readonly OfficialMonth[]): { month: string | null; factor: number | null; anchored: (number | null)[] } {
  const byMonth = new Map<string, { days: number; sum: number }>();
  for (const r of raw) {
    if (!(r.coverage > 0)) continue;
    const key = r.day.slice(0, 7);
    const m = byMonth.get(key) ?? { days: 0, sum: 0 };
    m.days += 1;
    m.sum += r.value;
    byMonth.set(key, m);
  }
  const months = [...official].sort((a, b) => (a.month < b.month ? 1 : -1));
  for (const m of months) {
    const seen = byMonth.get(m.month);
    if (!seen || seen.days !== daysInMonth(m.month)) continue;
    const factor = m.value / (seen.sum / seen.days);
    return { month: m.month, factor, anchored: raw.map((r) => r.value * factor) };
  }
  return { month: null, factor: null, anchored: raw.map(() => null) };
}

/**
 * Percent change of the value on `day` against the value `lag` calendar days earlier:
 * (v(day) / v(day − lag) − 1) × 100; null when either day is absent from `series`.
 */
export function percentChange(series: readonly DayValue[], day: string, lag: number): number | null {
  const byDay = new Map(series.map((p) => [p.day, p.value]));
  const cur = byDay.get(day);
  const base = byDay.get(addDays(day, -lag));
  if (cur == null || base == null || base === 0) return null;
  return (cur / base - 1) * 100;
}

/**
 * Headline changes on the series' last day (api-spec IndexLatest `headline`): `d1`, `d30`, `yoy`
 * in percent, against 1, 30 and 365 calendar days earlier. Percent changes are the same on raw
 * and anchored (a constant factor). Each is null when the earlier day is not in the series; the
 * contract types them as numbers, so the presenter decides what an index younger than a year
 * shows for `yoy`.
 */
export function headlineChanges(series: readonly DayValue[]): { d1: number | null; d30: number | null; yoy: number | null } {
  if (series.length === 0) return { d1: null, d30: null, yoy: null };
  const last = series[series.length - 1].day;
  return { d1: percentChange(series, last, 1), d30: percentChange(series, last, 30), yoy: percentChange(series, last, 365) };
}

/**
 * The sparkline (api-spec IndexLatest `sparkline`): the last `n` daily values, `t0` = day of the
 * first returned value, `v` one value per consecutive day from t0. Leading nulls are dropped
 * (t0 moves forward); `{ t0: null, v: [] }` when nothing remains.
 * @throws RangeError when the points are not consecutive days or a null follows a value.
 */
export function sparkline(series: readonly { day: string; value: number | null }[], n: number): { t0: string | null; v: number[] } {
  let tail = series.slice(Math.max(0, series.length - n));
  while (tail.length > 0 && tail[0].value == null) tail = tail.slice(1);
  for (let i = 1; i < tail.length; i++) {
    if (tail[i].day !== addDays(tail[i - 1].day, 1)) throw new RangeError(`not consecutive: ${tail[i - 1].day}, ${tail[i].day}`);
    if (tail[i].value == null) throw new RangeError(`missing value on ${tail[i].day}`);
  }
  return { t0: tail[0]?.day ?? null, v: tail.map((p) => p.value as number) };
}
