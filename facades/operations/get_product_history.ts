/**
 * get_product_history: GET /api/v1/products/{id}/history → HistoryByRetailer (retailer slug →
 * History; an empty object when nothing is linked).
 */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import { HistoryByRetailer } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_product_history',
  summary: "Every national price span of a product's linked listings, one History per chain.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/products/{id}/history',
  description:
    'One History per retailer slug: every national price span of every listing linked to the product, oldest first. The current price is the last span, whose `to` is the day of the latest observation. An empty object when nothing is linked (not 404).',
  params: z.object({ id: idParam.describe('Product id.') }),
  variables: (p) => ({ id: p.id }),
  result: HistoryByRetailer,
  shape: ({ productHistory }) => Object.fromEntries(productHistory.map((r) => [r.retailer, r.history])),
});
