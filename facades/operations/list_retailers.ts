/** list_retailers: GET /api/v1/retailers → Retailer[] (largest catalogue first). */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { Retailer } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'list_retailers',
  summary: 'Every chain with its catalogue size and store panel, largest catalogue first.',
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/retailers',
  params: z.object({}),
  variables: () => ({}),
  result: z.array(Retailer),
});
