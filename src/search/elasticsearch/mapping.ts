/**
 * The Elasticsearch listing index: analysis settings, field mappings, the document shape and the
 * index naming rules. Pure (no I/O): the reindex worker sends {@link listingIndexBody} on index
 * creation, the query builder (./query.ts) refers to the analysers and fields named here.
 *
 * Analysis, in words (both sides must meet, so they are designed together):
 *
 * - Index side (`nz_index`): apostrophes removed first (`wattie's` → `watties`), whitespace
 *   tokens, then `word_delimiter_graph` splits on hyphens, dots, slashes, `&` and letter/digit
 *   boundaries while also emitting the catenation of the parts (`weet-bix` → `weet`, `bix`,
 *   `weetbix`; `1.5L` → `1`, `5`, `l`, `15l`), lowercase, ASCII folding (`crème` → `creme`),
 *   `flatten_graph` (a graph filter at index time must be flattened).
 * - Search side (`nz_search`, `nz_plain`): apostrophes, hyphens and dots removed outright (the
 *   compact form of src/search/synonyms.ts `normalizeSearchText`: `weet-bix` → `weetbix`), the
 *   standard tokenizer, lowercase, ASCII folding; `nz_search` then applies the shared synonym list
 *   as a `synonym_graph` filter (search time only, so editing the list needs a reindex but never
 *   distorts term statistics). `word_delimiter_graph` is not used at search time: Elasticsearch
 *   refuses it before a synonym filter ("cannot be used to parse synonyms"); the compact query
 *   token meets the catenated index token instead.
 * - Subfields: `name.exact` (keyword through the `nz_exact` normalizer: lowercase, folded,
 *   compact, single spaces) for exact-name boosting; `name.prefix` (edge n-grams 1..20 of every
 *   index token) for type-ahead and last-word prefixes; `name.stem` (English Porter stemming on
 *   both sides, synonyms at search time) so `apples` meets `apple`; `name.compound` (issue 31:
 *   the compact form's words and every pair of adjacent words run together, `coca cola` →
 *   `coca`, `cocacola`, `cola`) so a query that runs a name's words together (`cocacola`,
 *   `peanutbutter`) meets them, as the embedded backend's vocabulary of pairs does
 *   (src/search/spelling.ts).
 */
import type { estypes } from '@elastic/elasticsearch';
import { normalizeSearchText } from '../synonyms.js';

/** Analyser names used by the mapping and by queries. */
export const ANALYZERS = {
  /** Index-time analyser of text fields (word parts + catenations, folded). */
  index: 'nz_index',
  /** Search-time analyser with the synonym graph. */
  search: 'nz_search',
  /** Search-time analyser without synonyms (fuzzy and prefix clauses). */
  plain: 'nz_plain',
  /** Index-time edge n-grams (prefix subfields). */
  prefixIndex: 'nz_prefix_index',
  /** Index-time English stemming (`name.stem`). */
  stemIndex: 'nz_stem_index',
  /** Search-time English stemming after synonyms (`name.stem`). */
  stemSearch: 'nz_stem_search',
  /** Index-time words and adjacent pairs run together (`name.compound`); searched with `nz_plain`. */
  compoundIndex: 'nz_compound_index',
} as const;

/** Normalizer of `name.exact`. */
export const EXACT_NORMALIZER = 'nz_exact';

/** Shortest and longest prefix indexed in the `.prefix` subfields (characters of one word). */
export const PREFIX_GRAMS = { min: 1, max: 20 } as const;

/**
 * One listing as indexed. `_id` is `String(id)`. Dates are `YYYY-MM-DD` (New Zealand days).
 */
export interface ListingDocument {
  /** listing.id */
  id: number;
  retailer_id: number;
  /** Retailer slug, e.g. `woolworths`. */
  retailer: string;
  /** Retailer display name (suggestion detail; stored, not searchable). */
  retailer_name: string;
  product_id: number | null;
  /** The linked product's name (suggestion label; stored, not searchable). */
  product_name: string | null;
  /** `p<product_id>` for a linked listing, else `l<id>`: collapses suggestions to one per product. */
  group_key: string;
  name: string;
  brand: string | null;
  size_text: string | null;
  /** The chain's own category path, outermost first. */
  category_path: string[];
  /** Every path prefix of `category_path` as a JSON array string (`["Fresh","Fruit & Veg"]`), for category suggestions with their parent path. */
  category_nodes: string[];
  /** GTIN digits without leading zeros (as PostgreSQL stores it: bigint), or null. */
  gtin: string | null;
  /**
   * Label of the listing's kind (src/domain/kinds.ts, through its generic), e.g. "Bananas"; null
   * when unclassified. Searched stemmed (the kind prior) and, as `kind_label.keyword`, exactly.
   */
  kind_label: string | null;
  available: boolean;
  first_seen: string;
  /** Day of the latest national observation when indexed (see workers/search for staleness). */
  last_seen: string;
}

