/** list_areas: GET /api/v1/areas → Areas (regions, urban classes, towns). */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { Areas } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'list_areas',
  summary: 'Store price levels rolled up by region, by urban class and by town, with the chain mix taken out.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/areas',
  description: [
    "Each area's `level` is the item-weighted geometric mean of its stores' levels (each store against its own chain's national median, so the level is the premium of the place with the chain mix taken out; 1.0 is par), null when none of its stores has a level.",
    '`regions` are regional councils, `urban` the urban classes with main centres first, `towns` the towns (or `Rural <region>`), each in the view\'s order; `stores` counts the stores, `chains` lists their retailer slugs and `towns` the towns they are in.',
    'Recomputed at most every ten minutes; empty lists before the first computation.',
  ].join(' '),
  params: z.object({}),
  variables: () => ({}),
  result: Areas,
});
