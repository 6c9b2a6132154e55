/** get_basket: GET /api/v1/basket?include=matches → BasketItem[] by group then name. */
import { z } from 'zod';
import { defineOperation, optionalEnum } from '../operation.js';
import { BasketItem } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_basket',
  summary: "The food-price index basket: the official Food Price Index items with weights, specifications, match words and latest relatives.",
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/basket',
  description: [
    'Active items by group id, then name. `weight` and `group_weight` are percent of the whole basket; `unit`, `qty_min` and `qty_max` are in g, ml or items.',
    "`matches` counts the listings currently matched; `relative` and `stale` are the item's latest computed day (null before any computation).",
    '`include=matches` (the only value) adds `match_list`, every current match with its latest national price, by retailer then basis price (several megabytes).',
  ].join(' '),
  params: z.object({ include: optionalEnum(['matches'] as const, '`matches` embeds match_list in every item.') }),
  variables: (p) => ({ withMatches: p.include === 'matches' }),
  result: z.array(BasketItem),
});
