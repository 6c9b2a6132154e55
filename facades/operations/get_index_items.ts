/** get_index_items: GET /api/v1/index/items?days= → IndexItems (one series per observable basket item). */
import { z } from 'zod';
import { INDEX_WINDOW } from '../../src/services/food-index.js';
import { defineOperation, intWithDefault } from '../operation.js';
import { IndexItems } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_index_items',
  summary: "Each observable basket item's daily relative price and listing count over a window.",
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/index/items',
  description: [
    "The window is the `days` calendar days ending at the index's last computed day (not today); `days[]` lists the computed days in it, oldest first (empty before the first computation), and is the same as get_index_groups'.",
    'One series per active basket item of an observable group, by group id then name; `weight` is percent of the basket, `unit` the dimension of `spec` (g, ml or each).',
    "`relative` is 1.0 on the item's base day and null where the day was not computed or the item had no price yet; `n` counts the listings that fed it (0: carried forward). Each day is the newest computed vintage.",
  ].join(' '),
  params: z.object({ days: intWithDefault(INDEX_WINDOW.min, INDEX_WINDOW.max, INDEX_WINDOW.default, "Calendar days ending at the index's last computed day.") }),
  variables: (p) => ({ days: p.days }),
  result: IndexItems,
});
