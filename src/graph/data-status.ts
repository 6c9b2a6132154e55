/**
 * How old the data is (issue 26, "Say how old every fact is"; beyond the contract) and what is
 * still being computed (issue 28): the DataStatus, RetailerStatus, CollectRunStatus, JobRunStatus and DayGap types and the root field `dataStatus`, answered from
 * the collections log by src/services/data-status.ts (rules in src/domain/freshness.ts) with today
 * in New Zealand.
 */
import { builder } from '../builder.js';
import { STALE_AFTER_DAYS } from '../domain/freshness.js';
import { readDataStatus, type CollectRunStatus, type DataStatus, type DayGap, type RetailerStatus } from '../services/data-status.js';
import { JOB_RUN_STATUS_STATES, type JobRunStatus } from '../services/job-runs.js';

const DayGapRef = builder.objectRef<DayGap>('DayGap').implement({
  description: 'An inclusive range of days on which nothing was collected.',
  fields: (t) => ({
    from: t.expose('from', { type: 'Day', description: 'First day of the range.' }),
    to: t.expose('to', { type: 'Day', description: 'Last day of the range (inclusive).' }),
    days: t.exposeInt('days', { description: 'Days in the range.' }),
  }),
});

const CollectRunStatusRef = builder.objectRef<CollectRunStatus>('CollectRunStatus').implement({
  description: "A run of a chain's collector: one NZ day of its prices, every scope (store, or the nation) it covers.",
  fields: (t) => ({
    status: t.exposeString('status', { description: 'running, finished, aborted or failed.' }),
    day: t.expose('day', { type: 'Day', description: 'The day the run collects.' }),
    startedAt: t.expose('started_at', { type: 'DateTime', description: 'When the run started.' }),
    finishedAt: t.expose('finished_at', { type: 'DateTime', nullable: true, description: 'When it ended; null while running or when it was killed.' }),
    scopes: t.exposeInt('scopes', { description: 'Scopes (stores, or the nation) of the run.' }),
    collected: t.exposeInt('collected', { description: 'Scopes this run collected.' }),
    failed: t.exposeInt('failed', { description: 'Scopes that failed.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why the run failed or was aborted; null otherwise.' }),
  }),
});

const JobRunStateEnum = builder.enumType('JobRunState', {
  description: 'queued, running, finished, failed, or interrupted (it was queued or running when its process went away).',
  values: JOB_RUN_STATUS_STATES,
});

const JobRunStatusRef = builder.objectRef<JobRunStatus>('JobRunStatus').implement({
  description: "The newest run of one of the worker's jobs (import, ingest, collect, match, basket-match, index, views, export…).",
  fields: (t) => ({
    job: t.exposeString('job', { description: 'The job\'s name.' }),
    state: t.expose('state', { type: JobRunStateEnum }),
    queuedAt: t.expose('queued_at', { type: 'DateTime', description: 'When a pipeline planned it (or, run alone, when it started).' }),
    startedAt: t.expose('started_at', { type: 'DateTime', nullable: true, description: 'When it started; null while queued.' }),
    finishedAt: t.expose('finished_at', { type: 'DateTime', nullable: true, description: 'When it finished or failed; null otherwise.' }),
    seconds: t.exposeFloat('seconds', { nullable: true, description: 'How long it ran, in seconds; null unless it finished or failed.' }),
    changed: t.exposeString('changed', { nullable: true, description: 'What it changed in the data served (the data version\'s note); null when nothing.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed; null unless failed.' }),
  }),
});

const RetailerStatusRef = builder.objectRef<RetailerStatus>('RetailerStatus').implement({
  description: "How old one chain's data is.",
  fields: (t) => ({
    slug: t.exposeString('slug', { description: 'Retailer slug.' }),
    name: t.exposeString('name'),
    firstDay: t.expose('first_day', { type: 'Day', nullable: true, description: 'First collection day of the chain; null when never collected.' }),
    lastDay: t.expose('last_day', { type: 'Day', nullable: true, description: 'Last collection day of the chain; null when never collected.' }),
    lastRun: t.expose('last_run', { type: 'DateTime', nullable: true, description: 'When its prices were last collected; null when never.' }),
    daysSince: t.exposeInt('days_since', { nullable: true, description: 'Today − lastDay, in days; null when never collected.' }),
    stale: t.exposeBoolean('stale', { description: `daysSince over ${STALE_AFTER_DAYS}, or never collected.` }),
    storesActive: t.exposeInt('stores_active', { description: 'Active stores of the chain (0 for a national-only chain).' }),
    storesCollected: t.exposeInt('stores_collected', { description: 'Stores collected on lastDay.' }),
    listingsSeen: t.exposeInt('listings_seen', { description: 'Listings observed on lastDay (0 when never collected).' }),
    run: t.field({
      type: CollectRunStatusRef,
      nullable: true,
      description: "The chain's newest collector run; null when the collector never ran for it.",
      resolve: (r) => r.run,
    }),
    gaps: t.field({
      type: [DayGapRef],
      description: 'Ranges of days between firstDay and lastDay with no collection of the chain, oldest first.',
      resolve: (r) => r.gaps,
    }),
  }),
});

const DataStatusRef = builder.objectRef<DataStatus>('DataStatus').implement({
  description: 'How old the data is: the newest collection day, whether every chain is current, the days nothing was collected, and each chain\'s status.',
  fields: (t) => ({
    today: t.expose('today', { type: 'Day', description: 'Today in New Zealand when answered.' }),
    newestDay: t.expose('newest_day', { type: 'Day', nullable: true, description: 'Newest collection day over every chain; null when nothing has been collected.' }),
    fresh: t.exposeBoolean('fresh', {
      description: `True when some chain has been collected and every chain that has been collected was last collected within ${STALE_AFTER_DAYS} days.`,
    }),
    staleAfterDays: t.exposeInt('stale_after_days', { description: 'A chain not collected for more than this many days is stale.' }),
    capDays: t.exposeInt('cap_days', { description: 'The staleness cap in days: a price observed longer ago than this no longer counts as current.' }),
    gaps: t.field({
      type: [DayGapRef],
      description: 'Ranges of days between the first and the newest collection day on which no chain was collected, oldest first.',
      resolve: (s) => s.gaps,
    }),
    retailers: t.field({ type: [RetailerStatusRef], description: 'Every chain by slug, also those never collected.', resolve: (s) => s.retailers }),
    computing: t.exposeStringList('computing', {
      description:
        'The jobs queued or running now, in the order planned (e.g. import, match, basket-match, index, views on a first start); empty when nothing is being computed. While not empty, figures derived from the prices (matches, the index, levels, shelves, suggestions) may still change or be missing.',
    }),
    jobs: t.field({ type: [JobRunStatusRef], description: 'The newest run of every job, by name.', resolve: (s) => s.jobs }),
  }),
});

builder.queryField('dataStatus', (t) =>
  t.field({
    type: DataStatusRef,
    description: 'How old the data is, chain by chain (today in New Zealand).',
    resolve: (_root, _args, ctx) => readDataStatus(ctx.pool),
  }),
);
