/**
 * The chain comparison (api-spec "Retailer and store level series", compare_retailers,
 * get_retailer_levels): ChainLevel, CompareGroup, ChainPrice, CompareItem, Compare, LevelSeries,
 * RetailerLevels and ChainGroupLevel; root fields `compare` and `retailerLevels`; and on Retailer
 * the fields `level`, `groupLevels` and `levelSeries(days)`. A level is the weighted geometric mean
 * over basket items of (chain price ÷ cross-chain median): 1.0 is the median, 0.92 means 8 %
 * cheaper. Prices are integer NZ cents on the item's basis (per kg or litre for per-unit items);
 * specials count, club prices do not. Where the contract has maps keyed by retailer slug, the graph
 * has lists of entries carrying the slug. Reads are in src/services/chain-levels.ts; the Retailer
 * fields go through the loaders defined here (cached per request), so a list of chains costs a
 * fixed number of statements.
 */
import { builder } from '../builder.js';
import { DAYS_WINDOW } from '../domain/limits.js';
import {
  compareRetailers, latestChainLevels, retailerLevels,
  type ChainGroupLevel, type ChainLevel, type ChainPrice, type Compare, type CompareGroup, type CompareItem, type LevelSeries, type RetailerLevels,
} from '../services/chain-levels.js';
import { byId, requestLoader } from './batch.js';
import { UnitEnum } from './listing.js';

/** A chain's latest-day chain levels (all food, then the groups by id), by retailer id (empty before the first build): Retailer.level and groupLevels. */
const chainLevelsLoader = requestLoader<number, ChainGroupLevel[]>(byId((ctx, ids) => latestChainLevels(ctx.pool, ids), () => []));

/**
 * Every chain's all-food level series over a window, keyed by the window's `days`: one read per
 * distinct window, shared by the root `retailerLevels` and every Retailer.levelSeries of a request
 * (a window's failure is that window's error only).
 */
const retailerLevelsLoader = requestLoader<number, RetailerLevels>((windows, ctx) =>
  Promise.all(windows.map((days) => retailerLevels(ctx.pool, days).catch((e: Error) => e))),
);

const nullableItems = { nullable: { list: false, items: true } } as const;

/** The ChainLevel object type: one chain's level over a set of basket items on one day. */
export const ChainLevelRef = builder.objectRef<ChainLevel>('ChainLevel').implement({
  description: "One chain's basket level on one day: 1.0 is the cross-chain median, 0.92 means 8 % cheaper.",
  fields: (t) => ({
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    level: t.exposeFloat('level', { nullable: true, description: 'Weighted geometric mean of (chain price ÷ cross-chain median); null when too few items are comparable.' }),
    items: t.exposeInt('items', { description: 'Basket items the level is computed from.' }),
  }),
});

const CompareGroupRef = builder.objectRef<CompareGroup>('CompareGroup').implement({
  description: "One basket group's chain levels on the comparison's day.",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Basket group id.' }),
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    weight: t.exposeFloat('weight', { description: "The group's weight, percent of the basket." }),
    levels: t.field({ type: [ChainLevelRef], description: 'One entry per compared chain with a level row that day, largest catalogue first.', resolve: (g) => g.levels }),
  }),
});

const ChainPriceRef = builder.objectRef<ChainPrice>('ChainPrice').implement({
  description: "A basket item's price at one chain.",
  fields: (t) => ({
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    price: t.exposeInt('price', {
      description: "Median over the chain's matched listings of their national price on the item's basis, cents (specials count, club prices do not).",
    }),
    listings: t.exposeInt('listings', { description: 'Listings the median is taken over.' }),
  }),
});

const CompareItemRef = builder.objectRef<CompareItem>('CompareItem').implement({
  description: 'One basket item priced at one or more chains.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Basket item id.' }),
    name: t.exposeString('name'),
    group: t.exposeString('group', { description: 'Basket group code.' }),
    perUnit: t.exposeBoolean('per_unit', { description: 'Priced per kg or litre rather than per pack.' }),
    prices: t.field({ type: [ChainPriceRef], description: 'One entry per chain pricing it, largest catalogue first.', resolve: (i) => i.prices }),
    spec: t.exposeString('spec', { nullable: true, description: 'The official size specification.' }),
    unit: t.field({ type: UnitEnum, nullable: true, description: 'Dimension of the specification: g, ml or each.', resolve: (i) => i.unit }),
  }),
});

