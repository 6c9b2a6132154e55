/** get_store_listings: GET /api/v1/stores/{id}/listings?q=&limit=&offset= → StoreListings (404 when the store is unknown). */
import { z } from 'zod';
import { STORE_LISTING_LIMIT } from '../../src/services/store-levels.js';
import { MAX_ID, defineOperation, idParam, intWithDefault, optionalText } from '../operation.js';
import { StoreListings } from '../resources.js';
import { present, storeListing } from '../shapes.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_store_listings',
  summary: "Every listing priced at a store this week with its shelf price, the chain's national median and the ratio, a page at a time.",
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/stores/{id}/listings',
  description: [
    "Listings priced at the store this week (each from its latest store observation) with the chain's national median that day and `ratio` = price ÷ median,",
    'dearest against the median first (ratio descending, then listing id); `limit` rows from `offset`, `total` counting every match.',
    '`q` keeps listings whose brand and name hold every word of it (case-, accent- and apostrophe-insensitive, as search normalises text).',
    'An offset past the end gives an empty page with the true total. 404 when no store has that id (an unknown store is an error, as the contract\'s Errors say; a known store with nothing priced gives an empty page).',
  ].join(' '),
  params: z.object({
    id: idParam.describe('Store id (see list_stores).'),
    q: optionalText(100, 'Text filter on brand and name: every word must occur.'),
    limit: intWithDefault(STORE_LISTING_LIMIT.min, STORE_LISTING_LIMIT.max, STORE_LISTING_LIMIT.default, 'Page size.'),
    offset: intWithDefault(0, MAX_ID, 0, 'Rows to skip.'),
  }),
  variables: (p) => ({ id: p.id, q: p.q ?? null, limit: p.limit, offset: p.offset }),
  result: StoreListings,
  errors: [404],
  shape: (data) => {
    const page = present(data.store, 'store').listings;
    return { total: page.total, limit: page.limit, offset: page.offset, listings: page.listings.map(storeListing) };
  },
});
