/**
 * Text filters (`q`, and the exact-text filters beside it): the one home of how a filter text is
 * read and of the rules it is matched by. Each operation family uses one rule, chosen for what
 * the family is for; the rules differ on purpose and this comment says why. Before this module,
 * each service wrote its own reading and its own SQL (a search backend, a prefix tsquery, `strpos`,
 * `LIKE` and `ILIKE`); the answers are unchanged except where noted.
 *
 * **Reading** (every family, {@link filterText}): the text is trimmed; blank is no filter; more than
 * {@link MAX_QUERY_LENGTH} characters (code points) is a BadRequest.
 *
 * **Rules**, by operation family:
 * 1. **search** — search_products, search_listings, suggest (src/services/search.ts): the search
 *    backend (src/search: Elasticsearch, or the embedded PostgreSQL full text and trigram search).
 *    Why: these rank a whole catalogue by relevance (typos, synonyms, stems, barcode digits); a
 *    filter rule would only say yes or no. This module only reads their text.
 * 2. **words** — get_store_listings (src/services/store-levels.ts) and browse_retailer
 *    (src/services/retailer-browse.ts): every word of `q`, normalised as the search normalises text
 *    (src/search/synonyms.ts normalizeSearchText = SQL `search_normalize`: lower case, accents
 *    removed, apostrophes, backticks, hyphens and dots removed, `&` a space), occurs as a substring
 *    of the listing's normalised brand + name (`listing.search_name`). Why: these narrow a list the
 *    shopper already chose (one store's listings, one category); every word narrows, in any order,
 *    and "watties" finds "Wattie's". Words become escaped LIKE patterns ({@link wordPatterns}); the
 *    SQL is {@link allWordsParamsSql} (one parameter per word, so the trigram index on
 *    `search_name` serves each: browse_retailer scans a whole chain, get_store_listings finds a
 *    word's listings before reading the store's rows). Decided here: get_store_listings used to split the normalised text
 *    in SQL and test each word with `strpos`; it now uses the same words and LIKE patterns as
 *    browse_retailer (the same answers: normalizeSearchText equals search_normalize,
 *    test/integration/rules-agree.test.ts).
 * 3. **prefix** — browse_shelf (src/services/shelves.ts): a full-text query over the shelf view's
 *    search document (`shelf_product.search_doc`), every word a prefix of a word of the product or
 *    its English stem ({@link prefixTsquerySql}); only a text with a letter or a digit filters
 *    ({@link hasPrefixWords}). Why: browse_shelf ranks by `ts_rank` (sort `relevance`) over a
 *    tsvector the derived view already keeps, prefixes serve type-as-you-go, stems "tomatoes" →
 *    "tomato".
 * 4. **substring** — list_deals (src/services/deals.ts) and the graph's `Retailer.listings`
 *    `filter.q` (src/services/graph-relations.ts): the whole text, case-insensitively, a substring
 *    of the listing's name or of its brand ({@link substringPattern}, {@link nameOrBrandSql}:
 *    ILIKE with LIKE's metacharacters escaped); not accent-folded, words not split. Why kept: both
 *    are documented to clients as "case-insensitive text in the name or brand (a substring, not a
 *    search)", and changing them to the words rule would change their answers (a phrase would match
 *    its words in any order). A candidate for the words rule if the contract changes.
 * 5. **exact** — list_stores `town`, `area`, `urban` (src/services/stores.ts) and `Retailer.listings`
 *    `filter.brand`: the whole value equal, case-insensitively: ILIKE against {@link likeLiteral}
 *    (so `%` is a percent sign, not "everything").
 * 6. **shelf word** — list_shelves (src/services/shelves.ts): the one shelf whose label or alias
 *    equals `q` after src/domain/shelves.ts normaliseShelfWord (case, accents, punctuation, "&"/"and",
 *    singular/plural ignored; resolveShelfWord); no partial match. Why: `q` names a shelf of a
 *    directory of about two hundred, to jump to it, not to search products.
 *
 * The search backend's own LIKE patterns (src/search/embedded.ts) are its internals, not a filter
 * rule, and stay there.
 */
import { BadRequest } from '../errors.js';
import { normalizeSearchText } from '../search/synonyms.js';
import { MAX_QUERY_LENGTH } from '../domain/limits.js';

/**
 * A filter text as every family reads it: trimmed, null when absent or blank.
 * @param param the parameter's name in the error message.
 * @throws BadRequest when longer than {@link MAX_QUERY_LENGTH} characters (code points).
 */
export function filterText(q: string | null | undefined, param = 'q'): string | null {
  const text = q?.trim() || null;
  if (text !== null && [...text].length > MAX_QUERY_LENGTH) {
    throw new BadRequest(`Invalid parameter "${param}": must be at most ${MAX_QUERY_LENGTH} characters`);
  }
  return text;
}

/**
 * `text` as a LIKE pattern matching exactly itself: `\`, `%` and `_` escaped with PostgreSQL's
 * default LIKE escape character, the backslash (the **exact** rule; the other LIKE patterns here
 * are built on it).
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The **substring** rule's pattern: `%text%` with `text` escaped ({@link likeLiteral}). */
export function substringPattern(text: string): string {
  return `%${likeLiteral(text)}%`;
}

/**
 * The **substring** rule in SQL: the listing `listing`'s name or brand ILIKE the pattern (the SQL
 * of a {@link substringPattern} value, e.g. a parameter `$3`).
 */
export function nameOrBrandSql(listing: string, pattern: string): string {
  return `(${listing}.name ILIKE ${pattern} OR ${listing}.brand ILIKE ${pattern})`;
}

/** The **words** rule's words of `q`: normalised (normalizeSearchText), split on spaces, deduplicated; [] for none. */
export function filterWords(q: string): string[] {
  return [...new Set(normalizeSearchText(q).split(' ').filter((w) => w !== ''))];
}

/** The **words** rule's LIKE patterns of `q`: `%word%` for each of {@link filterWords}, escaped; [] for none. */
export function wordPatterns(q: string): string[] {
  return filterWords(q).map(substringPattern);
}

/**
 * The **words** rule in SQL, one parameter per pattern: `column LIKE $first AND column LIKE
 * $first+1 …` (`count` patterns from parameter number `first`), so a trigram index on `column`
 * serves each. `count` 0 gives `true`.
 */
export function allWordsParamsSql(column: string, first: number, count: number): string {
  if (count === 0) return 'true';
  return Array.from({ length: count }, (_, i) => `${column} LIKE $${first + i}`).join(' AND ');
}

/** Whether `q` has a letter or a digit, i.e. whether the **prefix** rule filters by it (and browse_shelf ranks by relevance). */
export function hasPrefixWords(q: string): boolean {
  return /[\p{L}\p{N}]/u.test(q);
}

/**
 * The **prefix** rule's tsquery in SQL, of the text SQL `text` (e.g. `$2::text`): every word of its
 * search_normalize form (split on non-alphanumerics) as a prefix, or its English stem, all
 * required; NULL when it has no word.
 */
export function prefixTsquerySql(text: string): string {
  return `(SELECT to_tsquery('simple', string_agg(
    '(' || quote_literal(w) || ':*' || coalesce(' | ' || quote_literal((ts_lexize('english_stem', w))[1]), '') || ')', ' & '))
  FROM regexp_split_to_table(search_normalize(${text}), '[^[:alnum:]]+') AS w WHERE w <> '')`;
}
