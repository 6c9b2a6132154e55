/**
 * Elasticsearch query DSL for the listing index, and the parsing of its responses. Pure (no I/O),
 * so the request shapes are unit-testable without a server. The user's text only ever appears as
 * the value of `query` in full-text clauses (never query-string syntax), so no input can change
 * the structure of a request.
 *
 * Ranking (mirrors the embedded backend's features):
 * 1. exact name (normalised: case, accents, apostrophes, hyphens, spacing) — a constant boost far
 *    above any text score, so exact-name listings come first;
 * 2. the phrase in the name (synonym-aware, slop 1 for catenated word parts);
 * 3. every word somewhere in name (×3), brand (×1.5), category path (×1) or size (×0.5), as one
 *    blended field (`cross_fields`, synonym-aware);
 * 4. typo tolerance: every word in the name within `fuzziness: AUTO` (first letter fixed: one
 *    edit up to five letters, two from six, as the embedded backend's spelling correction,
 *    src/search/spelling.ts: "galic" → garlic);
 * 4b. run-together words: every word of the query among the name's words and its adjacent pairs
 *    run together (`name.compound`: "cocacola" → Coca Cola, "peanutbutter" → peanut butter), also
 *    within `fuzziness: AUTO`;
 * 5. English stems in the name (synonym-aware);
 * 6. prefix on the last word (`name.prefix` edge n-grams), the other words whole;
 * 7. barcode digits (6 to 14) equal to the GTIN;
 * 8. the kind the query is (src/search/kind-query.ts kindsNamedBy: "milk" → the Milk kind, not
 *    oat milk): a constant boost below an exact name and above any text score, as on the
 *    embedded backend;
 * 9. kind prior: the words of the listing's kind label (src/domain/kinds.ts) in the query
 *    ("bananas" → the Bananas kind before banana-flavoured baby food), an optional should-clause
 *    (the embedded backend ranks candidates whose whole kind label the query, a synonym phrasing
 *    or, for a typo, a trigram-similar query names; here the clause is not a subset test), and a
 *    weaker twin within `fuzziness: AUTO` for a misspelt kind ("galic" → the Garlic kind, which
 *    the embedded backend reaches by correcting the word);
 * plus a small boost for available listings, `retailer_id` as a filter, ties broken by id.
 */
import type { estypes } from '@elastic/elasticsearch';
import { KINDS } from '../../domain/kinds.js';
import { shelfOfKind } from '../../domain/shelves.js';
import { SUGGEST_GROUP_MAX, type SuggestionHit, type SuggestQuery, type TextQuery } from '../backend.js';
import { kindsNamedBy } from '../kind-query.js';
import { normalizeSearchText } from '../synonyms.js';
import { ANALYZERS, type ListingDocument } from './mapping.js';

/** Boost of an exact-name match: above any sum of text scores, so exact names rank first. */
export const EXACT_BOOST = 10_000;

/** Boost of the kind prior (a should-clause: it ranks, never admits, a listing). */
export const KIND_BOOST = 3;

/** Boost of the kind prior's typo-tolerant twin (below {@link KIND_BOOST}: a kind named exactly ranks up more). */
export const KIND_TYPO_BOOST = 2;

/** Fuzzy matching of the typo clauses: Elasticsearch's AUTO edit distance, first letter fixed, at most 50 terms per word. */
export const FUZZY = { fuzziness: 'AUTO', prefix_length: 1, max_expansions: 50 } as const;

/**
 * Boost of a listing of the kind the query is (src/search/kind-query.ts kindsNamedBy: "milk" is
 * the Milk kind): below an exact name, above any sum of text scores, so those listings come right
 * after exact names, as on the embedded backend.
 */
export const KIND_NAMED_BOOST = 1_000;

type Query = estypes.QueryDslQueryContainer;

/** The digits of a barcode-looking query (6 to 14 digits once spaces/hyphens go), leading zeros dropped; else null. */
function gtinDigits(text: string): string | null {
  const compact = text.replace(/[\s-]/g, '');
  if (!/^\d{6,14}$/.test(compact)) return null;
  const digits = compact.replace(/^0+/, '');
  return digits === '' ? null : digits;
}

