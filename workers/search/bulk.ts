/**
 * Bulk writes through the client's bulk helper (`client.helpers.bulk`: batching by size,
 * concurrent requests, retries of 429s), made all-or-error: any document the helper drops, or a
 * failure of the source of documents, fails the whole call instead of being logged and skipped.
 */
import type { Client } from '@elastic/elasticsearch';
import type { ListingDocument } from '../../src/search/elasticsearch/mapping.js';
import { ExpectedError } from '../../src/errors.js';

/** Tuning of the bulk helper (defaults suit a national catalogue; tests turn retries off). */
export interface BulkTuning {
  /** Bytes of NDJSON per bulk request (default 2 MB). */
  flushBytes?: number;
  /** Bulk requests in flight (default 3). */
  concurrency?: number;
  /** Retries of documents rejected with 429 (default 3). */
  retries?: number;
  /** Milliseconds before such a retry (default 2000). */
  wait?: number;
}

/** One operation: write a listing's document, or remove the document of a listing that no longer exists. */
export type ListingOperation = { index: ListingDocument } | { delete: number };

/** Thrown when Elasticsearch rejected documents of a bulk load. */
export class BulkRejectedError extends ExpectedError {
  constructor(
    message: string,
    /** How many operations were rejected. */
    readonly rejected: number,
  ) {
    super(message);
  }
}

/** Options of {@link bulkWrite}. */
export interface BulkWriteOptions {
  client: Client;
  /** Target index or alias. */
  target: string;
  operations: AsyncIterable<ListingOperation> | Iterable<ListingOperation>;
  /** Reject writes unless `target` is an alias (so a missing alias is never auto-created as an index). */
  requireAlias?: boolean;
  tuning?: BulkTuning;
  /** Called with the number of operations acknowledged since the last call. */
  onProgress?: (done: number) => void;
}

/** What {@link bulkWrite} did. */
export interface BulkWriteResult {
  indexed: number;
  deleted: number;
}

/**
 * Writes `operations` to `target`. A delete of a document that is not there counts as done.
 * @throws BulkRejectedError when Elasticsearch rejected any operation (the helper stops at the
 *   first rejection); the client's error when a request fails outright; the source's error when
 *   iterating `operations` fails (the helper is stopped first).
 */
export async function bulkWrite(opts: BulkWriteOptions): Promise<BulkWriteResult> {
  const tuning = opts.tuning ?? {};
  let sourceError: unknown = null;
  let helper: ReturnType<Client['helpers']['bulk']> | undefined;
  const rejected: string[] = [];
  let counted = 0;
  let missingDeletes = 0;
  const sent = { indexed: 0, deleted: 0 };

  async function* guarded(): AsyncGenerator<ListingOperation> {
    try {
      for await (const op of opts.operations) {
        if ('delete' in op) sent.deleted += 1;
        else sent.indexed += 1;
        yield op;
      }
    } catch (e) {
      sourceError = e;
      helper?.abort();
    }
  }

  helper = opts.client.helpers.bulk<ListingOperation>({
    datasource: guarded(),
    onDocument: (op) => {
      if ('delete' in op) return { delete: { _index: opts.target, _id: String(op.delete) } };
      return [{ index: { _index: opts.target, _id: String(op.index.id) } }, op.index];
    },
    onDrop: (drop) => {
      const action = drop.operation as unknown as Record<string, unknown>;
      if ('delete' in action && drop.status === 404) {
        missingDeletes += 1;
        return;
      }
      const reason = drop.error ? `${drop.error.type}: ${drop.error.reason ?? ''}` : `status ${drop.status}`;
      rejected.push(`${JSON.stringify(action)} → ${reason}`);
      helper?.abort();
    },
    onFlush: (stats) => {
      const done = stats.successful + stats.failed;
      opts.onProgress?.(done - counted);
      counted = done;
    },
    flushBytes: tuning.flushBytes ?? 2_000_000,
    concurrency: tuning.concurrency ?? 3,
    retries: tuning.retries ?? 3,
    wait: tuning.wait ?? 2000,
    ...(opts.requireAlias ? { require_alias: true } : {}),
  });
  const stats = await helper;
  if (sourceError !== null) throw sourceError;
  const failed = stats.failed - missingDeletes;
  if (rejected.length > 0 || failed > 0) {
    throw new BulkRejectedError(
      `Elasticsearch rejected ${Math.max(failed, rejected.length)} document(s) of ${opts.target}; first: ${rejected[0] ?? 'unknown'}`,
      Math.max(failed, rejected.length),
    );
  }
  if (stats.aborted || stats.successful + missingDeletes !== sent.indexed + sent.deleted) {
    throw new Error(`bulk write to ${opts.target} stopped after ${stats.successful} of ${sent.indexed + sent.deleted} operations`);
  }
  return sent;
}
