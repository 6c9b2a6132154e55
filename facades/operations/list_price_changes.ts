/**
 * list_price_changes (beyond the contract, issue 32 item 3): GET /api/v1/price-changes →
 * PriceChanges, one scope's price changes over the national series, newest first (rule:
 * src/domain/price-changes.ts; read: src/services/price-changes.ts). The data of every feed under
 * /feeds (facades/http/feeds.ts), which runs this same operation.
 */
import { z } from 'zod';
import { DEAL_KINDS } from '../../src/domain/deals.js';
import { CHANGE_DAYS, CHANGE_DIRECTIONS, CHANGE_KINDS, CHANGE_LIMIT } from '../../src/domain/price-changes.js';
import { MAX_QUERY_LENGTH } from '../../src/services/search.js';
import { SEARCH_SCOPE } from '../../src/services/price-changes.js';
import { MAX_SLUG_LENGTH } from '../../src/domain/limits.js';
import { defineOperation, idParam, intWithDefault, optionalEnum, optionalText } from '../operation.js';
import { Day } from '../resources.js';

/** An optional id parameter (1 … MAX_ID; empty means absent). */
const optionalId = (description: string) => z.preprocess((v) => (v === '' ? undefined : v), idParam.optional()).describe(description);

/** What a change is, said once for the operation's and the feeds' descriptions. */
export const CHANGES_RULE = [
  "A change is read between two consecutive national spans of a listing (the chain's price: the median across its stores, or its national price log; get_listing_history with store 0) and dated by the first day observed at the new price.",
  "Prices are no-card prices, cents per unit (per kg when sold by weight): the shelf price, or a special's price open to everyone.",
  'Kinds: `deal_start` (a special, member price or multibuy began, with `deal_kind` and its unit `deal_price`), `deal_end` (one ended), `price` (the no-card price changed otherwise).',
  'The window is the `days` days ending at `as_of`, the latest last observed day of the scope (the data, not today).',
].join(' ');

const PriceChangeBody = z
  .object({
    id: z.string().describe('Stable id: listing, day, kind and both prices'),
    listing_id: z.int(),
    name: z.string(),
    retailer: z.string().describe('Retailer slug'),
    retailer_name: z.string(),
    day: Day.describe('First day observed at the new price'),
    kind: z.enum(CHANGE_KINDS),
    old_price: z.int().describe('No-card price before, cents per unit'),
    new_price: z.int().describe('No-card price from `day`, cents per unit'),
    direction: z.enum(['drop', 'rise', 'none']),
    deal_kind: z.enum(DEAL_KINDS).nullable().describe('The deal that began or ended; null for a price change'),
    deal_price: z.number().nullable().describe("That deal's unit price, cents; null for a price change"),
  })
  .meta({ id: 'PriceChange', description: 'One price change of a listing (beyond the contract).' });

/** The 200 body of list_price_changes. */
export const PriceChanges = z
  .object({
    scope: z.object({
      type: z.enum(['listing', 'product', 'retailer', 'search', 'shelf']),
      key: z.string(),
      name: z.string(),
    }),
    as_of: Day.nullable().describe("Latest last observed day of the scope's listings (the window's end); null when none was ever priced"),
    days: z.int(),
    direction: z.enum(CHANGE_DIRECTIONS),
    kind: z.enum(DEAL_KINDS).nullable().describe('The new-deal filter, or null'),
    total: z.int().describe('Changes in the window under the filters, not only the page'),
    changes: z.array(PriceChangeBody).describe('Newest day first, then listing id'),
  })
  .meta({ id: 'PriceChanges', description: "One scope's price changes over the national series (beyond the contract, issue 32)." });

/** The parameters (also the feeds' query parameters, less the scope their path names). */
export const priceChangeParams = z.object({
  listing_id: optionalId('A listing: its changes.'),
  product_id: optionalId("A product: its linked listings' changes."),
  retailer: optionalText(MAX_SLUG_LENGTH, "A chain's slug (see list_retailers): its listings' changes."),
  kind: optionalEnum(DEAL_KINDS, 'Only new deals of this kind (changes of kind deal_start): special, member or multibuy.'),
  q: optionalText(MAX_QUERY_LENGTH, `Search words: the changes of the best ${SEARCH_SCOPE} matches of search_listings.`),
  shelf: optionalText(MAX_SLUG_LENGTH, "A shelf's slug (see list_shelves): its listings' changes, sub-shelves included."),
  direction: optionalEnum(CHANGE_DIRECTIONS, 'drop, rise or any (default): any includes deals that leave the no-card price unchanged.'),
  days: intWithDefault(CHANGE_DAYS.min, CHANGE_DAYS.max, CHANGE_DAYS.default, 'Window length in days, ending at as_of.'),
  limit: intWithDefault(CHANGE_LIMIT.min, CHANGE_LIMIT.max, CHANGE_LIMIT.default, 'How many changes to return.'),
});

/** The operation entry. */
export default defineOperation({
  name: 'list_price_changes',
  summary: "Price changes of a listing, a product, a chain (or its new deals of one kind), a search or a shelf, newest first: the data of the /feeds Atom and JSON feeds.",
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/price-changes',
  description: `Give exactly one of listing_id, product_id, retailer, q, shelf. ${CHANGES_RULE} 404 for an unknown listing, product, retailer or shelf; 400 for none or several scopes. The same changes as feeds: /feeds/listings/{id}.atom (or .json), /feeds/products/{id}, /feeds/deals/{retailer}?kind=, /feeds/search?q=, /feeds/shelves/{slug}.`,
  params: priceChangeParams,
  variables: (p) => ({
    listing_id: p.listing_id ?? null,
    product_id: p.product_id ?? null,
    retailer: p.retailer ?? null,
    kind: p.kind ?? null,
    q: p.q ?? null,
    shelf: p.shelf ?? null,
    direction: p.direction ?? 'any',
    days: p.days,
    limit: p.limit,
  }),
  result: PriceChanges,
  errors: [404],
  beyondContract: 'issue 32',
  shape: ({ priceChanges }) => priceChanges,
});