/** The text clauses of a search (any one suffices). */
function textClauses(text: string): Query[] {
  const words = text.split(/\s+/).filter(Boolean);
  const last = words[words.length - 1] ?? text;
  const head = words.slice(0, -1).join(' ');
  const clauses: Query[] = [
    { constant_score: { filter: { term: { 'name.exact': text } }, boost: EXACT_BOOST } },
    { match_phrase: { name: { query: text, analyzer: ANALYZERS.search, slop: 1, boost: 6 } } },
    {
      multi_match: {
        query: text,
        type: 'cross_fields',
        fields: ['name^3', 'brand^1.5', 'category_path.text^1', 'size_text^0.5'],
        operator: 'and',
        analyzer: ANALYZERS.search,
        boost: 2,
      },
    },
    {
      match: {
        name: { query: text, analyzer: ANALYZERS.plain, ...FUZZY, operator: 'and', boost: 1 },
      },
    },
    { match: { 'name.compound': { query: text, analyzer: ANALYZERS.plain, ...FUZZY, operator: 'and', boost: 2 } } },
    { match: { 'name.stem': { query: text, operator: 'and', boost: 1 } } },
    {
      bool: {
        must: [
          ...(head ? [{ match: { name: { query: head, analyzer: ANALYZERS.search, operator: 'and' as const } } }] : []),
          { match: { 'name.prefix': { query: last, analyzer: ANALYZERS.plain, operator: 'and' as const } } },
        ],
        boost: 1.5,
      },
    },
  ];
  const gtin = gtinDigits(text);
  if (gtin !== null) clauses.push({ term: { gtin: { value: gtin, boost: 50 } } });
  return clauses;
}

/**
 * The search request of `searchListings` on `index` (an alias): ids only (`_source: false`),
 * `size` = `query.limit`, best first.
 */
export function buildSearchRequest(index: string, query: TextQuery): estypes.SearchRequest {
  const text = query.text.trim();
  return {
    index,
    size: query.limit,
    _source: false,
    track_total_hits: false,
    query: {
      bool: {
        must: [{ bool: { should: textClauses(text), minimum_should_match: 1 } }],
        should: [
          { term: { available: { value: true, boost: 0.5 } } },
          { match: { kind_label: { query: text, operator: 'or', boost: KIND_BOOST } } },
          { match: { kind_label: { query: text, analyzer: ANALYZERS.plain, ...FUZZY, operator: 'or', boost: KIND_TYPO_BOOST } } },
          ...kindsNamedBy(text).map((label): Query => ({ constant_score: { filter: { term: { 'kind_label.keyword': label } }, boost: KIND_NAMED_BOOST } })),
        ],
        filter: query.retailerId === null ? [] : [{ term: { retailer_id: query.retailerId } }],
      },
    },
    sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
  };
}

/** Listing ids of a search response's hits, in order (hits whose `_id` is not a positive integer are skipped). */
export function parseSearchIds(response: Pick<estypes.SearchResponse, 'hits'>): number[] {
  const ids: number[] = [];
  for (const hit of response.hits.hits) {
    const id = Number(hit._id);
    if (Number.isSafeInteger(id) && id > 0) ids.push(id);
  }
  return ids;
}

/** Fields a suggestion hit reads from `_source`. */
export const SUGGEST_SOURCE = ['id', 'name', 'product_id', 'product_name', 'size_text', 'retailer_name'] as const;
/** A suggestion hit's `_source`. */
export type SuggestSource = Pick<ListingDocument, (typeof SUGGEST_SOURCE)[number]>;

/** Category buckets read per suggestion (ancestors of matching labels share the buckets). */
const CATEGORY_BUCKETS = 100;
/** Brand buckets read per suggestion (spelling variants of one brand share the buckets). */
const BRAND_BUCKETS = 50;

/** A kind (src/domain/kinds.ts) a prefix names, as a suggestion shows it. */
export interface SuggestKind {
  label: string;
  /** The shelf the kind is on (src/domain/shelves.ts shelfOfKind), null when it is the kind itself. */
  detail: string | null;
}

/**
 * The kinds whose label matches `prefix` word by word ({@link labelMatchesPrefix}), one per label
 * (the first kind of the taxonomy with it), with the detail the embedded backend shows
 * (src/search/embedded.ts KIND_DETAIL_SQL: the kind's shelf unless it is the kind itself; held
 * equal by test/integration/kind-detail.test.ts).
 */
export function suggestKinds(prefix: string): SuggestKind[] {
  const out = new Map<string, SuggestKind>();
  for (const k of KINDS) {
    if (out.has(k.label) || !labelMatchesPrefix(k.label, prefix)) continue;
    const shelf = shelfOfKind(k.slug)?.label ?? null;
    out.set(k.label, { label: k.label, detail: shelf === null || shelf.toLowerCase() === k.label.toLowerCase() ? null : shelf });
  }
  return [...out.values()];
}

/**
 * The listings that share a kind (the embedded backend's `kindTermsSql` signal): classified in it
 * (`kind_label.keyword`), or holding every word of its label in their name (stemmed), brand or
 * category path ("bananas": fresh bananas, banana chips, banana bread — many listings of many
 * brands, where "band aid" is one brand's few).
 */
export function kindSharedQuery(label: string): Query {
  const all = (field: string): Query => ({ match: { [field]: { query: label, operator: 'and' } } });
  return {
    bool: {
      should: [{ term: { 'kind_label.keyword': label } }, all('name.stem'), all('brand'), all('category_path.text')],
      minimum_should_match: 1,
    },
  };
}

