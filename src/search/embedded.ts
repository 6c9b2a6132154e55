/**
 * The embedded search backend (the default): PostgreSQL full-text search over the generated
 * `listing.search_doc` (unaccented, English stems plus exact words; name A, brand B, categories C),
 * trigram word similarity over `listing.search_name` (pg_trgm: typos and partial words), synonym
 * expansion (src/search/synonyms.ts) and a category prior learnt from the catalogue at query time:
 * among the candidates, those in the leaf categories where the query's matches concentrate rank up
 * ("milk" → the Milk shelf before milk chocolate), and a kind prior: candidates of a curated kind
 * (src/domain/kinds.ts) whose label the query names rank up ("bananas" → fresh bananas before
 * banana-flavoured baby food). The ranked lists are fused by reciprocal rank
 * fusion (Cormack, Clarke & Büttcher 2009: score = Σ w / (60 + rank)), after exact-name matches.
 * Before ranking, query words no listing holds are corrected to the catalogue's nearest word
 * (./spelling.ts: "galic" → garlic, "peanutbutter" → peanut butter); the typed text stays a
 * phrasing of the synonym list.
 * An optional {@link Embedder} adds a cosine-similarity list over the candidates.
 *
 * User text only ever reaches SQL as a bound parameter; tsqueries are built in SQL from the
 * lexemes of `to_tsvector` (quoted with quote_literal), so no input can be a tsquery syntax error.
 */
import type pg from 'pg';
import { inTransaction } from '../db/transaction.js';
import { SUGGEST_GROUP_MAX, type Embedder, type SearchBackend, type SuggestionHit, type SuggestQuery, type TextQuery } from './backend.js';
import { expandSynonyms, normalizeSearchText } from './synonyms.js';
import { kindsNamedBy } from './kind-query.js';
import { correctSpelling } from './spelling.js';

/** RRF constant k (Cormack et al. 2009 use 60). */
export const RRF_K = 60;
/** Candidates taken from each ranked list before fusion. */
export const CANDIDATES_PER_LIST = 200;
/**
 * pg_trgm word-similarity threshold of the typo list: 0.5 keeps one-letter typos of longer words
 * ("choclate" ~ "chocolate" 0.78, "spagheti" ~ "spaghetti"); queries of at most four characters
 * share too many trigrams by chance ("milk" ~ "mixed" 0.4) and need {@link SHORT_TRIGRAM_THRESHOLD}.
 */
export const TRIGRAM_THRESHOLD = 0.5;
/** Threshold for queries of at most four characters. */
export const SHORT_TRIGRAM_THRESHOLD = 0.7;

/**
 * Trigram similarity (pg_trgm `similarity`) at which a kind label of as many words as the query
 * counts as named by a misspelt query: "bannana" ~ "bananas" 0.50, "carots" ~ "carrots" 0.67,
 * while "milk" ~ "mild" is 0.43.
 */
export const KIND_TYPO_SIMILARITY = 0.5;

/** Weights of the fused lists: all words, any word, typos, synonyms, category prior, kind prior, embeddings. */
export const LIST_WEIGHTS = { all: 1, any: 0.4, trigram: 0.8, synonyms: 0.8, category: 0.5, kind: 1, embedding: 0.7 } as const;

/**
 * One statement computing every list and the fusion. The all-words list ranks the listings holding
 * every word whole (or its stem) before those where a word only starts one ("gala": Royal Gala
 * apples before galaxy cheese). $1 normalised (and spelling-corrected) text, $2 synonym phrasings
 * (text[]), $3 retailer id or null, $4 limit, $5 candidates per list, $6 the labels of the kinds
 * the query is (src/search/kind-query.ts kindsNamedBy: their listings rank right after exact names).
 */