/** The `category_nodes` of a category path: each prefix of it as a JSON array string. */
export function categoryNodes(path: readonly string[]): string[] {
  return path.map((_, i) => JSON.stringify(path.slice(0, i + 1)));
}

/**
 * Synonym rules (Solr format, one equivalence group per rule: `courgette, zucchini`) from groups
 * of terms. Each term is normalised as the search side normalises text (lowercase, no accents,
 * apostrophes, hyphens or dots), anything but letters, digits and spaces becomes a space (so no
 * term can break the rule syntax: `,`, `=>`, `#`), duplicates and groups left with fewer than two
 * terms are dropped.
 */
export function synonymRules(groups: readonly (readonly string[])[]): string[] {
  const rules: string[] = [];
  for (const group of groups) {
    const terms = [
      ...new Set(
        group.map((t) => normalizeSearchText(t).replace(/[^\p{L}\p{N} ]+/gu, ' ').replace(/\s+/g, ' ').trim()).filter(Boolean),
      ),
    ];
    if (terms.length >= 2) rules.push(terms.join(', '));
  }
  return rules;
}

/** Options of {@link listingIndexBody}. */
export interface IndexBodyOptions {
  /** Equivalence groups for the search-time synonym graph (src/search/synonyms.ts SYNONYM_GROUPS). */
  synonyms: readonly (readonly string[])[];
  /** Primary shards (default 1: a national catalogue is ~10^5 listings). */
  shards?: number;
}

// Apostrophes (straight, curly, modifier letter, backtick) removed everywhere.
const APOSTROPHES = "['\u2018\u2019\u02bc`]";
// Hyphens (ASCII and Unicode hyphen / non-breaking hyphen) and dots: removed at search time only.
const COMPACT = "['\u2018\u2019\u02bc`.\\-\u2010\u2011]";

/**
 * The body of the index-creation request (`settings` and `mappings`). Built for bulk loading:
 * no replicas and no refresh until the reindex worker turns them on after the load.
 */
