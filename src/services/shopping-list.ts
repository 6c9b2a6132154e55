/**
 * The cheapest place for a whole shopping list (issue 16 item 7, plan_shopping_list; beyond
 * api-spec): reads what the rules of src/domain/shopping-list.ts need and shapes their answer.
 *
 * Prices are each store's current prices from the store_listing view (the derived-views worker,
 * workers/views/stores.ts: a store's latest observation of each listing in the last 7 days of its
 * collections, with its promotion and a multibuy's terms), never spans aggregated per request, at
 * the stores that have current prices (`CURRENT_STORE` of ./prices.ts, the rule every store-price
 * read shares: active and collected; a national-only chain has no store prices, so it is priced at
 * no store, as in get_product_stores). Two statements per request whatever the list's size: the
 * items (and the retailer slug), then every store price of their listings.
 */
import type pg from 'pg';
import { boundingBox, haversineKm, roundKm, type LatLng } from '../domain/places.js';
import {
  itemRef, MAX_ITEMS, MAX_QTY, mergeItems, planShoppingList, ShoppingListError,
  type PlanLine, type PlanOffer, type PlanStore, type ShoppingItem,
} from '../domain/shopping-list.js';
import type { DealKind } from '../domain/deals.js';
import { BadRequest, NotFound } from '../errors.js';
import { CURRENT_STORE } from './prices.js';
import { checkedPoint } from './stores.js';
import { PLAN_LIMIT, RADIUS_KM } from '../domain/limits.js';
/** plan_shopping_list `limit` and `radius_km` (km), held in src/domain/limits.ts (list_stores shares `radius_km`). */
export { PLAN_LIMIT, RADIUS_KM };

export { MAX_ITEMS, MAX_QTY };

/** One item as the graph receives it: exactly one of `productId` and `listingId`. */
export interface ShoppingItemArg {
  productId?: number | null;
  listingId?: number | null;
  /** Units (kg for a weighable listing), 1 to {@link MAX_QTY}; default 1. */
  qty?: number | null;
}

/** Where the shopper is: stores within `radiusKm` (great-circle) of the point count. */
export interface NearArg {
  /** WGS84 degrees, −90 to 90. */
  lat: number;
  /** WGS84 degrees, −180 to 180. */
  lng: number;
  /** {@link RADIUS_KM}; default 10. */
  radiusKm?: number | null;
}

/** Arguments of {@link planShoppingListAt} (validated by the facades; checked again here for /graphql). */
export interface ShoppingListArgs {
  /** 1 to {@link MAX_ITEMS} distinct items; repeats of one item add their quantities. */
  items: readonly ShoppingItemArg[];
  /** Only stores near a point; absent: every store. */
  near?: NearArg | null;
  /** Retailer slug: only that chain's stores. */
  retailer?: string | null;
  /** Whether club (member) prices count; default false. */
  member?: boolean | null;
  /** Single stores and splits returned, each; {@link PLAN_LIMIT}. */
  limit?: number | null;
}

/** One item of the list as answered. */
export interface PlanItem {
  /** `p<product id>` or `l<listing id>`. */
  ref: string;
  /** The product (a product item), or the listing's linked product (a listing item; null when unlinked). */
  product_id: number | null;
  /** The listing (a listing item); null for a product item. */
  listing_id: number | null;
  /** Product or listing name. */
  name: string;
  qty: number;
}

/** A store of a plan. */
export interface PlanStoreInfo {
  id: number;
  /** Retailer slug. */
  retailer: string;
  name: string;
  town: string;
  lat: number;
  lng: number;
  /** The store's last collection day. */
  day: string;
  /** Great-circle distance from the given point, km, two decimals; null without a point. */
  distance_km: number | null;
}

/** One line of a plan: an item bought at a store. */
export interface PlanLineOut {
  /** The item's ref. */
  ref: string;
  store_id: number;
  listing_id: number;
  qty: number;
  /** Shelf price of one unit at the store, cents. */
  price: number;
  /** What `qty` units cost there with the promotion used, cents. */
  cost: number;
  /** The promotion the cost uses; null for the shelf price. */
  promo: DealKind | null;
  /** First day this price has held at the store. */
  since: string;
}

/** The list at one store. */
export interface SingleStorePlan {
  store: PlanStoreInfo;
  /** Σ cost of the lines, cents (the items the store prices). */
  total: number;
  /** Refs of the items the store does not price, in list order. */
  missing: string[];
  lines: PlanLineOut[];
}

