/**
 * NZ grocery synonyms: groups of terms shoppers use for the same thing (New Zealand, Australian,
 * British and American names, brand-style spellings). Shared by the embedded backend (query-time
 * expansion) and the Elasticsearch backend (a synonym_graph filter). Terms are written in the
 * normalised form of {@link normalizeSearchText}: lowercase, no accents, no apostrophes or hyphens.
 * Curated by hand for this service; the category expansion of the embedded backend complements it
 * with what the catalogue itself says (src/search/embedded.ts).
 */
import { UNACCENT_DECOMPOSED, UNACCENT_REPLACED } from './unaccent.js';

/** Groups of equivalent terms (single words or short phrases), each group matched both ways. */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['weetbix', 'weet bix', 'wheat biscuits'],
  ['mince', 'ground beef', 'minced beef', 'beef mince'],
  ['courgette', 'zucchini'],
  ['capsicum', 'bell pepper', 'sweet pepper'],
  ['kumara', 'sweet potato'],
  ['aubergine', 'eggplant'],
  ['coriander', 'cilantro'],
  ['rockmelon', 'cantaloupe'],
  ['spring onion', 'scallion', 'green onion'],
  ['silverbeet', 'chard', 'swiss chard'],
  ['chips', 'crisps'],
  ['hot chips', 'fries', 'french fries'],
  ['lollies', 'candy', 'sweets'],
  ['fizzy', 'soft drink', 'soda', 'pop'],
  ['tomato sauce', 'ketchup'],
  ['icing sugar', 'powdered sugar', 'confectioners sugar'],
  ['biscuits', 'cookies'],
  ['yoghurt', 'yogurt'],
  ['tinned', 'canned'],
  ['serviettes', 'napkins'],
  ['glad wrap', 'cling film', 'plastic wrap'],
  ['tin foil', 'aluminium foil', 'aluminum foil'],
  ['hundreds and thousands', 'sprinkles'],
  ['bench spray', 'surface spray'],
  ['dishwashing liquid', 'dish soap', 'washing up liquid'],
  ['nappies', 'diapers'],
  ['chilli', 'chili'],
  ['prawns', 'shrimp'],
  ['beetroot', 'beets'],
  ['cornflour', 'cornstarch'],
  ['plain flour', 'all purpose flour'],
  ['rocket', 'arugula'],
  ['mandarin', 'mandarine', 'tangerine'],
  ['puree', 'pureed'],
  ['bolognese', 'bolognaise'],
  ['sausages', 'snarlers', 'bangers'],
  ['jandals', 'flip flops'],
  ['chilly bin', 'cooler'],
  ['hokey pokey', 'honeycomb'],
  ['pavlova', 'pav'],
  ['sultanas', 'raisins'],
  ['porridge oats', 'rolled oats', 'oatmeal'],
];

/**
 * Whitespace as PostgreSQL's regular-expression `\s` sees it in a UTF-8 database (glibc
 * `iswspace`): ASCII whitespace and the Unicode spaces, but not the no-break ones (U+00A0, U+2007,
 * U+202F, U+FEFF), which JavaScript's `\s` would include.
 */
const SQL_WHITESPACE = /[\t\n\v\f\r \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]+/g;

/**
 * One character as PostgreSQL's unaccent gives it (./unaccent.ts): its replacement, its
 * decomposition without combining marks, or itself when unaccent has no rule for it.
 */
function unaccentChar(ch: string): string {
  const replaced = UNACCENT_REPLACED.get(ch);
  if (replaced !== undefined) return replaced;
  return UNACCENT_DECOMPOSED.has(ch) ? ch.normalize('NFD').replace(/\p{M}+/gu, '') : ch;
}

/**
 * The normalised form used on both sides of a match, equal to SQL `search_normalize`
 * (prisma/migrations/20261121000100_search; test/integration/rules-agree.test.ts checks them on
 * tricky strings, every character unaccent knows and the real catalogue): accents removed as
 * PostgreSQL's unaccent removes them, lowercase, apostrophes, backticks, hyphens and dots removed,
 * `&` as a space, runs of whitespace collapsed, trimmed.
 */
export function normalizeSearchText(text: string): string {
  // Character by character, as PostgreSQL's lower() works (no final-sigma rule: Σ → σ anywhere).
  let lowered = '';
  for (const ch of text) lowered += unaccentChar(ch).toLowerCase();
  return lowered
    .replace(/['’`.-]/g, '')
    .replace(/&/g, ' ')
    .replace(SQL_WHITESPACE, ' ')
    .replace(/^ | $/g, '');
}

const byTerm = new Map<string, readonly string[]>();
for (const group of SYNONYM_GROUPS) for (const term of group) byTerm.set(term, group);

/**
 * The alternative phrasings of a normalised query: for every word or two/three-word phrase that
 * belongs to a synonym group, the query with it replaced by each other member. Capped at `max`.
 * `expandSynonyms('beef mince 500g')` → ['ground beef 500g', 'minced beef 500g', 'mince 500g', ...].
 */
export function expandSynonyms(normalized: string, max = 12): string[] {
  const words = normalized.split(' ').filter(Boolean);
  const out = new Set<string>();
  for (let size = 3; size >= 1; size--) {
    for (let i = 0; i + size <= words.length; i++) {
      const phrase = words.slice(i, i + size).join(' ');
      const group = byTerm.get(phrase);
      if (!group) continue;
      for (const alt of group) {
        if (alt === phrase) continue;
        out.add([...words.slice(0, i), alt, ...words.slice(i + size)].join(' '));
        if (out.size >= max) return [...out];
      }
    }
  }
  return [...out];
}
