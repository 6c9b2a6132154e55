/**
 * The nowcast's track record against Stats NZ's Food Price Index (beyond the contract, issue 30):
 * IndexValidation and its parts; root field `indexValidation`. Reads in
 * src/services/index-validation.ts; the formula is src/domain/index-validation.ts.
 */
import { builder } from '../builder.js';
import type { ValidationMonth, ValidationSummary } from '../domain/index-validation.js';
import { indexValidation, type IndexValidation, type UnobservableGroup, type ValidationAggregate } from '../services/index-validation.js';

const ValidationMonthRef = builder.objectRef<ValidationMonth>('ValidationMonth').implement({
  description: 'One month of an aggregate: changes in percent against the previous month, errors in percentage points (nowcast − official).',
  fields: (t) => ({
    month: t.exposeString('month', { description: '`YYYY-MM`.' }),
    official: t.exposeFloat('official', { nullable: true, description: "Stats NZ's monthly change; null without both official months." }),
    nowcast: t.exposeFloat('nowcast', { nullable: true, description: "Change of the means of the months' daily raw values; null without the previous month." }),
    error: t.exposeFloat('error', { nullable: true, description: 'nowcast − official.' }),
    firstDays: t.exposeFloat('firstDays', { nullable: true, description: 'Change of the means of days 1 to 15 of the two months (the early estimate).' }),
    firstDaysError: t.exposeFloat('firstDaysError', { nullable: true, description: 'firstDays − official.' }),
    coverage: t.exposeFloat('coverage', { description: "Mean over the month's days of the share (0 to 1) of observable weight with a counted listing." }),
    days: t.exposeInt('days', { description: 'Days of the month the index computed.' }),
    complete: t.exposeBoolean('complete', { description: 'Every calendar day computed with coverage above 0.' }),
    counted: t.exposeBoolean('counted', { description: 'In the summary: complete, with an official and a nowcast change.' }),
  }),
});

const ValidationSummaryRef = builder.objectRef<ValidationSummary>('ValidationSummary').implement({
  description: 'Mean absolute errors, percentage points, over the counted months; null when none counts.',
  fields: (t) => ({
    months: t.exposeInt('months', { description: 'Counted months.' }),
    nowcast: t.exposeFloat('nowcast', { nullable: true, description: 'MAE of the nowcast (whole months).' }),
    firstDays: t.exposeFloat('firstDays', { nullable: true, description: 'MAE of the first-15-days estimate.' }),
    flat: t.exposeFloat('flat', { nullable: true, description: 'MAE of the flat forecast (0 % every month).' }),
  }),
});

const ValidationAggregateRef = builder.objectRef<ValidationAggregate>('ValidationAggregate').implement({
  description: 'All food or one observable basket group against its official series.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: '0 is all food, else a basket group id.' }),
    code: t.exposeString('code', { description: '`all` for all food.' }),
    name: t.exposeString('name'),
    seriesRef: t.exposeString('series_ref', { description: 'The Stats NZ series compared with.' }),
    summary: t.field({ type: ValidationSummaryRef, resolve: (a) => a.summary }),
    months: t.field({ type: [ValidationMonthRef], description: 'Every month the index computed, oldest first.', resolve: (a) => a.months }),
  }),
});

const UnobservableGroupRef = builder.objectRef<UnobservableGroup>('UnobservableGroup').implement({
  description: 'A basket group the nowcast cannot observe on shelves.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    code: t.exposeString('code'),
    name: t.exposeString('name'),
    seriesRef: t.exposeString('series_ref'),
    reason: t.exposeString('reason'),
  }),
});

const IndexValidationRef = builder.objectRef<IndexValidation>('IndexValidation').implement({
  description: "The nowcast's track record against Stats NZ's Food Price Index, month by month.",
  fields: (t) => ({
    method: t.exposeString('method', { description: 'The nowcast method.' }),
    firstDays: t.exposeInt('first_days', { description: 'Days of the month (from the 1st) the early estimate uses.' }),
    aggregates: t.field({ type: [ValidationAggregateRef], description: 'All food first, then the observable groups by id.', resolve: (v) => v.aggregates }),
    unobservable: t.field({ type: [UnobservableGroupRef], description: 'Groups with no nowcast, and why.', resolve: (v) => v.unobservable }),
  }),
});

builder.queryFields((t) => ({
  indexValidation: t.field({
    type: IndexValidationRef,
    description: "The nowcast's monthly changes against Stats NZ's Food Price Index, with mean absolute errors against the flat forecast.",
    resolve: (_root, _args, ctx) => indexValidation(ctx.pool),
  }),
}));
