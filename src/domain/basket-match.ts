/**
 * Matching a shelf listing to a Food Price Index basket item (issue 15): which of the basket's
 * representative items (src/domain/basket.ts, `basket-items.json`) a listing prices, if any, and
 * how sure the rules are. Pure; no I/O. The index worker stores the result as a BasketMatch
 * (api-spec: `origin` auto, `confidence`), and the price index (src/domain/price-index.ts) links
 * the listing into its item.
 *
 * Rules, all of which must hold for a listing to be a candidate of an item ({@link admit}):
 *
 * 1. **Observable**: the item's group is priced on supermarket shelves and the item has keywords.
 * 2. **Kind**: when the item names a kind (`kind`, a slug of src/domain/kinds.ts), the listing's
 *    kind (from `classify`) must be that kind. When the item names none, the listing must not sit
 *    on a non-food shelf (top of `categoryPath`: health and body, household, pet, baby, beer and
 *    wine, …), since no kind rule guards those items' shelves.
 * 3. **Keywords**: some keyword phrase has all its words among the words of the listing's name,
 *    normalised by {@link kindText} (lower case, punctuation removed, "&" read as "and"), in any
 *    order; words are compared exactly (the basket lists singular and plural forms itself).
 * 4. **Exclusions**: no exclusion phrase occurs in the normalised name as consecutive words, each
 *    word also matching its plural with "s" or "es" ("cake" refuses "banana cakes").
 * 5. **Size**, in the item's unit (`kg`, `l` or `each`), from the listing's size text
 *    ({@link parseSize}); pack totals count (6 × 250 ml = 1.5 l; 6 × 150 g = 0.9 kg):
 *    - a **weighable** listing (sold loose, price per kg) is admitted only by a per-unit item in
 *      kg (`per_unit`, unit kg): its price is already per kg, the item's basis; bounds do not
 *      apply (the nominal kg is not a pack);
 *    - a listing sold **by the piece** (size in items, or no size at all) is admitted by an
 *      `admit_each` item (a broccoli head, an avocado) whatever the count;
 *    - an item in `each` counts items: a count size ("12pack" = 12), or the pack count of a
 *      multipack of weights or volumes ("5 x 85g" = 5; a single "500g" pizza = 1);
 *    - otherwise the size must be of the item's dimension (g for kg, ml for l) and its total,
 *      in kg or litres, within [`qty_min`, `qty_max`] (a missing bound is no bound);
 *    - an item with neither bounds nor a quantity admits any size, or none; an item with bounds
 *      refuses a listing whose size is unknown or of another dimension.
 *
 * **Confidence** ({@link matchListing}), in [0, 1], a weighted sum of three scores each in [0, 1]:
 *
 *    confidence = 0.4 × kind + 0.3 × keyword + 0.3 × size
 *
 * - kind: 1 when the item names a kind and the listing is of it; 0.5 when the item names none
 *   (keywords alone decide what the product is).
 * - keyword: by the words of the longest keyword phrase found: 1 word 0.6, 2 words 0.8, 3 or
 *   more 1 (a longer phrase is a more specific description).
 * - size: 1 when the listing's total equals the item's specified quantity (within 1 %) or is
 *   a weighable listing of a per-kg item (the spec's own basis); for a size between the spec
 *   quantity and a bound, 1 − 0.5 × ln(size/qty) / ln(bound/qty), so 0.5 at the bound; 0.8 for a
 *   size inside bounds when the spec gives no single quantity (a range); 0.7 for a piece admitted by
 *   `admit_each` or any size admitted by an item without bounds.
 *
 * The least a candidate can score is 0.4 × 0.5 + 0.3 × 0.6 + 0.3 × 0.5 = 0.53. A listing is
 * matched to at most **one** item: the candidate with the highest confidence, then the longer
 * keyword phrase, then the lower item id (deterministic). No candidate: null.
 */
import type { BasketItem } from './basket.js';
import { classify, kindText } from './kinds.js';
import { parseSize, type ParsedSize } from './sizes.js';

/** What the matcher reads of a listing. */
export interface MatchInput {
  name: string;
  brand: string | null;
  /** Printed size ("2L", "12pack", "6 x 150g", "per kg"), or null. */
  sizeText: string | null;
  /** The retailer's breadcrumb, root first. */
  categoryPath: readonly string[];
  /** Sold loose by weight: the price is per kg. */
  weighable: boolean;
  /** Slug of the listing's kind (`classify(...)?.kind.slug`), or null when no kind claims it. */
  kind: string | null;
}

/** A listing's own fields as the basket matcher reads them: a database row or a catalogue row. */
export interface ListingFields {
  name: string;
  brand: string | null;
  /** Printed size ("2L", "12pack", "per kg"), or null. */
  sizeText: string | null;
  /** The retailer's breadcrumb, root first (a catalogue row's department as a one-level path). */
  categoryPath: readonly string[];
  /** Sold loose by weight: the price is per kg. */
  weighable: boolean;
}

