/** list_stores: GET /api/v1/stores → Store[] (by chain then name), optional filters. */
import { z } from 'zod';
import { URBAN_CLASSES } from '../../src/services/stores.js';
import { defineOperation, optionalEnum, optionalText } from '../operation.js';
import { Store } from '../resources.js';

const params = z.object({
  retailer: optionalText(100, 'Retailer slug (see list_retailers).'),
  town: optionalText(200, 'Town name as returned in `town`, case-insensitive.'),
  area: optionalText(200, 'Region (regional council) as returned in `area`, case-insensitive.'),
  urban: optionalEnum(URBAN_CLASSES, 'Urban class.'),
});

/** The operation entry. */
export default defineOperation({
  name: 'list_stores',
  summary: 'Every store in the price panel with its basket price level, grouped by chain then name; filter by retailer, town, area or urban class.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/stores',
  description: [
    'Every geolocated store, grouped by chain then name. Filters combine; `town` and `area` match the values returned, case-insensitively.',
    "`level` (1.0 is the chain's national median; null under 20 priced basket items), `n_items`, `club`, `sale`, `multibuy` (promotions this week) and `day` come from the store-level view, recomputed at most every ten minutes;",
    'a store the view holds no row for has `level` null, zero counts and its last collection day.',
  ].join(' '),
  params,
  variables: (p) => ({ retailer: p.retailer ?? null, town: p.town ?? null, area: p.area ?? null, urban: p.urban ?? null }),
  result: z.array(Store),
});
