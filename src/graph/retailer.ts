/**
 * Retailer (a chain) and the root field `retailers`; the ListingFilter input. A chain's stores and
 * listings are Relay connections (issue 20: the graph for dashboards): the stores (a few hundred a
 * chain) through plugin-prisma, batched with the chains in one statement; the listings (tens of
 * thousands a chain) through `chainListingsLoader` below, an id-keyset page per chain in one
 * statement for every chain (src/services/graph-relations.ts), its rows through ./listing.ts
 * `listingRowLoader`. Their sizes are `storeCount` and `listingCount`.
 */
import { builder } from '../builder.js';
import { CONNECTION_SIZE, MAX_QUERY_LENGTH } from '../domain/limits.js';
import { BadRequest } from '../errors.js';
import { chainListingCounts, chainListingPages, type ChainListingsKey } from '../services/graph-relations.js';
import { likeLiteral } from '../services/stores.js';
import { requestLoader } from './batch.js';
import { checkForward, connectionPage, pageSize, parseKeyCursor } from './connections.js';
import { ListingRef, listingRowLoader } from './listing.js';

/** A page of a chain's listings in id order, by (chain, filter, first, after): every chain's page of a request in one statement. */
const chainListingsLoader = requestLoader((keys: readonly ChainListingsKey[], ctx) => chainListingPages(ctx.pool, keys), {
  cacheKeyFn: (k) => JSON.stringify([k.retailerId, k.q, k.brand, k.available, k.linked, k.first, k.after]),
});

/** How many of a chain's listings match a filter, by (chain, filter; paging ignored): every asked count of a request in one statement. */
const chainListingCountLoader = requestLoader((keys: readonly ChainListingsKey[], ctx) => chainListingCounts(ctx.pool, keys), {
  cacheKeyFn: (k) => JSON.stringify([k.retailerId, k.q, k.brand, k.available, k.linked]),
});

/** Filters of Retailer.listings. */
export interface ListingFilterShape {
  q?: string | null;
  brand?: string | null;
  available?: boolean | null;
  linked?: boolean | null;
}

/** The ListingFilter input type. */
export const ListingFilterInput = builder.inputRef<ListingFilterShape>('ListingFilter').implement({
  description: "Filters of a chain's listings; every given filter must hold.",
  fields: (t) => ({
    q: t.string({ description: `Text in the name or brand, case-insensitive (a substring, not a search); at most ${MAX_QUERY_LENGTH} characters.` }),
    brand: t.string({ description: 'Brand, exactly but case-insensitively.' }),
    available: t.boolean({ description: "Flagged available (true) or not (false) at the chain's last collection." }),
    linked: t.boolean({ description: 'Linked to a cross-chain product (true) or not yet (false).' }),
  }),
});

/** The filter of a ChainListingsKey (src/services/graph-relations.ts): ILIKE patterns (escaped, src/services/stores.ts likeLiteral) and flags. */
export interface ListingFilterKey {
  q: string | null;
  brand: string | null;
  available: boolean | null;
  linked: boolean | null;
}

/** A ListingFilter as the chain-listings loader's key. @throws BadRequest for q over {@link MAX_QUERY_LENGTH} characters. */
export function listingFilterKey(filter: ListingFilterShape | null | undefined): ListingFilterKey {
  const q = filter?.q?.trim() || null;
  if (q && [...q].length > MAX_QUERY_LENGTH) throw new BadRequest(`q must be at most ${MAX_QUERY_LENGTH} characters`);
  return {
    q: q ? `%${likeLiteral(q)}%` : null,
    brand: filter?.brand ? likeLiteral(filter.brand) : null,
    available: filter?.available ?? null,
    linked: filter?.linked ?? null,
  };
}

const pageArgs = `first: 0 to ${CONNECTION_SIZE.max} (default ${CONNECTION_SIZE.default}); after: a cursor of the previous page.`;

builder.prismaObject('Retailer', {
  description: 'A supermarket chain.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    slug: t.exposeString('slug', { description: 'Lowercase key used in every retailer parameter.' }),
    name: t.exposeString('name'),
    nationalOnly: t.exposeBoolean('nationalOnly', { description: 'Prices are national only (no store panel).' }),
    website: t.exposeString('website', { nullable: true }),
    listingCount: t.exposeInt('listingCount', { description: 'Catalogue size (listings ever seen).' }),
    storeCount: t.relationCount('stores', { where: { active: true }, description: 'Active stores in the price panel.' }),
    stores: t.relatedConnection('stores', {
      description: `Active stores in the price panel, by name then id. ${pageArgs}`,
      cursor: 'id',
      defaultSize: CONNECTION_SIZE.default,
      maxSize: CONNECTION_SIZE.max,
      totalCount: true,
      query: (args) => {
        checkForward(args);
        return { where: { active: true }, orderBy: [{ name: 'asc' }, { id: 'asc' }] };
      },
    }),
    listings: t.connection(
      {
        type: ListingRef,
        description: `Listings of the chain's catalogue, by id (oldest first). ${pageArgs} BAD_REQUEST for a malformed cursor or a filter q over ${MAX_QUERY_LENGTH} characters.`,
        args: { filter: t.arg({ type: ListingFilterInput }) },
        resolve: async (retailer, args, ctx) => {
          checkForward(args);
          const after = parseKeyCursor('id', args.after);
          const key = { retailerId: retailer.id, ...listingFilterKey(args.filter), first: pageSize(args), after };
          const page = await chainListingsLoader(ctx).load(key);
          const rows = await listingRowLoader(ctx).loadMany(page.ids);
          const nodes = page.ids.flatMap((id, i) => {
            const node = rows[i];
            if (node instanceof Error) throw node;
            return node ? [{ key: id, node }] : [];
          });
          return { ...connectionPage(nodes, 'id', after, page.hasNextPage), count: () => chainListingCountLoader(ctx).load(key) };
        },
      },
      {
        fields: (c) => ({
          totalCount: c.int({ description: 'Listings matching the filter (all pages).', resolve: (conn) => conn.count() }),
        }),
      },
    ),
    lastRun: t.expose('lastRun', { type: 'DateTime', nullable: true, description: 'When the catalogue was last collected.' }),
    lastDay: t.expose('lastNationalDay', { type: 'Day', nullable: true, description: 'Latest collection day of the chain.' }),
  }),
});

builder.queryField('retailers', (t) =>
  t.prismaField({
    type: ['Retailer'],
    description: 'Every chain, largest catalogue first.',
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.retailer.findMany({ ...query, orderBy: [{ listingCount: 'desc' }, { slug: 'asc' }] }),
  }),
);
