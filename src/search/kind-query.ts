/**
 * The kinds a search query is (not merely mentions): "milk" is the Milk kind, "bananas" and
 * "banana" the Bananas kind, "ground beef" (through its synonym phrasing "beef mince") the Beef
 * mince kind; "chocolate milk" and "anchor butter" are none (they say more than the kind). Both
 * search backends rank the listings of such a kind first after exact names (src/search/embedded.ts
 * as a parameter of its statement, src/search/elasticsearch/query.ts as a constant-score clause),
 * so a shopper typing a kind gets that kind before flavoured, plant-based or brand-fragment
 * listings whose text matches better by chance (issue 28: "q=milk" ranked oat milk above plain milk).
 */
import { KINDS } from '../domain/kinds.js';
import { expandSynonyms, normalizeSearchText } from './synonyms.js';

/** One word without its plural ending ("potatoes" → "potato", "peaches" → "peach", "apples" → "apple"). */
const singular = (word: string) => word.replace(/(?<=(?:o|ch|sh|x))es$|(?<!s)s$/, '');

/** A phrase's comparison key: normalised (src/search/synonyms.ts normalizeSearchText), each word singular. */
const key = (text: string) => normalizeSearchText(text).split(' ').filter(Boolean).map(singular).join(' ');

/** Kind labels by comparison key (several kinds may share a label). */
const LABELS_BY_KEY = new Map<string, string[]>();
for (const k of KINDS) {
  const labels = LABELS_BY_KEY.get(key(k.label)) ?? [];
  if (!labels.includes(k.label)) labels.push(k.label);
  LABELS_BY_KEY.set(key(k.label), labels);
}

/**
 * The labels (src/domain/kinds.ts) of the kinds `text` is: the query, or one of its synonym
 * phrasings (src/search/synonyms.ts expandSynonyms), equal to a kind's label once both are
 * normalised and each word made singular. Empty for most queries.
 */
export function kindsNamedBy(text: string): string[] {
  const norm = normalizeSearchText(text);
  if (!norm) return [];
  const out = new Set<string>();
  for (const phrasing of [norm, ...expandSynonyms(norm)]) for (const label of LABELS_BY_KEY.get(key(phrasing)) ?? []) out.add(label);
  return [...out];
}
