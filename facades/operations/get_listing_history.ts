/**
 * get_listing_history: GET /api/v1/listings/{id}/history?store= → History. `store` 0 (default) is
 * the national series; an unknown listing or a store that never priced it gives empty arrays.
 */
import { z } from 'zod';
import { defineOperation, idParam, intWithDefault, MAX_ID } from '../operation.js';
import { History } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_listing_history',
  summary: "A listing's price spans, oldest first: national (store 0) or at one store.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/listings/{id}/history',
  description:
    'Spans oldest first; span i runs from `from[i]` to `to[i]` inclusive at `price[i]` cents. `store` 0 is the national series (median across the chain\'s stores); a store id gives that store\'s exact history including store-only promotions. An unknown listing, or a store that never priced it, returns empty arrays (not 404).',
  params: z.object({
    id: idParam.describe('Listing id.'),
    store: intWithDefault(0, MAX_ID, 0, "Store id; 0 is the national series (median across the chain's stores)."),
  }),
  variables: (p) => ({ id: p.id, store: p.store }),
  result: History,
});
