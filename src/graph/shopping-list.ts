/**
 * The cheapest place for a whole shopping list (issue 16 item 7; beyond api-spec): the inputs
 * ShoppingItemInput and NearInput, the ShoppingList answer with its ShoppingListItem,
 * ShoppingListStore, ShoppingStorePlan, ShoppingSplitPlan and ShoppingLine types, and the root
 * field `shoppingList`. The rules are src/domain/shopping-list.ts; the reads (two statements)
 * src/services/shopping-list.ts. Money in integer NZ cents; days `YYYY-MM-DD` (NZ).
 */
import { builder } from '../builder.js';
import { MAX_PLAN_ITEMS, PLAN_LIMIT, PLAN_QTY, RADIUS_KM } from '../domain/limits.js';
import {
  planShoppingListAt,
  type PlanItem, type PlanLineOut, type PlanStoreInfo, type ShoppingListPlan, type SingleStorePlan, type SplitStorePlan,
} from '../services/shopping-list.js';
import { DealKindEnum } from './deals.js';

const ShoppingItemInput = builder.inputType('ShoppingItemInput', {
  description: 'One item of a shopping list: exactly one of productId (bought as any linked listing) and listingId (only that listing).',
  fields: (t) => ({
    productId: t.int({ description: 'A product: bought at a store as its cheapest linked listing there.' }),
    listingId: t.int({ description: 'A listing: bought only as that listing.' }),
    qty: t.int({ defaultValue: PLAN_QTY.default, description: `Units (kg for a weighable listing), ${PLAN_QTY.min} to ${PLAN_QTY.max}; repeats of one item add up.` }),
  }),
});

const NearInput = builder.inputType('NearInput', {
  description: 'Where the shopper is: only stores within radiusKm (great-circle distance) count.',
  fields: (t) => ({
    lat: t.float({ required: true, description: 'WGS84 degrees, −90 to 90.' }),
    lng: t.float({ required: true, description: 'WGS84 degrees, −180 to 180.' }),
    radiusKm: t.float({ defaultValue: RADIUS_KM.default, description: `Kilometres, ${RADIUS_KM.min} to ${RADIUS_KM.max}.` }),
  }),
});

const ShoppingListItemRef = builder.objectRef<PlanItem>('ShoppingListItem').implement({
  description: 'One item of the list as planned (repeats merged).',
  fields: (t) => ({
    ref: t.exposeString('ref', { description: 'p<product id> or l<listing id>: how lines and missing name the item.' }),
    productId: t.exposeInt('product_id', { nullable: true, description: "The product; for a listing item its linked product (null when unlinked)." }),
    listingId: t.exposeInt('listing_id', { nullable: true, description: 'The listing of a listing item; null for a product item.' }),
    name: t.exposeString('name', { description: 'Product or listing name.' }),
    qty: t.exposeInt('qty'),
  }),
});

const ShoppingListStoreRef = builder.objectRef<PlanStoreInfo>('ShoppingListStore').implement({
  description: 'A store of a plan.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    name: t.exposeString('name'),
    town: t.exposeString('town', { description: 'Nearest urban area, or "Rural <region>".' }),
    lat: t.exposeFloat('lat'),
    lng: t.exposeFloat('lng'),
    day: t.expose('day', { type: 'Day', description: "The store's last collection day." }),
    distanceKm: t.exposeFloat('distance_km', { nullable: true, description: 'Great-circle distance from near, km (two decimals); null without near.' }),
  }),
});

const ShoppingLineRef = builder.objectRef<PlanLineOut>('ShoppingLine').implement({
  description: 'One item bought at one store.',
  fields: (t) => ({
    ref: t.exposeString('ref', { description: 'The item (ShoppingListItem.ref).' }),
    storeId: t.exposeInt('store_id'),
    listingId: t.exposeInt('listing_id', { description: 'The listing bought (for a product item, its cheapest linked listing there).' }),
    qty: t.exposeInt('qty'),
    price: t.exposeInt('price', { description: 'Shelf price of one unit at the store, cents.' }),
    cost: t.exposeInt('cost', { description: 'What qty units cost there with the promotion used, cents.' }),
    promo: t.field({
      type: DealKindEnum,
      nullable: true,
      description: 'The promotion the cost uses (special, member: club price, only with member; multibuy); null for the shelf price.',
      resolve: (l) => l.promo,
    }),
    since: t.expose('since', { type: 'Day', description: 'First day this price has held at the store.' }),
  }),
});