/** The list split over two stores. */
export interface SplitStorePlan {
  /** The better single store of the two first. */
  stores: PlanStoreInfo[];
  total: number;
  /** Cents saved over the first store alone on the items it prices. */
  saving: number;
  missing: string[];
  /** Each line at the store it is bought at (`store_id`). */
  lines: PlanLineOut[];
}

/** The answer of plan_shopping_list. */
export interface ShoppingListPlan {
  items: PlanItem[];
  /** Stores (within the radius and chain) pricing at least one item. */
  stores_considered: number;
  single: SingleStorePlan[];
  split: SplitStorePlan[];
}

/**
 * The checked list: each item names exactly one of a product and a listing; merged and bounded by
 * the domain rules. @throws BadRequest naming `items`.
 */
export function checkItems(args: readonly ShoppingItemArg[]): ShoppingItem[] {
  const items: ShoppingItem[] = [];
  for (const a of args) {
    const hasProduct = a.productId != null;
    if (hasProduct === (a.listingId != null)) throw new BadRequest('Invalid parameter "items": each item names exactly one of productId and listingId');
    const qty = a.qty ?? 1;
    if (!Number.isInteger(qty) || qty < 1 || qty > MAX_QTY) throw new BadRequest(`Invalid parameter "items": a quantity must be an integer from 1 to ${MAX_QTY}`);
    items.push({ kind: hasProduct ? 'product' : 'listing', id: (hasProduct ? a.productId : a.listingId)!, qty });
  }
  if (items.length > 10 * MAX_ITEMS) throw new BadRequest(`Invalid parameter "items": at most ${MAX_ITEMS} distinct items`);
  try {
    return mergeItems(items);
  } catch (e) {
    if (e instanceof ShoppingListError) throw new BadRequest(`Invalid parameter "items": ${e.message}`);
    throw e;
  }
}

/** One store price row of the second statement. */
interface OfferRow {
  store_id: number;
  listing_id: number;
  price: number;
  promo_price: number | null;
  promo_kind: number | null;
  multibuy_qty: number | null;
  multibuy_price: number | null;
  since: string;
  retailer: string;
  name: string;
  town: string;
  lat: number;
  lng: number;
  day: string;
}

/**
 * plan_shopping_list: the cheapest single stores and two-store splits for a list (rules:
 * src/domain/shopping-list.ts), at the stores with current prices, of `retailer` when given and
 * within `near.radiusKm` of `near` when given. Two statements.
 * @throws BadRequest for a malformed list (an item naming both or neither id, a quantity outside
 *   1..99 also after adding repeats, none or more than 50 distinct items), a point or radius out of
 *   range, `limit` outside 1..20, or an unknown retailer slug;
 *   NotFound naming every unknown product and listing id.
 */
