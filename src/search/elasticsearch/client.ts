/**
 * The Elasticsearch client used by the search backend (reads) and the search workers (writes).
 */
import { Client, errors } from '@elastic/elasticsearch';

type ClientOptions = NonNullable<ConstructorParameters<typeof Client>[0]>;

/** Options of {@link createElasticsearchClient}. */
export interface ClientConfig {
  /**
   * Server URL (ELASTICSEARCH_URL). Basic credentials may be given in the URL
   * (`https://user:password@host:9200`); the client sends them as an Authorization header.
   */
  url: string;
  /** Per-request timeout in milliseconds (default 10 000; the reindex worker uses 120 000). */
  requestTimeoutMs?: number;
  /** Retries of a request on connection errors and 502/503/504 (default 2). */
  maxRetries?: number;
  /** A Connection class for tests (`new Mock().getConnection()` of @elastic/elasticsearch-mock). */
  Connection?: ClientOptions['Connection'];
}

/** A client for `config.url`. Close it with `client.close()`. */
export function createElasticsearchClient(config: ClientConfig): Client {
  return new Client({
    node: config.url,
    requestTimeout: config.requestTimeoutMs ?? 10_000,
    maxRetries: config.maxRetries ?? 2,
    ...(config.Connection ? { Connection: config.Connection } : {}),
  });
}

/** Whether `e` is an Elasticsearch response with HTTP status `status` (e.g. 404 for a missing index). */
export function isStatus(e: unknown, status: number): boolean {
  return e instanceof errors.ResponseError && e.statusCode === status;
}

/** A one-line description of an Elasticsearch client error (type and reason when the server sent them). */
export function describeError(e: unknown): string {
  if (e instanceof errors.ResponseError) {
    const body = e.body as { error?: { type?: string; reason?: string } | string } | undefined;
    const err = body?.error;
    const detail = typeof err === 'string' ? err : [err?.type, err?.reason].filter(Boolean).join(': ');
    return `Elasticsearch ${e.statusCode ?? '?'}${detail ? ` ${detail}` : ''}`;
  }
  return e instanceof Error ? e.message : String(e);
}
