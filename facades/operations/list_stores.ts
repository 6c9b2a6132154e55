/** list_stores: GET /api/v1/stores → Store[] (by chain then name), optional filters. */
import { z } from 'zod';
import { URBAN_CLASSES } from '../../src/services/stores.js';
import { defineOperation, optionalEnum, optionalText } from '../operation.js';

/** api-spec Store. */
export interface Store {
  id: number;
  retailer: string;
  name: string;
  region: string | null;
  lat: number;
  lng: number;
  level: number | null;
  n_items: number;
  club: number;
  sale: number;
  multibuy: number;
  day: string | null;
  town: string;
  area: string;
  urban: string | null;
}

const params = z.object({
  retailer: optionalText(100),
  town: optionalText(200),
  area: optionalText(200),
  urban: optionalEnum(URBAN_CLASSES),
});

/** The operation entry. */
export default defineOperation({
  name: 'list_stores',
  summary: 'Every store in the price panel, grouped by chain then name; filter by retailer, town, area or urban class.',
  method: 'GET',
  path: '/api/v1/stores',
  params,
  variables: (p) => ({ retailer: p.retailer ?? null, town: p.town ?? null, area: p.area ?? null, urban: p.urban ?? null }),
  shape: (data: { stores: Store[] }): Store[] => data.stores,
});
