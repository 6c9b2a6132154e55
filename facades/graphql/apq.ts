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
 * - malformed extensions are refused before the store is asked: `extensions` that is not an
 *   object, or a `persistedQuery` that is not `{ version: 1, sha256Hash: <64 lowercase hex
 *   digits> }`, is HTTP 400 with code BAD_REQUEST ({@link persistedQueryProblem}; the plugin alone
 *   would ignore it and answer "Must provide query string." with 200);
 * - registered documents live in this process, in a least-recently-used store bounded by entries
 *   and by bytes ({@link APQ_MAX_ENTRIES}, {@link APQ_MAX_BYTES}); a document over
 *   {@link APQ_MAX_DOCUMENT_BYTES} runs but is not kept. With several instances each keeps its own
 *   (a miss only costs one round trip).
 *
 * A registered query is still parsed, validated and limited (./limits.ts, ./field-limits.ts) on
 * every run, exactly as if it had been sent in full.
 */
import { useAPQ, type APQStore } from '@graphql-yoga/plugin-apq';
import { GraphQLError } from 'graphql';
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

/** A SHA-256 hash as Apollo's clients send it: 64 lowercase hexadecimal digits. */
const SHA256_HEX = /^[0-9a-f]{64}$/;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * What is wrong with a request's `extensions` as far as persisted queries go, or null when nothing
 * is: absent extensions, or extensions without `persistedQuery`, are fine.
 */
export function persistedQueryProblem(extensions: unknown): string | null {
  if (extensions === undefined || extensions === null) return null;
  if (!isObject(extensions)) return 'Malformed request: extensions must be a JSON object';
  const pq = extensions.persistedQuery;
  if (pq === undefined) return null;
  if (!isObject(pq)) return 'Malformed persisted query: extensions.persistedQuery must be an object {"version":1,"sha256Hash":"<64 hexadecimal digits>"}';
  if (pq.version !== 1) return 'Unsupported persisted query version: only version 1 is supported';
  if (typeof pq.sha256Hash !== 'string' || !SHA256_HEX.test(pq.sha256Hash)) {
    return 'Malformed persisted query: sha256Hash must be the SHA-256 hash of the query, 64 lowercase hexadecimal digits';
  }
  return null;
}

/**
 * The APQ plugin over `store` (a fresh bounded store unless given), refusing malformed extensions
 * ({@link persistedQueryProblem}) with HTTP 400 and code BAD_REQUEST before it reads them.
 */
export function apqPlugin(store: APQStore = createApqStore()): Plugin {
  const apq = useAPQ({ store }) as Plugin;
  return {
    onParams(payload) {
      const problem = persistedQueryProblem(payload.params.extensions);
      if (problem) throw new GraphQLError(problem, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
      return apq.onParams?.(payload);
    },
  };
}
