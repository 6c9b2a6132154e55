/**
 * Full (re)index of the Elasticsearch listing index from PostgreSQL, with no downtime:
 *
 * 1. take the alias's lock (one reindex at a time; incremental updates wait for it);
 * 2. create a NEW index `<alias>-<UTC timestamp>` with the mapping of
 *    src/search/elasticsearch/mapping.ts (synonyms from src/search/synonyms.ts), built for bulk
 *    loading: no replicas, no refresh;
 * 3. stream every listing from PostgreSQL in keyset batches into it with the client's bulk helper;
 * 4. turn replicas and refresh on, refresh, and check the document count;
 * 5. swap the alias in ONE `updateAliases` call (remove from every index behind it + add the new
 *    one), so searches see either the old index or the complete new one, never a half-built one;
 * 6. record the build in `search_index_state`, clear the outbox rows the build covered, and delete
 *    the old index (and any index left behind by an earlier failed run).
 *
 * Any failure before the swap deletes the new index and rethrows: the alias keeps serving the old
 * one. Running it again is always safe (idempotent: each run builds from scratch).
 */
import type { Client } from '@elastic/elasticsearch';
import type pg from 'pg';
import { describeError, isStatus } from '../../src/search/elasticsearch/client.js';
import { indexNameFor, isManagedIndex, listingIndexBody } from '../../src/search/elasticsearch/mapping.js';
import { SYNONYM_GROUPS } from '../../src/search/synonyms.js';
import { makeProgress } from '../progress.js';
import { bulkWrite, type BulkTuning, type ListingOperation } from './bulk.js';
import { countListings, listingDocuments } from './documents.js';
import { withIndexLock } from './lock.js';
import { ExpectedError } from '../../src/errors.js';

/**
 * A reindex failed. `swapped` tells whether the alias already served the new index (then only
 * the bookkeeping or the deletion of old indices failed); `cause` is the underlying error.
 */
