/**
 * The daily food-price index (api-spec "Index resources"): IndexLatest, IndexPoint, GroupSeries,
 * IndexGroups, ItemSeries, IndexItems; root fields `indexLatest`, `indexSeries`, `indexGroups` and
 * `indexItems`. A nowcast of Stats NZ's Food Price Index, not an official statistic: `raw` is
 * chained with base 1000 on the index's first day, `anchored` is raw scaled to the last official
 * month (the official base, June 2017 = 1000). Days `YYYY-MM-DD` (NZ). Windows end at the index's
 * last computed day, not today. Reads are in src/services/food-index.ts.
 */
import { builder } from '../builder.js';
import { isDay, nzToday } from '../domain/days.js';
import { DAYS_WINDOW } from '../domain/limits.js';
import { NotFound } from '../errors.js';
import {
  indexGroups, indexItems, indexLatest, indexSeries,
  type GroupSeries, type IndexGroupLevel, type IndexGroups, type IndexHeadline, type IndexItems, type IndexLatest, type IndexPointRow, type ItemSeries,
} from '../services/food-index.js';
import { UnitEnum } from './listing.js';

/**
 * The default `from` of indexSeries: the same calendar day one year before `to` (28 February for
 * a 29 February).
 */
export function yearBefore(to: string): string {
  const back = `${String(Number(to.slice(0, 4)) - 1).padStart(4, '0')}${to.slice(4)}`;
  return isDay(back) ? back : `${back.slice(0, 8)}28`;
}

const IndexHeadlineRef = builder.objectRef<IndexHeadline>('IndexHeadline').implement({
  description: "All food on the index's last computed day, with its changes in percent.",
  fields: (t) => ({
    value: t.exposeFloat('value', { description: 'Anchored level (official base 1000); the raw level when no official month overlaps.' }),
    d1: t.exposeFloat('d1', { nullable: true, description: 'Percent change over one day; null when that day was not computed.' }),
    d30: t.exposeFloat('d30', { nullable: true, description: 'Percent change over 30 days; null when that day was not computed.' }),
    yoy: t.exposeFloat('yoy', { nullable: true, description: 'Percent change over 365 days; null when that day was not computed.' }),
  }),
});

const IndexCoverageRef = builder.objectRef<IndexLatest['coverage']>('IndexCoverage').implement({
  description: 'What the index observed on a day.',
  fields: (t) => ({
    weight: t.exposeFloat('weight', { description: 'Share (0 to 1) of the observable basket weight with a counted listing.' }),
    listings: t.exposeInt('listings', { description: 'Listings counted.' }),
    items: t.exposeInt('items', { description: 'Basket items with a counted listing.' }),
  }),
});

const IndexGroupLevelRef = builder.objectRef<IndexGroupLevel>('IndexGroupLevel').implement({
  description: 'One observable basket group on the index\'s last computed day.',
  fields: (t) => ({
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    value: t.exposeFloat('value', { description: 'Anchored level; the raw level when no official month overlaps.' }),
    coverage: t.exposeFloat('coverage', { description: "Share (0 to 1) of the group's weight observed." }),
  }),
});

const SparklineRef = builder.objectRef<IndexLatest['sparkline']>('Sparkline').implement({
  description: 'A short daily series: one value per consecutive day from t0.',
  fields: (t) => ({
    t0: t.expose('t0', { type: 'Day', nullable: true, description: 'Day of the first value; null when there is none.' }),
    v: t.exposeFloatList('v'),
  }),
});

const IndexLatestRef = builder.objectRef<IndexLatest>('IndexLatest').implement({
  description: "The food-price index on its last computed day (a nowcast of Stats NZ's Food Price Index, not an official statistic).",
  fields: (t) => ({
    asOf: t.expose('as_of', { type: 'Day', description: 'The last computed day (not necessarily today).' }),
    headline: t.field({ type: IndexHeadlineRef, resolve: (l) => l.headline }),
    coverage: t.field({ type: IndexCoverageRef, description: 'All food that day.', resolve: (l) => l.coverage }),
    groups: t.field({ type: [IndexGroupLevelRef], description: 'The observable groups, by id.', resolve: (l) => l.groups }),
    sparkline: t.field({ type: SparklineRef, description: 'The headline series over the last 90 days (from the latest day without a value).', resolve: (l) => l.sparkline }),
  }),
});

const IndexPointRef = builder.objectRef<IndexPointRow>('IndexPoint').implement({
  description: 'One aggregate (all food or a basket group) on one computed day.',
  fields: (t) => ({
    day: t.expose('day', { type: 'Day' }),
    groupId: t.exposeInt('group_id', { description: '0 is all food, else a basket group id.' }),
    raw: t.exposeFloat('raw', { description: "Chained series, 1000 on the index's first day." }),
    anchored: t.exposeFloat('anchored', { nullable: true, description: 'Raw scaled to the last official monthly value; null when none overlaps.' }),
    coverage: t.exposeFloat('coverage', { description: 'Share (0 to 1) of the observable weight with a counted listing.' }),
    items: t.exposeInt('items', { description: 'Basket items counted.' }),
    listings: t.exposeInt('listings', { description: 'Listings counted.' }),
  }),
});

