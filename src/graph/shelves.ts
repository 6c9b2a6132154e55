/**
 * Shelves (issue 17 items 3 and 5; api-spec ShelfSummary, ShelfProduct, ShelfPage, list_shelves,
 * browse_shelf): the Shelf type (a ShelfSummary with its crumbs and sub-shelves), ShelfPage (one
 * filtered, sorted, faceted page of a shelf with its true total), ShelfProduct (a ProductGroup with
 * its best offer and per-unit price), the ShelfSort enum; root fields `shelves` and `shelf`; and the
 * Listing and Product fields `shelf` and `perUnit`. The directory is src/domain/shelves.ts, the rows
 * the shelves view (src/services/shelves.ts); counts, shelves of generics, products' view rows and
 * pages come from the loaders defined here (prices and rows from those of ./listing.ts and
 * ./product.ts), cached per request, so nested selections cost a fixed number of statements. A page is read by the root field only (one statement). A shelf's linked
 * products are also a Relay connection (`products`, issue 20), a page of every requested shelf in
 * one statement; its size is `productCount`.
 */
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { CONNECTION_SIZE, MAX_QUERY_LENGTH, OFFSET, SHELF_LIMIT } from '../domain/limits.js';
import type { ProductGroup } from '../domain/search-results.js';
import { crumbs, children, getShelf, shelfSet, type Shelf } from '../domain/shelves.js';
import { measureOfListing, unitPrice } from '../domain/unit-price.js';
import { NotFound } from '../errors.js';
import { shelfProductPages, type ShelfProductsKey } from '../services/graph-relations.js';
import { productGroups, type OfferRow } from '../services/search-results.js';
import {
  genericShelves,
  listShelves,
  productShelfRows,
  SHELF_SORTS,
  shelfCounts,
  shelfPage,
  type ShelfBest,
  type ShelfKindFacet,
  type ShelfPageParams,
  type ShelfPageResult,
  type ShelfRetailerFacet,
} from '../services/shelves.js';
import { byId, requestLoader } from './batch.js';
import { checkForward, connectionPage, pageSize, parseKeyCursor } from './connections.js';
import { currentPriceLoader, ListingRef, searchResultDeps } from './listing.js';
import { ProductRef, productRowLoader } from './product.js';

/**
 * Products on a shelf (its sub-shelves included), by shelf slug; 0 without a row. The whole (small)
 * `shelf_count` table is read once per request, whatever the depth of the selection (Shelf.productCount,
 * the root `shelves`).
 */
const shelfProductCountLoader = createContextCache((ctx: Context) => {
  let counts: Promise<Map<string, number>> | undefined;
  return new DataLoader<string, number>(async (slugs) => {
    const all = await (counts ??= shelfCounts(ctx.pool));
    return slugs.map((s) => all.get(s) ?? 0);
  });
});

/** The leaf shelf slug of a generic's kind, by generic id; null without one (Listing.shelf, Listing.perUnit, Product.shelf). */
const genericShelfLoader = requestLoader<number, string | null>(byId((ctx, ids) => genericShelves(ctx.pool, ids), () => null));

/** A page of a shelf's linked products in the popular order, by (slug, first, after): every shelf's page of a request in one statement. */
const shelfProductPageLoader = requestLoader((keys: readonly ShelfProductsKey[], ctx) => shelfProductPages(ctx.pool, keys), {
  cacheKeyFn: (k) => `${k.slug}:${k.first}:${k.after}`,
});

/** The ShelfSort enum (api-spec ShelfPage params.sort). */
export const ShelfSortEnum = builder.enumType('ShelfSort', {
  description:
    'popular: most widely stocked (chains, then stores); per_unit / per_unit_desc: cheapest / dearest per the shelf\'s compare unit (products without one last; on a shelf of mixed units, by price); price / price_desc: best admitted price; deal: biggest discount share; relevance: text rank of q (the default with q).',
  values: SHELF_SORTS,
});

