/** suggest: GET /api/v1/suggestions → Suggestion[] (display order). Not an MCP tool (api-spec). */
import { z } from 'zod';
import { MAX_QUERY_LENGTH, SUGGEST_LIMIT } from '../../src/services/search.js';
import { defineOperation, intWithDefault, requiredText } from '../operation.js';
import { Suggestion } from '../resources.js';

const params = z.object({
  q: requiredText(MAX_QUERY_LENGTH, 'The prefix typed so far.'),
  limit: intWithDefault(SUGGEST_LIMIT.min, SUGGEST_LIMIT.max, SUGGEST_LIMIT.default, 'How many suggestions.'),
});

/** The operation entry. */
export default defineOperation({
  name: 'suggest',
  summary: 'Type-ahead: categories, brands, products and listings matching a prefix.',
  method: 'GET',
  family: 'search',
  path: '/api/v1/suggestions',
  description:
    'Categories first, then brands, products and listings, each with `href`, the site path to open. Agents should use search_products instead (this is not an MCP tool).',
  params,
  variables: (p) => ({ q: p.q, limit: p.limit }),
  result: z.array(Suggestion),
  internal: true,
});
