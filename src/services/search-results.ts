/**
 * What the search root fields return, read from PostgreSQL: product groups with their offers
 * (search_products, lookup_gtin) and priced suggestions (suggest). Ranking comes from
 * ./search.ts; the rules that shape the results are pure (src/domain/search-results.ts). Each
 * function runs a fixed number of queries whatever the number of results (current prices go
 * through the request's dataloader).
 */
import type pg from 'pg';
import {
  buildProductGroups,
  priceSuggestionHits,
  suggestionTargets,
  type GroupIds,
  type PricedSuggestion,
  type ProductGroup,
} from '../domain/search-results.js';
import { NotFound } from '../errors.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { SuggestionHit } from '../search/backend.js';
import type { CurrentSpan } from './prices.js';
import { gtinGroup } from './search.js';

/** What the result reads need (the GraphQL context satisfies it). */
export interface SearchResultDeps {
  prisma: PrismaClient;
  pool: pg.Pool;
  loaders: {
    /** The latest national span of a listing, batched per request. */
    currentPrice: { load(listingId: number): Promise<CurrentSpan | null> };
  };
}

/** The listing rows a group's offers are: every listing column, with its retailer and generic. */
function offerRows(deps: SearchResultDeps, listingIds: number[], productIds: number[]) {
  return deps.prisma.listing.findMany({
    where: { OR: [{ id: { in: listingIds } }, { productId: { in: productIds } }] },
    include: { retailer: { select: { slug: true, name: true } }, generic: { select: { id: true, label: true } } },
  });
}

/** A listing row as a group's offer carries it. */
export type OfferRow = Awaited<ReturnType<typeof offerRows>>[number];

/** Latest national spans of `ids`, through the request's loader. */
async function latestSpans(deps: SearchResultDeps, ids: readonly number[]): Promise<Map<number, CurrentSpan | null>> {
  return new Map(await Promise.all(ids.map(async (id) => [id, await deps.loaders.currentPrice.load(id)] as const)));
}

/**
 * The shown product groups of ranked group ids (src/domain/search-results.ts buildProductGroups),
 * in three reads: the offer rows, the products and (by loader) the current prices.
 */
export async function productGroups(deps: SearchResultDeps, groups: readonly GroupIds[]): Promise<ProductGroup<OfferRow>[]> {
  const productIds = groups.flatMap((g) => (g.productId === null ? [] : [g.productId]));
  const [rows, products] = await Promise.all([
    offerRows(deps, groups.flatMap((g) => g.listingIds), productIds),
    deps.prisma.product.findMany({ where: { id: { in: productIds } }, include: { generic: { select: { id: true, label: true } } } }),
  ]);
  const latest = await latestSpans(deps, rows.map((r) => r.id));
  return buildProductGroups(groups, rows, products, latest);
}

/**
 * lookup_gtin: the group of every listing carrying the barcode (./search.ts gtinGroup), shown.
 * @throws BadRequest when `gtinText` has no digits or more than 14; NotFound when no listing has it.
 */
export async function productGroupByGtin(deps: SearchResultDeps, gtinText: string): Promise<ProductGroup<OfferRow>> {
  const group = await gtinGroup(deps.pool, gtinText);
  const [shape] = group ? await productGroups(deps, [group]) : [];
  if (!shape) throw new NotFound(`No listing has barcode ${gtinText.replace(/\D/g, '') || gtinText}`);
  return shape;
}

/**
 * Suggestions with the current national price and image of their listing, or of their product's
 * first offer (src/domain/search-results.ts priceSuggestionHits); one read when any are priced.
 */
export async function pricedSuggestions(deps: SearchResultDeps, hits: SuggestionHit[]): Promise<PricedSuggestion<SuggestionHit>[]> {
  const { listingIds, productIds } = suggestionTargets(hits);
  if (!listingIds.length && !productIds.length) return priceSuggestionHits(hits, [], new Map());
  const rows = await deps.prisma.listing.findMany({
    where: { OR: [{ id: { in: listingIds } }, { productId: { in: productIds } }] },
    select: { id: true, productId: true, image: true, available: true },
  });
  return priceSuggestionHits(hits, rows, await latestSpans(deps, rows.map((r) => r.id)));
}
