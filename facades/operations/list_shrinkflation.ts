/**
 * list_shrinkflation (beyond the contract, issue 32 item 4): GET /api/v1/shrinkflation?retailer=
 * &shelf=&days=&limit= → Shrinkflation, listings whose pack got smaller at a flat or higher shelf
 * price (rule: src/domain/shrinkflation.ts; read: src/services/shrinkflation.ts). An unknown
 * retailer or shelf slug gives 400, like list_deals' retailer; an unknown listing id 404.
 */
import { z } from 'zod';
import { SHRINK_DAYS, SHRINK_LIMIT } from '../../src/domain/shrinkflation.js';
import { defineOperation, idParam, intWithDefault, optionalText } from '../operation.js';
import { Shrinkflation } from '../resources.js';

/** What a shrinkflation answer is, said once (the operation's description; the MCP prompt points at it). */
export const SHRINK_RULE = [
  "An event is a listing whose printed size got smaller in the same unit family (grams compared per kg, millilitres per litre, items each, sheets per 100) while its shelf price in the chain's national series (the median across its stores, as get_listing_history with store 0; promotions ignored) on the change day is the same as or higher than the day before, so its unit price rose.",
  'Sizes come from the size history of each listing (every size a collection or import observed, from the first day it was seen); a change of unit family (500 g to a 6 pack), an unparsed size or a product sold by weight is never an event.',
  'The window is the `days` days ending at `as_of`, the last observed day of the data (of the chain with `retailer`), not today. An empty list can mean no size history: a catalogue holding one size per listing has no change to find.',
].join(' ');

const params = z.object({
  retailer: optionalText(100, "Retailer slug (see list_retailers); only that chain's listings. An unknown slug gives 400."),
  shelf: optionalText(100, 'Shelf slug (see list_shelves); only listings whose kind is on that shelf or below it. An unknown slug gives 400.'),
  listing: z
    .preprocess((v) => (v === '' ? undefined : v), idParam.optional())
    .describe("Listing id (see get_listing); only that listing's events. An unknown id gives 404."),
  days: intWithDefault(SHRINK_DAYS.min, SHRINK_DAYS.max, SHRINK_DAYS.default, 'Window length in days, ending at as_of.'),
  limit: intWithDefault(SHRINK_LIMIT.min, SHRINK_LIMIT.max, SHRINK_LIMIT.default, 'How many events to return (newest first).'),
});

/** The operation entry. */
export default defineOperation({
  name: 'list_shrinkflation',
  summary: 'Shrinkflation: listings whose pack got smaller while the shelf price stayed the same or rose, with old/new size, price and unit price.',
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/shrinkflation',
  description: `${SHRINK_RULE} Each event gives the old and new size (printed text and pack total), the old and new shelf price in cents, the old and new unit price in cents per kg, litre, item or 100 sheets, the rise in per cent and the day. Newest first; \`total\` counts every event of the window under the filters.`,
  params,
  variables: (p) => ({ retailer: p.retailer ?? null, shelf: p.shelf ?? null, listing: p.listing ?? null, days: p.days, limit: p.limit }),
  result: Shrinkflation,
  errors: [404],
  beyondContract: 'issue 32',
  shape: ({ shrinkflation }) => shrinkflation,
});
