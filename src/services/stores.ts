/** Store list filters (api-spec list_stores). */
import type { Prisma } from '../generated/prisma/client.js';
import { likeLiteral } from './text-filter.js';

/** The **exact** rule's escaping, from its home src/services/text-filter.ts (re-exported for src/graph/retailer.ts). */
export { likeLiteral };

/** Urban classes a store can be filtered on (api-spec Store.urban). */
export const URBAN_CLASSES = ['major', 'large', 'medium', 'small', 'rural'] as const;
/** One of {@link URBAN_CLASSES}. */
export type UrbanClass = (typeof URBAN_CLASSES)[number];

/** Optional filters of the store list; all compare case-insensitively except the retailer slug. */
export interface StoreFilter {
  retailer?: string | null;
  town?: string | null;
  area?: string | null;
  urban?: UrbanClass | null;
}

/**
 * The Prisma `where` for active stores matching every given filter. An unknown retailer slug
 * simply matches nothing (list_stores does not reject it). `town`, `area` and `urban` are exact,
 * case-insensitive matches (api-spec list_stores: "town name as returned in `town`,
 * case-insensitive"; the **exact** rule of src/services/text-filter.ts): Prisma turns `equals` +
 * `mode: 'insensitive'` into `ILIKE`, so the value is
 * escaped first ({@link likeLiteral}) — `%` is a percent sign, not "every store", and a trailing
 * backslash is a backslash, not a malformed pattern.
 */
export function storeWhere(filter: StoreFilter): Prisma.StoreWhereInput {
  const ci = (v: string) => ({ equals: likeLiteral(v), mode: 'insensitive' as const });
  return {
    active: true,
    ...(filter.retailer ? { retailer: { slug: filter.retailer } } : {}),
    ...(filter.town ? { town: ci(filter.town) } : {}),
    ...(filter.area ? { area: ci(filter.area) } : {}),
    ...(filter.urban ? { urban: ci(filter.urban) } : {}),
  };
}

/** Store list order: by chain (slug), then store name, then id. */
export const STORE_ORDER: Prisma.StoreOrderByWithRelationInput[] = [{ retailer: { slug: 'asc' } }, { name: 'asc' }, { id: 'asc' }];
