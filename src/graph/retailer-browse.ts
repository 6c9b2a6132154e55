/**
 * A chain's own category tree (issue 17 item 4; api-spec browse_retailer, RetailerBrowse,
 * CategoryNode): the CategoryNode and RetailerBrowse types and the root field `retailerBrowse`.
 * Reads are in src/services/retailer-browse.ts (a derived view written by
 * workers/views/categories.ts); the page's listings are the Listing type, so a persisted document
 * builds its ListingCards with the shared ListingCardFields fragment, their prices coming from the
 * loaders of ./listing.ts, and `retailer` is the Retailer type.
 */
import { builder } from '../builder.js';
import { BROWSE_LIMIT, CATEGORY_PATH, MAX_QUERY_LENGTH, OFFSET } from '../domain/limits.js';
import { browseRetailer, type CategoryCount, type RetailerBrowsePage } from '../services/retailer-browse.js';
import { orderByIds } from '../services/search.js';

const CategoryNodeRef = builder.objectRef<CategoryCount>('CategoryNode').implement({
  description: "A child category in a chain's own category tree, with its listing count.",
  fields: (t) => ({
    label: t.exposeString('label', { description: "The chain's label, exactly as it names the category." }),
    listings: t.exposeInt('listings', { description: 'Listings at or below it (those matching q when q is set).' }),
  }),
});

const RetailerBrowseRef = builder.objectRef<RetailerBrowsePage>('RetailerBrowse').implement({
  description:
    "One node of a chain's own category tree (from its listings' category paths): its child categories, the listings at and below it, and one page of them.",
  fields: (t) => ({
    retailer: t.prismaField({
      type: 'Retailer',
      resolve: (query, page, _args, ctx) => ctx.prisma.retailer.findUniqueOrThrow({ ...query, where: { id: page.retailerId } }),
    }),
    path: t.exposeStringList('path', { description: 'The category path asked for, outermost first ([] for the top of the tree).' }),
    categories: t.field({
      type: [CategoryNodeRef],
      description: 'The child categories, biggest first, then label (code-point order).',
      resolve: (page) => page.categories,
    }),
    total: t.exposeInt('total', { description: 'Listings at and below the node (matching q when set).' }),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    q: t.exposeString('q', { description: 'The text filter as applied (trimmed); "" when none.' }),
    listings: t.prismaField({
      type: ['Listing'],
      description: 'The page: by lower-cased name (code-point order), then listing id.',
      resolve: async (query, page, _args, ctx) =>
        page.listingIds.length === 0
          ? []
          : orderByIds(page.listingIds, await ctx.prisma.listing.findMany({ ...query, where: { id: { in: page.listingIds } } })),
    }),
  }),
});

builder.queryField('retailerBrowse', (t) =>
  t.field({
    type: RetailerBrowseRef,
    description: [
      "Walks a chain's own category tree: the node `c` (one label per level, outermost first; omitted or empty for the top) with its child categories, the total",
      "at and below it and one page of its listings. Counted: the chain's available listings with a category path. `q` keeps listings whose normalised brand and",
      'name hold every word of it, in the counts and the page alike. NOT_FOUND for an unknown retailer or a category holding nothing (whatever q is);',
      `BAD_REQUEST for q over ${MAX_QUERY_LENGTH} characters, limit outside ${BROWSE_LIMIT.min} to ${BROWSE_LIMIT.max}, a negative offset, an empty label, a label over ${CATEGORY_PATH.labelLength} characters or more than ${CATEGORY_PATH.levels} levels.`,
    ].join(' '),
    args: {
      slug: t.arg.string({ required: true, description: 'Retailer slug (see retailers).' }),
      c: t.arg.stringList({ description: 'The category path, one label per level, outermost first.' }),
      q: t.arg.string({ description: `Text filter on brand and name (every word); at most ${MAX_QUERY_LENGTH} characters.` }),
      limit: t.arg.int({ defaultValue: BROWSE_LIMIT.default, description: `${BROWSE_LIMIT.min} to ${BROWSE_LIMIT.max}.` }),
      offset: t.arg.int({ defaultValue: OFFSET.default, description: `Listings to skip; at least ${OFFSET.min}.` }),
    },
    resolve: (_root, args, ctx) => browseRetailer(ctx.pool, args),
  }),
);
