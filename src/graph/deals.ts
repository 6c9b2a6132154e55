/**
 * Deals (api-spec "Deals", list_deals): the DealKind enum, Deal (a listing's row in the deals
 * view) and Deals (one page of the feed with its true total); the root field `deals` and the
 * Listing field `deals`. A saving is in cents per unit (special and member: shelf price − promo
 * price; multibuy: shelf price − set price ÷ set size) and as a share of the shelf price. The feed's
 * listings are the Listing type, so a persisted document builds its ListingCards with the shared
 * ListingCardFields fragment; their prices come from the loaders of ./listing.ts and the Listing
 * `deals` field is a loadable field (every listing's deals of a request in one statement). Reads are
 * in src/services/deals.ts.
 */
import { builder } from '../builder.js';
import { DEAL_LIMIT, MAX_QUERY_LENGTH } from '../domain/limits.js';
import { DEAL_KINDS, DEFAULT_DEAL_KIND, dealFeed, listingDeals, type DealFeed, type ListingDeal } from '../services/deals.js';
import { orderByIds } from '../services/search.js';
import { byId } from './batch.js';

/** The DealKind enum: special (everyone), member (loyalty card), multibuy (only if the set is taken). */
export const DealKindEnum = builder.enumType('DealKind', {
  description: 'special: for everyone; member: needs the chain\'s loyalty card; multibuy: only if the set is taken.',
  values: DEAL_KINDS,
});

/** The Deal type (a listing's row in the deals view); src/graph/special-check.ts adds its `check` field. */
export const DealRef = builder.objectRef<ListingDeal>('Deal').implement({
  description: "A listing's current promotion of one kind, with its saving (the deals view, recomputed at most every ten minutes).",
  fields: (t) => ({
    kind: t.field({ type: DealKindEnum, resolve: (d) => d.kind }),
    day: t.expose('day', { type: 'Day', description: 'The collection day the promotion was seen on.' }),
    price: t.exposeInt('price', { description: 'Shelf price, cents.' }),
    saving: t.exposeFloat('saving', {
      description: 'Saving per unit, cents: shelf price − promo price (special, member), or shelf price − set price ÷ set size (multibuy).',
    }),
    savingPct: t.exposeFloat('saving_pct', { description: 'Saving as a share of the shelf price (0 to 1).' }),
  }),
});

const DealsRef = builder.objectRef<DealFeed>('Deals').implement({
  description: 'One page of current deals of one kind, biggest saving first, with the size of the whole filtered feed.',
  fields: (t) => ({
    kind: t.field({ type: DealKindEnum, resolve: (d) => d.kind }),
    total: t.exposeInt('total', { description: 'Deals matching the filters (the whole feed, not the page).' }),
    listings: t.prismaField({
      type: ['Listing'],
      description: 'The page: by saving share, then saving in cents, then listing id.',
      resolve: async (query, feed, _args, ctx) =>
        feed.listingIds.length === 0
          ? []
          : orderByIds(feed.listingIds, await ctx.prisma.listing.findMany({ ...query, where: { id: { in: feed.listingIds } } })),
    }),
  }),
});

builder.prismaObjectField('Listing', 'deals', (t) =>
  t.loadableList({
    type: DealRef,
    description: 'Its current promotions in the deals view, one per kind (special, member, multibuy); empty when none.',
    load: byId((ctx, ids) => listingDeals(ctx.pool, ids), (): ListingDeal[] => []),
    resolve: (l) => l.id,
  }),
);

builder.queryField('deals', (t) =>
  t.field({
    type: DealsRef,
    description:
      `Current promotions of one kind, biggest saving first (share of the shelf price, then cents, then listing id). BAD_REQUEST for q over ${MAX_QUERY_LENGTH} characters, limit outside ${DEAL_LIMIT.min} to ${DEAL_LIMIT.max}, or an unknown retailer.`,
    args: {
      kind: t.arg({ type: DealKindEnum, defaultValue: DEFAULT_DEAL_KIND }),
      retailer: t.arg.string({ description: "Retailer slug: only that chain's deals; unknown gives BAD_REQUEST." }),
      q: t.arg.string({ description: `Case-insensitive text in the listing's name or brand; at most ${MAX_QUERY_LENGTH} characters.` }),
      limit: t.arg.int({ defaultValue: DEAL_LIMIT.default, description: `${DEAL_LIMIT.min} to ${DEAL_LIMIT.max}.` }),
    },
    resolve: (_root, args, ctx) => dealFeed(ctx.pool, args),
  }),
);
