/**
 * Spelling correction of search queries against the catalogue's own vocabulary (issue 31 item 2:
 * "galic" ranked Royal Gala apples and galaxy cheeses first, plain garlic not in the top 32), used
 * by the embedded backend (src/search/embedded.ts) before it ranks. A spell-checker's rule:
 *
 * - a query word is left alone when the full-text lists can find it: some listing's name has a word
 *   starting with it, or some listing's text has its English stem (so prefixes still type ahead:
 *   "choc", "gala", and stems already meet: "tomatos" → tomato). Decided live on `listing.search_doc`,
 *   so a word new to the catalogue is never "corrected" away;
 * - a word of {@link MIN_CORRECTED_CHARS} or more letters that matches nothing is replaced by the
 *   `search_word` entry (the vocabulary: every word of the listings' normalised brand + name, and
 *   every adjacent pair of words run together, with the listings holding it; built by the
 *   derived-views worker, workers/views/suggest.ts) that shares its first letter and lies within
 *   {@link maxEdits} edits (fuzzystrmatch `levenshtein_less_equal`), nearest first, then the one
 *   more listings hold: "galic" → garlic, "choclate" → chocolate, "bannana" → banana; a run-together
 *   pair is an entry too, so "peanutbutter" → "peanut butter", "icecream" → "ice cream".
 *
 * The first letter fixed and the edit budget mirror the Elasticsearch backend's `fuzziness: AUTO,
 * prefix_length: 1` (src/search/elasticsearch/query.ts); they also bound the work: a word is
 * compared only with the entries of its first letter and of a length within the budget (an index
 * on `search_word (head, length)`), never with every listing.
 */
import type pg from 'pg';

/** Shortest word corrected (shorter ones are abbreviations or units too often: "mlk", "ltr"). */
export const MIN_CORRECTED_CHARS = 4;
/** Longest word corrected (and longest vocabulary entry). */
export const MAX_CORRECTED_CHARS = 40;
/** Most words of one query looked at (a query holds at most 100 characters). */
export const MAX_CORRECTED_WORDS = 12;

/**
 * Edits allowed to correct a word of `chars` characters: 1 up to five, 2 from six, as
 * Elasticsearch's `fuzziness: AUTO` (0 below three, which {@link MIN_CORRECTED_CHARS} excludes).
 */
export function maxEdits(chars: number): number {
  return chars >= 6 ? 2 : 1;
}

/** A word the correction may replace: letters only, {@link MIN_CORRECTED_CHARS} to {@link MAX_CORRECTED_CHARS} characters. */
const CORRECTABLE = /^\p{L}+$/u;

/**
 * The distinct words of a normalised query (src/search/synonyms.ts normalizeSearchText) that
 * could be corrected, each with its edit budget ({@link maxEdits}); at most
 * {@link MAX_CORRECTED_WORDS}. Words with digits or symbols (sizes, codes) are never corrected.
 */
export function correctableWords(norm: string): { word: string; edits: number }[] {
  const out = new Map<string, number>();
  for (const word of norm.split(' ')) {
    const chars = Array.from(word).length;
    if (out.size >= MAX_CORRECTED_WORDS) break;
    if (chars < MIN_CORRECTED_CHARS || chars > MAX_CORRECTED_CHARS || !CORRECTABLE.test(word)) continue;
    out.set(word, maxEdits(chars));
  }
  return [...out].map(([word, edits]) => ({ word, edits }));
}

/**
 * `norm` with each word that `corrections` maps replaced by its replacement (a word or a phrase);
 * `corrections` is a Map, so no query word can reach an object's prototype.
 */
export function applyCorrections(norm: string, corrections: ReadonlyMap<string, string>): string {
  return norm
    .split(' ')
    .map((w) => corrections.get(w) ?? w)
    .join(' ');
}

/**
 * For each word ($1 text[]) with its edit budget ($2 int[]): whether the full-text lists find it,
 * and if not the nearest vocabulary entry with its first letter within the budget (most listings,
 * then key, on a tie), else null. Known: a vocabulary word (not a pair run together, which the
 * full-text lists cannot find as typed) starts with it (a range of the primary key: the common
 * case, no listing read), else, live, a listing's name has a word starting with it
 * or a listing's document its English stem (a word the vocabulary does not hold yet, or a stem:
 * "tomatos").
 */
