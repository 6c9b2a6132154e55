/**
 * plan_shopping_list: GET /api/v1/shopping-list → ShoppingList (beyond api-spec: issue 16 item 7,
 * "the cheapest place for a whole list"). The list travels in the query string (`items`), so the
 * answer is cacheable like every other GET; the rules are src/domain/shopping-list.ts.
 */
import { z } from 'zod';
import { parseShoppingItems, ShoppingListError, MAX_ITEMS, MAX_QTY } from '../../src/domain/shopping-list.js';
import { PLAN_LIMIT, RADIUS_KM } from '../../src/domain/limits.js';
import { defineOperation, intWithDefault, optionalText, pointParams, refinePoint, requiredText } from '../operation.js';
import { ShoppingList } from '../resources.js';

/** Longest `items` text: 50 tokens of a 10-digit id and a quantity, with room for spaces and repeats. */
const ITEMS_MAX_CHARS = 2000;

/** `items`: the list as text, parsed into items (a parse failure is the parameter's 400). */
const items = requiredText(
  ITEMS_MAX_CHARS,
  `The list: comma-separated p<product id> or l<listing id>, each optionally x<quantity> (1 to ${MAX_QTY}, default 1), e.g. p12x2,l345,p77; 1 to ${MAX_ITEMS} distinct items, repeats add their quantities. A product is bought as its cheapest linked listing at each store, a listing only as itself.`,
).transform((text, ctx) => {
  try {
    return parseShoppingItems(text);
  } catch (e) {
    if (!(e instanceof ShoppingListError)) throw e;
    ctx.addIssue({ code: 'custom', message: e.message });
    return z.NEVER;
  }
});

/** `member`: true or false (case-insensitive; also 1 and 0); absent or empty means false. */
const member = z
  .preprocess(
    (v) => {
      if (typeof v !== 'string') return v;
      const t = v.toLowerCase();
      return t === '' ? undefined : t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : v;
    },
    z.boolean({ error: 'must be true or false' }).default(false),
  )
  .describe("Whether the shopper has the chains' loyalty cards: club (member) prices count only when true.");

const params = z
  .object({
    items,
    ...pointParams('only stores within radius_km count.'),
    retailer: optionalText(100, "Retailer slug (see list_retailers): only that chain's stores. An unknown slug gives 400."),
    member,
    limit: intWithDefault(PLAN_LIMIT.min, PLAN_LIMIT.max, PLAN_LIMIT.default, 'How many single stores and how many splits to return.'),
  })
  .superRefine(refinePoint);

/** The operation entry. */
export default defineOperation({
  name: 'plan_shopping_list',
  summary: 'The cheapest single store and the cheapest split over two stores for a whole shopping list, with what is missing where.',
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/shopping-list',
  description: [
    "Prices are each store's current prices (its latest price of each listing in the last 7 days of its collections, the store_listing view, recomputed at most every ten minutes) at active stores; a national-only chain has no store prices, so it appears nowhere.",
    'A line of q units costs the cheapest of: shelf price × q; a special × q; a club price × q (only with `member=true`); a multibuy (⌊q ÷ multibuy_qty⌋ sets at multibuy_price, the rest at the shelf price). A clearance does not count. A product item is bought as its linked listing that costs least at the store.',
    '`single`: stores pricing at least one item, fewest missing items first, then lowest total, then nearest, then store id. `split`: pairs of those stores, each item bought where it costs less, listed only when the pair beats both its stores alone (fewer missing, or as many and a lower total); fewest missing, then lowest total; `saving` is what the split saves over its first store alone on the items that store prices.',
    '`lat`/`lng` (together) keep the stores within `radius_km` (default 10) and give `distance_km`; `retailer` keeps one chain (unknown slug: 400). 400 for a malformed list or a value out of range, naming it; 404 naming every unknown product or listing id. Money in cents.',
  ].join(' '),
  params,
  variables: (p) => ({
    items: p.items.map((i) => ({ productId: i.kind === 'product' ? i.id : null, listingId: i.kind === 'listing' ? i.id : null, qty: i.qty })),
    near: p.lat !== undefined && p.lng !== undefined ? { lat: p.lat, lng: p.lng, radiusKm: p.radius_km ?? RADIUS_KM.default } : null,
    retailer: p.retailer ?? null,
    member: p.member,
    limit: p.limit,
  }),
  result: ShoppingList,
  errors: [404],
  beyondContract: 'issue 16',
});
