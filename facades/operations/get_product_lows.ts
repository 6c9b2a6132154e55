/**
 * get_product_lows (beyond the contract, issue 32 item 2): GET /api/v1/products/{id}/lows?min_days=
 * → ProductLows, a product's historical lows across its linked listings (rule: src/domain/lows.ts;
 * read: src/services/lows.ts). 404 for an unknown product; nothing linked or never priced gives
 * as_of null and every window null.
 */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import { ProductLows } from '../resources.js';
import { present } from '../shapes.js';
import { LOWS_RULE, minDaysParam } from './get_listing_lows.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_product_lows',
  summary: "A product's historical lows across its linked listings: the lowest price paid without a loyalty card over 90 days, 365 days and all history, with the listing, the day and the store count.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/products/{id}/lows',
  description: `Each window's lowest of the product's linked listings (ties: the most recent day, then more stores, then the lower listing id), with its \`listing_id\` and \`retailer\`; \`as_of\` is the latest last observed day of its listings. ${LOWS_RULE} 404 when the product is unknown; nothing linked or never priced gives \`as_of\` null and every window null.`,
  params: z.object({ id: idParam.describe('Product id.'), min_days: minDaysParam }),
  variables: (p) => ({ id: p.id, min_days: p.min_days }),
  result: ProductLows,
  errors: [404],
  beyondContract: 'issue 32',
  shape: (data) => {
    const p = present(data.product, 'product');
    return { product_id: p.product_id, ...p.lows };
  },
});
