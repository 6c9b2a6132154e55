/** search_products: GET /api/v1/search → ProductGroup[] (best match first; recently seen without q). */
import { z } from 'zod';
import { MAX_QUERY_LENGTH, PRODUCT_LIMIT } from '../../src/services/search.js';
import { defineOperation, intWithDefault, optionalText } from '../operation.js';
import { ProductGroup } from '../resources.js';
import { productGroup } from '../shapes.js';

const params = z.object({
  q: optionalText(MAX_QUERY_LENGTH, 'Product, brand, category or barcode digits; without q, recently seen items.'),
  retailer: optionalText(100, "Retailer slug: ranks only that chain's catalogue; each product still carries every chain's offer. An unknown slug gives 400."),
  limit: intWithDefault(PRODUCT_LIMIT.min, PRODUCT_LIMIT.max, PRODUCT_LIMIT.default, 'How many groups to return.'),
});

/** The operation entry. */
export default defineOperation({
  name: 'search_products',
  summary: 'Search the catalogue: one group per product with its offers at every chain, cheapest first.',
  method: 'GET',
  family: 'search',
  path: '/api/v1/search',
  description:
    'Lexical and semantic ranking (typo- and accent-tolerant, NZ grocery synonyms, category-aware). Barcode digits find the item directly; exact names rank first. A listing not yet linked is its own group with `product_id` null. Without `q`, recently seen items. Ranked and capped at 100 results.',
  params,
  variables: (p) => ({ q: p.q ?? null, retailer: p.retailer ?? null, limit: p.limit }),
  result: z.array(ProductGroup),
  shape: ({ searchProducts }) => searchProducts.map(productGroup),
});
