/** get_index_groups: GET /api/v1/index/groups?days= → IndexGroups (all food first, then the groups). */
import { z } from 'zod';
import { INDEX_WINDOW } from '../../src/services/food-index.js';
import { defineOperation, intWithDefault } from '../operation.js';
import { IndexGroups } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_index_groups',
  summary: 'All food and the basket groups of the food-price index as daily series over a window.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/index/groups',
  description: [
    "The window is the `days` calendar days ending at the index's last computed day (not today: the index follows the price data); `days[]` lists the computed days in it, oldest first (empty before the first computation).",
    "All food comes first (id 0, code `all`, weight 100), then every basket group by id with its official weight in percent of the basket.",
    'Arrays are aligned with `days[]` and null where the aggregate has no value: restaurant meals and ready-to-eat food are not observable on shelves, so their arrays are all null.',
  ].join(' '),
  params: z.object({ days: intWithDefault(INDEX_WINDOW.min, INDEX_WINDOW.max, INDEX_WINDOW.default, "Calendar days ending at the index's last computed day.") }),
  variables: (p) => ({ days: p.days }),
  result: IndexGroups,
});