/**
 * The two searches of `suggest` for one `_msearch` on `index` (an alias): [0] products and listings
 * whose name words start with the prefix words (one per product: collapsed on `group_key`), with,
 * when the prefix names kinds ({@link suggestKinds}), the listings sharing each kind counted over
 * the whole index (a `global` aggregation `kinds` of named filters, {@link kindSharedQuery});
 * [1] counts of categories and brands whose words start with the prefix words (aggregations only).
 */
export function buildSuggestSearches(index: string, query: SuggestQuery): estypes.MsearchRequestItem[] {
  const prefix = query.prefix.trim();
  const prefixOf = (field: string): Query => ({ match: { [field]: { query: prefix, operator: 'and' } } });
  const kinds = suggestKinds(prefix);
  const kindAggs: { aggs?: Record<string, estypes.AggregationsAggregationContainer> } =
    kinds.length === 0
      ? {}
      : {
          aggs: {
            kinds: {
              global: {},
              aggs: { shared: { filters: { filters: Object.fromEntries(kinds.map((k) => [k.label, kindSharedQuery(k.label)])) } } },
            },
          },
        };
  return [
    { index },
    {
      size: query.limit,
      track_total_hits: false,
      _source: [...SUGGEST_SOURCE],
      query: {
        bool: {
          must: [{ bool: { should: [prefixOf('name.prefix'), { match: { name: { query: prefix, operator: 'and' } } }], minimum_should_match: 1 } }],
          should: [
            { constant_score: { filter: { term: { 'name.exact': prefix } }, boost: 10 } },
            { match_phrase_prefix: { name: { query: prefix, analyzer: ANALYZERS.plain, slop: 2, boost: 3 } } },
            { term: { available: { value: true, boost: 0.5 } } },
          ],
        },
      },
      collapse: { field: 'group_key' },
      sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
      ...kindAggs,
    },
    { index },
    {
      size: 0,
      track_total_hits: false,
      query: { bool: { should: [prefixOf('category_path.prefix'), prefixOf('brand.prefix')], minimum_should_match: 1 } },
      aggs: {
        categories: { filter: prefixOf('category_path.prefix'), aggs: { nodes: { terms: { field: 'category_nodes', size: CATEGORY_BUCKETS } } } },
        brands: { filter: prefixOf('brand.prefix'), aggs: { names: { terms: { field: 'brand.keyword', size: BRAND_BUCKETS } } } },
      },
    },
  ];
}

/**
 * Whether every word of `prefix` starts a word of `label`, both normalised as the search side
 * does (case, accents, apostrophes, hyphens, dots): `veg` and `fruit v` match `Fruit & Veg`.
 */
export function labelMatchesPrefix(label: string, prefix: string): boolean {
  const labelWords = normalizeSearchText(label).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const prefixWords = normalizeSearchText(prefix).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (prefixWords.length === 0) return false;
  const compactLabel = labelWords.join('');
  return (
    prefixWords.every((p) => labelWords.some((w) => w.startsWith(p))) ||
    // "weetb" against "Weet Bix": the words run together.
    compactLabel.startsWith(prefixWords.join(''))
  );
}

interface Bucket {
  key: string | number;
  doc_count: number;
}

function buckets(aggs: unknown, name: string, sub: string): Bucket[] {
  const agg = (aggs as Record<string, Record<string, { buckets?: Bucket[] }> | undefined> | undefined)?.[name]?.[sub];
  return Array.isArray(agg?.buckets) ? agg.buckets : [];
}

/** Listings sharing each kind, by label, from the `kinds` aggregation of the items search (absent: none). */
function kindBuckets(aggs: unknown): Map<string, number> {
  const named = (aggs as { kinds?: { shared?: { buckets?: unknown } } } | undefined)?.kinds?.shared?.buckets;
  const out = new Map<string, number>();
  if (!named || typeof named !== 'object' || Array.isArray(named)) return out;
  for (const [label, b] of Object.entries(named as Record<string, { doc_count?: unknown }>)) {
    if (typeof b?.doc_count === 'number') out.set(label, b.doc_count);
  }
  return out;
}

/** Site path of a text search for `q` (api-spec Suggestion.href for categories and brands). */
export function searchHref(q: string): string {
  return `/search?q=${encodeURIComponent(q)}`;
}

/** Most categories (with kinds), and most brands, in one list of suggestions (src/search/backend.ts). */
export { SUGGEST_GROUP_MAX };

