/**
 * Price levels (issue 16; DESIGN.md "The basket and the index": "Levels (store vs chain median,
 * chain vs cross-chain median, areas from store levels) are weighted geometric means over basket
 * items, null under 20 items"). The shared primitives; store, chain, area and deal rules build on
 * them (src/domain/store-levels.ts, src/domain/chain-levels.ts, src/domain/deals.ts).
 *
 * A level is a weighted geometric mean of price ratios: exp(Σ wᵢ ln rᵢ / Σ wᵢ). The geometric mean
 * is the index-number convention for averaging price relatives (ILO/IMF *Consumer Price Index
 * Manual* 2020, ch. 8: Jevons; its weighted form is the geometric Young/Laspeyres index), and it is
 * symmetric: a store 10 % dearer on one item and 10 % cheaper (÷ 1.1) on another of equal weight
 * sits at exactly 1.0.
 */

/** Fewer priced basket items than this gives a null level (api-spec "Store level null threshold"). */
export const MIN_LEVEL_ITEMS = 20;

/** A price ratio (unitless, > 0) with its weight (> 0, any unit: basket weights are shares). */
export interface WeightedRatio {
  ratio: number;
  weight: number;
}

/**
 * Weighted geometric mean exp(Σ wᵢ ln rᵢ / Σ wᵢ) of `values`; null when there are none.
 * @throws RangeError on a non-positive or non-finite ratio or weight.
 */
export function weightedGeometricMean(values: readonly WeightedRatio[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  let w = 0;
  for (const v of values) {
    if (!(v.ratio > 0) || !Number.isFinite(v.ratio)) throw new RangeError(`ratio must be positive and finite: ${v.ratio}`);
    if (!(v.weight > 0) || !Number.isFinite(v.weight)) throw new RangeError(`weight must be positive and finite: ${v.weight}`);
    s += v.weight * Math.log(v.ratio);
    w += v.weight;
  }
  return Math.exp(s / w);
}

/**
 * A basket level: the weighted geometric mean over items of their ratios, or null when fewer than
 * {@link MIN_LEVEL_ITEMS} items are given (`minItems` overrides, e.g. 1 for group levels that the
 * contract does not threshold). Each entry is one item (an item with several listings first takes
 * the geometric mean of its listings' ratios: {@link itemRatio}).
 */
export function basketLevel(items: readonly WeightedRatio[], minItems = MIN_LEVEL_ITEMS): number | null {
  return items.length < minItems ? null : weightedGeometricMean(items);
}

/** An item's ratio from its listings' ratios (unweighted geometric mean); null when none. */
export function itemRatio(ratios: readonly number[]): number | null {
  return weightedGeometricMean(ratios.map((ratio) => ({ ratio, weight: 1 })));
}
