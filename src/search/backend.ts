/**
 * The search abstraction (DESIGN "search: SearchBackend interface"): a backend ranks catalogue
 * listings for a text query and offers type-ahead suggestions. It returns ids only; names, prices
 * and offers always come from PostgreSQL through the graph, so every backend yields the same
 * contract shapes. Two implementations: the embedded one over PostgreSQL (full text + unaccent +
 * pg_trgm + offline synonym/category expansion, fused by reciprocal rank fusion; the default) and
 * Elasticsearch (selected by ELASTICSEARCH_URL). What every backend shares (barcode digits first,
 * no-query "recently seen") lives in src/services/search.ts; grouping listings into products in
 * src/domain/search-results.ts.
 */

/** A ranked text search over listings. */
export interface TextQuery {
  /** The user's text, trimmed, 1 to 100 characters (code points). Never interpolated into SQL or DSL. */
  text: string;
  /** Only this chain's listings (retailer id), or every chain when null. */
  retailerId: number | null;
  /** How many ids to return at most (1 to 500; callers over-fetch when they group). */
  limit: number;
}

/** Kinds of suggestion (api-spec Suggestion.kind). */
export type SuggestionKind = 'category' | 'brand' | 'product' | 'listing';

/** One type-ahead hit before prices are attached (api-spec Suggestion without the price fields). */
export interface SuggestionHit {
  kind: SuggestionKind;
  /** Product or listing id; null for categories and brands. */
  id: number | null;
  label: string;
  /**
   * Secondary text: size and chain for products/listings, the parent path for categories, the
   * shelf for kinds (suggested as categories), the count for brands.
   */
  detail: string | null;
  /** Site path to open (api-spec Suggestion.href), e.g. `/listings/42`, `/products/7`, `/search?q=...`. */
  href: string;
}

/**
 * Most categories (with kinds), and most brands, in one list of suggestions; every backend keeps
 * this display order: categories and kinds, brands, products, listings.
 */
export const SUGGEST_GROUP_MAX = 3;

/** A type-ahead request. */
export interface SuggestQuery {
  /** Prefix typed so far, trimmed, 1 to 100 characters. */
  prefix: string;
  /** How many suggestions at most (1 to 12). */
  limit: number;
}

/** A search backend. Implementations must not throw for any text (bad input is the callers' 400). */
export interface SearchBackend {
  /** `embedded` or `elasticsearch` (reported by healthz-like diagnostics and the bench). */
  readonly name: 'embedded' | 'elasticsearch';
  /** Listing ids matching `query.text`, best match first (exact-name matches before the rest). */
  searchListings(query: TextQuery): Promise<number[]>;
  /**
   * Categories (with the kinds of src/domain/kinds.ts, ranked by the listings sharing them, so
   * "ban" suggests Bananas before the brand band aid), brands, products and listings for a
   * prefix, in display order.
   */
  suggest(query: SuggestQuery): Promise<SuggestionHit[]>;
  /** Releases connections (the embedded backend borrows the shared pool and closes nothing). */
  close(): Promise<void>;
}

/**
 * Optional sentence embedder for a semantic ranking signal. Not required anywhere: no model can be
 * downloaded on these machines, so the embedded backend's semantic signal is synonym and category
 * expansion learnt from the catalogue. When a model's files are supplied locally, an implementation
 * of this interface adds a cosine-similarity ranking over the lexical candidates to the fusion.
 */
export interface Embedder {
  /** Model name, for logs and the bench. */
  readonly name: string;
  /** One unit-length vector per text (same dimension for every call). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
