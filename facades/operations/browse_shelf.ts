/** browse_shelf: GET /api/v1/shelves/{slug} → ShelfPage (one filtered, sorted, faceted page; 404 for an unknown slug). */
import { z } from 'zod';
import type { ShelfCompareUnit } from '../../src/domain/unit-price.js';
import { MAX_QUERY_LENGTH } from '../../src/services/search.js';
import { MAX_KIND_LENGTH, SHELF_LIMIT, SHELF_SORTS } from '../../src/services/shelves.js';
import type { ShelfSummaryFieldsFragment } from '../generated/operations.js';
import { MAX_ID, defineOperation, intWithDefault, optionalText, requiredText } from '../operation.js';
import { ShelfPage, type ShelfSummary } from '../resources.js';
import { listingCard, present } from '../shapes.js';

/**
 * A compare unit as the graph gives it (a String: GraphQL enum values cannot start with a digit, as
 * `100g` does) → the contract's enumeration. The graph only gives src/domain/unit-price.ts
 * SHELF_COMPARE_UNITS values; the response schema checks it in the tests.
 */
function compareUnit(u: string | null): ShelfCompareUnit | null {
  return u as ShelfCompareUnit | null;
}

/** api-spec ShelfSummary in the contract's field order. */
export function shelfSummary(s: ShelfSummaryFieldsFragment): ShelfSummary {
  return { slug: s.slug, label: s.label, depth: s.depth, parent: s.parent, products: s.products, compare_unit: compareUnit(s.compare_unit) };
}

/** `sort`: one of {@link SHELF_SORTS}, lower case; absent or empty means the default (popular; relevance with q). */
const sort = z
  .preprocess((v) => (v === '' ? undefined : v), z.enum(SHELF_SORTS, { error: `must be one of ${SHELF_SORTS.join(', ')}` }).optional())
  .describe(
    "popular (default: most widely stocked: chains, then stores), per_unit / per_unit_desc (cheapest / dearest per the shelf's compare unit; products without one last; on a shelf of mixed units, by price), price / price_desc (best admitted price), deal (biggest discount share), relevance (text rank of q; the default when q is set).",
  );

/** `deals`: 1 or true (case-insensitive) keeps products with an offer below shelf price; 0, false, empty or absent: all. */
const deals = z
  .preprocess(
    (v) => {
      if (typeof v !== 'string') return v;
      const t = v.toLowerCase();
      return t === '' ? undefined : t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : v;
    },
    z.boolean({ error: 'must be 1, true, 0 or false' }).default(false),
  )
  .describe("1 or true: only products with an offer below its shelf price (at that chain, with retailer).");

const params = z.object({
  slug: requiredText(100, 'Shelf slug from list_shelves.'),
  sort,
  retailer: optionalText(100, "Retailer slug: only products with a current offer at that chain; best, per_unit, the price sorts, deal and deals then use that chain's offer. An unknown slug gives 400."),
  deals,
  kind: optionalText(MAX_KIND_LENGTH, "A kind slug from the page's kinds facet; a kind not on the shelf gives an empty page (200)."),
  q: optionalText(MAX_QUERY_LENGTH, "Text within the shelf: every word a prefix of a word of the product's or its listings' names or brands or of its kind."),
  limit: intWithDefault(SHELF_LIMIT.min, SHELF_LIMIT.max, SHELF_LIMIT.default, 'How many products to return.'),
  offset: intWithDefault(0, MAX_ID, 0, 'Products to skip.'),
});

/** The operation entry. */
export default defineOperation({
  name: 'browse_shelf',
  summary: 'One page of a shelf: every product on it or below it with a current offer, filtered, sorted and faceted server-side, with a true total.',
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/shelves/{slug}',
  description: [
    'A product is a linked product, or a listing not yet linked (`product_id` null), whose kind sits on the shelf or one below it, with at least one current offer (a listing on the site at its chain\'s last collection).',
    "`best` is its cheapest admitted offer: the lowest of each current listing's shelf price, special, club price and multibuy rate (multibuy_price ÷ multibuy_qty; clearance does not count), with its chain, listing and promo kind; `per_unit` is best.price per the shelf's compare unit (`unit`), null when the product is not measured in it. On a shelf whose `unit` is null (a department or aisle of mixed units) every `per_unit` is null and the per-unit sorts order by price.",
    'Ties in every sort end with the popular order (most chains, most stores, name). `deal` sorts by the biggest (shelf − best) ÷ shelf. With `retailer`, only that chain\'s current offers count for `best`, `per_unit`, the sorts and `deals`; `offers` still list every chain.',
    'Facets: `kinds` under every filter but `kind`, `retailers` under every filter but `retailer`, most products first; each count is the `total` the page has with that value chosen. `params` echoes the request as applied. 404 for an unknown slug; 400 for an unknown retailer or sort. A derived view, recomputed at most every ten minutes.',
  ].join(' '),
  params,
  variables: (p) => ({
    slug: p.slug,
    sort: p.sort ?? null,
    retailer: p.retailer ?? null,
    deals: p.deals,
    kind: p.kind ?? null,
    q: p.q ?? null,
    limit: p.limit,
    offset: p.offset,
  }),
  result: ShelfPage,
  errors: [404],
  shape: (data) => {
    const page = present(data.shelf, 'shelf');
    return {
      shelf: shelfSummary(page.shelf),
      crumbs: page.crumbs.map(shelfSummary),
      children: page.children.map(shelfSummary),
      unit: compareUnit(page.unit),
      kinds: page.kinds.map((k) => ({ slug: k.slug, label: k.label, products: k.products })),
      retailers: page.retailers.map((r) => ({ slug: r.slug, products: r.products })),
      total: page.total,
      params: { ...page.params },
      products: page.products.map((p) => ({
        product_id: p.product_id,
        name: p.name,
        brand: p.brand,
        size_text: p.size_text,
        image: p.image,
        generic_id: p.generic_id,
        generic_label: p.generic_label,
        offers: p.offers.map(listingCard),
        best: { price: p.best.price, retailer: p.best.retailer, listing_id: p.best.listing_id, promo_kind: p.best.promo_kind, shelf_price: p.best.shelf_price },
        per_unit: p.per_unit,
      })),
    };
  },
});
