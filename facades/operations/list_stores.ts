/**
 * list_stores: GET /api/v1/stores → Store[] (by chain then name), optional filters; with a point
 * (`lat`, `lng`, `radius_km`: issue 32, beyond api-spec) the stores within the radius, nearest first.
 */
import { z } from 'zod';
import { RADIUS_KM } from '../../src/domain/limits.js';
import { URBAN_CLASSES } from '../../src/services/stores.js';
import { defineOperation, optionalEnum, optionalText, pointParams, refinePoint } from '../operation.js';
import { Store } from '../resources.js';

const params = z.object({
  retailer: optionalText(100, 'Retailer slug (see list_retailers).'),
  town: optionalText(200, 'Town name as returned in `town`, case-insensitive.'),
  area: optionalText(200, 'Region (regional council) as returned in `area`, case-insensitive.'),
  urban: optionalEnum(URBAN_CLASSES, 'Urban class.'),
  ...pointParams('only stores within radius_km, nearest first, each with distance_km.'),
}).superRefine(refinePoint);

/** The operation entry. */
export default defineOperation({
  name: 'list_stores',
  summary: 'Every store in the price panel with its basket price level, grouped by chain then name; filter by retailer, town, area or urban class, or give a point (lat, lng, radius_km) for the stores near it, nearest first.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/stores',
  description: [
    'Every geolocated store, grouped by chain then name. Filters combine; `town` and `area` match the values returned, case-insensitively.',
    "`level` (1.0 is the chain's national median; null under 20 priced basket items), `n_items`, `club`, `sale`, `multibuy` (promotions this week) and `day` come from the store-level view, recomputed at most every ten minutes;",
    'a store the view holds no row for has `level` null, zero counts and its last collection day.',
    `\`lat\`/\`lng\` (together, WGS84 degrees) keep only the stores within \`radius_km\` (great-circle, default ${RADIUS_KM.default}, ${RADIUS_KM.min} to ${RADIUS_KM.max}, as plan_shopping_list) of that point, nearest first (ties by id), each with \`distance_km\` (km, two decimals);`,
    'without a point the order is the one above and `distance_km` is null. 400 naming the parameter for lat without lng (or lng without lat), radius_km without a point, or a value out of range.',
  ].join(' '),
  params,
  variables: (p) => ({
    retailer: p.retailer ?? null,
    town: p.town ?? null,
    area: p.area ?? null,
    urban: p.urban ?? null,
    lat: p.lat ?? null,
    lng: p.lng ?? null,
    radiusKm: p.radius_km ?? null,
  }),
  result: z.array(Store),
});
