/**
 * The food-price-index basket (api-spec "Basket resources"): BasketItem and BasketMatch; root
 * fields `basket` and `basketItem`. Weights in percent of the whole basket; money in integer NZ
 * cents (basis prices in cents, fractional per kg or litre); days `YYYY-MM-DD` (NZ). Matches come
 * from the loader defined here and their listings' latest national prices from ./listing.ts
 * `currentPriceLoader`, both cached per request, so the whole basket with every match costs a fixed
 * number of statements.
 */
import { builder } from '../builder.js';
import { apiSize } from '../domain/basket.js';
import { isAvailable } from '../domain/listings.js';
import { basisPrice } from '../domain/price-index.js';
import { NotFound } from '../errors.js';
import { basketItems, openMatches, percent, type BasketItemRow, type OpenMatchRow } from '../services/basket.js';
import type { CurrentSpan } from '../services/prices.js';
import { byId, requestLoader } from './batch.js';
import { currentPriceLoader, UnitEnum, type Unit } from './listing.js';

/** Open matches of a basket item (listings currently matched), by retailer slug then listing id, by item id (empty when none). */
const basketMatchesLoader = requestLoader<number, OpenMatchRow[]>(byId((ctx, ids) => openMatches(ctx.pool, ids), () => []));

/** PromoKinds whose promo price the basket shows as `promoPrice`: 1 special (everyone), 2 member/club price. */
const SHOWN_PROMO_KINDS: ReadonlySet<number> = new Set([1, 2]);

/** An open match with its listing's latest national span and the basis price that counts on it. */
export interface BasketMatchView extends OpenMatchRow {
  /** The listing's latest national span, or null when never priced nationally. */
  latest: CurrentSpan | null;
  /** Cents on the item's basis (src/domain/price-index.ts basisPrice), to 2 decimals; null when never priced. */
  basis: number | null;
}

/**
 * The basis price of a listing's latest national span for an item (src/domain/price-index.ts
 * basisPrice: a special counts, a club price does not; per kg or litre for a per-unit item with a g
 * or ml pack, else per pack), rounded to hundredths of a cent; null when never priced.
 */
export function latestBasis(row: Pick<OpenMatchRow, 'qty' | 'unit' | 'weighable'>, latest: CurrentSpan | null, perUnit: boolean): number | null {
  if (!latest) return null;
  const basis = basisPrice(
    { price: latest.price, promoPrice: latest.promo_price, promoKind: latest.promo_kind, qty: row.qty, unit: row.unit, weighable: row.weighable },
    perUnit,
  );
  return Math.round(basis * 100) / 100;
}

/**
 * Matches in the order get_basket_item lists them: retailer slug, then basis price (unpriced last),
 * then listing id. Returns a new array.
 */
export function orderMatches(matches: readonly BasketMatchView[]): BasketMatchView[] {
  return [...matches].sort(
    (a, b) =>
      (a.retailer < b.retailer ? -1 : a.retailer > b.retailer ? 1 : 0) ||
      (a.basis ?? Number.POSITIVE_INFINITY) - (b.basis ?? Number.POSITIVE_INFINITY) ||
      a.listing_id - b.listing_id,
  );
}

const OriginEnum = builder.enumType('BasketMatchOrigin', {
  description: 'Who made a basket match: the automatic matcher or a curator.',
  values: ['auto', 'manual'] as const,
});