const CompareRef = builder.objectRef<Compare>('Compare').implement({
  description: 'Each basket item priced at each chain from national medians, with weighted headline and group levels (1.0 = cross-chain median). Recomputed at most every ten minutes.',
  fields: (t) => ({
    day: t.expose('day', { type: 'Day', nullable: true, description: 'The day of the levels (their latest day); null before the first build.' }),
    retailers: t.exposeStringList('retailers', { description: 'Slugs of the chains with any priced basket item, largest catalogue first.' }),
    headline: t.field({
      type: [ChainLevelRef],
      description: 'All food: one entry per compared chain with a level row that day (level null when too few items are comparable).',
      resolve: (c) => c.headline,
    }),
    groups: t.field({ type: [CompareGroupRef], description: 'The observable basket groups, by id.', resolve: (c) => c.groups }),
    items: t.field({ type: [CompareItemRef], description: 'Active basket items with at least one chain price, by group id then name.', resolve: (c) => c.items }),
  }),
});

const LevelSeriesRef = builder.objectRef<LevelSeries>('LevelSeries').implement({
  description: "One chain's all-food level over a window, aligned with the days; null where it has no value.",
  fields: (t) => ({
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    days: t.expose('days', { type: ['Day'], description: 'The days the arrays are aligned with.' }),
    level: t.exposeFloatList('level', { ...nullableItems, description: '1.0 is the cross-chain median that day.' }),
    items: t.exposeIntList('items', { ...nullableItems, description: 'Basket items priced that day.' }),
  }),
});

const RetailerLevelsRef = builder.objectRef<RetailerLevels>('RetailerLevels').implement({
  description: "Every chain's all-food level for each day the index computed in a window.",
  fields: (t) => ({
    days: t.expose('days', { type: ['Day'], description: "The index's computed days in the window, oldest first." }),
    retailers: t.field({ type: [LevelSeriesRef], description: 'Chains with a level row in the window, largest catalogue first.', resolve: (l) => l.retailers }),
  }),
});

const ChainGroupLevelRef = builder.objectRef<ChainGroupLevel>('ChainGroupLevel').implement({
  description: "A chain's level over one basket group on the comparison's day.",
  fields: (t) => ({
    groupId: t.exposeInt('group_id', { description: 'Basket group id (0 is all food).' }),
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    day: t.expose('day', { type: 'Day' }),
    level: t.exposeFloat('level', { nullable: true, description: '1.0 is the cross-chain median; null when no item is comparable.' }),
    items: t.exposeInt('items', { description: 'Basket items the level is computed from.' }),
  }),
});

const windowArg = `Calendar days ending at the index's last computed day (not today), ${DAYS_WINDOW.min} to ${DAYS_WINDOW.max}.`;

builder.prismaObjectFields('Retailer', (t) => ({
  level: t.field({
    type: ChainLevelRef,
    nullable: true,
    description: "The chain's all-food level on the comparison's day (compare headline); null when it has no row that day.",
    resolve: async (r, _args, ctx) => {
      const row = (await chainLevelsLoader(ctx).load(r.id)).find((g) => g.group_id === 0);
      return row ? { retailer: r.slug, level: row.level, items: row.items } : null;
    },
  }),
  groupLevels: t.field({
    type: [ChainGroupLevelRef],
    description: "The chain's level per basket group on the comparison's day, by group id (empty when it has none).",
    resolve: async (r, _args, ctx) => (await chainLevelsLoader(ctx).load(r.id)).filter((g) => g.group_id !== 0),
  }),
  levelSeries: t.field({
    type: LevelSeriesRef,
    description: "The chain's all-food level for each day the index computed in the window (all null when it has no row there).",
    args: { days: t.arg.int({ defaultValue: DAYS_WINDOW.default, description: windowArg }) },
    resolve: async (r, args, ctx) => {
      const all = await retailerLevelsLoader(ctx).load(args.days ?? DAYS_WINDOW.default);
      return (
        all.retailers.find((s) => s.retailer === r.slug) ?? {
          retailer: r.slug,
          days: all.days,
          level: all.days.map(() => null),
          items: all.days.map(() => null),
        }
      );
    },
  }),
}));

builder.queryFields((t) => ({
  compare: t.field({
    type: CompareRef,
    description: 'The chain comparison: every basket item at every chain, and the chains\' headline and group levels.',
    resolve: (_root, _args, ctx) => compareRetailers(ctx.pool),
  }),
  retailerLevels: t.field({
    type: RetailerLevelsRef,
    description: `Every chain's all-food level over a window; BAD_REQUEST when days is outside ${DAYS_WINDOW.min} to ${DAYS_WINDOW.max}; empty days before the first index computation.`,
    args: { days: t.arg.int({ defaultValue: DAYS_WINDOW.default, description: windowArg }) },
    // Through the loader: a document that also asks Retailer.levelSeries for the same window reads it once.
    resolve: (_root, args, ctx) => retailerLevelsLoader(ctx).load(args.days ?? DAYS_WINDOW.default),
  }),
}));
