/**
 * Chooses the search backend from configuration: Elasticsearch when ELASTICSEARCH_URL is set, else
 * the embedded PostgreSQL backend (the default; no external server needed).
 */
import type pg from 'pg';
import type { Env } from '../env.js';
import type { Embedder, SearchBackend } from './backend.js';
import { createElasticsearchBackend } from './elasticsearch.js';
import { createEmbeddedBackend } from './embedded.js';

export type { Embedder, SearchBackend, SuggestionHit, SuggestionKind, SuggestQuery, TextQuery } from './backend.js';

/** The backend `env` selects, over `pool` for the embedded one. */
export function createSearchBackend(
  env: Readonly<Pick<Env, 'ELASTICSEARCH_URL' | 'ELASTICSEARCH_ALIAS'>>,
  pool: pg.Pool,
  opts: { embedder?: Embedder } = {},
): SearchBackend {
  if (env.ELASTICSEARCH_URL) return createElasticsearchBackend({ url: env.ELASTICSEARCH_URL, alias: env.ELASTICSEARCH_ALIAS });
  return createEmbeddedBackend(pool, opts);
}
