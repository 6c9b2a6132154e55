/** Store list filters (api-spec list_stores) and the point of list_stores (issue 32: stores near a point, nearest first). */
import type { Prisma } from '../generated/prisma/client.js';
import { RADIUS_KM } from '../domain/limits.js';
import { boundingBox, haversineKm, roundKm, type LatLng } from '../domain/places.js';
import { BadRequest } from '../errors.js';
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
  /** Only stores within `near.radiusKm` of `near` (a bounding box here; {@link nearestFirst} makes the exact cut). */
  near?: StorePoint | null;
}

/**
 * A checked point of list_stores: stores within `radiusKm` kilometres (great-circle) of
 * (`lat`, `lng`), WGS84 degrees.
 */
export interface StorePoint extends LatLng {
  /** Kilometres, {@link RADIUS_KM} (the bounds and default of plan_shopping_list). */
  radiusKm: number;
}

/** The point arguments of the graph's `stores` field (WGS84 degrees, km); all optional. */
export interface StorePointArgs {
  lat?: number | null;
  lng?: number | null;
  radiusKm?: number | null;
}

/** A number within bounds. @throws BadRequest naming `name`. */
function bounded(name: string, v: number, min: number, max: number): number {
  if (!Number.isFinite(v) || v < min || v > max) throw new BadRequest(`Invalid parameter "${name}": must be a number from ${min} to ${max}`);
  return v;
}

/**
 * A point and radius checked (lat −90 to 90, lng −180 to 180, WGS84 degrees; `radiusKm`
 * {@link RADIUS_KM}, default 10): the one check of list_stores and plan_shopping_list.
 * @throws BadRequest naming the parameter (the contract's names: lat, lng, radius_km).
 */
export function checkedPoint(p: LatLng & { radiusKm?: number | null }): StorePoint {
  return {
    lat: bounded('lat', p.lat, -90, 90),
    lng: bounded('lng', p.lng, -180, 180),
    radiusKm: bounded('radius_km', p.radiusKm ?? RADIUS_KM.default, RADIUS_KM.min, RADIUS_KM.max),
  };
}

/**
 * The point of list_stores, or null without one: `lat` and `lng` together (−90 to 90, −180 to
 * 180), `radiusKm` only with them ({@link RADIUS_KM}, default 10). The facades check the same rules
 * first (facades/operation.ts pointParams); this is the graph's own check.
 * @throws BadRequest naming the parameter (the contract's names: lat, lng, radius_km).
 */
export function storePoint(args: StorePointArgs): StorePoint | null {
  const lat = args.lat ?? null;
  const lng = args.lng ?? null;
  if (lat !== null && lng === null) throw new BadRequest('Invalid parameter "lng": is required with lat');
  if (lng !== null && lat === null) throw new BadRequest('Invalid parameter "lat": is required with lng');
  if (lat === null || lng === null) {
    if (args.radiusKm != null) throw new BadRequest('Invalid parameter "radius_km": needs lat and lng');
    return null;
  }
  return checkedPoint({ lat, lng, radiusKm: args.radiusKm });
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
    ...(filter.near ? boxWhere(filter.near) : {}),
  };
}

/**
 * The bounding box of a point as a `where` on store.lat / store.lng: the prefilter of
 * {@link nearestFirst}. No index: the panel has about 500 stores (383 geolocated in the real data),
 * a few pages of one table that a sequential scan reads faster than any index lookup, so a btree on
 * (lat, lng) would cost writes for nothing; PostGIS is neither available nor needed. Revisit with a
 * btree on (lat, lng) if the store table grows by two orders of magnitude.
 */
function boxWhere(p: StorePoint): Prisma.StoreWhereInput {
  const box = boundingBox(p, p.radiusKm);
  return {
    lat: { gte: box.lat[0], lte: box.lat[1] },
    ...(box.lng ? { lng: { gte: box.lng[0], lte: box.lng[1] } } : {}),
  };
}

/**
 * The exact cut and order of a point's stores: those within `p.radiusKm` by the great-circle
 * distance of plan_shopping_list ({@link haversineKm}), each with its `distance_km` (kilometres,
 * two decimals, {@link roundKm}), nearest first by that distance, ties by store id.
 */
export function nearestFirst<T extends LatLng & { id: number }>(stores: readonly T[], p: StorePoint): { store: T; distance_km: number }[] {
  return stores
    .map((store) => ({ store, km: haversineKm(p, store) }))
    .filter((s) => s.km <= p.radiusKm)
    .map((s) => ({ store: s.store, distance_km: roundKm(s.km) }))
    .sort((a, b) => a.distance_km - b.distance_km || a.store.id - b.store.id);
}

/** Store list order: by chain (slug), then store name, then id. */
export const STORE_ORDER: Prisma.StoreOrderByWithRelationInput[] = [{ retailer: { slug: 'asc' } }, { name: 'asc' }, { id: 'asc' }];
