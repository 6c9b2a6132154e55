/**
 * The Elasticsearch search backend (selected by ELASTICSEARCH_URL): reads the alias
 * ELASTICSEARCH_ALIAS, which the search workers (workers/search) build and keep current — a full
 * reindex into a new index with an atomic alias swap (`npm run worker -- search-reindex`), and
 * incremental upserts after each ingest. The API process only reads.
 *
 * Mapping and analysers: ./elasticsearch/mapping.ts. Query DSL and ranking: ./elasticsearch/query.ts.
 * Any Elasticsearch failure (unreachable, timeout, missing alias, rejected request) becomes
 * `Unavailable` (HTTP 503); no query text can make a request fail, since text is only ever a
 * full-text `query` value.
 */
import type { Client } from '@elastic/elasticsearch';
import { Unavailable } from '../errors.js';
import type { SearchBackend, SuggestionHit, SuggestQuery, TextQuery } from './backend.js';
import { createElasticsearchClient, describeError } from './elasticsearch/client.js';
import { buildSearchRequest, buildSuggestSearches, parseSearchIds, parseSuggestions, type SuggestSource } from './elasticsearch/query.js';

/** Options of {@link createElasticsearchBackend}. */
export interface ElasticsearchOptions {
  /** Server URL (ELASTICSEARCH_URL); basic credentials may be given in the URL. */
  url: string;
  /** The alias searches read (ELASTICSEARCH_ALIAS). */
  alias: string;
  /** A client to use instead of creating one for `url` (tests pass one over the mock); not closed by `close()`. */
  client?: Client;
  /** Per-request timeout in milliseconds (default 5 000: a search must answer quickly or be 503). */
  requestTimeoutMs?: number;
  /**
   * Called with each Elasticsearch failure before `Unavailable` is thrown (default: one line on
   * stderr with the operation and the server's error type and reason).
   */
  onError?: (error: unknown, operation: 'search' | 'suggest') => void;
}

/**
 * A backend over the Elasticsearch alias `opts.alias`.
 *
 * - `searchListings`: listing ids, best first, at most `limit` (see ./elasticsearch/query.ts for
 *   the ranking); `retailerId` filters.
 * - `suggest`: categories, brands, then products/listings for a prefix (one `_msearch`).
 * - `close`: closes the client it created (not one passed in `opts.client`).
 *
 * @throws Unavailable (code UNAVAILABLE, HTTP 503) from `searchListings`/`suggest` whenever
 *   Elasticsearch fails or answers with an error; never for the query text itself.
 */
export function createElasticsearchBackend(opts: ElasticsearchOptions): SearchBackend {
  const client = opts.client ?? createElasticsearchClient({ url: opts.url, requestTimeoutMs: opts.requestTimeoutMs ?? 5_000, maxRetries: 1 });
  const onError =
    opts.onError ?? ((e: unknown, operation: string) => console.error(`elasticsearch ${operation} failed: ${describeError(e)}`));

  async function guarded<T>(operation: 'search' | 'suggest', run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      onError(e, operation);
      throw new Unavailable('search is unavailable');
    }
  }

  return {
    name: 'elasticsearch',

    async searchListings(query: TextQuery): Promise<number[]> {
      if (!query.text.trim() || query.limit < 1) return [];
      return guarded('search', async () => parseSearchIds(await client.search(buildSearchRequest(opts.alias, query))));
    },

    async suggest(query: SuggestQuery): Promise<SuggestionHit[]> {
      if (!query.prefix.trim() || query.limit < 1) return [];
      return guarded('suggest', async () => {
        const { responses } = await client.msearch<SuggestSource>({ searches: buildSuggestSearches(opts.alias, query) });
        const [items, facets] = responses;
        if (!items || 'error' in items) throw new Error(`suggest items search failed: ${JSON.stringify(items?.error ?? null)}`);
        if (!facets || 'error' in facets) throw new Error(`suggest facets search failed: ${JSON.stringify(facets?.error ?? null)}`);
        return parseSuggestions(items, facets, query);
      });
    },

    async close(): Promise<void> {
      if (!opts.client) await client.close();
    },
  };
}
