/**
 * Chain price levels (issue 16 item 3; api-spec "Retailer and store level series" LevelSeries,
 * RetailerLevels, Compare; DESIGN.md "The basket and the index": "chain vs cross-chain median").
 * Pure functions; the derived-views worker (workers/views/chains.ts) feeds them rows and stores
 * what they return in chain_item_price and chain_level_day.
 *
 * Bottom up:
 * 1. **Chain item price** ({@link chainItemPrice}, {@link chainPricer}): a chain's price of a basket
 *    item on a day is the median of the basis prices (src/domain/price-index.ts `basisPrice`:
 *    specials count, club prices do not; per kg or litre for per-unit items) of the chain's listings
 *    matched to the item that day and counted as the index counts them (national price within the
 *    14-day cap), rounded to whole cents.
 * 2. **Cross-chain median** ({@link crossChainMedian}) of an item: the exact median of its chain
 *    prices (not rounded: it is a reference, not a price). With two chains it is their mean, so a
 *    chain exactly 8 % cheaper than the other sits at 0.92 / 0.96 = 0.9583… and the other at
 *    1 / 0.96 = 1.0417…; with three chains at 0.92, 1 and 1.08 of one price, at 0.92, 1 and 1.08.
 * 3. **Comparable items** ({@link chainRatios}): only items priced at two or more chains that day
 *    are compared; an item one chain alone prices says nothing about relative price levels. Each
 *    comparable item gives each chain that prices it the ratio chain price ÷ cross-chain median.
 *    Ratios use the whole-cent chain prices, so a level can be recomputed from compare_retailers'
 *    `items[].prices` exactly.
 * 4. **Levels** ({@link chainLevels}): a chain's level over a set of items is the weighted geometric
 *    mean (src/domain/levels.ts `weightedGeometricMean`, basket weights) of its ratios, 1.0 = the
 *    cross-chain median; group 0 is all food (the headline), other groups are basket_group ids.
 *
 * **Null rule.** The contract states the 20-item threshold for store levels (api-spec "Limits")
 * and "null where a chain has no value" for chains; DESIGN.md says levels are null under 20 items.
 * Here: the headline (group 0) is null when the chain has fewer than {@link MIN_LEVEL_ITEMS} (20)
 * comparable items, as for stores; a group level is null only when the chain has no comparable
 * item in the group ({@link MIN_GROUP_ITEMS} = 1), as for store groups. A chain that priced basket
 * items but none comparable still gets its entries, with `items` 0 and a null level.
 */
import { ALL_FOOD } from './basket.js';
import { MIN_LEVEL_ITEMS, basketLevel, type WeightedRatio } from './levels.js';
import { medianCents } from './median.js';
import { STALE_DAYS, basisPrice, type ListingSpan } from './price-index.js';

/** Group id of all food (the headline) in chain levels, as in index_day and chain_level_day (basket.ts ALL_FOOD). */
export const ALL_FOOD_GROUP: number = ALL_FOOD.id;

/** Fewer comparable items in a group than this gives a null group level (store groups alike). */
export const MIN_GROUP_ITEMS = 1;

/** Fewest chains that must price an item for it to enter the comparison. */
export const MIN_CHAINS = 2;

/** A basket item as levels see it: id, group (basket_group.id, > 0) and weight (share of the basket, > 0). */
export interface LevelItem {
  id: number;
  groupId: number;
  weight: number;
}

/** One chain's price of one basket item (integer cents on the item's basis, > 0). */
export interface ChainItemPrice {
  itemId: number;
  retailerId: number;
  price: number;
}

/** One chain's level over one group (0 = all food) on one day (a chain_level_day row). */
export interface ChainLevel {
  retailerId: number;
  /** 0 all food, else basket_group.id. */
  groupId: number;
  /** Weighted geometric mean of the chain's ratios (1.0 = cross-chain median), or null (module null rule). */
  level: number | null;
  /** Comparable items (priced at ≥ 2 chains) the chain priced in the group. */
  items: number;
}

/**
 * A chain's price of an item from its listings' basis prices that day (cents, possibly fractional
 * per kg or litre): their median rounded to whole cents — `medianCents` (an even count takes the
 * mean of the two middle values), then rounded again for a fractional odd-count middle, so the
 * result is always round(exact median), halves up.
 * @throws RangeError on an empty list.
 */
export function chainItemPrice(bases: readonly number[]): number {
  return Math.round(medianCents(bases));
}

