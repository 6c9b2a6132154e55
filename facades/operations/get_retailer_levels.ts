/**
 * get_retailer_levels: GET /api/v1/retailers/levels?days= → RetailerLevels (each chain's all-food
 * level, compare_retailers' headline, for every day the index computed in the window).
 */
import { z } from 'zod';
import { LEVEL_WINDOW } from '../../src/services/chain-levels.js';
import { defineOperation, intWithDefault } from '../operation.js';
import { RetailerLevels } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_retailer_levels',
  summary: "Each chain's all-food price level (1.0 = the cross-chain median) for every day the index has run, over a window.",
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/retailers/levels',
  description: [
    "The window is the `days` calendar days ending at the index's last computed day (not today: the levels follow the price data); `days[]` lists the days the index computed in it, oldest first (empty before the first computation).",
    "Each chain's `level[]` is compare_retailers' headline on that day: the weighted geometric mean over basket items of the chain's price ÷ the cross-chain median, club prices excluded; `items[]` the basket items it is computed from.",
    'Arrays are aligned with `days[]` and null where the chain has no value (no level row that day; `level` also null with fewer than 20 comparable items). Chains with a level row in the window are listed, largest catalogue first.',
  ].join(' '),
  params: z.object({
    days: intWithDefault(LEVEL_WINDOW.min, LEVEL_WINDOW.max, LEVEL_WINDOW.default, "Calendar days ending at the index's last computed day."),
  }),
  variables: (p) => ({ days: p.days }),
  result: RetailerLevels,
});