const ShoppingStorePlanRef = builder.objectRef<SingleStorePlan>('ShoppingStorePlan').implement({
  description: 'The list bought at one store.',
  fields: (t) => ({
    store: t.field({ type: ShoppingListStoreRef, resolve: (p) => p.store }),
    total: t.exposeInt('total', { description: 'Σ cost of the lines (the items the store prices), cents.' }),
    missing: t.exposeStringList('missing', { description: 'Refs of the items the store does not price, in list order.' }),
    lines: t.field({ type: [ShoppingLineRef], description: 'One per item priced, in list order.', resolve: (p) => p.lines }),
  }),
});

const ShoppingSplitPlanRef = builder.objectRef<SplitStorePlan>('ShoppingSplitPlan').implement({
  description: 'The list split over two stores, each item bought where it costs less.',
  fields: (t) => ({
    stores: t.field({ type: [ShoppingListStoreRef], description: 'The two stores, the better one alone first.', resolve: (p) => p.stores }),
    total: t.exposeInt('total', { description: 'Σ cost of the lines, cents.' }),
    saving: t.exposeInt('saving', { description: 'Cents saved over the first store alone on the items it prices (≥ 0).' }),
    missing: t.exposeStringList('missing', { description: 'Refs of the items priced at neither store, in list order.' }),
    lines: t.field({ type: [ShoppingLineRef], description: 'One per item bought, in list order, each at its storeId.', resolve: (p) => p.lines }),
  }),
});

const ShoppingListRef = builder.objectRef<ShoppingListPlan>('ShoppingList').implement({
  description:
    'The cheapest single stores and two-store splits for a shopping list, from each store\'s current prices (the store_listing view, recomputed at most every ten minutes).',
  fields: (t) => ({
    items: t.field({ type: [ShoppingListItemRef], description: 'The list, repeats merged, in first-seen order.', resolve: (p) => p.items }),
    storesConsidered: t.exposeInt('stores_considered', { description: 'Stores (of the chain, within the radius) pricing at least one item.' }),
    single: t.field({
      type: [ShoppingStorePlanRef],
      description: 'The best stores alone: fewest missing items, then lowest total, then nearest, then store id.',
      resolve: (p) => p.single,
    }),
    split: t.field({
      type: [ShoppingSplitPlanRef],
      description: 'The best splits over two stores that beat both their stores alone: fewest missing, then lowest total.',
      resolve: (p) => p.split,
    }),
  }),
});

builder.queryField('shoppingList', (t) =>
  t.field({
    type: ShoppingListRef,
    description:
      `The cheapest single store and the cheapest splits over two stores for a shopping list, with what is missing where (beyond api-spec: issue 16). BAD_REQUEST for an item naming both or neither id, a quantity outside ${PLAN_QTY.min} to ${PLAN_QTY.max}, none or more than ${MAX_PLAN_ITEMS} distinct items, near or radiusKm out of range, limit outside ${PLAN_LIMIT.min} to ${PLAN_LIMIT.max}, or an unknown retailer; NOT_FOUND naming unknown product and listing ids.`,
    args: {
      items: t.arg({ type: [ShoppingItemInput], required: true }),
      near: t.arg({ type: NearInput, description: 'Only stores near a point; absent: every store.' }),
      retailer: t.arg.string({ description: "Retailer slug: only that chain's stores; unknown gives BAD_REQUEST." }),
      member: t.arg.boolean({ defaultValue: false, description: 'Whether club (member) prices count.' }),
      limit: t.arg.int({ defaultValue: PLAN_LIMIT.default, description: `Single stores and splits returned, each; ${PLAN_LIMIT.min} to ${PLAN_LIMIT.max}.` }),
    },
    resolve: (_root, args, ctx) =>
      planShoppingListAt(ctx.pool, {
        items: args.items,
        near: args.near ? { lat: args.near.lat, lng: args.near.lng, radiusKm: args.near.radiusKm } : null,
        retailer: args.retailer,
        member: args.member,
        limit: args.limit,
      }),
  }),
);