/**
 * The exact median of an item's chain prices: the middle value, or for an even count the mean of
 * the two middle values (not rounded).
 * @throws RangeError on an empty list.
 */
export function crossChainMedian(prices: readonly number[]): number {
  if (prices.length === 0) throw new RangeError('median of no prices');
  const s = [...prices].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Each comparable item's ratios: item id → (retailer id → chain price ÷ cross-chain median), for
 * the items priced at {@link MIN_CHAINS} or more chains; other items are left out. A chain's second
 * price of the same item replaces its first.
 * @throws RangeError on a non-positive or non-finite price.
 */
export function chainRatios(prices: readonly ChainItemPrice[]): Map<number, Map<number, number>> {
  const byItem = new Map<number, Map<number, number>>();
  for (const p of prices) {
    if (!(p.price > 0) || !Number.isFinite(p.price)) throw new RangeError(`price must be positive and finite: ${p.price}`);
    let m = byItem.get(p.itemId);
    if (!m) byItem.set(p.itemId, (m = new Map()));
    m.set(p.retailerId, p.price);
  }
  const out = new Map<number, Map<number, number>>();
  for (const [itemId, chains] of byItem) {
    if (chains.size < MIN_CHAINS) continue;
    const median = crossChainMedian([...chains.values()]);
    out.set(itemId, new Map([...chains].map(([r, price]) => [r, price / median])));
  }
  return out;
}

/**
 * Every chain's levels on one day from the chain prices of that day (module comment): one entry
 * for all food (group 0) and one per group, for each chain that priced at least one of `items` in
 * it (comparable or not); `items` counts the comparable ones, `level` is their weighted geometric
 * mean of ratios with the items' weights, null under `minItems` (all food) or `minGroupItems`
 * (groups). Prices of items not in `items` are ignored (also as other chains' prices). Entries are
 * ordered by retailer id, then group id; the sums run in item-id order, so equal inputs give
 * bit-identical levels.
 * @throws RangeError on a non-positive price or weight.
 */
export function chainLevels(
  items: readonly LevelItem[],
  prices: readonly ChainItemPrice[],
  minItems: number = MIN_LEVEL_ITEMS,
  minGroupItems: number = MIN_GROUP_ITEMS,
): ChainLevel[] {
  const byId = new Map(items.map((i) => [i.id, i]));
  const known = prices.filter((p) => byId.has(p.itemId));
  const ratios = chainRatios(known);
  // retailer → group → ratios of its comparable items (item-id order); presence = priced any item there
  const acc = new Map<number, Map<number, WeightedRatio[]>>();
  const slot = (retailerId: number, groupId: number) => {
    let g = acc.get(retailerId);
    if (!g) acc.set(retailerId, (g = new Map()));
    let l = g.get(groupId);
    if (!l) g.set(groupId, (l = []));
    return l;
  };
  for (const p of known) {
    slot(p.retailerId, ALL_FOOD_GROUP);
    slot(p.retailerId, byId.get(p.itemId)!.groupId);
  }
  for (const item of [...byId.values()].sort((a, b) => a.id - b.id)) {
    const r = ratios.get(item.id);
    if (!r) continue;
    for (const [retailerId, ratio] of r) {
      const v = { ratio, weight: item.weight };
      slot(retailerId, ALL_FOOD_GROUP).push(v);
      slot(retailerId, item.groupId).push(v);
    }
  }
  const out: ChainLevel[] = [];
  for (const retailerId of [...acc.keys()].sort((a, b) => a - b)) {
    const groups = acc.get(retailerId)!;
    for (const groupId of [...groups.keys()].sort((a, b) => a - b)) {
      const values = groups.get(groupId)!;
      const min = groupId === ALL_FOOD_GROUP ? minItems : minGroupItems;
      out.push({ retailerId, groupId, level: basketLevel(values, Math.max(1, min)), items: values.length });
    }
  }
  return out;
}

/** A listing matched to a basket item over [validFrom, validTo) (basket_match), with its chain. */
export interface ChainMatch {
  itemId: number;
  listingId: number;
  retailerId: number;
  validFrom: string;
  /** Exclusive; null while the match is in force. */
  validTo: string | null;
}

/** A chain's price of an item on a day with the number of listings it is the median of. */
export interface ChainItemPriceRow extends ChainItemPrice {
  listings: number;
}

/** One span of a listing as day numbers, with its basis prices on both bases computed once. */
interface PricerEntry {
  first: number;
  last: number;
  perPack: number;
  perUnit: number;
}

/** Day number (days since 1970-01-01) of a `YYYY-MM-DD` day: the pricer compares days as integers. */
function dayNumber(day: string): number {
  return Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
}

/**
 * A function giving every chain's price of every item on a day ({@link chainItemPrice} of the
 * basis prices of the chain's listings counted that day), from the matches and the national spans
 * of the matched listings (price-index.ts `ListingSpan`, the open-span rule already applied by the
 * caller: `lastDay` is the span's last priced day).
 *
 * Counted on day t, as the index counts (price-index.ts `countedBasis` / `counts`): a match in
 * force (`validFrom ≤ t < validTo`); the listing's latest span starting on or before t, when it
 * was priced within the cap, i.e. `min(lastDay, t) ≥ t − STALE_DAYS`; its basis price
 * (`basisPrice` with the item's `perUnit`). A listing matched twice to one item on a day counts
 * once; a basis price of 0 is not a price (left out), nor is a median that rounds to 0 cents. Rows
 * come in item-id, then retailer-id order (so levels are bit-identical run to run);
 * items no chain prices get none. Ask for days in ascending order: each listing keeps a cursor
 * into its spans (O(1) amortised); a day before the previous one restarts it.
 * @throws RangeError on a span ending before it starts.
 */
export function chainPricer(
  items: readonly { id: number; perUnit: boolean }[],
  matches: readonly ChainMatch[],
  spans: readonly ListingSpan[],
): (day: string) => ChainItemPriceRow[] {
  const perUnit = new Map(items.map((i) => [i.id, i.perUnit]));
  const byListing = new Map<number, { entries: PricerEntry[]; cursor: number }>();
  for (const s of spans) {
    if (s.lastDay < s.firstDay) throw new RangeError(`span of listing ${s.listingId} ends ${s.lastDay} before it starts ${s.firstDay}`);
    let e = byListing.get(s.listingId);
    if (!e) byListing.set(s.listingId, (e = { entries: [], cursor: -1 }));
    e.entries.push({ first: dayNumber(s.firstDay), last: dayNumber(s.lastDay), perPack: basisPrice(s, false), perUnit: basisPrice(s, true) });
  }
  for (const e of byListing.values()) e.entries.sort((a, b) => a.first - b.first);
  const ms = matches
    .filter((m) => perUnit.has(m.itemId))
    .map((m) => ({
      itemId: m.itemId, retailerId: m.retailerId, listingId: m.listingId, perUnit: perUnit.get(m.itemId)!,
      from: dayNumber(m.validFrom), to: m.validTo == null ? Infinity : dayNumber(m.validTo), prices: byListing.get(m.listingId) ?? null,
    }))
    .sort((a, b) => a.itemId - b.itemId || a.retailerId - b.retailerId || a.listingId - b.listingId);

  return (dayText: string) => {
    const day = dayNumber(dayText);
    if (!Number.isFinite(day)) throw new RangeError(`not a day: ${dayText}`);
    const lo = day - STALE_DAYS;
    // item → retailer → listing → basis (insertion in item, retailer, listing order)
    const acc = new Map<number, Map<number, Map<number, number>>>();
    for (const m of ms) {
      if (m.from > day || day >= m.to || m.prices == null) continue;
      const p = m.prices;
      let c = p.cursor;
      if (c >= 0 && p.entries[c].first > day) c = -1;
      while (c + 1 < p.entries.length && p.entries[c + 1].first <= day) c++;
      p.cursor = c;
      if (c < 0) continue;
      const e = p.entries[c];
      const pricedOn = e.last < day ? e.last : day;
      if (pricedOn < lo) continue;
      const basis = m.perUnit ? e.perUnit : e.perPack;
      if (!(basis > 0)) continue; // a zero shelf price is no price
      let byRetailer = acc.get(m.itemId);
      if (!byRetailer) acc.set(m.itemId, (byRetailer = new Map()));
      let byL = byRetailer.get(m.retailerId);
      if (!byL) byRetailer.set(m.retailerId, (byL = new Map()));
      byL.set(m.listingId, basis);
    }
    const out: ChainItemPriceRow[] = [];
    for (const [itemId, byRetailer] of acc) {
      for (const [retailerId, byL] of byRetailer) {
        const price = chainItemPrice([...byL.values()]);
        if (price > 0) out.push({ itemId, retailerId, price, listings: byL.size });
      }
    }
    return out;
  };
}