const BasketMatchRef = builder.objectRef<BasketMatchView>('BasketMatch').implement({
  description:
    "A listing currently matched to a basket item, with its latest national price. A listing last priced more than 14 days before the index's day is still listed but does not count in the index.",
  fields: (t) => ({
    listingId: t.exposeInt('listing_id'),
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    name: t.exposeString('name'),
    brand: t.exposeString('brand', { nullable: true }),
    sizeText: t.exposeString('size_text', { nullable: true, description: 'Size as printed.' }),
    qty: t.exposeFloat('qty', { nullable: true, description: 'Pack quantity in unit.' }),
    unit: t.field({ type: UnitEnum, nullable: true, resolve: (m) => m.unit as Unit | null }),
    weighable: t.exposeBoolean('weighable', { description: 'Sold loose by weight: the price is per kilogram.' }),
    available: t.boolean({
      description: "Still on the retailer's site at the chain's last collection (flagged available and its latest national span open).",
      resolve: (m) => isAvailable(m.available_flag, m.latest),
    }),
    image: t.exposeString('image', { nullable: true }),
    origin: t.field({ type: OriginEnum, resolve: (m) => m.origin }),
    locked: t.exposeBoolean('locked', { description: 'Pinned by a curator: the matcher never changes it.' }),
    confidence: t.exposeFloat('confidence', { nullable: true, description: "The matcher's confidence, 0 to 1." }),
    validFrom: t.expose('valid_from', { type: 'Day', description: 'First day the match counts.' }),
    refPrice: t.int({
      nullable: true,
      description: "Basis price when matched (the base of the link factor), cents on the item's basis, rounded.",
      resolve: (m) => (m.ref_price === null ? null : Math.round(m.ref_price)),
    }),
    linkedRelative: t.exposeFloat('linked_relative', { nullable: true, description: "The item's relative on the day the listing joined." }),
    price: t.int({ nullable: true, description: 'National shelf price of the latest span, cents (per kg when weighable).', resolve: (m) => m.latest?.price ?? null }),
    promoPrice: t.int({
      nullable: true,
      description: 'Special or club price of the latest national span, cents, when one applies (promo kind 1 or 2).',
      resolve: (m) => (m.latest && m.latest.promo_kind !== null && SHOWN_PROMO_KINDS.has(m.latest.promo_kind) ? m.latest.promo_price : null),
    }),
    promoKind: t.int({ nullable: true, description: 'PromoKind of the latest national span (1 special, 2 club, 3 multibuy, 4 clearance).', resolve: (m) => m.latest?.promo_kind ?? null }),
    basisPrice: t.float({
      nullable: true,
      description:
        "The price that counts, cents on the item's comparison basis (to hundredths of a cent): per kg or litre for a per-unit item with a weight or volume pack, else per pack; a special counts, a club price does not.",
      resolve: (m) => m.basis,
    }),
    listing: t.prismaField({
      type: 'Listing',
      description: 'The matched listing (issue 20: the graph for dashboards); the matches of every item are read in one batched statement.',
      resolve: (query, m, _args, ctx) => ctx.prisma.listing.findUniqueOrThrow({ ...query, where: { id: m.listing_id } }),
    }),
    pricedOn: t.field({
      type: 'Day',
      nullable: true,
      description: 'Last day the price was seen: the end of the latest national span.',
      resolve: (m) => m.latest?.to ?? null,
    }),
  }),
});

/** The BasketItem object type. */
export const BasketItemRef = builder.objectRef<BasketItemRow>('BasketItem').implement({
  description: "One representative item of the official Food Price Index basket. Weights are percent of the whole basket.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    code: t.exposeString('code', { description: 'Official classification code (CPIM.SAP…), or the service\'s own stable code (NZGP.…).' }),
    name: t.exposeString('name', { description: 'Official item name.' }),
    groupId: t.exposeInt('group_id', { description: 'Basket group id (the group of indexSeries).' }),
    groupCode: t.exposeString('group_code'),
    groupName: t.exposeString('group_name'),
    groupWeight: t.float({ description: "The group's weight, percent of the basket.", resolve: (i) => percent(i.group_weight) }),
    weight: t.float({ description: "The item's weight, percent of the basket.", resolve: (i) => percent(i.weight) }),
    observable: t.exposeBoolean('observable', { description: 'Whether the group is priced on supermarket shelves.' }),
    perUnit: t.exposeBoolean('per_unit', { description: 'Compared per kg or litre instead of per pack.' }),
    spec: t.exposeString('spec', { nullable: true, description: 'The official size specification priced.' }),
    unit: t.field({ type: UnitEnum, description: 'Dimension of the specification: g, ml or each.', resolve: (i) => apiSize(i).unit }),
    qtyMin: t.float({ nullable: true, description: 'Smallest admitted pack, in unit.', resolve: (i) => apiSize(i).qty_min }),
    qtyMax: t.float({ nullable: true, description: 'Largest admitted pack, in unit.', resolve: (i) => apiSize(i).qty_max }),
    keywords: t.exposeStringList('keywords', { description: 'Phrases that match a listing name.' }),
    exclusions: t.exposeStringList('exclusions', { description: 'Phrases that refuse a listing.' }),
    matchCount: t.exposeInt('matches', { description: 'Listings currently matched.' }),
    relative: t.exposeFloat('relative', { nullable: true, description: 'Latest relative price, 1.0 on the item\'s base day; null before any computation.' }),
    stale: t.exposeBoolean('stale', { nullable: true, description: 'Carried forward past the staleness cap on the latest computed day.' }),
    matches: t.field({
      type: [BasketMatchRef],
      description: 'Every listing currently matched, by retailer slug, then basis price (unpriced last), then listing id.',
      resolve: async (item, _args, ctx) => {
        const rows = await basketMatchesLoader(ctx).load(item.id);
        const spans = await currentPriceLoader(ctx).loadMany(rows.map((r) => r.listing_id));
        return orderMatches(
          rows.map((row, i) => {
            const latest = spans[i];
            if (latest instanceof Error) throw latest;
            return { ...row, latest, basis: latestBasis(row, latest, item.per_unit) };
          }),
        );
      },
    }),
  }),
});

builder.queryFields((t) => ({
  basket: t.field({
    type: [BasketItemRef],
    description: 'The active basket items, by group id then name.',
    resolve: (_root, _args, ctx) => basketItems(ctx.pool),
  }),
  basketItem: t.field({
    type: BasketItemRef,
    nullable: true,
    description: 'One active basket item; NOT_FOUND when unknown or retired.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const [item] = await basketItems(ctx.pool, id);
      if (!item) throw new NotFound(`No basket item ${id}`);
      return item;
    },
  }),
}));