/** The Shelf type: a shelf of the directory (api-spec ShelfSummary) with its crumbs and sub-shelves. */
export const ShelfRef = builder.objectRef<Shelf>('Shelf');

ShelfRef.implement({
  description: 'A shelf of the curated directory: department (depth 1), aisle (2) or sub-shelf (3).',
  fields: (t) => ({
    slug: t.exposeString('slug'),
    label: t.exposeString('label'),
    depth: t.exposeInt('depth', { description: '1 department, 2 aisle, 3 curated sub-shelf.' }),
    parent: t.exposeString('parent', { nullable: true, description: 'Parent shelf slug; null at a department.' }),
    productCount: t.int({
      description: 'Products with a current offer on the shelf or below it (the shelves view, recomputed at most every ten minutes).',
      resolve: (s, _args, ctx) => shelfProductCountLoader(ctx).load(s.slug),
    }),
    products: t.connection({
      type: ProductRef,
      description:
        `Linked products with a current offer on the shelf or below it, most widely stocked first (the popular order of the shelves view; listings not yet linked are on the shelf's page, \`shelf\`). first: 0 to ${CONNECTION_SIZE.max} (default ${CONNECTION_SIZE.default}); after: a cursor of the previous page (BAD_REQUEST when malformed). Cursors hold a product's place in the view, so they stay valid until the view is rebuilt.`,
      resolve: async (s, args, ctx) => {
        checkForward(args);
        const after = parseKeyCursor('rank', args.after);
        const page = await shelfProductPageLoader(ctx).load({ slug: s.slug, leaves: shelfSet(s.slug), first: pageSize(args), after });
        const rows = await productRowLoader(ctx).loadMany(page.products.map((p) => p.productId));
        const nodes = page.products.flatMap((p, i) => {
          const node = rows[i];
          if (node instanceof Error) throw node;
          return node ? [{ key: p.rank, node }] : [];
        });
        return connectionPage(nodes, 'rank', after, page.hasNextPage);
      },
    }),
    compareUnit: t.string({
      nullable: true,
      description: 'Unit the per-unit sort compares on: kg, l, 100g, 100ml, each or 100sheet; null on a shelf of mixed units.',
      resolve: (s) => s.compareUnit,
    }),
    crumbs: t.field({ type: [ShelfRef], description: 'Root first, the shelf itself last.', resolve: (s) => crumbs(s.slug) }),
    children: t.field({ type: [ShelfRef], description: 'Direct sub-shelves, in directory order.', resolve: (s) => children(s.slug) }),
  }),
});

const ShelfKindFacetRef = builder.objectRef<ShelfKindFacet>('ShelfKindFacet').implement({
  description: 'A kind under the current filters (the kind filter excepted), with its product count.',
  fields: (t) => ({
    slug: t.exposeString('slug'),
    label: t.exposeString('label'),
    products: t.exposeInt('products'),
  }),
});

const ShelfRetailerFacetRef = builder.objectRef<ShelfRetailerFacet>('ShelfRetailerFacet').implement({
  description: 'A chain stocking the current set (the chain filter excepted), with its product count.',
  fields: (t) => ({
    slug: t.exposeString('slug', { description: 'Retailer slug.' }),
    products: t.exposeInt('products'),
  }),
});