/**
 * The {@link MatchInput} of a listing: its fields plus its kind, `classify(fields)?.kind.slug`
 * (src/domain/kinds.ts; null when no kind claims it). The one place both the basket-matching worker
 * (workers/index/match.ts, from listing rows) and the validation (test/bench/index-validate.ts, from
 * catalogue rows) build the matcher's input, so the same listing gets the same match in both.
 *
 * `kind`, when given (a slug, or null for "no kind"), is used instead of classifying: the worker
 * passes the kind of the generic the matching worker stored for the listing
 * (workers/match/generics.ts writes `classify` of the same name, brand, size, category path and
 * weighable flag, so the two agree whenever the stored generic is current), which saves the
 * classifier's cost (about 0.1 ms a listing). Omitted (undefined): classified here.
 */
export function matchInputOf(listing: ListingFields, kind?: string | null): MatchInput {
  const base = { name: listing.name, brand: listing.brand, sizeText: listing.sizeText, categoryPath: listing.categoryPath, weighable: listing.weighable };
  return { ...base, kind: kind !== undefined ? kind : (classify(base)?.kind.slug ?? null) };
}

/** How the listing's size was admitted. */
export type SizeBasis = 'pack' | 'weighable' | 'each' | 'unbounded';

/** A listing admitted by one item, with the scores behind its confidence. */
export interface Candidate {
  item: BasketItem;
  /** The longest keyword phrase found in the name. */
  keyword: string;
  sizeBasis: SizeBasis;
  /** The listing's size in the item's unit (kg, l or items), or null (weighable, unknown). */
  size: number | null;
  scores: { kind: number; keyword: number; size: number };
  /** 0.4 kind + 0.3 keyword + 0.3 size, in [0, 1]. */
  confidence: number;
}

/** Weights of the three scores in the confidence (sum 1). */
export const CONFIDENCE_WEIGHTS = { kind: 0.4, keyword: 0.3, size: 0.3 } as const;

/** Shelves (normalised top of the category path) that sell no food: items without a kind refuse them. */
const NON_FOOD_SHELF = /^(health|household|pet|baby|back to school|personal care|beauty|toiletries|cleaning|laundry|stationery|home|garden|kitchenware|homeware|clothing|electronics|toys|pharmacy|beer|wine|liquor|spirits|tobacco)/;

/** Relative tolerance for "the spec's quantity exactly". */
const EXACT = 0.01;

interface Phrases {
  keywords: string[][];
  exclusions: string[][];
}
const phraseCache = new WeakMap<BasketItem, Phrases>();

/** An item's keyword and exclusion phrases as word lists (normalised like names), cached. */
function phrases(item: BasketItem): Phrases {
  let p = phraseCache.get(item);
  if (!p) {
    const words = (s: string) => kindText(s).split(' ').filter(Boolean);
    p = { keywords: item.keywords.map(words).filter((w) => w.length > 0), exclusions: item.exclusions.map(words).filter((w) => w.length > 0) };
    phraseCache.set(item, p);
  }
  return p;
}

/** Whether `token` is `word` or its plural with "s" or "es". */
const wordOrPlural = (token: string, word: string) => token === word || token === `${word}s` || token === `${word}es`;

/** The longest keyword phrase (as words) all of whose words are among `tokens`, or null. */
export function findKeyword(tokens: readonly string[], keywords: readonly (readonly string[])[]): readonly string[] | null {
  const set = new Set(tokens);
  let best: readonly string[] | null = null;
  for (const k of keywords) if (k.every((w) => set.has(w)) && (!best || k.length > best.length)) best = k;
  return best;
}

/** Whether some exclusion phrase occurs in `tokens` as consecutive words (each word or its plural). */
export function findExclusion(tokens: readonly string[], exclusions: readonly (readonly string[])[]): readonly string[] | null {
  for (const x of exclusions) {
    for (let i = 0; i + x.length <= tokens.length; i++) {
      let ok = true;
      for (let j = 0; j < x.length && ok; j++) ok = wordOrPlural(tokens[i + j], x[j]);
      if (ok) return x;
    }
  }
  return null;
}

/** Size score between the spec quantity `q` and a bound `b` (both positive): 1 at q, 0.5 at b. */
function towardBound(s: number, q: number, b: number | null): number {
  if (Math.abs(s - q) <= EXACT * q) return 1;
  if (b == null || b === q) return 0.5;
  const r = Math.log(s / q) / Math.log(b / q);
  return Math.max(0.5, Math.min(1, 1 - 0.5 * r));
}

