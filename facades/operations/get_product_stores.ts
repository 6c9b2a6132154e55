/**
 * get_product_stores: GET /api/v1/products/{id}/stores → ProductStorePrice[] (api-spec "Products":
 * every store currently pricing the product, cheapest first; an empty array when no store prices it,
 * the product is unknown or nothing is linked: "Errors" 3, never 404).
 */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import { ProductStorePrice } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_product_stores',
  summary: 'Every store currently pricing a product, cheapest first, with coordinates.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/products/{id}/stores',
  description:
    "Every active store whose latest collection priced one of the product's linked listings, cheapest shelf price first (then store name). A store appears once: when two of its chain's listings are linked to the product, the cheaper wins (lower shelf price, then lower promotional price). `price` is in cents. An empty array when no store prices it, including an unknown product (not 404).",
  params: z.object({ id: idParam.describe('Product id.') }),
  variables: (p) => ({ id: p.id }),
  result: z.array(ProductStorePrice),
});
