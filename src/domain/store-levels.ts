/**
 * Store and area price levels (issue 16 items 2 and 4; api-spec Store, GroupLevel, Bin, StoreDetail,
 * StoreLevels, Area, Areas, "Limits"). Pure: the rules the derived-views worker
 * (workers/views/stores.ts) applies to what it reads. The level arithmetic itself is
 * src/domain/levels.ts ({@link itemRatio}, {@link basketLevel}, {@link weightedGeometricMean}); this
 * module only decides what goes into it.
 *
 * **Prices compared.** A listing's ratio at a store is its store shelf price (store_price_span.price,
 * cents) ÷ its chain's national median shelf price in force the same day (national_price_span.price
 * of the same listing, cents; the median across the chain's reporting stores). Promotions do not
 * enter store levels: chains run their specials, club prices and multibuys mostly chain-wide, so
 * shelf against shelf median measures a store's own regular price position, and a store's deals are
 * reported separately (Store `club`, `sale`, `multibuy`). A zero price gives no ratio.
 *
 * **Store level.** An item's ratio is {@link itemRatio} over its listings priced at the store (the
 * unweighted geometric mean); the store's level is {@link basketLevel} over its items with the
 * basket weights (basket_item.weight, shares), null under MIN_LEVEL_ITEMS (20) items; `n_items` is
 * the number of items priced. Group levels use the same items with no threshold (minItems 1).
 *
 * **Areas.** An area's level is the item-weighted geometric mean of its stores' levels: each store
 * with a level weighted by its `n_items` ({@link weightedGeometricMean}); a store without a level does
 * not enter it. Each store's level is already relative to its own chain's median, so the area level
 * is the premium of the place with the chain mix taken out.
 */
import { basketLevel, itemRatio, weightedGeometricMean, type WeightedRatio } from './levels.js';
import { CORE_CLASSES, type UrbanClass } from './places.js';

// ---------------------------------------------------------------------------------------------
// The shelf spread histogram (api-spec Bin, "Limits": 20 bins over 0.80 to 1.20 plus two tails)

/** Number of spread buckets: 0 (ratio < 0.80), 1–20 (0.80 to 1.20 in 0.02 steps), 21 (≥ 1.20). */
export const SPREAD_BUCKETS = 22;
/** Lower edge of bucket 1 (a ratio, unitless). */
export const SPREAD_LOW = 0.8;
/** Lower edge of the upper tail, bucket 21. */
export const SPREAD_HIGH = 1.2;
/** Buckets per unit of ratio (1 / 0.02): bucket edges are the ratios k / 50. */
const PER_UNIT = 50;
/** Index k/50 of SPREAD_LOW, minus one: ratio r falls in bucket floor(50 r) − 39 (clamped to 0…21). */
const OFFSET = SPREAD_LOW * PER_UNIT - 1;

/**
 * The spread bucket of a price ratio (price ÷ median): 0 for r < 0.80; k in 1…20 for
 * 0.80 + 0.02 (k − 1) ≤ r < 0.80 + 0.02 k; 21 for r ≥ 1.20. Edges belong to the bucket above
 * (0.80 → 1, 0.82 → 2, 1.20 → 21).
 *
 * Floating point: 0.82 − 0.80 is not 0.02 in binary, so the rule is evaluated on 50 r, snapped to
 * the nearest integer when within 1e-9 (relative) of it, then floored. For a ratio of two integer
 * cents p / m, 50 p / m is either an integer or at least 1 / m away from one, so the snapping never
 * moves a true ratio across an edge while m < 10⁶ cents ($10,000); {@link spreadBucketSql} is the
 * exact integer form of the same rule.
 * @throws RangeError for a ratio that is not positive and finite.
 */
export function spreadBucket(ratio: number): number {
  if (!(ratio > 0) || !Number.isFinite(ratio)) throw new RangeError(`ratio must be positive and finite: ${ratio}`);
  const x = ratio * PER_UNIT;
  const near = Math.round(x);
  const k = Math.abs(x - near) <= 1e-9 * Math.max(1, x) ? near : Math.floor(x);
  return Math.min(SPREAD_BUCKETS - 1, Math.max(0, k - OFFSET));
}

