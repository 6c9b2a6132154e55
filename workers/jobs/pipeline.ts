/**
 * The one pipeline (issue 27 item 1), written once: what brings data in (import, ingest, collect,
 * an export import, or nothing), then in this order
 *
 *   match → images → search sync / reindex → basket match → index → views → export
 *
 * each stage a job of ./catalog.ts run by the one runner (./runner.ts), each stage on or off per
 * {@link PipelinePlan}. The command line, the schedule (./schedule.ts) and start-up (./startup.ts)
 * only choose a plan. A source that throws stops the pipeline (what it committed stays, and the
 * next run's stages pick it up); a collection whose stores partly failed is not a throw: the
 * stages run over what was collected, then {@link CollectIncompleteError} names what failed.
 */
import type { IndexMethod } from '../../src/domain/index-method.js';
import { ExpectedError } from '../../src/errors.js';
import type { CollectReport } from '../collect/run.js';
import type { ImportReport } from '../import/index.js';
import {
  basketMatchJob,
  collectJob,
  exportJob,
  imagesJob,
  importExportJob,
  importJob,
  indexJob,
  ingestJob,
  matchJob,
  searchReindexJob,
  searchSyncJob,
  viewsJob,
  type CollectInput,
  type IngestInput,
  type IngestJobResult,
} from './catalog.js';
import type { Job } from './job.js';
import type { JobRunner } from './runner.js';

/** Where a pipeline's data comes from. */
export type PipelineSource =
  | { kind: 'none' }
  | { kind: 'import'; dataDir: string }
  | { kind: 'ingest'; input: IngestInput }
  | { kind: 'collect'; input: CollectInput }
  | { kind: 'import-export'; source: string };

/** Which stages run after the source. */
export interface PipelinePlan {
  source: PipelineSource;
  /** Matching across chains. `if-new-data`: only when the source merged a day. Default: always with a source, never without. */
  match?: 'always' | 'if-new-data' | 'never';
  /** New product images (collections), from `imageOrigin` when set. */
  images?: false | { imageOrigin?: string };
  /** Basket matching, the index and the derived views. Default true. */
  refresh?: boolean | 'if-new-data';
  /** The index from its first day. */
  full?: boolean;
  /** The index's method (default INDEX_METHOD). */
  method?: IndexMethod;
  /** The export after the views. */
  export?: boolean;
}

/** What a pipeline run did (the source's report, the listings it touched). */
export interface PipelineResult {
  source: ImportReport | IngestJobResult | CollectReport | unknown;
  /** Whether the source merged new data (always true for an import). */
  newData: boolean;
  /** The stages run, in order. */
  stages: string[];
}

/** The job that brings a source's data in; null for none. */
function sourceJob(src: PipelineSource): { name: string } | null {
  switch (src.kind) {
    case 'none':
      return null;
    case 'import':
      return importJob;
    case 'ingest':
      return ingestJob;
    case 'collect':
      return collectJob;
    case 'import-export':
      return importExportJob;
  }
}

/** When matching runs (see {@link PipelinePlan.match}). */
const matchWhen = (plan: PipelinePlan) => plan.match ?? (plan.source.kind === 'none' ? 'never' : 'always');
/** When basket matching, the index and the views run (see {@link PipelinePlan.refresh}). */
const refreshWhen = (plan: PipelinePlan) => plan.refresh ?? true;
/** Whether the source writes listings in bulk, so the search index is rebuilt rather than fed the touched listings. */
const reindexes = (src: PipelineSource) => src.kind === 'import' || src.kind === 'import-export';

/**
 * The stages `plan` may run, in order (job names): those {@link runPipeline} runs whatever the
 * source brings, and those it runs only when the source merged data or touched listings
 * (`if-new-data`, the search sync). The job log queues them all at the start, so the status
 * lists what is still to be computed; a stage found unneeded is taken off when the pipeline ends.
 */
