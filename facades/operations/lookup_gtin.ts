/** lookup_gtin: GET /api/v1/gtin/{gtin} → ProductGroup (404 when no listing carries the barcode). */
import { z } from 'zod';
import { MAX_GTIN_DIGITS } from '../../src/domain/matching.js';
import { defineOperation } from '../operation.js';
import { ProductGroup } from '../resources.js';
import { present, productGroup } from '../shapes.js';

const digitCount = (s: string) => s.replace(/\D/g, '').length;

/** The operation entry. */
export default defineOperation({
  name: 'lookup_gtin',
  summary: 'Exact barcode lookup: the product (or listings) carrying a GTIN, with every chain\'s offer.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/gtin/{gtin}',
  description:
    'Up to 14 digits; leading zeros are accepted and non-digits ignored, so the GTIN-8, -12, -13 and -14 forms of one code find the same item. 404 when no listing carries the barcode.',
  params: z.object({
    gtin: z
      .string({ error: 'must be text' })
      .max(64, 'must be at most 64 characters')
      .refine((s) => digitCount(s) >= 1 && digitCount(s) <= MAX_GTIN_DIGITS, `must hold 1 to ${MAX_GTIN_DIGITS} digits`)
      .describe('The barcode (GTIN-8, -12, -13 or -14).'),
  }),
  variables: (p) => ({ gtin: p.gtin }),
  result: ProductGroup,
  errors: [404],
  shape: ({ gtin }) => productGroup(present(gtin, 'gtin')),
});
