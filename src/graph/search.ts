/**
 * Search types and root fields (api-spec "Search"): ProductGroup (one product, or one unlinked
 * listing, with every chain's offer cheapest first), Suggestion (type-ahead) and the root fields
 * `searchProducts`, `suggest` and `gtin`. Ranking comes from src/services/search.ts over the
 * context's SearchBackend; names, offers and prices are read here from PostgreSQL in a fixed number
 * of queries per request (groups are built at the root, prices through the dataloaders).
 */
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { orderOffers } from '../domain/listings.js';
import { NotFound } from '../errors.js';
import type { SuggestionHit } from '../search/backend.js';
import { ListingRef } from './listing.js';
import { gtinGroup, PRODUCT_LIMIT, searchProductGroups, suggestions, SUGGEST_LIMIT, type GroupKey } from '../services/search.js';

/** Listing rows as the offers of a group carry them (with the retailer for slug and name). */
type OfferRow = Awaited<ReturnType<typeof loadOfferRows>>[number];

/** A resolved group: its display fields and its offers, cheapest first. */
interface GroupShape {
  productId: number | null;
  name: string;
  brand: string | null;
  sizeText: string | null;
  image: string | null;
  genericId: number | null;
  genericLabel: string | null;
  offers: OfferRow[];
}

function loadOfferRows(ctx: Context, listingIds: number[], productIds: number[]) {
  return ctx.prisma.listing.findMany({
    where: { OR: [{ id: { in: listingIds } }, { productId: { in: productIds } }] },
    include: { retailer: { select: { slug: true, name: true } }, generic: { select: { id: true, label: true } } },
  });
}

/**
 * Builds the shapes of `groups` in three queries (offers, products, current prices by loader):
 * a linked group shows its product's name and every listing linked to it; an unlinked one its
 * listing(s). Offers are available first, then cheapest (src/domain/listings.ts orderOffers).
 */
