/** list_retailers: GET /api/v1/retailers → Retailer[] (largest catalogue first). */
import { z } from 'zod';
import { defineOperation } from '../operation.js';

/** api-spec Retailer. */
export interface Retailer {
  slug: string;
  name: string;
  /** Catalogue size. */
  listings: number;
  /** Active stores in the price panel. */
  stores: number;
  /** When the catalogue was last collected (RFC 3339, UTC), or null. */
  last_run: string | null;
}

/** The operation entry. */
export default defineOperation({
  name: 'list_retailers',
  summary: 'Every chain with its catalogue size and store panel, largest catalogue first.',
  method: 'GET',
  path: '/api/v1/retailers',
  params: z.object({}),
  variables: () => ({}),
  shape: (data: { retailers: Retailer[] }): Retailer[] => data.retailers,
});