const nullableFloats = { nullable: { list: false, items: true } } as const;

const GroupSeriesRef = builder.objectRef<GroupSeries>('GroupSeries').implement({
  description: 'All food or one basket group over a window, as arrays aligned with the days; null where it has no value.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: '0 is all food.' }),
    code: t.exposeString('code', { description: '`all` for all food.' }),
    name: t.exposeString('name'),
    weight: t.exposeFloat('weight', { description: 'Basket weight, percent (100 for all food).' }),
    anchored: t.exposeFloatList('anchored', nullableFloats),
    raw: t.exposeFloatList('raw', nullableFloats),
    coverage: t.exposeFloatList('coverage', nullableFloats),
  }),
});

const IndexGroupsRef = builder.objectRef<IndexGroups>('IndexGroups').implement({
  description: 'All food and every basket group over the computed days of a window.',
  fields: (t) => ({
    days: t.expose('days', { type: ['Day'] }),
    groups: t.field({ type: [GroupSeriesRef], description: 'All food first, then the groups by id.', resolve: (g) => g.groups }),
  }),
});

const ItemSeriesRef = builder.objectRef<ItemSeries>('ItemSeries').implement({
  description: "One observable basket item's daily relative price over a window, aligned with the days.",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Basket item id.' }),
    name: t.exposeString('name'),
    group: t.exposeString('group', { description: 'Basket group code.' }),
    weight: t.exposeFloat('weight', { description: 'Weight, percent of the basket.' }),
    perUnit: t.exposeBoolean('per_unit', { description: 'Compared per kg or litre instead of per pack.' }),
    spec: t.exposeString('spec', { nullable: true, description: 'The official representative size.' }),
    unit: t.field({ type: UnitEnum, description: 'Dimension of the specification: g, ml or each.', resolve: (i) => i.unit }),
    relative: t.exposeFloatList('relative', { ...nullableFloats, description: "1.0 is the item's level on its base day; null where not computed." }),
    n: t.exposeIntList('n', { nullable: { list: false, items: true }, description: 'Listings counted; 0 means carried forward.' }),
  }),
});

const IndexItemsRef = builder.objectRef<IndexItems>('IndexItems').implement({
  description: 'One series per observable basket item over the computed days of a window.',
  fields: (t) => ({
    days: t.expose('days', { type: ['Day'] }),
    items: t.field({ type: [ItemSeriesRef], description: 'By group id, then name.', resolve: (i) => i.items }),
  }),
});

const windowArg = `Calendar days ending at the index's last computed day (not today), ${DAYS_WINDOW.min} to ${DAYS_WINDOW.max}.`;

builder.queryFields((t) => ({
  indexLatest: t.field({
    type: IndexLatestRef,
    nullable: true,
    description: 'The index on its last computed day; NOT_FOUND before the first computation.',
    resolve: async (_root, _args, ctx) => {
      const latest = await indexLatest(ctx.pool);
      if (!latest) throw new NotFound('No food price index has been computed yet');
      return latest;
    },
  }),
  indexSeries: t.field({
    type: [IndexPointRef],
    description:
      'Daily points of all food (group 0) or one basket group, oldest first; days not computed are absent. BAD_REQUEST when from is after to or the group is unknown.',
    args: {
      group: t.arg.int({ defaultValue: 0, description: '0 is all food; else a basket group id.' }),
      from: t.arg({ type: 'Day', description: 'First day, inclusive (default: one year before to).' }),
      to: t.arg({ type: 'Day', description: 'Last day, inclusive (default: today in New Zealand).' }),
    },
    resolve: (_root, args, ctx) => {
      const to = args.to ?? nzToday();
      return indexSeries(ctx.pool, args.group ?? 0, args.from ?? yearBefore(to), to);
    },
  }),
  indexGroups: t.field({
    type: IndexGroupsRef,
    description: 'All food and every basket group over a window; empty days before the first computation.',
    args: { days: t.arg.int({ defaultValue: DAYS_WINDOW.default, description: windowArg }) },
    resolve: (_root, args, ctx) => indexGroups(ctx.pool, args.days ?? DAYS_WINDOW.default),
  }),
  indexItems: t.field({
    type: IndexItemsRef,
    description: 'One series per observable basket item over a window; empty days before the first computation.',
    args: { days: t.arg.int({ defaultValue: DAYS_WINDOW.default, description: windowArg }) },
    resolve: (_root, args, ctx) => indexItems(ctx.pool, args.days ?? DAYS_WINDOW.default),
  }),
}));