const ShelfParamsRef = builder.objectRef<ShelfPageParams>('ShelfParams').implement({
  description: 'The request as applied.',
  fields: (t) => ({
    sort: t.field({ type: ShelfSortEnum, resolve: (p) => p.sort }),
    retailer: t.exposeString('retailer', { nullable: true }),
    deals: t.exposeBoolean('deals'),
    kind: t.exposeString('kind', { nullable: true }),
    q: t.exposeString('q', { description: '"" when none.' }),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});

const ShelfBestRef = builder.objectRef<ShelfBest>('ShelfBest').implement({
  description: "A shelf product's cheapest admitted offer (specials, club prices and multibuy rates count; clearance does not); with a retailer filter, that chain's.",
  fields: (t) => ({
    price: t.exposeFloat('price', { description: 'Cents for one unit (per kg when sold by weight); fractional only for a multibuy rate (to a hundredth of a cent).' }),
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    listingId: t.exposeInt('listingId', { description: 'The listing of the offer.' }),
    promoKind: t.exposeInt('promoKind', { nullable: true, description: '1 special, 2 club price, 3 multibuy; null for the shelf price.' }),
    shelfPrice: t.exposeInt('shelfPrice', { description: "That listing's shelf price, cents." }),
  }),
});

/** A shelf product as the graph resolves it: its ProductGroup with the page's figures. */
type ShelfProductValue = ProductGroup<OfferRow> & { best: ShelfBest; perUnit: number | null };

const ShelfProductRef = builder.objectRef<ShelfProductValue>('ShelfProduct').implement({
  description: 'A product on a shelf: its ProductGroup fields with its best offer and per-unit price.',
  fields: (t) => ({
    productId: t.exposeInt('productId', { nullable: true, description: 'Null for a listing not yet linked.' }),
    name: t.exposeString('name'),
    brand: t.exposeString('brand', { nullable: true }),
    sizeText: t.exposeString('sizeText', { nullable: true }),
    image: t.exposeString('image', { nullable: true }),
    genericId: t.exposeInt('genericId', { nullable: true }),
    genericLabel: t.exposeString('genericLabel', { nullable: true }),
    offers: t.field({ type: [ListingRef], description: "Every chain's listing, available and cheapest first.", resolve: (g) => g.offers }),
    best: t.field({ type: ShelfBestRef, resolve: (g) => g.best }),
    perUnit: t.float({
      nullable: true,
      description: "best.price per the shelf's compare unit, cents (to a hundredth); null when not measured in it or on a shelf of mixed units.",
      resolve: (g) => g.perUnit,
    }),
  }),
});

const ShelfPageRef = builder.objectRef<ShelfPageResult>('ShelfPage').implement({
  description: 'One page of a shelf, filtered and sorted server-side across the whole set, with a true total and facets.',
  fields: (t) => ({
    shelf: t.field({ type: ShelfRef, resolve: (p) => p.shelf }),
    crumbs: t.field({ type: [ShelfRef], description: 'Root first, the shelf itself last.', resolve: (p) => crumbs(p.shelf.slug) }),
    children: t.field({ type: [ShelfRef], resolve: (p) => children(p.shelf.slug) }),
    unit: t.string({ nullable: true, description: 'Unit family of the per-unit sort (the shelf\'s compare unit).', resolve: (p) => p.unit }),
    kinds: t.field({ type: [ShelfKindFacetRef], description: 'Kinds under the current filters but kind, most products first.', resolve: (p) => p.kinds }),
    retailers: t.field({ type: [ShelfRetailerFacetRef], description: 'Chains stocking the set under the current filters but retailer, most products first.', resolve: (p) => p.retailers }),
    total: t.exposeInt('total', { description: 'Products in the set under the current filters.' }),
    params: t.field({ type: ShelfParamsRef, resolve: (p) => p.params }),
    products: t.field({
      type: [ShelfProductRef],
      resolve: async (p, _args, ctx) => {
        const groups = await productGroups(
          searchResultDeps(ctx),
          p.products.map((x) => ({ productId: x.productId, listingIds: x.listingId === null ? [] : [x.listingId] })),
        );
        const byKey = new Map(groups.map((g) => [g.productId === null ? `l${g.offers[0]?.id}` : `p${g.productId}`, g]));
        return p.products.flatMap((x) => {
          const g = byKey.get(x.groupKey);
          return g ? [{ ...g, best: x.best, perUnit: x.perUnit }] : [];
        });
      },
    }),
  }),
});

builder.queryFields((t) => ({
  shelves: t.field({
    type: [ShelfRef],
    description:
      `The shelf directory: departments first (most products first, then label), then aisles by department, then sub-shelves by aisle (each most products first). With q, the one shelf a category word names (label or alias; case, accents and plurals ignored) or none. BAD_REQUEST for q over ${MAX_QUERY_LENGTH} characters.`,
    args: { q: t.arg.string({ description: `A category word; at most ${MAX_QUERY_LENGTH} characters.` }) },
    resolve: (_root, { q }, ctx) => listShelves(q, (slug) => shelfProductCountLoader(ctx).load(slug)),
  }),
  shelf: t.field({
    type: ShelfPageRef,
    nullable: true,
    description:
      `One page of a shelf: every product on it or below it with a current offer, filtered, sorted and faceted server-side. NOT_FOUND for an unknown slug; BAD_REQUEST for an unknown retailer, q over ${MAX_QUERY_LENGTH} characters, limit outside ${SHELF_LIMIT.min} to ${SHELF_LIMIT.max} or a negative offset.`,
    args: {
      slug: t.arg.string({ required: true }),
      sort: t.arg({ type: ShelfSortEnum, description: 'popular by default; relevance when q has words.' }),
      retailer: t.arg.string({ description: "Retailer slug: only products with a current offer there, priced and sorted on that chain's offer." }),
      deals: t.arg.boolean({ defaultValue: false, description: 'Only products with an offer below its shelf price.' }),
      kind: t.arg.string({ description: "A kind slug from the page's kinds facet; another gives an empty page." }),
      q: t.arg.string({ description: `Words within the shelf (every word a prefix of a word of the product); at most ${MAX_QUERY_LENGTH} characters.` }),
      limit: t.arg.int({ defaultValue: SHELF_LIMIT.default, description: `${SHELF_LIMIT.min} to ${SHELF_LIMIT.max}.` }),
      offset: t.arg.int({ defaultValue: OFFSET.default, description: `At least ${OFFSET.min}.` }),
    },
    resolve: (_root, args, ctx) => shelfPage(ctx.pool, args),
  }),
}));

/** The leaf shelf of a generic (its kind's), through the request's loader; null without one. */
async function shelfOfGeneric(genericId: number | null, ctx: Context): Promise<Shelf | null> {
  if (genericId === null) return null;
  const slug = await genericShelfLoader(ctx).load(genericId);
  return slug === null ? null : getShelf(slug);
}

builder.prismaObjectFields('Listing', (t) => ({
  shelf: t.field({
    type: ShelfRef,
    nullable: true,
    description: "The leaf shelf its generic's kind sits on; null without one.",
    resolve: (l, _args, ctx) => shelfOfGeneric(l.genericId, ctx),
  }),
  perUnit: t.float({
    nullable: true,
    description: "Its current national shelf price per its shelf's compare unit, cents (to a hundredth); null without a shelf, a price or a size in that unit.",
    resolve: async (l, _args, ctx) => {
      const [shelf, current] = await Promise.all([shelfOfGeneric(l.genericId, ctx), currentPriceLoader(ctx).load(l.id)]);
      if (!shelf?.compareUnit || !current) return null;
      return unitPrice(current.price, measureOfListing(l), shelf.compareUnit);
    },
  }),
}));

builder.prismaObjectFields('Product', (t) => ({
  shelf: t.field({
    type: ShelfRef,
    nullable: true,
    description: "The leaf shelf its generic's kind sits on; null without one.",
    resolve: (p, _args, ctx) => shelfOfGeneric(p.genericId, ctx),
  }),
  perUnit: t.loadable({
    type: 'Float',
    nullable: true,
    description:
      "Its best admitted offer (specials, club prices and multibuy rates count) per its shelf's compare unit, cents (to a hundredth), from the shelves view; null when it has no current offer or no size in that unit.",
    // Its row in the shelves view (null when not on a shelf), every product of the request in one statement.
    load: async (ids: number[], ctx) => {
      const rows = await productShelfRows(ctx.pool, ids);
      return ids.map((id) => rows.get(id)?.per_unit ?? null);
    },
    resolve: (p) => p.id,
  }),
}));
