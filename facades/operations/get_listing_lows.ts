/**
 * get_listing_lows (beyond the contract, issue 32 item 2): GET /api/v1/listings/{id}/lows?min_days=
 * → ListingLows, the listing's historical lows (rule: src/domain/lows.ts; read:
 * src/services/lows.ts). 404 for an unknown listing; a listing never priced has as_of null and
 * every window null.
 */
import { z } from 'zod';
import { LOWS_MIN_DAYS } from '../../src/domain/lows.js';
import { defineOperation, idParam, intWithDefault } from '../operation.js';
import { ListingLows } from '../resources.js';
import { present } from '../shapes.js';

/** The `min_days` parameter and its description, shared with get_product_lows. */
export const minDaysParam = intWithDefault(
  LOWS_MIN_DAYS.min,
  LOWS_MIN_DAYS.max,
  LOWS_MIN_DAYS.default,
  `Outliers: a price that held fewer than this many days in a row is ignored (default ${LOWS_MIN_DAYS.default}: one-day prices, most often collection glitches; 1 counts every price).`,
);

/** What a lows answer is, said once for both operations' descriptions. */
export const LOWS_RULE = [
  "The no-card price is what a shopper without a loyalty card paid for one unit: the shelf price, or a special's price (PromoKind 1, open to everyone); never a club price (2), a multibuy's unit rate (3: only when the set is taken) or a clearance markdown (4).",
  "It is read from the chain's national series (the median across its stores, as get_listing_history with store 0), each span observed from its first to its last observed day.",
  '`min_days`: a price that held fewer days in a row than this (consecutive spans at the same no-card price joined) is an outlier and ignored, so a new low shows once it has held that long.',
  'Windows end at `as_of`, the last observed day of the data (not today): `last_90_days` is as_of − 89 … as_of, `last_365_days` as_of − 364 … as_of, `all_time` all history; each gives `price` (cents, per kg when sold by weight), `day` (the most recent day of the window it was paid), `days` (window days it was paid) and `stores` (stores of the chain whose own price was that on that day; null when no store price covers the day: a national-only chain, or a day known only from a national price log). A window is null when no price is in it.',
].join(' ');

/** The operation entry. */
export default defineOperation({
  name: 'get_listing_lows',
  summary: "A listing's historical lows: the lowest price paid without a loyalty card over 90 days, 365 days and all history, with the day and the store count.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/listings/{id}/lows',
  description: `${LOWS_RULE} 404 when the listing is unknown; a listing never priced has \`as_of\` null and every window null.`,
  params: z.object({ id: idParam.describe('Listing id.'), min_days: minDaysParam }),
  variables: (p) => ({ id: p.id, min_days: p.min_days }),
  result: ListingLows,
  errors: [404],
  beyondContract: 'issue 32',
  shape: (data) => {
    const l = present(data.listing, 'listing');
    return { listing_id: l.listing_id, ...l.lows };
  },
});