/**
 * {@link spreadBucket} of price ÷ median as an SQL integer expression over two integer-cent
 * expressions (exact: integer division floors 50 · price ÷ median for positive operands; bigint so
 * that 50 · price cannot overflow). test/integration/store-levels.test.ts checks it agrees with
 * {@link spreadBucket}.
 */
export function spreadBucketSql(price: string, median: string): string {
  return `least(${SPREAD_BUCKETS - 1}, greatest(0, (${PER_UNIT}::bigint * (${price})) / (${median}) - ${OFFSET}))::int`;
}

/** The 22 bucket counts of `ratios` ({@link spreadBucket}). @throws RangeError as spreadBucket does. */
export function spreadHistogram(ratios: Iterable<number>): number[] {
  const counts = new Array<number>(SPREAD_BUCKETS).fill(0);
  for (const r of ratios) counts[spreadBucket(r)] += 1;
  return counts;
}

// ---------------------------------------------------------------------------------------------
// Store levels

/** A basket item as levels use it: its weight (share of the basket, 0–1) and its group (basket_group.id). */
export interface LevelItem {
  weight: number;
  group: number;
}

/** One listing's price ratio at a store (store shelf price ÷ chain median, unitless) for a basket item. */
export interface ListingRatio {
  /** basket_item.id the listing is matched to (match in force that day). */
  item: number;
  /** listing.id. */
  listing: number;
  ratio: number;
}

/** A basket item priced at a store: its ratio ({@link itemRatio} over its listings) and weight. */
export interface PricedItem extends LevelItem {
  item: number;
  ratio: number;
  /** Listings the ratio is taken over. */
  listings: number;
}

/**
 * The basket items priced at a store from its listings' ratios, ascending by item id: each item's
 * ratio is {@link itemRatio} of its listings' ratios taken in listing-id order (so the result is the
 * same bits whatever order the listings come in). Listings of items not in `basket` are ignored.
 * @throws RangeError on a ratio that is not positive and finite.
 */
export function pricedItems(listings: readonly ListingRatio[], basket: ReadonlyMap<number, LevelItem>): PricedItem[] {
  const byItem = new Map<number, ListingRatio[]>();
  for (const l of listings) {
    if (!basket.has(l.item)) continue;
    let a = byItem.get(l.item);
    if (!a) byItem.set(l.item, (a = []));
    a.push(l);
  }
  const out: PricedItem[] = [];
  for (const item of [...byItem.keys()].sort((a, b) => a - b)) {
    const ls = byItem.get(item)!.sort(byListing);
    const b = basket.get(item)!;
    out.push({ item, weight: b.weight, group: b.group, ratio: itemRatio(ls.map((l) => l.ratio))!, listings: ls.length });
  }
  return out;
}

function byListing(a: { listing: number; ratio: number }, b: { listing: number; ratio: number }): number {
  return a.listing - b.listing || a.ratio - b.ratio;
}

/**
 * A store's level and item count from its priced items: level = {@link basketLevel} with the basket
 * weights (null under 20 items), nItems = items priced.
 */
export function storeLevel(items: readonly PricedItem[]): { level: number | null; nItems: number } {
  return { level: basketLevel(items.map(weighted)), nItems: items.length };
}

function weighted(i: { ratio: number; weight: number }): WeightedRatio {
  return { ratio: i.ratio, weight: i.weight };
}

/** A basket group as GroupLevel names it (basket_group id, code, name). */
export interface GroupInfo {
  id: number;
  code: string;
  name: string;
}

/** api-spec GroupLevel: a basket group's level at a store (no threshold) over `n` priced items. */
export interface GroupLevel {
  code: string;
  name: string;
  level: number;
  n: number;
}

