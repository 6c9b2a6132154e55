/**
 * The nowcast's track record against Stats NZ's Food Price Index (beyond the contract, issue 30):
 * IndexValidation and its parts; root field `indexValidation`. Reads in
 * src/services/index-validation.ts; the formula is src/domain/index-validation.ts.
 */
import { builder } from '../builder.js';
import { INTERVAL_LEVEL, MIN_INTERVAL_MONTHS, type MonthEstimate, type ValidationMonth, type ValidationSummary } from '../domain/index-validation.js';
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

const MonthEstimateRef = builder.objectRef<MonthEstimate>('MonthEstimate').implement({
  description:
    "The estimate of the latest month's change as of its last observed day: once the month is complete the nowcast's final change, before that the same-day estimate (means of days 1 to throughDay of the month and of the previous one), with a prediction interval from the same estimate's errors in the earlier counted months.",
  fields: (t) => ({
    month: t.exposeString('month', { description: '`YYYY-MM`.' }),
    asOf: t.exposeString('asOf', { description: 'Last day of the month observed (`YYYY-MM-DD`): the day the estimate describes.' }),
    days: t.exposeInt('days', { description: 'Days of the month the index computed.' }),
    final: t.exposeBoolean('final', { description: "The month is complete: change is the nowcast's final change." }),
    throughDay: t.exposeInt('throughDay', { description: "Days 1 to throughDay of both months are compared (the month's length when final)." }),
    change: t.exposeFloat('change', { nullable: true, description: 'Estimated monthly change, %; null without the previous month.' }),
    low: t.exposeFloat('low', { nullable: true, description: `Lower end of the interval, %; null with fewer than ${MIN_INTERVAL_MONTHS} past errors.` }),
    high: t.exposeFloat('high', { nullable: true, description: 'Upper end of the interval, %.' }),
    level: t.exposeFloat('level', { description: `Two-sided level of the interval (${INTERVAL_LEVEL}): change ± t quantile (n degrees of freedom) × past RMSE.` }),
    pastMonths: t.exposeInt('pastMonths', { description: 'Earlier counted months whose errors give the interval.' }),
    pastRmse: t.exposeFloat('pastRmse', { nullable: true, description: 'Root mean square of those errors, pp.' }),
    official: t.exposeFloat('official', { nullable: true, description: "Stats NZ's change when published, else null." }),
    error: t.exposeFloat('error', { nullable: true, description: 'change − official, pp.' }),
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
    estimate: t.field({ type: MonthEstimateRef, nullable: true, description: 'The latest month computed, with an interval; null without index days.', resolve: (a) => a.estimate }),
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
