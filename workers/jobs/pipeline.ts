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

/**
 * Runs a pipeline (see the module comment).
 * @throws the first failing job's error; CollectIncompleteError after the stages of a collection that left stores out.
 */
export async function runPipeline(runner: JobRunner, plan: PipelinePlan): Promise<PipelineResult> {
  const { env } = runner.ctx;
  const stages: string[] = [];
  const touched = new Set<number>();
  let source: unknown = null;
  let newData = false;
  let reindex = false;

  const src = plan.source;
  if (src.kind === 'import') {
    stages.push('import');
    source = await runner.run(importJob, { dataDir: src.dataDir });
    newData = true;
    reindex = true; // an import writes listings in bulk: rebuild the search index rather than queue them
  } else if (src.kind === 'ingest') {
    stages.push('ingest');
    const r = await runner.run(ingestJob, src.input);
    source = r;
    newData = r.files.some((f) => f.result.merged.length > 0);
    for (const id of r.listingIds) touched.add(id);
  } else if (src.kind === 'collect') {
    stages.push('collect');
    const r = await runner.run(collectJob, src.input);
    source = r;
    newData = r.ingested;
    for (const id of r.listingIds) touched.add(id);
  } else if (src.kind === 'import-export') {
    stages.push('import-export');
    source = await runner.run(importExportJob, { source: src.source });
    newData = true;
    reindex = true;
  }

  const match = plan.match ?? (src.kind === 'none' ? 'never' : 'always');
  if (match === 'always' || (match === 'if-new-data' && newData)) {
    stages.push('match');
    const m = await runner.run(matchJob, {});
    for (const id of m.listingIds) touched.add(id);
  }
  let imagesChanged = false;
  if (plan.images) {
    stages.push('images');
    const i = await runner.run(imagesJob, { imageOrigin: plan.images.imageOrigin });
    for (const id of i.listingIds) touched.add(id);
    imagesChanged = i.listings > 0;
  }
  if (env.ELASTICSEARCH_URL) {
    if (reindex) {
      stages.push('search-reindex');
      await runner.run(searchReindexJob, undefined);
    } else if (touched.size > 0 || imagesChanged) {
      stages.push('search-sync');
      await runner.run(searchSyncJob, { listingIds: [...touched].sort((a, b) => a - b), stays: 'the listings stay queued for the next run or search-reindex' });
    }
  }
  const refresh = plan.refresh ?? true;
  if (refresh === true || (refresh === 'if-new-data' && newData)) {
    stages.push('basket-match', 'index', 'views');
    await runner.run(basketMatchJob, {});
    await runner.run(indexJob, { full: plan.full });
    await runner.run(viewsJob, {});
  }
  if (plan.export) {
    stages.push('export');
    await runner.run(exportJob, undefined);
  }
  if (src.kind === 'collect') failIfStoresFailed(source as CollectReport);
  return { source, newData, stages };
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