/**
 * Group levels of a store: for each group of `groups` (in the order given: pass the observable
 * groups by id) with at least one priced item, {@link basketLevel} of its items with minItems 1 and
 * `n` = its items. Groups without a priced item are left out (GroupLevel.level is not nullable).
 */
export function groupLevels(items: readonly PricedItem[], groups: readonly GroupInfo[]): GroupLevel[] {
  const out: GroupLevel[] = [];
  for (const g of groups) {
    const mine = items.filter((i) => i.group === g.id);
    if (mine.length === 0) continue;
    out.push({ code: g.code, name: g.name, level: basketLevel(mine.map(weighted), 1)!, n: mine.length });
  }
  return out;
}

/**
 * One stretch of days over which a listing's ratio at a store counts for a basket item: the
 * intersection of a store span, the national span in force and the listing's match, as day offsets
 * from the first day of the window being computed (inclusive at both ends).
 */
export interface RatioSegment extends ListingRatio {
  from: number;
  to: number;
}

/**
 * A store's daily series (api-spec StoreLevels) over day offsets 0 … days − 1: on each day, the items
 * priced are those with at least one segment covering the day; level and nItems as
 * {@link storeLevel} over {@link pricedItems} of those segments. Segments outside the window are
 * clipped. A sweep: items are re-priced only on days a segment starts or ends, and a day with no
 * change repeats the previous day's value; each day's result is exactly (bit for bit) what
 * {@link storeLevel} gives for that day's listings, so a window starting on any day agrees with a
 * longer one.
 * @throws RangeError on a ratio that is not positive and finite.
 */
export function dailyStoreLevels(
  segments: readonly RatioSegment[],
  days: number,
  basket: ReadonlyMap<number, LevelItem>,
): { level: (number | null)[]; nItems: number[] } {
  const level = new Array<number | null>(days).fill(null);
  const nItems = new Array<number>(days).fill(0);
  if (days <= 0) return { level, nItems };
  const starts: number[][] = Array.from({ length: days }, () => []);
  const ends: number[][] = Array.from({ length: days + 1 }, () => []);
  segments.forEach((s, i) => {
    if (!basket.has(s.item)) return;
    const from = Math.max(0, s.from);
    const to = Math.min(days - 1, s.to);
    if (from > to) return;
    starts[from].push(i);
    ends[to + 1].push(i);
  });
  // Active segments by item, and each item's current {ratio, weight}.
  const active = new Map<number, Set<number>>();
  const priced = new Map<number, PricedItem>();
  let current: { level: number | null; nItems: number } = { level: null, nItems: 0 };
  for (let d = 0; d < days; d++) {
    const touched = new Set<number>();
    for (const i of ends[d]) {
      const s = segments[i];
      active.get(s.item)!.delete(i);
      touched.add(s.item);
    }
    for (const i of starts[d]) {
      const s = segments[i];
      let set = active.get(s.item);
      if (!set) active.set(s.item, (set = new Set()));
      set.add(i);
      touched.add(s.item);
    }
    if (touched.size > 0) {
      for (const item of touched) {
        const set = active.get(item)!;
        if (set.size === 0) {
          active.delete(item);
          priced.delete(item);
          continue;
        }
        const ls = [...set].map((i) => segments[i]).sort(byListing);
        const b = basket.get(item)!;
        priced.set(item, { item, weight: b.weight, group: b.group, ratio: itemRatio(ls.map((l) => l.ratio))!, listings: ls.length });
      }
      current = storeLevel([...priced.keys()].sort((a, b) => a - b).map((k) => priced.get(k)!));
    }
    level[d] = current.level;
    nItems[d] = current.nItems;
  }
  return { level, nItems };
}

// ---------------------------------------------------------------------------------------------
// Areas (api-spec Area, Areas)

/** Urban classes in the order list_areas gives them: main centres first, rural last. */
export const URBAN_ORDER: readonly UrbanClass[] = Object.freeze(['major', 'large', 'medium', 'small', 'rural']);

