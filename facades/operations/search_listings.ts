/** search_listings: GET /api/v1/listings → ListingCard[] (best match first; recently seen without q). */
import { z } from 'zod';
import { LISTING_LIMIT, MAX_QUERY_LENGTH } from '../../src/services/search.js';
import { defineOperation, intWithDefault, optionalText } from '../operation.js';
import { ListingCard } from '../resources.js';
import { listingCard } from '../shapes.js';

const params = z.object({
  q: optionalText(MAX_QUERY_LENGTH, 'Product, brand, category or barcode digits; without q, recently seen listings.'),
  retailer: optionalText(100, "Retailer slug (see list_retailers); only that chain's listings. An unknown slug gives 400."),
  limit: intWithDefault(LISTING_LIMIT.min, LISTING_LIMIT.max, LISTING_LIMIT.default, 'How many listings to return.'),
});

/** The operation entry. */
export default defineOperation({
  name: 'search_listings',
  summary: 'Search listings by name, one card per chain listing; without q, recently seen listings.',
  method: 'GET',
  family: 'search',
  path: '/api/v1/listings',
  description:
    'Same search as search_products, flat: one ListingCard per listing, best match first. Without `q`, the most recently seen listings. Capped at 100 results.',
  params,
  variables: (p) => ({ q: p.q ?? null, retailer: p.retailer ?? null, limit: p.limit }),
  result: z.array(ListingCard),
  shape: ({ searchListings }) => searchListings.map(listingCard),
});