const SEARCH_SQL = `
WITH q AS (
  SELECT $1::text AS norm, tsvector_to_array(to_tsvector('english', $1::text)) AS words,
    (SELECT string_agg(quote_literal(t.lexeme) || ':*', ' & ') FROM unnest(to_tsvector('english', $1::text)) t)::tsquery AS q_all,
    (SELECT string_agg(quote_literal(t.lexeme), ' & ') FROM unnest(to_tsvector('english', $1::text)) t)::tsquery AS q_whole,
    (SELECT string_agg(quote_literal(t.lexeme) || ':*', ' | ') FROM unnest(to_tsvector('english', $1::text)) t)::tsquery AS q_any,
    (SELECT string_agg('(' || plainto_tsquery('english', a)::text || ')', ' | ') FROM unnest($2::text[]) a
      WHERE plainto_tsquery('english', a)::text <> '')::tsquery AS q_syn
),
l_all AS (
  SELECT l.id, row_number() OVER (ORDER BY l.search_doc @@ q.q_whole DESC, ts_rank_cd(l.search_doc, q.q_all) DESC, l.id) AS r
  FROM listing l, q WHERE q.q_all IS NOT NULL AND l.search_doc @@ q.q_all AND ($3::int IS NULL OR l.retailer_id = $3)
  ORDER BY r LIMIT $5
),
l_any AS (
  SELECT l.id, row_number() OVER (ORDER BY ts_rank_cd(l.search_doc, q.q_any) DESC, l.id) AS r
  FROM listing l, q WHERE q.q_any IS NOT NULL AND l.search_doc @@ q.q_any AND ($3::int IS NULL OR l.retailer_id = $3)
  ORDER BY r LIMIT $5
),
l_trgm AS (
  SELECT l.id, row_number() OVER (ORDER BY word_similarity(q.norm, l.search_name) DESC, l.id) AS r
  FROM listing l, q WHERE q.norm <% l.search_name AND ($3::int IS NULL OR l.retailer_id = $3)
  ORDER BY r LIMIT $5
),
l_syn AS (
  SELECT l.id, row_number() OVER (ORDER BY ts_rank_cd(l.search_doc, q.q_syn) DESC, l.id) AS r
  FROM listing l, q WHERE q.q_syn IS NOT NULL AND l.search_doc @@ q.q_syn AND ($3::int IS NULL OR l.retailer_id = $3)
  ORDER BY r LIMIT $5
),
pool AS (
  SELECT id, min(r) AS best FROM (SELECT * FROM l_all UNION ALL SELECT * FROM l_any UNION ALL SELECT * FROM l_trgm UNION ALL SELECT * FROM l_syn) u
  GROUP BY id
),
-- Category prior: the leaf category of each candidate, and how much of the candidate pool's
-- reciprocal-rank mass falls in that category.
leaf AS (
  SELECT p.id, p.best, l.category_path[cardinality(l.category_path)] AS cat FROM pool p JOIN listing l ON l.id = p.id
),
cat_mass AS (
  SELECT cat, sum(1.0 / (${RRF_K} + best)) AS mass FROM leaf WHERE cat IS NOT NULL GROUP BY cat
),
l_cat AS (
  SELECT leaf.id, row_number() OVER (ORDER BY m.mass DESC, leaf.best, leaf.id) AS r
  FROM leaf JOIN cat_mass m ON m.cat = leaf.cat
),
-- Kind prior: candidates whose kind (src/domain/kinds.ts, through their generic) the query names:
-- every word (English stem) of the kind's label is a word of the query or of one of its synonym
-- phrasings ("bananas" → the Bananas kind, not banana-flavoured baby food; "anchor butter" →
-- Butter; "ground beef" → Beef mince), or, for a typo, the label has as many words as the query
-- and is trigram-similar to it (≥ ${KIND_TYPO_SIMILARITY}: "bannana" → Bananas, "carots" → Carrots).
-- Named kinds rank before typo-similar ones, kinds naming more words first.
kind_label AS (
  SELECT k.id, tsvector_to_array(to_tsvector('english', k.label)) AS words, lower(k.label) AS text FROM kind k
),
kind_test AS (
  SELECT kl.id, cardinality(kl.words) AS words,
    kl.words <@ q.words
      OR EXISTS (SELECT 1 FROM unnest($2::text[]) a WHERE kl.words <@ tsvector_to_array(to_tsvector('english', a))) AS named,
    cardinality(kl.words) = cardinality(q.words) AND similarity(kl.text, q.norm) >= ${KIND_TYPO_SIMILARITY} AS typo
  FROM kind_label kl, q
),
kind_named AS (
  SELECT id, words, named FROM kind_test WHERE named OR typo
),
l_kind AS (
  SELECT p.id, row_number() OVER (ORDER BY kn.named DESC, kn.words DESC, p.best, p.id) AS r
  FROM pool p JOIN listing l ON l.id = p.id JOIN generic g ON g.id = l.generic_id JOIN kind_named kn ON kn.id = g.kind_id
),
fused AS (
  SELECT id, sum(w / (${RRF_K} + r)) AS score FROM (
    SELECT id, r, ${LIST_WEIGHTS.all}::float8 AS w FROM l_all
    UNION ALL SELECT id, r, ${LIST_WEIGHTS.any} FROM l_any
    UNION ALL SELECT id, r, ${LIST_WEIGHTS.trigram} FROM l_trgm
    UNION ALL SELECT id, r, ${LIST_WEIGHTS.synonyms} FROM l_syn
    UNION ALL SELECT id, r, ${LIST_WEIGHTS.category} FROM l_cat
    UNION ALL SELECT id, r, ${LIST_WEIGHTS.kind} FROM l_kind
  ) lists GROUP BY id
)
SELECT f.id, f.score, l.search_name, coalesce(k.label = ANY($6::text[]), false) AS kind_named
FROM fused f JOIN listing l ON l.id = f.id LEFT JOIN generic g ON g.id = l.generic_id LEFT JOIN kind k ON k.id = g.kind_id, q
ORDER BY (search_normalize(l.name) = q.norm OR l.search_name = q.norm) DESC, coalesce(k.label = ANY($6::text[]), false) DESC, f.score DESC, f.id
LIMIT $4`;