/** Display label of an urban class: the Stats NZ class name (src/domain/places.ts CORE_CLASSES), or "Rural". */
export function urbanLabel(urban: string): string {
  if (urban === 'rural') return 'Rural';
  const name = [...CORE_CLASSES].find(([, u]) => u === urban)?.[0];
  return name ?? urban;
}

/**
 * The key of an area value (region, urban class or town as stores carry it): Unicode NFC, trimmed,
 * inner white space collapsed to one space, lower case. Two spellings that differ only in case or
 * spacing are one area (list_stores matches `town` and `area` case-insensitively too).
 */
export function areaKey(value: string): string {
  return value.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** A store as areas see it (store, store_level and retailer rows). */
export interface AreaStore {
  /** Retailer slug. */
  retailer: string;
  town: string;
  /** Region (regional council). */
  area: string;
  urban: string | null;
  level: number | null;
  nItems: number;
}

/** Scopes of area_level. */
export type AreaScope = 'region' | 'urban' | 'town';

/** One area_level row (api-spec Area plus its scope and order). */
export interface AreaRow {
  scope: AreaScope;
  key: string;
  label: string;
  /** Position within its scope, from 0. */
  ord: number;
  level: number | null;
  stores: number;
  /** Retailer slugs, sorted. */
  chains: string[];
  /** Distinct towns as the stores carry them, sorted. */
  towns: string[];
}

/**
 * An area's level: the weighted geometric mean of its stores' non-null levels, each weighted by its
 * `nItems`; null when no store has a level (or none has items).
 */
export function areaLevel(stores: readonly Pick<AreaStore, 'level' | 'nItems'>[]): number | null {
  return weightedGeometricMean(stores.filter((s) => s.level != null && s.nItems > 0).map((s) => ({ ratio: s.level!, weight: s.nItems })));
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const byText = (a: string, b: string) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);

/**
 * Rolls stores up into areas: by region (`area`), by urban class (`urban`; stores without one are
 * left out of this scope) and by town. Key = {@link areaKey} of the value; label = the value as the
 * stores spell it (the most common spelling, ties to the first in sort order; an urban class gets
 * {@link urbanLabel}); level = {@link areaLevel}; stores = member stores; chains = their retailer
 * slugs and towns = their towns, distinct and sorted. Order (`ord`): urban classes as
 * {@link URBAN_ORDER} (an unknown class after them, by label); regions and towns by label
 * (English collation, case- and accent-insensitive first). Pass active stores only.
 */
export function rollUpAreas(stores: readonly AreaStore[]): AreaRow[] {
  const out: AreaRow[] = [];
  const scopes: [AreaScope, (s: AreaStore) => string | null][] = [
    ['region', (s) => s.area],
    ['urban', (s) => s.urban],
    ['town', (s) => s.town],
  ];
  for (const [scope, value] of scopes) {
    const groups = new Map<string, { spellings: Map<string, number>; members: AreaStore[] }>();
    for (const s of stores) {
      const v = value(s);
      if (v == null || v.trim() === '') continue;
      const key = areaKey(v);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { spellings: new Map(), members: [] }));
      g.spellings.set(v, (g.spellings.get(v) ?? 0) + 1);
      g.members.push(s);
    }
    const rows = [...groups].map(([key, g]) => {
      const spelling = [...g.spellings].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0][0];
      return {
        scope, key,
        label: scope === 'urban' ? urbanLabel(key) : spelling,
        ord: 0,
        level: areaLevel(g.members),
        stores: g.members.length,
        chains: [...new Set(g.members.map((m) => m.retailer))].sort(byText),
        towns: [...new Set(g.members.map((m) => m.town))].sort(byText),
      } satisfies AreaRow;
    });
    const rank = (r: AreaRow) => {
      const i = URBAN_ORDER.indexOf(r.key as UrbanClass);
      return scope === 'urban' && i >= 0 ? i : URBAN_ORDER.length;
    };
    rows.sort((a, b) => rank(a) - rank(b) || byText(a.label, b.label) || (a.key < b.key ? -1 : 1));
    rows.forEach((r, i) => out.push({ ...r, ord: i }));
  }
  return out;
}