const SPELLING_SQL = `
SELECT q.word, c.phrase
FROM unnest($1::text[], $2::int[]) q(word, edits)
CROSS JOIN LATERAL (
  SELECT CASE
    WHEN EXISTS (
      SELECT 1 FROM search_word s
      WHERE s.key >= q.word COLLATE "C" AND s.key <= (q.word || chr(1114111)) COLLATE "C" AND s.phrase = s.key
    ) THEN true
    ELSE EXISTS (
      SELECT 1 FROM listing l
      WHERE l.search_doc @@ (to_tsquery('simple', quote_literal(q.word) || ':*') || plainto_tsquery('english', q.word))
    )
  END AS known
) k
LEFT JOIN LATERAL (
  SELECT s.phrase FROM search_word s
  WHERE NOT k.known AND s.head = left(q.word, 1)
    AND s.length BETWEEN char_length(q.word) - q.edits AND char_length(q.word) + q.edits
    AND levenshtein_less_equal(q.word, s.key, q.edits) <= q.edits
  ORDER BY levenshtein_less_equal(q.word, s.key, q.edits), s.listings DESC, s.key
  LIMIT 1
) c ON true`;

/** A corrected query: the text to rank with, and each replaced word's replacement. */
export interface SpellingResult {
  /** `norm` with its corrections applied (equal to it when nothing was corrected). */
  text: string;
  corrections: Map<string, string>;
}

/**
 * Corrects the words of `norm` (normalised query text) that no listing holds, as the module
 * comment says; one statement. Nothing is corrected while `search_word` is empty (the views have
 * not run yet).
 * @throws the database's errors.
 */
export async function correctSpelling(db: Pick<pg.PoolClient, 'query'>, norm: string): Promise<SpellingResult> {
  const words = correctableWords(norm);
  const corrections = new Map<string, string>();
  if (words.length > 0) {
    const { rows } = await db.query<{ word: string; phrase: string | null }>(SPELLING_SQL, [words.map((w) => w.word), words.map((w) => w.edits)]);
    for (const r of rows) if (r.phrase !== null && r.phrase !== r.word) corrections.set(r.word, r.phrase);
  }
  return { text: corrections.size > 0 ? applyCorrections(norm, corrections) : norm, corrections };
}

/**
 * Rebuilds `search_word` from the listings (in the caller's transaction): every word of a
 * listing's search_name, and every pair of adjacent words of its normalised name or brand run
 * together (a pair whose run-together form is itself a word keeps the word), letters only, 2 to
 * {@link MAX_CORRECTED_CHARS} characters, with the listings holding it. Returns the entries written.
 * @throws the database's errors.
 */
export async function buildSearchWords(client: Pick<pg.PoolClient, 'query'>): Promise<number> {
  await client.query('DELETE FROM search_word');
  const r = await client.query(
    `INSERT INTO search_word (key, phrase, listings, head, length)
     SELECT DISTINCT ON (key) key, phrase, n, left(key, 1), char_length(key) FROM (
       SELECT key, phrase, count(DISTINCT id)::int AS n, min(grams) AS grams FROM (
         SELECT l.id, w.words[i] AS key, w.words[i] AS phrase, 1 AS grams
         FROM listing l, LATERAL (SELECT string_to_array(l.search_name, ' ') AS words) w, generate_subscripts(w.words, 1) i
         UNION ALL
         SELECT l.id, w.words[i] || w.words[i + 1], w.words[i] || ' ' || w.words[i + 1], 2
         FROM listing l,
           LATERAL (VALUES (string_to_array(search_normalize(l.name), ' ')), (string_to_array(search_normalize(l.brand), ' '))) w(words),
           generate_subscripts(w.words, 1) i
         WHERE i < cardinality(w.words)
       ) x
       WHERE key ~ '^[[:alpha:]]+$' AND char_length(key) BETWEEN 2 AND $1
       GROUP BY key, phrase
     ) y
     ORDER BY key, grams, n DESC, phrase`,
    [MAX_CORRECTED_CHARS],
  );
  await client.query('ANALYZE search_word');
  return r.rowCount ?? 0;
}
