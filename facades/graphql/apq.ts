/**
 * Automatic persisted queries for /graphql (issue 20 item 6), Apollo's APQ protocol through
 * @graphql-yoga/plugin-apq: a client sends `extensions.persistedQuery { version: 1, sha256Hash }`
 * with its query once (POST or GET) to register it, then the hash alone, so a dashboard's repeated
 * queries are short GET URLs (`/graphql?extensions=…&variables=…`) that HTTP caches can keep.
 *
 * - an unknown hash answers HTTP 404 with the error `PersistedQueryNotFound` (code
 *   PERSISTED_QUERY_NOT_FOUND, `Cache-Control: no-store` so no cache keeps the miss): the client
 *   sends the query with its hash again;
 * - a query whose sha256 is not the hash sent is refused: HTTP 400, `PersistedQueryMismatch`
 *   (code PERSISTED_QUERY_MISMATCH), and nothing is stored;
 * - registered documents live in this process, in a least-recently-used store bounded by entries
 *   and by bytes ({@link APQ_MAX_ENTRIES}, {@link APQ_MAX_BYTES}); a document over
 *   {@link APQ_MAX_DOCUMENT_BYTES} runs but is not kept. With several instances each keeps its own
 *   (a miss only costs one round trip).
 *
 * A registered query is still parsed, validated and limited (./limits.ts, ./field-limits.ts) on
 * every run, exactly as if it had been sent in full.
 */
import { useAPQ, type APQStore } from '@graphql-yoga/plugin-apq';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';

/** Most documents kept. A dashboard has a handful of panels; a few thousand clients' variants fit. */
export const APQ_MAX_ENTRIES = 5_000;

/** Most bytes (UTF-8) of documents kept in all. */
export const APQ_MAX_BYTES = 16 * 1024 * 1024;

/** Largest document kept (bytes, UTF-8); a bigger one runs but must be sent in full each time. */
export const APQ_MAX_DOCUMENT_BYTES = 64 * 1024;

/** `extensions.code` of an unknown hash (Apollo's). */
export const PERSISTED_QUERY_NOT_FOUND = 'PERSISTED_QUERY_NOT_FOUND';

/**
 * A bounded in-memory store of persisted documents by sha256 hash (least recently used evicted
 * first). @param maxBytes total bytes kept; @param maxEntries documents kept.
 */
export function createApqStore(maxBytes = APQ_MAX_BYTES, maxEntries = APQ_MAX_ENTRIES): APQStore & { readonly size: number } {
  const cache = new LRUCache<string, string>({
    max: maxEntries,
    maxSize: maxBytes,
    maxEntrySize: Math.min(APQ_MAX_DOCUMENT_BYTES, maxBytes),
    sizeCalculation: (document) => Math.max(1, Buffer.byteLength(document, 'utf8')),
  });
  return {
    get: (hash) => cache.get(hash) ?? null,
    set: (hash, document) => {
      // lru-cache drops a value over maxEntrySize itself (it is not stored).
      cache.set(hash, document);
    },
    get size() {
      return cache.size;
    },
  };
}

/** The APQ plugin over `store` (a fresh bounded store unless given). */
export function apqPlugin(store: APQStore = createApqStore()): Plugin {
  return useAPQ({ store }) as Plugin;
}
