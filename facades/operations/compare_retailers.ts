/**
 * compare_retailers: GET /api/v1/retailers/compare → Compare (each basket item priced at each
 * chain, with the chains' headline and group levels; 1.0 is the cross-chain median).
 */
import { z } from 'zod';
import type { compare_retailersQuery } from '../generated/operations.js';
import { defineOperation } from '../operation.js';
import { Compare } from '../resources.js';

/** The graph's level entries (slug, level or null, items) of one headline or group. */
type Levels = compare_retailersQuery['compare']['headline'];

/**
 * Level entries → the contract's map of retailer slug → [level, items]. The contract types the
 * level as a number, so a chain whose level is null (too few comparable items) is left out; its
 * prices still appear under `items`.
 */
function levelMap(levels: Levels): Record<string, [number, number]> {
  return Object.fromEntries(levels.flatMap((l) => (l.level === null ? [] : [[l.retailer, [l.level, l.items] as [number, number]]])));
}

/** The operation entry. */
export default defineOperation({
  name: 'compare_retailers',
  summary: 'Each basket item priced at each chain from national medians, with weighted headline and group levels (1.0 = the cross-chain median).',
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/retailers/compare',
  description: [
    "An item's price at a chain is the median over the chain's listings matched to the item of their national price on the item's basis (per kg or litre when `per_unit`, else per pack), in cents: specials count, club prices do not.",
    "A chain's level is the weighted geometric mean over basket items (basket weights) of its price ÷ the cross-chain median of the item, counting only items priced at two chains or more: 1.0 is the median, 0.92 means 8 % cheaper.",
    '`headline` (all food) and each group\'s `levels` are the latest day of the chain levels, as pairs [level, items]; a chain whose level is null that day (fewer than 20 comparable items for the headline, none in a group) is left out of that map, but its prices still appear.',
    '`retailers` lists the chains with any priced item, largest catalogue first (list_retailers order); `groups` the observable basket groups by id (restaurant meals are not on shelves); `items` every basket item priced at one chain or more, by group then name (get_basket order).',
    'A derived view, recomputed at most every ten minutes; before its first build every list and map is empty.',
  ].join(' '),
  params: z.object({}),
  variables: () => ({}),
  result: Compare,
  shape: ({ compare }) => ({
    retailers: compare.retailers,
    headline: levelMap(compare.headline),
    groups: compare.groups.map((g) => ({ code: g.code, name: g.name, weight: g.weight, levels: levelMap(g.levels) })),
    items: compare.items.map((i) => ({
      id: i.id,
      name: i.name,
      group: i.group,
      per_unit: i.per_unit,
      prices: Object.fromEntries(i.prices.map((p) => [p.retailer, p.price])),
      spec: i.spec,
      unit: i.unit,
    })),
  }),
});