export function plannedStages(plan: PipelinePlan, env: Pick<JobRunner['ctx']['env'], 'ELASTICSEARCH_URL'>): string[] {
  const stages: string[] = [];
  const source = sourceJob(plan.source);
  if (source) stages.push(source.name);
  if (matchWhen(plan) !== 'never') stages.push(matchJob.name);
  if (plan.images) stages.push(imagesJob.name);
  if (env.ELASTICSEARCH_URL) stages.push(reindexes(plan.source) ? searchReindexJob.name : searchSyncJob.name);
  if (refreshWhen(plan) !== false) stages.push(basketMatchJob.name, indexJob.name, viewsJob.name);
  if (plan.export) stages.push(exportJob.name);
  return stages;
}

/**
 * Runs a pipeline (see the module comment), its stages queued in the job log from the start
 * ({@link plannedStages}).
 * @throws the first failing job's error; CollectIncompleteError after the stages of a collection that left stores out.
 */
export async function runPipeline(runner: JobRunner, plan: PipelinePlan): Promise<PipelineResult> {
  const { env } = runner.ctx;
  return runner.withPlan(plannedStages(plan, env), async (log) => {
    const stages: string[] = [];
    const run = <I, R>(job: Job<I, R>, input: I): Promise<R> => {
      stages.push(job.name);
      return runner.run(job, input, log);
    };
    const touched = new Set<number>();
    let source: unknown = null;
    let newData = false;

    const src = plan.source;
    if (src.kind === 'import') {
      source = await run(importJob, { dataDir: src.dataDir });
      newData = true;
    } else if (src.kind === 'ingest') {
      const r = await run(ingestJob, src.input);
      source = r;
      newData = r.files.some((f) => f.result.merged.length > 0);
      for (const id of r.listingIds) touched.add(id);
    } else if (src.kind === 'collect') {
      const r = await run(collectJob, src.input);
      source = r;
      newData = r.ingested;
      for (const id of r.listingIds) touched.add(id);
    } else if (src.kind === 'import-export') {
      source = await run(importExportJob, { source: src.source });
      newData = true;
    }

    const match = matchWhen(plan);
    if (match === 'always' || (match === 'if-new-data' && newData)) {
      const m = await run(matchJob, {});
      for (const id of m.listingIds) touched.add(id);
    }
    let imagesChanged = false;
    if (plan.images) {
      const i = await run(imagesJob, { imageOrigin: plan.images.imageOrigin });
      for (const id of i.listingIds) touched.add(id);
      imagesChanged = i.listings > 0;
    }
    if (env.ELASTICSEARCH_URL) {
      if (reindexes(src)) {
        await run(searchReindexJob, undefined);
      } else if (touched.size > 0 || imagesChanged) {
        await run(searchSyncJob, { listingIds: [...touched].sort((a, b) => a - b), stays: 'the listings stay queued for the next run or search-reindex' });
      }
    }
    const refresh = refreshWhen(plan);
    if (refresh === true || (refresh === 'if-new-data' && newData)) {
      await run(basketMatchJob, {});
      await run(indexJob, { full: plan.full, method: plan.method });
      await run(viewsJob, {});
    }
    if (plan.export) await run(exportJob, undefined);
    if (src.kind === 'collect') failIfStoresFailed(source as CollectReport);
    return { source, newData, stages };
  });
}

/** A collection left stores or chains uncollected (what was collected is ingested). */
export class CollectIncompleteError extends ExpectedError {}

/** @throws CollectIncompleteError naming the chains and stores that could not be collected. */
function failIfStoresFailed(report: CollectReport): void {
  const failed = report.chains.filter((c) => c.status === 'failed' || c.failed.length > 0);
  if (failed.length) {
    throw new CollectIncompleteError(
      `collection incomplete: ${failed.map((c) => `${c.retailer} ${c.failed.length ? `${c.failed.length} stores failed (${c.failed.map((f) => f.scope || 'national').join(', ')})` : 'failed'}`).join('; ')}; what was collected is ingested`,
    );
  }
}
