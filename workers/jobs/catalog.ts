/**
 * Every job of the worker process, declared once (issue 27 item 1; the model is ./job.ts, the
 * runner ./runner.ts). Each wraps the module that does the work and says which locks it takes,
 * when its result changed what the API serves (the runner then moves the data version), whether
 * it may be retried and how its report prints. The pipelines that chain them are ./pipeline.ts.
 */
import { publicBaseUrl } from '../../src/env.js';
import { ExpectedError } from '../../src/errors.js';
import { describeError, createElasticsearchClient } from '../../src/search/elasticsearch/client.js';
import { importRealData, type ImportReport } from '../import/index.js';
import { ingest, type IngestResult } from '../ingest/ingest.js';
import { readObservationFile, type RawRecord } from '../ingest/format.js';
import type { CollectionMode } from '../../src/domain/spans.js';
import { runMatching, type MatchReport } from '../match/match.js';
import { linkListing, setLocked, unlinkListing, type CommandResult } from '../match/admin.js';
import { runBasketMatching, type BasketMatchReport } from '../index/match.js';
import { basketLock, basketMatch, basketUnmatch, type BasketCommandResult } from '../index/admin.js';
import { runIndex, type IndexReport } from '../index/compute.js';
import type { IndexMethod } from '../../src/domain/index-method.js';
import { runViews, type ViewsReport } from '../views/run.js';
import { markSuggestCurrent } from '../views/suggest.js';
import { processNewImages, type ImageReport } from '../images/images.js';
import { imageUserAgent } from '../images/fetch.js';
import { collectConfig, runCollect, type CollectReport } from '../collect/run.js';
import { enqueueListings, syncPendingListings, type SyncResult } from '../search/sync.js';
import { reindexListings, type ReindexResult } from '../search/reindex.js';
import { runExport, type ExportResult } from '../export/export.js';
import { importExport, type ImportExportResult } from '../export/import.js';
import { defineJob, type JobContext } from './job.js';

/** A search index write failed (the message says what stays queued). */
export class SearchUpdateError extends ExpectedError {}

/** Imports the real data of DATA_DIR (workers/import): each step once per source digest. */
export const importJob = defineJob<{ dataDir: string }, ImportReport>({
  name: 'import',
  locks: ['import', 'ingest'],
  commitsAsItGoes: true,
  perform: (ctx, { dataDir }) => importRealData(ctx.pool, dataDir, { progress: ctx.progress }),
  // Stores, catalogue and days may all have been written: the version moves after every import.
  changed: () => 'import',
  report: (r) => `import: ${JSON.stringify(r)}`,
});

/**
 * Observations already in memory, ingested as one source (a collector's or a test's rows; the same
 * record shape as a line of an observation file, docs/ingest.md "Observation format").
 */
export interface IngestBatch {
  /** Recorded with each collection, as a file name would be. */
  source: string;
  records: AsyncIterable<RawRecord> | Iterable<RawRecord>;
}

/** Input of {@link ingestJob}: observation files and in-memory batches (in that order), and how they cover their scopes. */
export interface IngestInput {
  files?: readonly string[];
  batches?: readonly IngestBatch[];
  mode: CollectionMode;
  afterGap: boolean;
  /** Today's NZ day (ingest's `today`; default today in Pacific/Auckland). */
  today?: string;
}

/** What {@link ingestJob} did, per file or batch. */
export interface IngestJobResult {
  files: { file: string; result: IngestResult }[];
  /** Listings the files touched (for the search index). */
  listingIds: number[];
}