/** Options of {@link createEmbeddedBackend}. */
export interface EmbeddedOptions {
  /** Adds a semantic list (cosine similarity of the query to candidate names) when given. */
  embedder?: Embedder;
  /**
   * The thresholds of the type-ahead view's listing lookup (default {@link FEW_WORD_HITS},
   * {@link WALK_ROWS}); tests lower them so a small catalogue takes every path. Answers do not
   * depend on them.
   */
  suggestView?: SuggestViewTuning;
}

/** Thresholds of {@link viewListingOrds} (counts of rows, each ≥ 0). */
export interface SuggestViewTuning {
  /** Word keys a prefix may have and still be answered from its keys alone. */
  fewWordHits?: number;
  /** Listings of one tier walked in order before its keys are read. */
  walkRows?: number;
}

/** Reciprocal-rank-fuses an extra ranking into a scored list (ids best first). */
function fuseEmbedding(rows: { id: number; score: number }[], ranking: number[], weight: number): number[] {
  const score = new Map(rows.map((r) => [r.id, r.score]));
  ranking.forEach((id, i) => score.set(id, (score.get(id) ?? 0) + weight / (RRF_K + i + 1)));
  return rows.map((r) => r.id).sort((a, b) => (score.get(b) ?? 0) - (score.get(a) ?? 0) || a - b);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Escapes `%`, `_` and `\` so text matches literally in LIKE (escape character `\`). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Detail of a kind's suggestion (SQL over `kind` alias `k`): the shelf the kind is on
 * (src/domain/shelves.ts shelfOfKind, stored as `kind.shelf_label`), or null when the shelf is
 * the kind itself ("Bananas"). The Elasticsearch backend computes the same (./elasticsearch/query.ts
 * suggestKinds); test/integration/kind-detail.test.ts holds the two equal over every curated kind.
 */
export const KIND_DETAIL_SQL = `CASE WHEN lower(k.shelf_label) = lower(k.label) THEN NULL ELSE k.shelf_label END`;

/**
 * Kinds (src/domain/kinds.ts) as type-ahead terms, with how many listings share each: a kind is
 * what many listings of many brands are ("Bananas", "Tomatoes"), so a short prefix names it
 * before the brand fragments that share its letters ("ban" → Bananas before band aid, banana
 * boat). `n` counts the listings that **share the kind**: those classified in it (through their
 * generic) and those whose text holds every word of its label (the full-text match of search:
 * "bananas" is in 91 listings of 52 brands, "band aid" in 9 of one), each once; kinds sharing a
 * label count together; a kind no listing shares is not suggested. One row per label: label,
 * norm, parent (the detail, {@link KIND_DETAIL_SQL}), n. `where` filters the `kind` rows
 * (alias `k`); the type-ahead view (workers/views/suggest.ts) writes the rows of every kind.
 */
export function kindTermsSql(where: string): string {
  return `
  SELECT kl.label, search_normalize(kl.label) AS norm, kl.parent, c.n
  FROM (SELECT k.label, min(${KIND_DETAIL_SQL}) AS parent, array_agg(k.id) AS ids FROM kind k WHERE ${where} GROUP BY k.label) kl,
    LATERAL (SELECT count(*)::numeric AS n FROM (
      SELECT l.id FROM listing l WHERE l.search_doc @@ plainto_tsquery('english', search_normalize(kl.label))
      UNION SELECT l.id FROM listing l WHERE l.generic_id = ANY(ARRAY(SELECT g.id FROM generic g WHERE g.kind_id = ANY(kl.ids)))
    ) shared) c
  WHERE c.n > 0`;
}

/** The kinds of a suggestion ($1 word-start pattern), as {@link kindTermsSql}. */
const KIND_TERMS_SQL = `
kind_terms AS (${kindTermsSql(`' ' || search_normalize(k.label) LIKE $1 ESCAPE '\\'`)}
),`;

/**
 * The term groups of a suggestion from their candidates `cat_terms` and `kind_terms` (label, norm,
 * parent, n) and `brand_terms` (label, norm, n): categories and kinds are one group ("category"),
 * one per normalised label (the one holding more listings), and each group keeps its first
 * {@link SUGGEST_GROUP_MAX}, labels starting with the prefix ($2) first, then by listings, then
 * label; `k` is that display order.
 */
const TERM_GROUPS_SQL = `
cats AS (
  SELECT label, parent, n, row_number() OVER (ORDER BY (norm LIKE $2 ESCAPE '\\') DESC, n DESC, label) AS k
  FROM (
    SELECT DISTINCT ON (norm) label, norm, parent, n
    FROM (SELECT label, norm, parent, n FROM cat_terms UNION ALL SELECT label, norm, parent, n FROM kind_terms) t
    ORDER BY norm, n DESC, label
  ) d
  ORDER BY k LIMIT ${SUGGEST_GROUP_MAX}
),
brands AS (
  SELECT label, n, row_number() OVER (ORDER BY (norm LIKE $2 ESCAPE '\\') DESC, n DESC, label) AS k
  FROM brand_terms ORDER BY k LIMIT ${SUGGEST_GROUP_MAX}
),`;

/**
 * Type-ahead over categories (leaf labels of the chains' own paths) and kinds, brands, linked
 * products and listings whose normalised text has a word starting with the prefix. $1 LIKE
 * pattern for a word start anywhere ('% pre%'), $2 LIKE pattern for the whole text start
 * ('pre%'), $3 limit, $4 the substring pattern ('%pre%') the trigram index serves. Categories and
 * brands are aggregated before their labels are normalised, so the work grows with distinct
 * labels, not listings.
 */
const LIVE_TERMS_SQL = `
paths AS (
  -- Only the paths with a label holding the prefix (trigram index on the path's normalised text).
  SELECT category_path, count(*) AS n FROM listing
  WHERE cardinality(category_path) > 0 AND ($4::text IS NULL OR search_category_text(category_path) LIKE $4 ESCAPE '\\')
  GROUP BY category_path
),
cat_terms AS (
  SELECT c.label, search_normalize(c.label) AS norm, min(c.parent) AS parent, sum(p.n) AS n
  FROM paths p, LATERAL (
    SELECT u.label, array_to_string(p.category_path[1:u.i - 1], ' › ') AS parent
    FROM unnest(p.category_path) WITH ORDINALITY u(label, i)) c
  WHERE ' ' || search_normalize(c.label) LIKE $1 ESCAPE '\\'
  GROUP BY c.label
),${KIND_TERMS_SQL}
brand_counts AS (
  SELECT brand, count(*) AS n FROM listing
  WHERE brand IS NOT NULL AND ($4::text IS NULL OR search_normalize(brand) LIKE $4 ESCAPE '\\')
  GROUP BY brand
),
brand_terms AS (
  SELECT min(brand) AS label, search_normalize(brand) AS norm, sum(n) AS n FROM brand_counts
  WHERE ' ' || search_normalize(brand) LIKE $1 ESCAPE '\\'
  GROUP BY search_normalize(brand)
),${TERM_GROUPS_SQL}`;

/**
 * The categories and brands of {@link LIVE_TERMS_SQL} read from the type-ahead view
 * (workers/views/suggest.ts `suggest_term`: its category, kind and brand rows), used while it is
 * current: the same rows, without aggregating listings (counts as numeric, the type of the live
 * sums). $1 word-start pattern, $2 whole-text-start pattern.
 */
const VIEW_TERMS_SQL = `
cat_terms AS (
  SELECT label, norm, parent, n::numeric AS n FROM suggest_term
  WHERE kind = 'category' AND ' ' || norm LIKE $1 ESCAPE '\\'
),
kind_terms AS (
  SELECT label, norm, parent, n::numeric AS n FROM suggest_term
  WHERE kind = 'kind' AND ' ' || norm LIKE $1 ESCAPE '\\'
),
brand_terms AS (
  SELECT label, norm, n::numeric AS n FROM suggest_term
  WHERE kind = 'brand' AND ' ' || norm LIKE $1 ESCAPE '\\'
),${TERM_GROUPS_SQL}`;

/** Products, shared by every form of the suggestion query. */
const SUGGEST_PRODUCTS_SQL = `
products AS (
  SELECT p.id, p.name, p.size_text, row_number() OVER (ORDER BY (search_normalize(p.name) LIKE $2 ESCAPE '\\') DESC, length(p.name), p.id) AS k
  FROM product p
  WHERE ($4::text IS NULL OR p.search_name LIKE $4 ESCAPE '\\') AND ' ' || p.search_name LIKE $1 ESCAPE '\\'
  ORDER BY k LIMIT $3
),`;

/** Listings matched live: each one's search_name tested and each match's name normalised. */
const LIVE_LISTINGS_SQL = `
listings AS (
  SELECT l.id, l.name, l.size_text, r.name AS chain,
    row_number() OVER (ORDER BY l.available DESC, (search_normalize(l.name) LIKE $2 ESCAPE '\\') DESC, length(l.name), l.id) AS k
  FROM listing l JOIN retailer r ON r.id = l.retailer_id
  -- The substring test can use the trigram index; the word-start test then rechecks.
  WHERE l.product_id IS NULL AND ($4::text IS NULL OR l.search_name LIKE $4 ESCAPE '\\') AND ' ' || l.search_name LIKE $1 ESCAPE '\\'
  ORDER BY k LIMIT $3
)`;

/** The listings {@link viewListingOrds} chose ($5: their `suggest_listing.ord`, in display order). */
const VIEW_LISTINGS_SQL = `
listings AS (
  SELECT l.id, l.name, l.size_text, r.name AS chain, u.k
  FROM unnest($5::int[]) WITH ORDINALITY u(ord, k) JOIN suggest_listing s ON s.ord = u.ord
    JOIN listing l ON l.id = s.listing_id JOIN retailer r ON r.id = l.retailer_id
)`;

/**
 * The display order, shared by every form of the suggestion query: categories and kinds, brands,
 * products, listings, each group in its own order (`k`).
 */
const SUGGEST_UNION_SQL = `
SELECT 'category' AS kind, NULL::int AS id, label, nullif(parent, '') AS detail, 1 AS grp, k AS ord FROM cats
UNION ALL SELECT 'brand', NULL, label, n || CASE WHEN n = 1 THEN ' listing' ELSE ' listings' END, 2, k FROM brands
UNION ALL SELECT 'product', id, name, size_text, 3, k FROM products
UNION ALL SELECT 'listing', id, name, concat_ws(' · ', size_text, chain), 4, k FROM listings
ORDER BY grp, ord`;

/** The suggestion query computing every part live ($4: the trigram substring pattern or null). */
const SUGGEST_SQL = `WITH ${LIVE_TERMS_SQL}${SUGGEST_PRODUCTS_SQL}${LIVE_LISTINGS_SQL}${SUGGEST_UNION_SQL}`;
/**
 * The suggestion query reading categories and brands from the type-ahead view, and the listings
 * chosen from it beforehand ($5, {@link viewListingOrds}); $1 to $4 as {@link SUGGEST_SQL}.
 */
const SUGGEST_VIEW_SQL = `WITH ${VIEW_TERMS_SQL}${SUGGEST_PRODUCTS_SQL}${VIEW_LISTINGS_SQL}${SUGGEST_UNION_SQL}`;

/**
 * Characters of a `suggest_word` key (workers/views/suggest.ts): each word start of a listing's
 * search_name is stored as the text from there on, cut to this many characters; a longer prefix is
 * looked up by its first ones and rechecked on search_name.
 */
export const WORD_KEY_CHARS = 24;

/** Characters of a `suggest_name` key (a listing's normalised name, cut as a btree entry must be). */
export const NAME_KEY_CHARS = 200;

/**
 * At most this many `suggest_word` keys (or `suggest_listing` names) starting with a prefix are read,
 * then ranked and rechecked all at once; a prefix with more is common, and each tier of the order
 * is first walked in order.
 */
export const FEW_WORD_HITS = 1000;

/**
 * Listings of one tier read in display order while looking for a common prefix's matches (about
 * `limit` × listings / matches rows); a tier with fewer matches in them is read by its keys instead.
 */
export const WALK_ROWS = 4000;

/** One tier of the display order: available first, then names starting with the prefix first. */
const VIEW_TIERS = [
  { available: true, starts: true },
  { available: true, starts: false },
  { available: false, starts: true },
  { available: false, starts: false },
] as const;

/**
 * The listings a suggestion lists, as their `ord` in the type-ahead view (workers/views/suggest.ts
 * `suggest_listing`, `suggest_word`, `suggest_name`; call only while it is current): the listings
 * without a product whose search_name has a word starting with `norm` (normalised text), ordered as
 * the live query orders them (available first, then those whose normalised name starts with
 * `norm`, then shorter name, then id; `ord` is that rank without the prefix test, the available
 * listings holding ords 1 to their count), at most `limit` (1..12). `tuning` overrides the
 * thresholds (tests).
 *
 * A prefix with at most {@link FEW_WORD_HITS} word keys is ranked from its keys. A commoner one is
 * answered tier by tier ({@link VIEW_TIERS}) until `limit` are found: the tiers of names starting
 * with the prefix from those names when at most FEW_WORD_HITS do; otherwise each tier's first
 * {@link WALK_ROWS} listings by `ord` are tested in order, and a tier with fewer matches there is
 * read from its keys in `ord` order (the name keys, or the word keys).
 * @throws the database's errors.
 */
async function viewListingOrds(
  client: pg.PoolClient,
  norm: string,
  limit: number,
  tuning: SuggestViewTuning = {},
): Promise<number[]> {
  const few = tuning.fewWordHits ?? FEW_WORD_HITS;
  const walkRows = tuning.walkRows ?? WALK_ROWS;
  const like = escapeLike(norm);
  const wordStart = `% ${like}%`;
  const start = `${like}%`;
  const chars = Array.from(norm);
  const wordKey = `${escapeLike(chars.slice(0, WORD_KEY_CHARS).join(''))}%`;
  const nameKey = `${escapeLike(chars.slice(0, NAME_KEY_CHARS).join(''))}%`;
  const ords = (rows: { ord: number }[]) => rows.map((r) => r.ord);
  // Up to few + 1 listings with a word key, and with a name key, starting with the prefix (in key
  // order: the index's, whatever the planner estimates), and the count of available listings.
  const probe = (await client.query<{ hits: number[]; starts: number[]; available: number }>(
    `SELECT ARRAY(SELECT ord FROM suggest_word WHERE key LIKE $1 ESCAPE '\\' ORDER BY key LIMIT $3) AS hits,
            ARRAY(SELECT ord FROM suggest_name WHERE key LIKE $2 ESCAPE '\\' ORDER BY key LIMIT $3) AS starts,
            (SELECT coalesce(max(ord), 0) FROM suggest_listing WHERE available) AS available`,
    [wordKey, nameKey, few + 1],
  )).rows[0];
  if (probe.hits.length <= few) {
    if (probe.hits.length === 0) return [];
    const hits = [...new Set(probe.hits)];
    if (chars.length <= WORD_KEY_CHARS && probe.starts.length <= few && chars.length <= NAME_KEY_CHARS) {
      // The keys are whole for this prefix: the word keys are the matches, the name keys the names
      // starting with it; ranked here.
      const starts = new Set(probe.starts);
      const rank = (ord: number) => [ord > probe.available ? 1 : 0, starts.has(ord) ? 0 : 1, ord];
      const cmp = (a: number, b: number) => {
        const [x, y] = [rank(a), rank(b)];
        return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
      };
      return hits.sort(cmp).slice(0, limit);
    }
    return ords((await client.query<{ ord: number }>(
      `SELECT ord FROM suggest_listing
       WHERE ord = ANY($1::int[]) AND ' ' || search_name LIKE $2 ESCAPE '\\'
       ORDER BY available DESC, (name_norm LIKE $3 ESCAPE '\\') DESC, ord LIMIT $4`,
      [hits, wordStart, start, limit],
    )).rows);
  }
  const out: number[] = [];
  for (const tier of VIEW_TIERS) {
    const need = limit - out.length;
    if (need <= 0) break;
    const test = `${tier.starts ? '' : 'NOT '}(name_norm LIKE $2 ESCAPE '\\') AND ' ' || search_name LIKE $3 ESCAPE '\\'`;
    if (tier.starts && probe.starts.length <= few) {
      // Few names start with the prefix: all of them are at hand.
      out.push(...ords((await client.query<{ ord: number }>(
        `SELECT ord FROM suggest_listing WHERE ord = ANY($5::int[]) AND available = $1 AND ${test} ORDER BY ord LIMIT $4`,
        [tier.available, start, wordStart, need, probe.starts],
      )).rows));
      continue;
    }
    const walked = ords((await client.query<{ ord: number }>(
      `SELECT ord FROM (
         SELECT ord, name_norm, search_name FROM suggest_listing WHERE available = $1 ORDER BY ord LIMIT $5
       ) w WHERE ${test} ORDER BY ord LIMIT $4`,
      [tier.available, start, wordStart, need, walkRows],
    )).rows);
    if (walked.length === need) {
      out.push(...walked);
      continue;
    }
    // Fewer matches than needed among the first WALK_ROWS (a prefix of long names, say): the
    // listings of the tier's keys (name keys, or word keys) in `ord` order, each tested until
    // `need` are found (a nested loop: OFFSET 0 keeps the planner from reading every key's listing).
    out.push(...ords((await client.query<{ ord: number }>(
      `SELECT x.ord FROM (SELECT DISTINCT ord FROM ${tier.starts ? 'suggest_name' : 'suggest_word'} WHERE key LIKE $5 ESCAPE '\\' ORDER BY ord) h,
         LATERAL (SELECT ord FROM suggest_listing WHERE ord = h.ord AND available = $1 AND ${test} OFFSET 0) x
       ORDER BY h.ord LIMIT $4`,
      [tier.available, start, wordStart, need, tier.starts ? nameKey : wordKey],
    )).rows));
  }
  return out;
}

/**
 * Runs `fn` in a read-only transaction with JIT compilation off: the planner's row estimates for
 * these queries cross jit_above_cost, and compiling costs far more than the query (bench: suggest
 * p50 379 ms → 13 ms on the real catalogue).
 */
function readOnly<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, fn, { readOnly: true, setup: 'SET LOCAL jit = off' });
}

/**
 * Whether the type-ahead view's rows (workers/views/suggest.ts: `suggest_term`, `recent_listing`)
 * hold the current data: its view_run row carries the database's data version, which every write
 * job bumps. Readers use the rows only then, else compute live, so answers never differ.
 */
export async function suggestViewsCurrent(db: Pick<pg.Pool, 'query'> | pg.PoolClient): Promise<boolean> {
  const { rows } = await db.query<{ ok: boolean }>(
    `SELECT v.data_version = d.version::text AS ok FROM view_run v, data_version d WHERE v.name = 'suggest' AND d.id = 1`,
  );
  return rows[0]?.ok === true;
}

/** Site path of a suggestion (api-spec Suggestion.href). */
export function suggestionHref(kind: SuggestionHit['kind'], id: number | null, label: string): string {
  if (kind === 'product') return `/products/${id}`;
  if (kind === 'listing') return `/listings/${id}`;
  return `/search?q=${encodeURIComponent(label)}`;
}

/** The embedded backend over `pool` (borrowed; never closed here). */
export function createEmbeddedBackend(pool: pg.Pool, opts: EmbeddedOptions = {}): SearchBackend {
  return {
    name: 'embedded',

    async searchListings({ text, retailerId, limit }: TextQuery): Promise<number[]> {
      const typed = normalizeSearchText(text);
      if (!typed) return [];
      const fetch = opts.embedder ? Math.max(limit, 100) : limit;
      let norm = typed;
      const rows = await readOnly(pool, async (client) => {
        // Words no listing holds are corrected to the catalogue's nearest word (./spelling.ts:
        // "galic" → "garlic"); the typed text stays a phrasing of the synonym list.
        norm = (await correctSpelling(client, typed)).text;
        const phrasings = expandSynonyms(norm);
        if (norm !== typed) phrasings.push(typed);
        // The typo list's threshold is per transaction (pg_trgm reads it from a setting).
        const threshold = norm.length <= 4 ? SHORT_TRIGRAM_THRESHOLD : TRIGRAM_THRESHOLD;
        await client.query(`SET LOCAL pg_trgm.word_similarity_threshold = ${threshold}`);
        return (await client.query<{ id: number; score: number; search_name: string; kind_named: boolean }>(
          SEARCH_SQL,
          [norm, phrasings, retailerId, fetch, CANDIDATES_PER_LIST, kindsNamedBy(norm)],
        )).rows;
      });
      if (!opts.embedder || rows.length === 0) return rows.slice(0, limit).map((r) => r.id);
      const [query, ...names] = await opts.embedder.embed([norm, ...rows.map((r) => r.search_name)]);
      const ranking = rows.map((r, i) => ({ id: r.id, cos: dot(query, names[i]) })).sort((a, b) => b.cos - a.cos).map((r) => r.id);
      // Exact names, then the listings of the kind the query is, each in the fused order.
      const exact = new Set(rows.filter((r) => r.search_name === norm).map((r) => r.id));
      const named = new Set(rows.filter((r) => r.kind_named).map((r) => r.id));
      const fused = fuseEmbedding(rows, ranking, LIST_WEIGHTS.embedding).filter((id) => !exact.has(id));
      return [...exact, ...fused.filter((id) => named.has(id)), ...fused.filter((id) => !named.has(id))].slice(0, limit);
    },

    async suggest({ prefix, limit }: SuggestQuery): Promise<SuggestionHit[]> {
      const norm = normalizeSearchText(prefix);
      if (!norm) return [];
      const like = escapeLike(norm);
      const rows = await readOnly(pool, async (client) => {
        // A trigram index cannot serve a pattern of fewer than three characters (it would read
        // every entry): then $4 is null and the scans filter on the word start alone.
        const params: unknown[] = [`% ${like}%`, `${like}%`, limit, norm.length >= 3 ? `%${like}%` : null];
        // The type-ahead view's rows while they hold the current data (else computed live).
        const view = await suggestViewsCurrent(client);
        if (view) params.push(await viewListingOrds(client, norm, limit, opts.suggestView));
        return (await client.query<{ kind: SuggestionHit['kind']; id: number | null; label: string; detail: string | null }>(
          view ? SUGGEST_VIEW_SQL : SUGGEST_SQL,
          params,
        )).rows;
      });
      return rows.slice(0, limit).map((r) => ({ kind: r.kind, id: r.id, label: r.label, detail: r.detail, href: suggestionHref(r.kind, r.id, r.label) }));
    },

    close: async () => {},
  };
}
