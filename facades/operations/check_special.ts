/**
 * check_special (beyond the contract, issue 16 item 6): GET /api/v1/listings/{id}/special →
 * SpecialChecks, each current deal of the listing against its national history in the 90 days
 * before the promotion started (src/domain/special-check.ts). 404 for an unknown listing; `checks`
 * is [] when the listing is on no deal.
 */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import { SpecialChecks } from '../resources.js';
import { present } from '../shapes.js';

/** The operation entry. */
export default defineOperation({
  name: 'check_special',
  summary: "Is this special real? A listing's current promotions against its own price history in the 90 days before each started.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/listings/{id}/special',
  description: [
    "For each current deal of the listing (special, member, multibuy), from the chain's national prices: the unit price on the promotion, the first day of its current unbroken run (`promo_since`), and over the 90 days before it the usual shelf price (in force on the most days without a special), the lowest price a shopper without a loyalty card paid (shelf or special), the lowest shelf price, observed days, and any shelf-price rise within 30 days before the promotion.",
    '`verdict` is the first that applies: `insufficient_history` (under 28 observed days), `no_usual_price` (on a special every observed day), `inflated` (the shelf price rose shortly before and the promotion is not below the price before the rise), `above_usual`, `not_lowest` (a shopper paid less within the window), `genuine`.',
    'Following the NZ Commerce Commission (discounts off the usual selling price; prices not raised before a sale) and the ACCC two-price guidance; a screening aid, not a legal finding.',
    '`checks` is [] when the listing is on no deal; 404 when the listing is unknown. A derived view, recomputed at most every ten minutes.',
  ].join(' '),
  params: z.object({ id: idParam.describe('Listing id.') }),
  variables: (p) => ({ id: p.id }),
  result: SpecialChecks,
  errors: [404],
  beyondContract: 'issue 16',
  shape: (data) => present(data.listing, 'listing'),
});