export async function planShoppingListAt(pool: pg.Pool, args: ShoppingListArgs): Promise<ShoppingListPlan> {
  const items = checkItems(args.items);
  const limit = args.limit ?? PLAN_LIMIT.default;
  if (!Number.isInteger(limit) || limit < PLAN_LIMIT.min || limit > PLAN_LIMIT.max) {
    throw new BadRequest(`Invalid parameter "limit": must be an integer from ${PLAN_LIMIT.min} to ${PLAN_LIMIT.max}`);
  }
  const point = args.near ? checkedPoint(args.near) : null;
  const near: (LatLng & { km: number }) | null = point ? { lat: point.lat, lng: point.lng, km: point.radiusKm } : null;
  const slug = args.retailer?.trim() || null;
  const member = args.member ?? false;

  // 1. The items (unknown ones are absent) and the retailer.
  const productIds = items.filter((i) => i.kind === 'product').map((i) => i.id);
  const listingIds = items.filter((i) => i.kind === 'listing').map((i) => i.id);
  const { rows } = await pool.query<{ retailer_id: number | null; kind: 'product' | 'listing' | null; id: number; name: string; product_id: number | null; listings: number[] }>(
    `SELECT rt.id AS retailer_id, x.kind, x.id, x.name, x.product_id, x.listings
     FROM (SELECT (SELECT id FROM retailer WHERE slug = $3) AS id) rt
     LEFT JOIN (
       SELECT 'product' AS kind, p.id, p.name, p.id AS product_id,
         coalesce(array_agg(l.id ORDER BY l.id) FILTER (WHERE l.id IS NOT NULL), '{}') AS listings
       FROM product p LEFT JOIN listing l ON l.product_id = p.id WHERE p.id = ANY($1::int[]) GROUP BY p.id
       UNION ALL
       SELECT 'listing', l.id, l.name, l.product_id, ARRAY[l.id] FROM listing l WHERE l.id = ANY($2::int[])
     ) x ON true`,
    [productIds, listingIds, slug],
  );
  if (slug !== null && rows[0].retailer_id === null) {
    throw new BadRequest(`Invalid parameter "retailer": unknown retailer slug "${slug}" (see /api/v1/retailers)`);
  }
  const found = new Map(rows.filter((r) => r.kind !== null).map((r) => [itemRef({ kind: r.kind!, id: r.id }), r]));
  const unknown = items.filter((i) => !found.has(itemRef(i)));
  if (unknown.length) {
    const names = (kind: ShoppingItem['kind']) => unknown.filter((i) => i.kind === kind).map((i) => i.id);
    const parts = [
      names('product').length ? `product ${names('product').join(', ')}` : '',
      names('listing').length ? `listing ${names('listing').join(', ')}` : '',
    ].filter(Boolean);
    throw new NotFound(`No such ${parts.join('; no such ')} (items ${unknown.map(itemRef).join(', ')})`);
  }
  const planItems: PlanItem[] = items.map((i) => {
    const r = found.get(itemRef(i))!;
    return { ref: itemRef(i), product_id: r.product_id, listing_id: i.kind === 'listing' ? i.id : null, name: r.name, qty: i.qty };
  });

  // 2. Every current store price of the items' listings, at the stores of the chain and area.
  const itemsOf = new Map<number, number[]>();
  items.forEach((i, k) => {
    for (const id of found.get(itemRef(i))!.listings) itemsOf.set(id, [...(itemsOf.get(id) ?? []), k]);
  });
  const box = near ? boundingBox(near, near.km) : null;
  const offers = itemsOf.size === 0 ? [] : (await pool.query<OfferRow>(
    `SELECT sl.store_id, sl.listing_id, sl.price, sl.promo_price, sl.promo_kind::int AS promo_kind, sl.multibuy_qty, sl.multibuy_price,
       sl.day::text AS since, r.slug AS retailer, st.name, st.town, st.lat, st.lng, st.last_day::text AS day
     FROM store_listing sl JOIN store st ON st.id = sl.store_id JOIN retailer r ON r.id = st.retailer_id
     WHERE sl.listing_id = ANY($1::int[]) AND ${CURRENT_STORE}
       AND ($2::int IS NULL OR st.retailer_id = $2)
       AND ($3::float8 IS NULL OR st.lat BETWEEN $3 AND $4)
       AND ($5::float8 IS NULL OR st.lng BETWEEN $5 AND $6)
     ORDER BY sl.store_id, sl.listing_id`,
    [[...itemsOf.keys()], rows[0].retailer_id, box?.lat[0] ?? null, box?.lat[1] ?? null, box?.lng?.[0] ?? null, box?.lng?.[1] ?? null],
  )).rows;

  const stores = new Map<number, PlanStoreInfo>();
  const planOffers: PlanOffer[] = [];
  for (const o of offers) {
    let s = stores.get(o.store_id);
    if (!s) {
      const d = near ? haversineKm(near, o) : null;
      if (d !== null && d > near!.km) continue;
      s = { id: o.store_id, retailer: o.retailer, name: o.name, town: o.town, lat: o.lat, lng: o.lng, day: o.day, distance_km: d };
      stores.set(o.store_id, s);
    }
    for (const item of itemsOf.get(o.listing_id) ?? []) {
      planOffers.push({ ...o, storeId: o.store_id, listingId: o.listing_id, item, promo_kind: o.promo_kind as PlanOffer['promo_kind'] });
    }
  }
  const planStores: PlanStore[] = [...stores.values()].map((s) => ({ id: s.id, distanceKm: s.distance_km }));
  const plan = planShoppingList({ qty: items.map((i) => i.qty), stores: planStores, offers: planOffers, member, limit });

  const storeOut = (id: number): PlanStoreInfo => {
    const s = stores.get(id)!;
    return { ...s, distance_km: s.distance_km === null ? null : roundKm(s.distance_km) };
  };
  const lineOut = (l: PlanLine): PlanLineOut => ({
    ref: planItems[l.item].ref, store_id: l.storeId, listing_id: l.listingId, qty: l.qty, price: l.price, cost: l.cost, promo: l.promo, since: l.since,
  });
  const refs = (missing: number[]) => missing.map((k) => planItems[k].ref);
  return {
    items: planItems,
    stores_considered: plan.storesConsidered,
    single: plan.single.map((s) => ({ store: storeOut(s.storeId), total: s.total, missing: refs(s.missing), lines: s.lines.map(lineOut) })),
    split: plan.split.map((s) => ({
      stores: s.storeIds.map(storeOut), total: s.total, saving: s.saving, missing: refs(s.missing), lines: s.lines.map(lineOut),
    })),
  };
}
