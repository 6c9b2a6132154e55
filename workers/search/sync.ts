/**
 * Incremental updates of the Elasticsearch listing index: after an ingest (or any worker that
 * changes listings: linking products, renaming), the listings it touched are queued in the
 * `search_index_pending` outbox, then the outbox is drained into the alias — each listing's
 * current row upserted, a listing that no longer exists removed.
 *
 * Queue first, then write: when Elasticsearch is unreachable the rows stay queued and the error
 * propagates; the next drain (next ingest, or `search-reindex`, which covers every row queued
 * before it starts) catches up. A drain waits for a running reindex (the alias lock), so its
 * writes land in the new index after the swap.
 */
import type { Client } from '@elastic/elasticsearch';
import type pg from 'pg';
import { bulkWrite, type BulkTuning, type ListingOperation } from './bulk.js';
import { documentsByIds } from './documents.js';
import { withIndexLock } from './lock.js';

/** Options of {@link syncPendingListings}. */
export interface SyncOptions {
  pool: pg.Pool;
  client: Client;
  /** The alias searches read (ELASTICSEARCH_ALIAS); written through, never created. */
  alias: string;
  /** Outbox rows per bulk round (default 1000). */
  batchSize?: number;
  /** Refresh the alias when done, so the changes are searchable at once (tests; default false: within a second). */
  refresh?: boolean;
  /** Bulk helper tuning. */
  bulk?: BulkTuning;
}

/** What a drain did. */
export interface SyncResult {
  /** Documents written (upserted). */
  indexed: number;
  /** Documents removed (listings that no longer exist). */
  deleted: number;
  /** Rows left in the outbox (non-zero only when skipped). */
  pending: number;
  /** `no-index` when the alias does not exist yet (nothing written; run `search-reindex`). */
  skipped: 'no-index' | null;
}

/** Queues listings for the next drain (a listing already queued is re-queued with a newer `seq`). */
export async function enqueueListings(pool: pg.Pool, listingIds: readonly number[]): Promise<void> {
  if (listingIds.length === 0) return;
  await pool.query(
    `INSERT INTO search_index_pending (listing_id) SELECT DISTINCT unnest($1::int[])
     ON CONFLICT (listing_id) DO UPDATE SET seq = excluded.seq, queued_at = excluded.queued_at`,
    [listingIds],
  );
}

async function pendingCount(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM search_index_pending');
  return Number(rows[0].n);
}

/**
 * Drains the outbox into `opts.alias`, in rounds of `batchSize` listings; each round's rows are
 * removed only once Elasticsearch acknowledged all of its writes.
 * @throws BulkRejectedError or the client's error when Elasticsearch fails (that round's rows and
 *   later ones stay queued); the database's error.
 */
export async function syncPendingListings(opts: SyncOptions): Promise<SyncResult> {
  const { pool, client, alias } = opts;
  const batchSize = opts.batchSize ?? 1000;
  return withIndexLock(pool, alias, 'wait', async () => {
    if (!(await client.indices.existsAlias({ name: alias }))) {
      return { indexed: 0, deleted: 0, pending: await pendingCount(pool), skipped: 'no-index' as const };
    }
    const result: SyncResult = { indexed: 0, deleted: 0, pending: 0, skipped: null };
    let after = 0;
    for (;;) {
      const { rows } = await pool.query<{ listing_id: number; seq: string }>(
        'SELECT listing_id, seq::text AS seq FROM search_index_pending WHERE listing_id > $1 ORDER BY listing_id LIMIT $2',
        [after, batchSize],
      );
      if (rows.length === 0) break;
      const ids = rows.map((r) => r.listing_id);
      // A row re-queued while this round runs gets a seq above every one read here, so it stays.
      const maxSeq = rows.reduce((m, r) => (BigInt(r.seq) > m ? BigInt(r.seq) : m), 0n);
      const docs = await documentsByIds(pool, ids);
      const present = new Set(docs.map((d) => d.id));
      const operations: ListingOperation[] = [
        ...docs.map((doc) => ({ index: doc })),
        ...ids.filter((id) => !present.has(id)).map((id) => ({ delete: id })),
      ];
      const written = await bulkWrite({ client, target: alias, operations, requireAlias: true, tuning: opts.bulk });
      result.indexed += written.indexed;
      result.deleted += written.deleted;
      await pool.query('DELETE FROM search_index_pending WHERE listing_id = ANY($1::int[]) AND seq <= $2::bigint', [ids, maxSeq.toString()]);
      after = ids[ids.length - 1];
      if (rows.length < batchSize) break;
    }
    if (opts.refresh) await client.indices.refresh({ index: alias });
    await pool.query('UPDATE search_index_state SET synced_at = now() WHERE alias = $1', [alias]);
    return result;
  });
}

/**
 * Queues `listingIds` and drains the outbox into the alias: the incremental update to run after an
 * ingest (`IngestResult.listingIds`).
 * @throws as {@link syncPendingListings} (the listings stay queued).
 */
export async function syncListings(opts: SyncOptions, listingIds: readonly number[]): Promise<SyncResult> {
  await enqueueListings(opts.pool, listingIds);
  return syncPendingListings(opts);
}