async function resolveGroups(ctx: Context, groups: GroupKey[]): Promise<GroupShape[]> {
  const productIds = groups.flatMap((g) => (g.productId === null ? [] : [g.productId]));
  const [rows, products] = await Promise.all([
    loadOfferRows(ctx, groups.flatMap((g) => g.listingIds), productIds),
    ctx.prisma.product.findMany({ where: { id: { in: productIds } }, include: { generic: { select: { id: true, label: true } } } }),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const productById = new Map(products.map((p) => [p.id, p]));
  const latest = new Map(
    await Promise.all(rows.map(async (r) => [r.id, await ctx.loaders.currentPrice.load(r.id)] as const)),
  );
  return groups.flatMap((g) => {
    const members = new Map<number, OfferRow>();
    for (const id of g.listingIds) {
      const row = byId.get(id);
      if (row) members.set(id, row);
    }
    if (g.productId !== null) for (const r of rows) if (r.productId === g.productId) members.set(r.id, r);
    const offers = orderOffers([...members.values()], [...members.values()].map((r) => latest.get(r.id)));
    const lead = byId.get(g.listingIds[0]) ?? offers[0];
    if (!lead) return [];
    const product = g.productId === null ? undefined : productById.get(g.productId);
    return [{
      productId: g.productId,
      name: product?.name ?? lead.name,
      brand: product ? product.brand : lead.brand,
      sizeText: product ? product.sizeText : lead.sizeText,
      image: product?.image ?? offers.find((o) => o.image)?.image ?? null,
      // A product's generic; an unlinked listing's own.
      genericId: product ? (product.generic?.id ?? null) : (lead.generic?.id ?? null),
      genericLabel: product ? (product.generic?.label ?? null) : (lead.generic?.label ?? null),
      offers,
    }];
  });
}

const ProductGroupRef = builder.objectRef<GroupShape>('ProductGroup').implement({
  description: 'One product with its offers at every chain, cheapest first; a listing not yet linked is its own group.',
  fields: (t) => ({
    productId: t.exposeInt('productId', { nullable: true, description: 'Null for a listing not yet linked.' }),
    name: t.exposeString('name'),
    brand: t.exposeString('brand', { nullable: true }),
    sizeText: t.exposeString('sizeText', { nullable: true }),
    image: t.exposeString('image', { nullable: true }),
    genericId: t.exposeInt('genericId', { nullable: true, description: 'The generic (kind, variant and size) it belongs to.' }),
    genericLabel: t.exposeString('genericLabel', { nullable: true, description: 'Label of the generic, e.g. "Canned tomatoes, chopped, 400 g".' }),
    offers: t.field({ type: [ListingRef], description: 'Every chain\'s listing, available and cheapest first.', resolve: (g) => g.offers }),
  }),
});

const SuggestionKindEnum = builder.enumType('SuggestionKind', { values: ['category', 'brand', 'product', 'listing'] as const });

/** A suggestion with the price of its listing (or its product's cheapest listing). */
interface SuggestionShape extends SuggestionHit {
  price: number | null;
  promoPrice: number | null;
  promoKind: number | null;
  image: string | null;
}

/** Attaches current prices and images: listings by loader, products through their cheapest listing. */
async function priceSuggestions(ctx: Context, hits: SuggestionHit[]): Promise<SuggestionShape[]> {
  const listingIds = hits.filter((h) => h.kind === 'listing' && h.id !== null).map((h) => h.id as number);
  const productIds = hits.filter((h) => h.kind === 'product' && h.id !== null).map((h) => h.id as number);
  if (!listingIds.length && !productIds.length) return hits.map((h) => ({ ...h, price: null, promoPrice: null, promoKind: null, image: null }));
  const rows = await ctx.prisma.listing.findMany({
    where: { OR: [{ id: { in: listingIds } }, { productId: { in: productIds } }] },
    select: { id: true, productId: true, image: true, available: true },
  });
  const latest = new Map(await Promise.all(rows.map(async (r) => [r.id, await ctx.loaders.currentPrice.load(r.id)] as const)));
  const pick = (h: SuggestionHit) => {
    const members = rows.filter((r) => (h.kind === 'listing' ? r.id === h.id : r.productId === h.id));
    return orderOffers(members, members.map((r) => latest.get(r.id)))[0];
  };
  return hits.map((h) => {
    const row = h.kind === 'listing' || h.kind === 'product' ? pick(h) : undefined;
    // The latest national span, as on a ListingCard.
    const span = row ? latest.get(row.id) : null;
    return {
      ...h,
      price: span?.price ?? null,
      promoPrice: span?.promo_price ?? null,
      promoKind: span?.promo_kind ?? null,
      image: row?.image ?? null,
    };
  });
}

const SuggestionRef = builder.objectRef<SuggestionShape>('Suggestion').implement({
  description: 'A type-ahead suggestion: a category, brand, product or listing.',
  fields: (t) => ({
    kind: t.field({ type: SuggestionKindEnum, resolve: (s) => s.kind }),
    id: t.exposeInt('id', { nullable: true, description: 'Product or listing id; null for categories and brands.' }),
    label: t.exposeString('label'),
    detail: t.exposeString('detail', { nullable: true }),
    href: t.exposeString('href', { description: 'Site path to open.' }),
    price: t.exposeInt('price', { nullable: true, description: 'Current national shelf price, cents.' }),
    promoPrice: t.exposeInt('promoPrice', { nullable: true }),
    promoKind: t.exposeInt('promoKind', { nullable: true }),
    image: t.exposeString('image', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  searchProducts: t.field({
    type: [ProductGroupRef],
    description: 'Products matching q (name, brand, category or barcode digits; typo- and accent-tolerant), one group per product, best first; without q, recently seen.',
    args: {
      q: t.arg.string({ description: 'At most 100 characters.' }),
      retailer: t.arg.string({ description: "Retailer slug: rank only that chain's catalogue (offers still show every chain); unknown gives BAD_REQUEST." }),
      limit: t.arg.int({ defaultValue: PRODUCT_LIMIT.default, description: '1 to 100.' }),
    },
    resolve: async (_root, args, ctx) => resolveGroups(ctx, await searchProductGroups(ctx, args)),
  }),
  suggest: t.field({
    type: [SuggestionRef],
    description: 'Type-ahead: categories, brands, products and listings matching a prefix, in display order.',
    args: {
      q: t.arg.string({ required: true, description: '1 to 100 characters.' }),
      limit: t.arg.int({ defaultValue: SUGGEST_LIMIT.default, description: '1 to 12.' }),
    },
    resolve: async (_root, args, ctx) => priceSuggestions(ctx, await suggestions(ctx, args)),
  }),
  gtin: t.field({
    type: ProductGroupRef,
    nullable: true,
    description: 'Exact barcode lookup (up to 14 digits; leading zeros and non-digits ignored); NOT_FOUND when unknown.',
    args: { gtin: t.arg.string({ required: true }) },
    resolve: async (_root, { gtin }, ctx) => {
      const group = await gtinGroup(ctx.pool, gtin);
      const [shape] = group ? await resolveGroups(ctx, [group]) : [];
      if (!shape) throw new NotFound(`No listing has barcode ${gtin.replace(/\D/g, '') || gtin}`);
      return shape;
    },
  }),
}));
