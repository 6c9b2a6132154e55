/**
 * browse_retailer: GET /api/v1/retailers/{slug}/browse?c=…&c=…&q=&limit=&offset= → RetailerBrowse
 * (a node of the chain's own category tree; 404 for an unknown retailer or a category holding nothing).
 */
import { z } from 'zod';
import { MAX_QUERY_LENGTH } from '../../src/services/search.js';
import { BROWSE_LIMIT, CATEGORY_BOUNDS } from '../../src/services/retailer-browse.js';
import { MAX_ID, defineOperation, intWithDefault, optionalText, requiredText } from '../operation.js';
import { RetailerBrowse } from '../resources.js';
import { listingCard } from '../shapes.js';

/** Whether text holds no unpaired UTF-16 surrogate. */
const wellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

/** One category label: 1 to 200 characters of valid text without NUL. */
const label = z
  .string({ error: 'must be text, one value per level' })
  .min(1, 'a category label must not be empty')
  .max(CATEGORY_BOUNDS.labelLength, `a category label must be at most ${CATEGORY_BOUNDS.labelLength} characters`)
  .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters')
  .refine(wellFormed, 'must be valid Unicode text');

/**
 * `c`: repeatable, one label per level, outermost first. One value arrives as a string (→ a path of
 * one level; a single empty value counts as absent, like every blank parameter); a repeated one as
 * an array (MCP passes an array, or a string for one level).
 */
const categoryPath = z
  .preprocess(
    (v) => (typeof v === 'string' ? (v === '' ? undefined : [v]) : v),
    z
      .array(label, { error: 'must be text, one value per level' })
      .max(CATEGORY_BOUNDS.levels, `must have at most ${CATEGORY_BOUNDS.levels} levels`)
      .optional(),
  )
  .describe(
    "The category path, one value per level, outermost first (`?c=Pantry&c=Canned%20Foods%20%26%20Packets`); repeated because labels may contain slash, comma and ampersand. Labels are matched exactly (case included). Omit for the top of the tree.",
  );

/** The operation entry. */
export default defineOperation({
  name: 'browse_retailer',
  summary: "Walks a chain's own category tree: a category's child categories with their counts, and a page of its listings.",
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/retailers/{slug}/browse',
  description: [
    "The tree is built from each listing's `category_path` (the chain's own breadcrumb). Counted: the chain's listings still on its site at the last collection (`available`) that carry a category path; a listing counts at its own category and every category above it.",
    '`categories` are the child categories of the node asked for, biggest first, then by label (code-point order), each with its listing count; `total` counts the listings at and below the node; `listings` is one page of them, by name (lower-cased, code-point order), then listing id. An offset past the end gives an empty page with the true total.',
    "`q` keeps listings whose brand and name hold every word of it (case-, accent- and apostrophe-insensitive, as search normalises text), in the counts, the categories (those without a match are left out) and the page alike; it is echoed trimmed, \"\" when none.",
    '404 for an unknown retailer slug (the chain named by the path does not exist) and for a category that holds no listing (whatever `q` is: a `q` without matches in an existing category is a 200 with total 0). The top of the tree of a chain with nothing categorised is an empty 200.',
    'A derived view, recomputed at most every ten minutes; with `q` the counts are computed per request.',
  ].join(' '),
  params: z.object({
    slug: requiredText(100, 'Retailer slug (see list_retailers).'),
    c: categoryPath,
    q: optionalText(MAX_QUERY_LENGTH, 'Text filter on brand and name: every word must occur; counts and page are both filtered.'),
    limit: intWithDefault(BROWSE_LIMIT.min, BROWSE_LIMIT.max, BROWSE_LIMIT.default, 'Page size.'),
    offset: intWithDefault(0, MAX_ID, 0, 'Listings to skip.'),
  }),
  variables: (p) => ({ slug: p.slug, c: p.c ?? null, q: p.q ?? null, limit: p.limit, offset: p.offset }),
  result: RetailerBrowse,
  errors: [404],
  shape: ({ retailerBrowse: b }) => ({
    retailer: { slug: b.retailer.slug, name: b.retailer.name, listings: b.retailer.listings, stores: b.retailer.stores, last_run: b.retailer.last_run },
    path: b.path,
    categories: b.categories.map((c) => ({ label: c.label, listings: c.listings })),
    total: b.total,
    limit: b.limit,
    offset: b.offset,
    listings: b.listings.map(listingCard),
    q: b.q,
  }),
});
