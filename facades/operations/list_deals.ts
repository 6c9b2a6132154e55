/** list_deals: GET /api/v1/deals → Deals (current promotions of one kind, biggest saving first). */
import { z } from 'zod';
import { DEAL_KINDS, DEAL_LIMIT, DEFAULT_DEAL_KIND } from '../../src/services/deals.js';
import { MAX_QUERY_LENGTH } from '../../src/services/search.js';
import { defineOperation, intWithDefault, optionalText } from '../operation.js';
import { Deals } from '../resources.js';
import { listingCard } from '../shapes.js';

/** `kind`: one of {@link DEAL_KINDS}, compared case-insensitively; absent or empty means `special`. */
const kind = z
  .preprocess(
    (v) => (typeof v === 'string' ? (v === '' ? undefined : v.toLowerCase()) : v),
    z.enum(DEAL_KINDS, { error: `must be one of ${DEAL_KINDS.join(', ')}` }).default(DEFAULT_DEAL_KIND),
  )
  .describe("special: for everyone; member: needs the chain's loyalty card; multibuy: only if the set is taken.");

const params = z.object({
  kind,
  retailer: optionalText(100, "Retailer slug (see list_retailers); only that chain's deals. An unknown slug gives 400."),
  q: optionalText(MAX_QUERY_LENGTH, "Text in the listing's name or brand, case-insensitive."),
  limit: intWithDefault(DEAL_LIMIT.min, DEAL_LIMIT.max, DEAL_LIMIT.default, 'How many listings to return.'),
});

/** The operation entry. */
export default defineOperation({
  name: 'list_deals',
  summary: 'Current promotions of one kind (special, member or multibuy), biggest saving first, with the true total.',
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/deals',
  description: [
    "Listings currently on a promotion of `kind` at the chain's latest collection, as ListingCards with their current national price.",
    'The saving is per unit: shelf price − promo price for `special` and `member`, shelf price − `multibuy_price` ÷ `multibuy_qty` for `multibuy`. Biggest saving first as a share of the shelf price, then in cents, then by listing id.',
    '`total` is the size of the whole feed under the filters, not of the page. `q` keeps listings whose name or brand contains it (case-insensitive); `retailer` one chain (an unknown slug gives 400).',
    'A derived view, recomputed at most every ten minutes.',
  ].join(' '),
  params,
  variables: (p) => ({ kind: p.kind, retailer: p.retailer ?? null, q: p.q ?? null, limit: p.limit }),
  result: Deals,
  shape: ({ deals }) => ({ kind: deals.kind, total: deals.total, listings: deals.listings.map(listingCard) }),
});
