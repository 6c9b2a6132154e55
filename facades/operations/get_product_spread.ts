/**
 * get_product_spread: GET /api/v1/products/{id}/spread → SpreadByRetailer (api-spec "Products":
 * retailer slug → Spread, daily over the last 365 days, "Limits"; an empty object when nothing
 * linked has store prices in that window or the product is unknown, never 404).
 */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import { SpreadByRetailer } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_product_spread',
  summary: "A product's daily minimum, median and maximum store price and stores reporting, per chain, over the last 365 days.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/products/{id}/spread',
  description:
    "One Spread per retailer slug: for each day of the last 365 (up to the chain's latest collection), oldest first, the minimum, median and maximum store shelf price in cents across the product's linked listings of that chain and `n`, the stores reporting. When two listings of one chain are priced on one day: `min` is the lower minimum, `max` the higher maximum, `med` the median of the listings' medians weighted by their store counts, and `n` the larger of their store counts (a store pricing both is never counted twice; `n` may undercount when their stores differ). A chain with one linked listing has exactly that listing's `stats`. An empty object when nothing linked has store prices, including an unknown product (not 404).",
  params: z.object({ id: idParam.describe('Product id.') }),
  variables: (p) => ({ id: p.id }),
  result: SpreadByRetailer,
  shape: ({ productSpread }) => Object.fromEntries(productSpread.map((r) => [r.retailer, r.spread])),
});