/** Ingests observation files and batches one after the other (workers/ingest); each merged day commits on its own. */
export const ingestJob = defineJob<IngestInput, IngestJobResult>({
  name: 'ingest',
  locks: ['ingest'],
  commitsAsItGoes: true,
  perform: async (ctx, input) => {
    const out: IngestJobResult = { files: [], listingIds: [] };
    const sources: IngestBatch[] = [
      ...(input.files ?? []).map((file) => ({ source: file, records: readObservationFile(file) })),
      ...(input.batches ?? []),
    ];
    for (const { source, records } of sources) {
      const result = await ingest(ctx.pool, records, { mode: input.mode, afterGap: input.afterGap, source, progress: ctx.progress, today: input.today });
      ctx.log(`${source}: ${result.rows} rows, ${result.days.length} days, ${result.merged.length} merged, ${result.skipped} chain-days already ingested`);
      out.files.push({ file: source, result });
      out.listingIds.push(...result.listingIds);
    }
    return out;
  },
  changed: (r) => {
    const days = [...new Set(r.files.flatMap((f) => f.result.merged))].sort();
    return days.length === 0 ? null : `ingest ${days.length === 1 ? days[0] : `${days[0]}..${days[days.length - 1]}`}`;
  },
});

/** Input of {@link collectJob}: which chains and stores, from where, which day. */
export interface CollectInput {
  retailers: readonly string[] | 'all';
  stores?: readonly number[];
  origin?: string;
  day?: string;
}

/** Collects the chains' online shops (workers/collect) and ingests what it read. */
export const collectJob = defineJob<CollectInput, CollectReport>({
  name: 'collect',
  locks: ['collect', 'ingest'],
  commitsAsItGoes: true,
  perform: (ctx, input) => runCollect(ctx.pool, { ...input, config: collectConfig(ctx.env), progress: ctx.progress }),
  // Store directories and the run log (retailer.last_run) move even when no day was merged.
  changed: (r, input) => `collect ${input.retailers === 'all' ? 'all' : input.retailers.join(',')}${r.chains[0] ? ` ${r.chains[0].day}` : ''}`,
  report: (r) =>
    r.chains
      .map((c) => {
        const { ingest: ing, malformed, failed, ...rest } = c;
        return `collect ${c.retailer}: ${JSON.stringify({ ...rest, malformed: malformed.length, failed: failed.length, merged: ing?.merged ?? [], listings: ing?.listingIds.length ?? 0 })}`;
      })
      .join('\n') || null,
});

/** Links listings across chains (workers/match). */
export const matchJob = defineJob<{ threshold?: number; dryRun?: boolean }, MatchReport>({
  name: 'match',
  locks: ['match'],
  retries: 2,
  perform: (ctx, input) => runMatching(ctx.pool, { ...input, progress: ctx.progress }),
  // Links, products, sizes and generics move what the API shows; not "any write": every run
  // re-upserts the kind directory.
  changed: (m) => {
    const { changes: c, products: p, generics: g } = m;
    return !m.dryRun && c.link + c.relink + c.unlink + c.update + p.created + p.updated + p.deleted + g.sizes + g.listings + g.products > 0 ? 'match' : null;
  },
  report: (m) => {
    const { listingIds, ...rest } = m;
    return `matching${m.dryRun ? ' (dry run, nothing written)' : ''}: ${JSON.stringify({ ...rest, relinkedListings: listingIds.length })}`;
  },
});

/** Downloads and converts new product images (workers/images). */
export const imagesJob = defineJob<{ limit?: number; concurrency?: number; imageOrigin?: string }, ImageReport>({
  name: 'images',
  locks: ['images', 'match'],
  retries: 1,
  perform: (ctx, input) =>
    processNewImages(ctx.pool, {
      dir: ctx.env.IMAGE_DIR,
      limit: input.limit,
      concurrency: input.concurrency,
      userAgent: imageUserAgent(publicBaseUrl(ctx.env)),
      imageOrigin: input.imageOrigin ?? ctx.env.COLLECT_IMAGE_ORIGIN,
      progress: ctx.progress,
    }),
  changed: (r) => (r.listings > 0 ? `images ${r.listings} listings` : null),
  report: (r) =>
    `images: ${r.due} due, ${r.converted} converted, ${r.reused} already converted, ${r.failed} skipped (retried later); ` +
    `${r.listings} listings and ${r.products} products updated; ${(r.sourceBytes / 1e6).toFixed(1)} MB read, ` +
    `${(r.writtenBytes / 1e6).toFixed(1)} MB written in ${(r.ms / 1000).toFixed(1)} s`,
});

