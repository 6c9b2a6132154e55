/** get_store_levels: GET /api/v1/stores/{id}/levels?days= → StoreLevels (404 when the store is unknown). */
import { z } from 'zod';
import { STORE_LEVEL_WINDOW } from '../../src/services/store-levels.js';
import { defineOperation, idParam, intWithDefault } from '../operation.js';
import { StoreLevels } from '../resources.js';
import { present } from '../shapes.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_store_levels',
  summary: "A store's daily basket price level against its chain's national median over a window of days.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/stores/{id}/levels',
  description: [
    "The window is the `days` calendar days ending at the store's last computed day (not today: the series follows the store's price data); `days[]` lists the days with a level row in it, oldest first (empty when none).",
    "`level[]` (1.0 is the chain's national median that day) and `items[]` (basket items priced at the store that day) are aligned with `days[]`; `level` is null on days when fewer than twenty basket items were priced, while `items` still gives the count.",
    'Each day uses the store span in force that day, so the newest point may differ slightly from get_store, whose panel uses the latest observation. 404 when no store has that id.',
  ].join(' '),
  params: z.object({
    id: idParam.describe('Store id (see list_stores).'),
    days: intWithDefault(STORE_LEVEL_WINDOW.min, STORE_LEVEL_WINDOW.max, STORE_LEVEL_WINDOW.default, "Calendar days ending at the store's last computed day."),
  }),
  variables: (p) => ({ id: p.id, days: p.days }),
  result: StoreLevels,
  errors: [404],
  shape: (data) => present(data.store, 'store').levelSeries,
});