export function listingIndexBody(opts: IndexBodyOptions): { settings: estypes.IndicesIndexSettings; mappings: estypes.MappingTypeMapping } {
  const rules = synonymRules(opts.synonyms);
  // Without rules the synonym filter is left out (Elasticsearch wants at least one rule).
  const synonyms = rules.length > 0 ? ['nz_synonyms'] : [];
  const text = (extra: Record<string, unknown> = {}) => ({
    type: 'text' as const,
    analyzer: ANALYZERS.index,
    search_analyzer: ANALYZERS.search,
    ...extra,
  });
  const prefix = { type: 'text' as const, analyzer: ANALYZERS.prefixIndex, search_analyzer: ANALYZERS.plain };
  const settings: estypes.IndicesIndexSettings = {
    number_of_shards: opts.shards ?? 1,
    number_of_replicas: 0,
    refresh_interval: '-1',
    analysis: {
      char_filter: {
        nz_apostrophe: { type: 'pattern_replace', pattern: APOSTROPHES, replacement: '' },
        nz_compact: { type: 'pattern_replace', pattern: COMPACT, replacement: '' },
      },
      filter: {
        nz_word_parts: {
          type: 'word_delimiter_graph',
          generate_word_parts: true,
          generate_number_parts: true,
          catenate_all: true,
          preserve_original: false,
          split_on_case_change: false,
          split_on_numerics: true,
          stem_english_possessive: false,
        },
        // lenient: a rule whose terms analyse to nothing is skipped instead of failing the index creation.
        ...(rules.length > 0 ? { nz_synonyms: { type: 'synonym_graph' as const, synonyms: rules, expand: true, lenient: true } } : {}),
        nz_prefix_grams: { type: 'edge_ngram', min_gram: PREFIX_GRAMS.min, max_gram: PREFIX_GRAMS.max, preserve_original: true },
        nz_english_stem: { type: 'stemmer', language: 'english' },
        // Each word and each pair of adjacent words run together (`coca cola` → coca, cocacola, cola).
        nz_compound_pairs: { type: 'shingle', min_shingle_size: 2, max_shingle_size: 2, output_unigrams: true, token_separator: '' },
        nz_exact_compact: { type: 'pattern_replace', pattern: COMPACT, replacement: '', all: true },
        nz_exact_space: { type: 'pattern_replace', pattern: '\\s+', replacement: ' ', all: true },
      },
      analyzer: {
        [ANALYZERS.index]: {
          type: 'custom',
          char_filter: ['nz_apostrophe'],
          tokenizer: 'whitespace',
          filter: ['nz_word_parts', 'lowercase', 'asciifolding', 'flatten_graph'],
        },
        [ANALYZERS.search]: {
          type: 'custom',
          char_filter: ['nz_compact'],
          tokenizer: 'standard',
          filter: ['lowercase', 'asciifolding', ...synonyms],
        },
        [ANALYZERS.plain]: {
          type: 'custom',
          char_filter: ['nz_compact'],
          tokenizer: 'standard',
          filter: ['lowercase', 'asciifolding'],
        },
        [ANALYZERS.prefixIndex]: {
          type: 'custom',
          char_filter: ['nz_apostrophe'],
          tokenizer: 'whitespace',
          filter: ['nz_word_parts', 'lowercase', 'asciifolding', 'flatten_graph', 'nz_prefix_grams'],
        },
        [ANALYZERS.stemIndex]: {
          type: 'custom',
          char_filter: ['nz_apostrophe'],
          tokenizer: 'whitespace',
          filter: ['nz_word_parts', 'lowercase', 'asciifolding', 'nz_english_stem', 'flatten_graph'],
        },
        [ANALYZERS.compoundIndex]: {
          type: 'custom',
          char_filter: ['nz_compact'],
          tokenizer: 'standard',
          filter: ['lowercase', 'asciifolding', 'nz_compound_pairs'],
        },
        [ANALYZERS.stemSearch]: {
          type: 'custom',
          char_filter: ['nz_compact'],
          tokenizer: 'standard',
          filter: ['lowercase', 'asciifolding', ...synonyms, 'nz_english_stem'],
        },
      },
      normalizer: {
        [EXACT_NORMALIZER]: {
          type: 'custom',
          filter: ['lowercase', 'asciifolding', 'nz_exact_compact', 'nz_exact_space', 'trim'],
        },
      },
    },
  };
  const mappings: estypes.MappingTypeMapping = {
    dynamic: 'strict',
    properties: {
      id: { type: 'integer' },
      retailer_id: { type: 'integer' },
      retailer: { type: 'keyword' },
      retailer_name: { type: 'keyword', index: false, doc_values: false },
      product_id: { type: 'integer' },
      product_name: { type: 'keyword', index: false, doc_values: false },
      group_key: { type: 'keyword' },
      name: text({
        fields: {
          exact: { type: 'keyword', normalizer: EXACT_NORMALIZER, ignore_above: 512 },
          prefix,
          stem: { type: 'text', analyzer: ANALYZERS.stemIndex, search_analyzer: ANALYZERS.stemSearch },
          compound: { type: 'text', analyzer: ANALYZERS.compoundIndex, search_analyzer: ANALYZERS.plain },
        },
      }),
      brand: text({ fields: { keyword: { type: 'keyword', ignore_above: 256 }, prefix } }),
      size_text: text({ search_analyzer: ANALYZERS.plain, fields: { keyword: { type: 'keyword', ignore_above: 64 } } }),
      category_path: {
        type: 'keyword',
        ignore_above: 256,
        fields: { text: text(), prefix },
      },
      category_nodes: { type: 'keyword', ignore_above: 2048 },
      gtin: { type: 'keyword' },
      kind_label: {
        type: 'text',
        analyzer: ANALYZERS.stemIndex,
        search_analyzer: ANALYZERS.stemSearch,
        // The exact label: a suggestion counts the listings classified in a kind (./query.ts).
        fields: { keyword: { type: 'keyword', ignore_above: 256 } },
      },
      available: { type: 'boolean' },
      first_seen: { type: 'date', format: 'strict_date' },
      last_seen: { type: 'date', format: 'strict_date' },
    },
  };
  return { settings, mappings };
}

/**
 * The name of a new index behind `alias`, stamped with `at` (UTC, to the millisecond):
 * `<alias>-YYYYMMDDhhmmssSSS`. Names sort in build order.
 */
export function indexNameFor(alias: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:TZ.]/g, '');
  return `${alias}-${stamp}`;
}

/** Whether `index` is one this service built for `alias` (named by {@link indexNameFor}). */
export function isManagedIndex(alias: string, index: string): boolean {
  return index.startsWith(`${alias}-`) && /^\d{17}$/.test(index.slice(alias.length + 1));
}