/** An Elasticsearch client for ELASTICSEARCH_URL. @throws ExpectedError when it is unset. */
function searchClient(ctx: JobContext) {
  if (!ctx.env.ELASTICSEARCH_URL) throw new ExpectedError('the Elasticsearch jobs need ELASTICSEARCH_URL (the embedded search backend reads PostgreSQL directly)');
  return createElasticsearchClient({ url: ctx.env.ELASTICSEARCH_URL, requestTimeoutMs: 120_000, maxRetries: 3 });
}

/** Queues listings for the search index and drains the queue into ELASTICSEARCH_ALIAS (workers/search/sync.ts). */
export const searchSyncJob = defineJob<{ listingIds: readonly number[]; stays: string }, SyncResult>({
  name: 'search-sync',
  locks: ['searchAlias'],
  perform: async (ctx, input) => {
    await enqueueListings(ctx.pool, input.listingIds);
    const client = searchClient(ctx);
    try {
      return await syncPendingListings({ pool: ctx.pool, client, alias: ctx.env.ELASTICSEARCH_ALIAS });
    } catch (e) {
      throw new SearchUpdateError(`search index update failed, ${input.stays}: ${describeError(e)}`);
    } finally {
      await client.close();
    }
  },
  // Search answers come from the index: cached ones are stale once it moved.
  changed: (s) => (s.indexed + s.deleted > 0 ? 'search-sync' : null),
  report: (s, input) =>
    s.skipped === 'no-index'
      ? `search index: alias does not exist yet, ${s.pending} listings queued (run: npm run worker -- search-reindex); ${input.listingIds.length} listings asked for`
      : `search index: ${s.indexed} listings written, ${s.deleted} removed`,
});

/** Rebuilds the Elasticsearch index behind ELASTICSEARCH_ALIAS from the database (workers/search/reindex.ts). */
export const searchReindexJob = defineJob<void, ReindexResult>({
  name: 'search-reindex',
  locks: ['searchAlias'],
  perform: async (ctx) => {
    const client = searchClient(ctx);
    try {
      return await reindexListings({ pool: ctx.pool, client, alias: ctx.env.ELASTICSEARCH_ALIAS });
    } finally {
      await client.close();
    }
  },
  changed: () => 'search-reindex',
  report: (r) => JSON.stringify(r, null, 2),
});

/** Matches listings to the basket's items (workers/index/match.ts). */
export const basketMatchJob = defineJob<{ dryRun?: boolean }, BasketMatchReport>({
  name: 'basket-match',
  locks: ['basketMatch'],
  retries: 2,
  perform: (ctx, input) => runBasketMatching(ctx.pool, { ...input, progress: ctx.progress }),
  // Not "any write": the run classifies listings' kinds as it goes.
  changed: (r) => (!r.dryRun && r.matched + r.rematched + r.unmatched + r.updated + r.decisions + r.basket.changed + r.basket.retired > 0 ? 'basket-match' : null),
  report: (m) => {
    const { basket, ...rest } = m;
    return `basket matching${m.dryRun ? ' (dry run, nothing written)' : ''}: ${JSON.stringify({ ...rest, basketChanged: basket.changed })}`;
  },
});

/**
 * Computes the food price index (workers/index/compute.ts): the new days, or all with `full`; with
 * `method` (`--method`), else INDEX_METHOD (a method other than the stored run's recomputes every day).
 */
export const indexJob = defineJob<{ full?: boolean; method?: IndexMethod }, IndexReport>({
  name: 'index',
  locks: ['index'],
  retries: 2,
  perform: (ctx, input) => runIndex(ctx.pool, { full: input.full, method: input.method ?? ctx.env.INDEX_METHOD, dataDir: ctx.env.DATA_DIR, progress: ctx.progress }),
  // Days computed, anchors, basket, official months.
  changed: (r) => {
    const { rows: n, basket: b } = r;
    const moved = r.mode !== 'unchanged' || r.days > 0 || r.reanchored || r.official > 0 || n.itemDays + n.indexDays + n.reanchored + n.links + b.changed + b.retired > 0;
    return moved ? `index ${r.mode}` : null;
  },
  report: (r) => {
    const { basket, anchors, ...rest } = r;
    return `index: ${JSON.stringify({ ...rest, anchors: anchors.map((a) => `${a.code} ${a.month ?? '-'}`).join(', ') })}`;
  },
});