/**
 * The suggestions of the two `_msearch` responses of {@link buildSuggestSearches}, in display
 * order (the embedded backend's): up to 3 categories (with kinds), up to 3 brands, then linked
 * products, then unlinked listings; the whole cut to `limit`. Categories and brands whose
 * normalised label starts with the prefix come first, then by listing count.
 *
 * - category: label = a path label matching the prefix word by word, detail = its parent path
 *   joined with ` › ` (null at the top), href = `/search?q=<label>`; or a kind the prefix names
 *   ({@link suggestKinds}), counted by the listings sharing it (the items search's `kinds`
 *   aggregation), detail = its shelf; one per normalised label (the one with more listings);
 * - brand: spelling variants (same normalised form) merged, label = the most frequent spelling,
 *   detail = `<n> listings`, href = `/search?q=<brand>`;
 * - product (linked listing, one per product): id = product id, label = product name (else the
 *   listing's), detail = size, href = `/products/<id>`;
 * - listing (not linked): id = listing id, label = name, detail = `size · chain`, href = `/listings/<id>`.
 */
export function parseSuggestions(
  items: Pick<estypes.SearchResponse<SuggestSource>, 'hits' | 'aggregations'>,
  facets: Pick<estypes.SearchResponse, 'aggregations'>,
  query: SuggestQuery,
): SuggestionHit[] {
  const prefix = query.prefix.trim();
  const normPrefix = normalizeSearchText(prefix);
  const starts = (label: string) => (normalizeSearchText(label).startsWith(normPrefix) ? 1 : 0);
  const byRelevance = (a: { label: string; count: number }, b: { label: string; count: number }) =>
    starts(b.label) - starts(a.label) || b.count - a.count || a.label.localeCompare(b.label);

  const categories = new Map<string, { label: string; parent: string; count: number }>();
  for (const b of buckets(facets.aggregations, 'categories', 'nodes')) {
    let path: unknown;
    try {
      path = JSON.parse(String(b.key));
    } catch {
      continue;
    }
    if (!Array.isArray(path) || path.length === 0 || !path.every((p) => typeof p === 'string')) continue;
    const label = path[path.length - 1] as string;
    const key = normalizeSearchText(label);
    if (!key || !labelMatchesPrefix(label, prefix)) continue;
    const seen = categories.get(key);
    if (!seen || b.doc_count > seen.count) categories.set(key, { label, parent: path.slice(0, -1).join(' › '), count: b.doc_count });
  }
  // Kinds the prefix names, with the listings sharing each (none: not suggested); one per
  // normalised label with the categories, the one holding more listings.
  const kindCounts = kindBuckets(items.aggregations);
  for (const k of suggestKinds(prefix)) {
    const count = kindCounts.get(k.label) ?? 0;
    const key = normalizeSearchText(k.label);
    if (count === 0 || !key) continue;
    const seen = categories.get(key);
    if (!seen || count > seen.count) categories.set(key, { label: k.label, parent: k.detail ?? '', count });
  }
  const categoryHits: SuggestionHit[] = [...categories.values()]
    .sort(byRelevance)
    .slice(0, SUGGEST_GROUP_MAX)
    .map((c) => ({ kind: 'category', id: null, label: c.label, detail: c.parent || null, href: searchHref(c.label) }));

  const brands = new Map<string, { label: string; top: number; count: number }>();
  for (const b of buckets(facets.aggregations, 'brands', 'names')) {
    const label = String(b.key);
    const key = normalizeSearchText(label);
    if (!key || !labelMatchesPrefix(label, prefix)) continue;
    const seen = brands.get(key);
    if (!seen) brands.set(key, { label, top: b.doc_count, count: b.doc_count });
    else {
      seen.count += b.doc_count;
      if (b.doc_count > seen.top) Object.assign(seen, { label, top: b.doc_count });
    }
  }
  const brandHits: SuggestionHit[] = [...brands.values()]
    .sort(byRelevance)
    .slice(0, SUGGEST_GROUP_MAX)
    .map((b) => ({ kind: 'brand', id: null, label: b.label, detail: `${b.count} ${b.count === 1 ? 'listing' : 'listings'}`, href: searchHref(b.label) }));

  const products: SuggestionHit[] = [];
  const listings: SuggestionHit[] = [];
  for (const hit of items.hits.hits) {
    const s = hit._source;
    if (!s || typeof s.name !== 'string') continue;
    const listingId = Number(hit._id);
    if (typeof s.product_id === 'number') {
      if (products.some((p) => p.id === s.product_id)) continue;
      products.push({ kind: 'product', id: s.product_id, label: s.product_name ?? s.name, detail: s.size_text ?? null, href: `/products/${s.product_id}` });
    } else if (Number.isSafeInteger(listingId) && listingId > 0) {
      const detail = [s.size_text, s.retailer_name].filter(Boolean).join(' · ');
      listings.push({ kind: 'listing', id: listingId, label: s.name, detail: detail || null, href: `/listings/${listingId}` });
    }
  }
  return [...categoryHits, ...brandHits, ...products, ...listings].slice(0, query.limit);
}