/**
 * Whether the listing's size fits the item (rule 5 of the module comment) and its size score.
 * @returns null when refused.
 */
export function sizeFit(item: BasketItem, size: ParsedSize | null, weighable: boolean): { basis: SizeBasis; size: number | null; score: number } | null {
  const bounded = item.qty_min != null || item.qty_max != null;
  if (weighable || size?.perKg) {
    return item.per_unit && item.unit === 'kg' ? { basis: 'weighable', size: null, score: 1 } : null;
  }
  if (item.admit_each && (!size || size.unit === 'each')) {
    return { basis: 'each', size: size ? size.qty * size.packCount : null, score: 0.7 };
  }
  if (!bounded && item.qty == null) {
    return { basis: 'unbounded', size: size ? total(item, size) : null, score: 0.7 };
  }
  if (!size) return null;
  const s = total(item, size);
  if (s == null || !(s > 0)) return null;
  const lo = item.qty_min ?? 0;
  const hi = item.qty_max ?? Infinity;
  if (s < lo * (1 - 1e-9) || s > hi * (1 + 1e-9)) return null;
  if (item.qty == null) return { basis: 'pack', size: s, score: 0.8 };
  const q = item.qty / (item.unit === 'each' ? 1 : 1000);
  return { basis: 'pack', size: s, score: towardBound(s, q, s >= q ? item.qty_max : item.qty_min) };
}

/** A parsed size's total in the item's unit (kg, litres or items), or null when of another dimension. */
function total(item: BasketItem, size: ParsedSize): number | null {
  const t = Math.round(size.qty * size.packCount * 1000) / 1000;
  if (item.unit === 'each') return size.unit === 'each' ? t : size.unit === 'g' || size.unit === 'ml' ? size.packCount : null;
  if (item.unit === 'kg') return size.unit === 'g' ? t / 1000 : null;
  return size.unit === 'ml' ? t / 1000 : null;
}

/** Keyword score by the words of the matched phrase: 0.6, 0.8, then 1 from three words. */
const keywordScore = (words: number) => (words <= 1 ? 0.6 : words === 2 ? 0.8 : 1);

/** A listing prepared once for matching against every item. */
export interface PreparedListing {
  input: MatchInput;
  tokens: string[];
  shelf: string;
  size: ParsedSize | null;
}

/** Normalises a listing once (name words, shelf, parsed size) for {@link admit}. */
export function prepareListing(input: MatchInput): PreparedListing {
  return {
    input,
    tokens: kindText(input.name).split(' ').filter(Boolean),
    shelf: kindText(input.categoryPath[0] ?? ''),
    size: parseSize(input.sizeText),
  };
}

/** Whether the item admits the listing (rules 1–5 of the module comment), with its confidence; null if not. */
export function admit(item: BasketItem, listing: MatchInput | PreparedListing): Candidate | null {
  const p = 'tokens' in listing ? listing : prepareListing(listing);
  if (!item.observable || item.keywords.length === 0) return null;
  let kind: number;
  if (item.kind != null) {
    if (p.input.kind !== item.kind) return null;
    kind = 1;
  } else {
    if (NON_FOOD_SHELF.test(p.shelf)) return null;
    kind = 0.5;
  }
  const ph = phrases(item);
  const kw = findKeyword(p.tokens, ph.keywords);
  if (!kw) return null;
  if (findExclusion(p.tokens, ph.exclusions)) return null;
  const fit = sizeFit(item, p.size, p.input.weighable);
  if (!fit) return null;
  const scores = { kind, keyword: keywordScore(kw.length), size: fit.score };
  const confidence = CONFIDENCE_WEIGHTS.kind * scores.kind + CONFIDENCE_WEIGHTS.keyword * scores.keyword + CONFIDENCE_WEIGHTS.size * scores.size;
  return { item, keyword: kw.join(' '), sizeBasis: fit.basis, size: fit.size, scores, confidence: Math.round(confidence * 1e6) / 1e6 };
}

/** Every item that admits the listing, best first (confidence, then keyword length, then item id). */
export function candidates(listing: MatchInput, items: readonly BasketItem[]): Candidate[] {
  const p = prepareListing(listing);
  const out: Candidate[] = [];
  for (const it of items) {
    const c = admit(it, p);
    if (c) out.push(c);
  }
  return out.sort((a, b) => b.confidence - a.confidence || b.keyword.split(' ').length - a.keyword.split(' ').length || a.item.id - b.item.id);
}

/**
 * The one basket item the listing prices, with its confidence in [0, 1] (see the module comment),
 * or null when no item admits it. Never more than one item per listing.
 */
export function matchListing(listing: MatchInput, items: readonly BasketItem[]): Candidate | null {
  return candidates(listing, items)[0] ?? null;
}