/** Rebuilds the derived views whose inputs changed (workers/views/run.ts). */
export const viewsJob = defineJob<{ full?: boolean }, ViewsReport>({
  name: 'views',
  locks: ['views'],
  retries: 2,
  perform: (ctx, input) => runViews(ctx.pool, { full: input.full, progress: ctx.progress }),
  changed: (r) => {
    const built = Object.entries(r.views).filter(([, v]) => v.built).map(([k]) => k);
    return built.length > 0 ? `views ${built.join(',')}` : null;
  },
  // The type-ahead rows hold the data of the version this bump makes (workers/views/suggest.ts).
  afterBump: (tx) => markSuggestCurrent(tx),
  report: (r) => `views (data version ${r.version}): ${Object.entries(r.views).map(([name, v]) => `${name} ${v.built ? `rebuilt in ${v.seconds.toFixed(2)} s` : 'current'}`).join(', ')}`,
});

/** Writes the nightly export into EXPORT_DIR and publishes it as latest (workers/export). */
export const exportJob = defineJob<void, ExportResult>({
  name: 'export',
  locks: ['export'],
  retries: 1,
  perform: (ctx) => runExport(ctx.pool, { dir: ctx.env.EXPORT_DIR, serviceUrl: publicBaseUrl(ctx.env), progress: ctx.progress }),
  report: (r) => `export: ${r.folder} published as latest (${r.seconds.total.toFixed(1)} s): ${JSON.stringify(r.rows)}${r.removed.length ? `; removed ${r.removed.join(', ')}` : ''}`,
});

/** Loads an export into an empty instance, every sha256 checked first (workers/export/import.ts). */
export const importExportJob = defineJob<{ source: string }, ImportExportResult>({
  name: 'import-export',
  locks: ['match'],
  perform: (ctx, { source }) => importExport(ctx.pool, source),
  changed: () => 'import-export',
  report: (r) => JSON.stringify(r, null, 2),
});

/** A curator's command on a listing's cross-chain link (workers/match/admin.ts). */
export type LinkCommand = { command: 'link'; listingId: number; target: number | 'new'; note?: string } | { command: 'unlink' | 'lock' | 'unlock'; listingId: number; note?: string };

/** Runs a curator's link command (locked: matching runs keep it). */
export const linkJob = defineJob<LinkCommand, CommandResult>({
  name: 'link',
  locks: ['match'],
  perform: (ctx, c) =>
    c.command === 'link' ? linkListing(ctx.pool, c.listingId, c.target, c.note)
    : c.command === 'unlink' ? unlinkListing(ctx.pool, c.listingId, c.note)
    : setLocked(ctx.pool, c.listingId, c.command === 'lock', c.note),
  changed: (r, c) => (r.changed ? `${c.command} ${c.listingId}` : null),
  report: (r) => JSON.stringify(r, null, 2),
});

/** A curator's command on a listing's basket match (workers/index/admin.ts). */
export type BasketCommand = { command: 'basket-add'; listingId: number; itemId: number; note?: string } | { command: 'basket-remove' | 'basket-lock' | 'basket-unlock'; listingId: number; note?: string };

/** Runs a curator's basket command (locked: the basket matcher keeps it). */
export const basketCommandJob = defineJob<BasketCommand, BasketCommandResult>({
  name: 'basket-command',
  locks: ['basketMatch'],
  perform: (ctx, c) =>
    c.command === 'basket-add' ? basketMatch(ctx.pool, c.listingId, c.itemId, c.note)
    : c.command === 'basket-remove' ? basketUnmatch(ctx.pool, c.listingId, c.note)
    : basketLock(ctx.pool, c.listingId, c.command === 'basket-lock', c.note),
  changed: (r, c) => (r.changed ? `${c.command} ${c.listingId}` : null),
  report: (r) => JSON.stringify(r, null, 2),
});