export class ReindexError extends ExpectedError {
  constructor(
    message: string,
    readonly swapped: boolean,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** Options of {@link reindexListings}. */
export interface ReindexOptions {
  pool: pg.Pool;
  client: Client;
  /** The alias searches read (ELASTICSEARCH_ALIAS). */
  alias: string;
  /** Synonym groups for the new index (default: SYNONYM_GROUPS of src/search/synonyms.ts). */
  synonyms?: readonly (readonly string[])[];
  /** Listings read from PostgreSQL per query (default 2000). */
  batchSize?: number;
  /** Primary shards of the new index (default 1). */
  shards?: number;
  /** Replicas once loaded (default 1; a single-node cluster then reports yellow, and searches work). */
  replicas?: number;
  /** Bulk helper tuning. */
  bulk?: BulkTuning;
  /** Show a progress bar (default: when stderr is a terminal). */
  progress?: boolean;
  /** Clock for the index name (tests). */
  now?: () => Date;
}

/** What a reindex did. */
export interface ReindexResult {
  alias: string;
  /** The new index now behind the alias. */
  index: string;
  /** Listings written. */
  documents: number;
  /** Indices the alias pointed to before. */
  replaced: string[];
  /** Indices deleted after the swap (the replaced ones this service built, and leftovers of failed runs). */
  deleted: string[];
  seconds: number;
}

/** The indices `alias` points to now (empty when the alias does not exist). */
export async function indicesBehindAlias(client: Client, alias: string): Promise<string[]> {
  try {
    return Object.keys(await client.indices.getAlias({ name: alias })).sort();
  } catch (e) {
    if (isStatus(e, 404)) return [];
    throw e;
  }
}

/** Every open index named like one this service builds for `alias` (see `indexNameFor`). */
async function managedIndices(client: Client, alias: string): Promise<string[]> {
  const found = await client.indices.get({ index: `${alias}-*`, features: ['aliases'], allow_no_indices: true });
  return Object.keys(found).filter((i) => isManagedIndex(alias, i)).sort();
}

/**
 * Rebuilds the listing index behind `opts.alias` from PostgreSQL and swaps the alias to it.
 * @returns what was built and replaced.
 * @throws IndexBusyError when another reindex of the alias is running; ReindexError otherwise,
 *   its `cause` the database's or Elasticsearch's error (BulkRejectedError when documents were
 *   rejected). Before the swap (`swapped` false) the new index has been deleted and the alias is
 *   unchanged.
 */
export async function reindexListings(opts: ReindexOptions): Promise<ReindexResult> {
  const { pool, client, alias } = opts;
  return withIndexLock(pool, alias, 'try', async () => {
    const t0 = performance.now();
    const startedAt = (opts.now ?? (() => new Date()))();
    const index = indexNameFor(alias, startedAt);
    // Outbox rows queued so far describe changes already committed: this build covers them.
    const { rows: seqRows } = await pool.query<{ seq: string }>('SELECT coalesce(max(seq), 0)::text AS seq FROM search_index_pending');
    const coveredSeq = seqRows[0].seq;
    const total = await countListings(pool);

    let created = false;
    let documents = 0;
    let replaced: string[] = [];
    try {
      await client.indices.create({ index, ...listingIndexBody({ synonyms: opts.synonyms ?? SYNONYM_GROUPS, shards: opts.shards }) });
      created = true;

      const bar = makeProgress(opts.progress, 'search reindex', total);
      async function* operations(): AsyncGenerator<ListingOperation> {
        for await (const doc of listingDocuments(pool, opts.batchSize)) yield { index: doc };
      }
      try {
        documents = (await bulkWrite({ client, target: index, operations: operations(), tuning: opts.bulk, onProgress: (n) => bar.increment(n) })).indexed;
      } finally {
        bar.stop();
      }

      await client.indices.putSettings({ index, settings: { number_of_replicas: opts.replicas ?? 1, refresh_interval: '1s' } });
      await client.indices.refresh({ index });
      const { count } = await client.count({ index });
      if (count !== documents) throw new Error(`new index ${index} holds ${count} documents, ${documents} were written`);

      replaced = await indicesBehindAlias(client, alias);
      await client.indices.updateAliases({
        actions: [...replaced.map((old) => ({ remove: { index: old, alias } })), { add: { index, alias } }],
      });
    } catch (e) {
      let cleanup = created ? `the new index ${index} was deleted` : 'no index was created';
      if (created) {
        await client.indices.delete({ index }).catch((err: unknown) => {
          cleanup = `the new index ${index} could not be deleted (${describeError(err)}; the next reindex deletes it)`;
        });
      }
      throw new ReindexError(`search reindex of "${alias}" failed, the alias is unchanged and ${cleanup}: ${describeError(e)}`, false, { cause: e });
    }

    // The alias now serves the new index: record it, clear the outbox rows it covers, delete the
    // replaced index and any leftover of an earlier failed run.
    try {
      await pool.query(
        `INSERT INTO search_index_state (alias, index_name, documents, built_at, synced_at) VALUES ($1, $2, $3, $4, $4)
         ON CONFLICT (alias) DO UPDATE SET index_name = excluded.index_name, documents = excluded.documents,
           built_at = excluded.built_at, synced_at = excluded.synced_at`,
        [alias, index, documents, startedAt],
      );
      await pool.query('DELETE FROM search_index_pending WHERE seq <= $1::bigint', [coveredSeq]);
      const stale = [...new Set([...replaced.filter((i) => isManagedIndex(alias, i)), ...(await managedIndices(client, alias))])]
        .filter((i) => i !== index)
        .sort();
      if (stale.length > 0) await client.indices.delete({ index: stale });
      return { alias, index, documents, replaced, deleted: stale, seconds: (performance.now() - t0) / 1000 };
    } catch (e) {
      throw new ReindexError(`the alias "${alias}" now serves ${index}, but finishing the reindex failed: ${describeError(e)}`, true, { cause: e });
    }
  });
}
