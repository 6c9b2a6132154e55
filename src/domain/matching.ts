/**
 * Cross-chain product matching (issue 5): which listings of different chains are the same item.
 * Pure; no I/O. The worker (workers/match) loads listings, calls {@link matchListings} and writes
 * the outcome; the bench (test/bench/matching.ts) measures it against hand-judged pairs.
 *
 * Evidence, strongest first:
 * 1. **GTIN** — one barcode, one trade item. GTIN-8/12/13/14 are one code: compared as numbers
 *    (leading zeros ignored), check digit verified, GS1 restricted-circulation numbers (in-store
 *    codes that chains reuse for unrelated goods) ignored. Confidence 1.
 * 2. **Shared retailer id** — banners of one group that share a product catalogue
 *    ({@link SHARED_ID_BANNERS}) and list the same product id. Only when the names agree too
 *    (similarity ≥ 0.5, sizes compatible): an id mistaken for a shared one must not link
 *    unrelated goods. Confidence 0.99.
 * 3. **Name** — brand, name words, size and pack count, scored by {@link scorePair}, adjusted for
 *    ambiguity, and turned into a probability by {@link calibrate}; a link needs mutual best
 *    candidates and a confidence of at least the threshold ({@link DEFAULT_THRESHOLD}, chosen by
 *    the bench).
 *
 * Links become groups (one future product each) greedily, strongest first, under constraints:
 * a group never holds two listings of one chain unless a GTIN says so, and never two listings a
 * curator locked to different products.
 */
import { parseSize, totalQty, type ParsedSize } from './sizes.js';
import {
  brandAncestors,
  brandOwnerSlug,
  brandPrefix,
  GROUP_RETAILERS,
  isPseudoBrand,
  lookupBrand,
  normalizeBrandText,
  PSEUDO_BRANDS,
  soldBy,
  type Brand,
} from './brands.js';
import { SYNONYM_GROUPS } from '../search/synonyms.js';
import { MAX_GTIN_DIGITS } from './limits.js';
/** Most digits a GTIN has (GTIN-14), held in src/domain/limits.ts. */
export { MAX_GTIN_DIGITS };

// ---------------------------------------------------------------------------------------------
// Inputs and features

/** One listing as the matcher sees it (a row of `listing` with its retailer's slug). */
export interface MatchListing {
  id: number;
  /** Retailer slug (`woolworths`, `paknsave`, ...). */
  retailer: string;
  /** The retailer's own product id. */
  externalId: string;
  name: string;
  /** The retailer's brand field, when it gives one. */
  brand: string | null;
  sizeText: string | null;
  /** GTIN as stored (a bigint: digits without leading zeros), or null. */
  gtin: string | number | bigint | null;
  /** Sold by weight (price per kg). */
  weighable: boolean;
  /**
   * Reference shelf price in cents (the listing's latest national price), or null when unknown.
   * Optional evidence: see {@link priceAgreement}.
   */
  price?: number | null;
}

/**
 * How a link was made (api-spec Offer `method`). `manual` is a curator's link (workers/match/admin);
 * `single` is a product of one listing, made for a named listing no other chain's listing matches
 * (confidence 1: the listing is that product), so every named item has a product page and
 * alternatives; it is replaced as soon as a link joins it to another listing.
 */
export type LinkMethod = 'gtin' | 'retailer_id' | 'name' | 'manual' | 'single';

/** What the matcher derives from one listing. */
export interface ListingFeatures {
  id: number;
  retailer: string;
  /** Curated brand, when known (from the brand field or the start of the name). */
  brand: Brand | null;
  /** Normalised brand: the curated key, else the retailer's brand field normalised; null when unknown. */
  brandKey: string | null;
  /** The curated brand and its ancestors' keys (empty when no curated brand). */
  brandLine: readonly string[];
  /** Unbranded produce (the retailer's "brand" is a produce word such as "fresh vegetable"). */
  generic: boolean;
  /** Name words without the brand, normalised and singularised, with their weights. */
  tokens: ReadonlyMap<string, number>;
  /** Sum of token weights. */
  weight: number;
  size: ParsedSize | null;
  /** Total quantity of `size` (quantity × pack count), or null. */
  total: number | null;
  /** Priced per kilogram (weighable, or a per-kg size). */
  perKg: boolean;
  /** 14-digit GTIN, or null (none, invalid or restricted circulation). */
  gtin: string | null;
  /** `<group>:<id>` when the external id is a group-wide product id ({@link SHARED_ID_BANNERS}). */
  sharedId: string | null;
  /** False when the name carries nothing to match on (a placeholder, or no words left). */
  nameable: boolean;
  /** Reference shelf price, cents, or null. */
  price: number | null;
}

/**
 * Banners whose product ids are one catalogue across the group, and the shape of such an id.
 * Foodstuffs' e-commerce API serves PAK'nSAVE and New World with product ids such as
 * "5045856-KGM-000" (../shared/data/README.md, JavaGT adapter notes: one API shape for both
 * banners). The imported data holds such ids for PAK'nSAVE only (New World rows there carry our
 * name+size slugs, which never match the pattern), so this rule links nothing in it yet; it is
 * guarded by a name check either way.
 */
export const SHARED_ID_BANNERS: readonly { group: string; retailers: readonly string[]; pattern: RegExp }[] = [
  { group: 'foodstuffs', retailers: GROUP_RETAILERS.foodstuffs, pattern: /^\d{4,9}-[A-Z]{2,4}-\d{3}$/ },
];

/**
 * Chains whose listing names begin with the brand ("watties chopped tomatoes in juice"): seen in the
 * Woolworths product API and samples. Others (Foodstuffs: "Chopped Tomatoes in Juice") mostly omit
 * it, so only distinctive brand names are read off their names ({@link Brand.commonWord}).
 */
export const BRAND_FIRST_RETAILERS: readonly string[] = ['woolworths'];

/** The placeholder name ingest gives a listing first seen without a name (`<Retailer> item <id>`). */
export function isPlaceholderName(name: string, retailerName: string, externalId: string): boolean {
  return name === `${retailerName} item ${externalId}`;
}

// ---------------------------------------------------------------------------------------------
// GTIN

/** Why a barcode is not a usable GTIN (see {@link gtinProblem}). */
export type GtinProblem = 'format' | 'check-digit' | 'restricted';

/**
 * Why a barcode is not a usable trade-item number, or null when it is one:
 * - `format`: not 7–14 digits once leading zeros are dropped (letters, 15+ digits, empty);
 * - `check-digit`: the GS1 mod-10 check digit (weights 3/1 from the right) is wrong;
 * - `restricted`: a GS1 restricted-circulation number (GTIN-13 prefix 2, or 02/04 as a UPC in
 *   13-digit form): in-store codes for weighed goods, reused by chains for unrelated items
 *   (GS1 General Specifications §1.4.4).
 * A 7-digit code is read as a GTIN-8 with a leading zero, so it must pass the check digit too.
 */
export function gtinProblem(code: string | number | bigint | null | undefined): GtinProblem | null {
  if (code === null || code === undefined) return 'format';
  const digits = String(code).trim().replace(/^0+/, '');
  if (!/^\d{7,14}$/.test(digits)) return 'format';
  const g14 = digits.padStart(14, '0');
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(g14[i]) * (i % 2 === 0 ? 3 : 1);
  if ((10 - (sum % 10)) % 10 !== Number(g14[13])) return 'check-digit';
  if (g14[0] === '0' && /^(2|02|04)/.test(g14.slice(1))) return 'restricted';
  return null;
}


/**
 * The stored form of a barcode (`listing.gtin`, a bigint): its digits as a number, so the
 * GTIN-8/12/13/14 forms of one code (leading zeros) are one value; non-digits are ignored. Null when
 * there are no digits, more than {@link MAX_GTIN_DIGITS}, or only zeros. The one key that ingest
 * writes and GTIN lookup reads; it does not judge the check digit ({@link gtinProblem} does).
 */
export function gtinKey(text: string | number | bigint): number | null {
  const digits = String(text).replace(/\D/g, '');
  if (digits.length === 0 || digits.length > MAX_GTIN_DIGITS) return null;
  const n = Number(digits);
  return n > 0 ? n : null;
}

/**
 * A GTIN-8/12/13/14 as its 14-digit form, or null when it is not a usable trade-item number
 * (any {@link gtinProblem}: bad format, wrong check digit, restricted circulation). The one
 * normalisation of barcodes: matching, GTIN lookup and the importers all use it.
 */
export function normalizeGtin(code: string | number | bigint | null | undefined): string | null {
  if (gtinProblem(code) !== null) return null;
  return String(code).trim().replace(/^0+/, '').padStart(14, '0');
}

// ---------------------------------------------------------------------------------------------
// Names

/** Words that carry no identity ("in", "with", "and"). */
const STOP_WORDS: ReadonlySet<string> = new Set(['in', 'with', 'and', 'a', 'an', 'of', 'the', 'for', 'to', 'on', 'or', 'n', 'its', 'per']);

/**
 * Words that say little about which item it is (packaging, category words the Woolworths names
 * repeat such as "pasta spaghetti", origin "nz"): counted at a low weight.
 */
const LOW_WEIGHT: ReadonlyMap<string, number> = new Map([
  ...['jar', 'sachet', 'canister', 'bag', 'pouch', 'tin', 'can', 'bottle', 'box', 'tub', 'pack', 'pk', 'prepacked', 'punnet', 'tray', 'packet', 'squeezy', 'bulk', 'value'].map((w) => [w, 0.3] as const),
  ...['nz', 'fresh', 'pasta', 'style', 'range', 'premium', 'classic', 'original', 'loose', 'whole', 'natural', 'flavoured'].map((w) => [w, 0.4] as const),
]);

/** Phrases the Woolworths catalogue inserts after the brand (produce sections): dropped. */
const NOISE_PHRASES: readonly string[] = [...PSEUDO_BRANDS].sort((a, b) => b.length - a.length);

/** Spelling variants to one form (NZ/UK spelling wins). */
const VARIANTS: ReadonlyMap<string, string> = (() => {
  const m = new Map<string, string>([
    ['caramelized', 'caramelised'], ['caramelize', 'caramelise'], ['smokey', 'smoky'], ['flavored', 'flavoured'],
    ['flavour', 'flavoured'], ['minced', 'mince'], ['colored', 'coloured'], ['savory', 'savoury'], ['favorite', 'favourite'],
    ['vegie', 'vege'], ['veggie', 'vege'], ['vegetable', 'vege'], ['vegetables', 'vege'], ['sweetcorn', 'corn'],
  ]);
  // One-word synonym groups of the search (courgette/zucchini, yoghurt/yogurt, chilli/chili, ...).
  for (const group of SYNONYM_GROUPS) {
    const single = group.filter((t) => !t.includes(' '));
    if (single.length < 2) continue;
    for (const t of single.slice(1)) if (!m.has(t)) m.set(t, single[0]);
  }
  return m;
})();

/**
 * A word's singular form by suffix rules (tomatoes → tomato, berries → berry, onions → onion;
 * glass, hummus, couscous and numbers unchanged). Crude but symmetric: both sides get the same.
 */
export function singular(word: string): string {
  if (word.length <= 3 || /^\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('oes')) return word.slice(0, -2);
  if (/(ss|us|is)$/.test(word)) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/**
 * Weighted words of a name (brand already removed): normalised ({@link normalizeBrandText}),
 * noise phrases dropped, spelling variants unified, singular, stop words dropped. "no 5" becomes
 * `no5` (pasta shape numbers). Weights: words with digits (numbers, percentages, `no5`) 2 (they
 * tell sizes, fat levels and shapes apart), packaging and category words 0.3–0.4, other words 1.
 */
export function nameTokens(text: string): Map<string, number> {
  let t = ` ${normalizeBrandText(text)} `;
  for (const p of NOISE_PHRASES) t = t.split(` ${p} `).join(' ');
  const words = t.trim().split(' ').filter(Boolean);
  const out = new Map<string, number>();
  for (let i = 0; i < words.length; i++) {
    let w = words[i];
    if (w === 'no' && /^\d+$/.test(words[i + 1] ?? '')) {
      w = `no${words[i + 1]}`;
      i++;
    }
    if (STOP_WORDS.has(w)) continue;
    w = VARIANTS.get(w) ?? w;
    w = singular(w);
    w = VARIANTS.get(w) ?? w;
    const weight = /\d/.test(w) ? 2 : (LOW_WEIGHT.get(w) ?? 1);
    out.set(w, Math.max(out.get(w) ?? 0, weight));
  }
  return out;
}

/**
 * Weighted Dice similarity of two token maps in [0, 1]: 2·W(shared) / (W(a) + W(b)), a shared
 * word counting at its weight (the larger of the two). Word order is ignored (the chains order
 * words differently: "pasta spaghetti no. 5" and "Spaghetti No 5 Pasta").
 */
export function nameSimilarity(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>, weightA?: number, weightB?: number): number {
  let wa = weightA ?? 0;
  let wb = weightB ?? 0;
  let shared = 0;
  if (weightA === undefined) for (const v of a.values()) wa += v;
  if (weightB === undefined) for (const v of b.values()) wb += v;
  if (wa + wb === 0) return 0;
  if (a.size > b.size) [a, b] = [b, a];
  for (const [k, v] of a) {
    const u = b.get(k);
    if (u !== undefined) shared += Math.max(u, v);
  }
  return Math.min(1, (2 * shared) / (wa + wb));
}

// ---------------------------------------------------------------------------------------------
// Features

/** What {@link extractBrand} reads from a listing. */
export interface ExtractedBrand {
  /** The curated brand, when recognised. */
  brand: Brand | null;
  /** Normalised brand key (curated key, or the retailer's brand field normalised), or null. */
  key: string | null;
  /** Unbranded produce. */
  generic: boolean;
  /** The name without the brand words (normalised). */
  rest: string;
  /** Where the brand came from. */
  source: 'field' | 'name' | null;
}

function stripPrefix(name: string, prefixes: readonly string[]): string {
  for (const p of [...prefixes].sort((a, b) => b.length - a.length)) {
    if (name === p) return name;
    if (name.startsWith(`${p} `)) return name.slice(p.length + 1);
  }
  return name;
}

/**
 * The brand of a listing: its brand field when given (a produce word there means unbranded
 * produce), else a curated brand at the start of its name ({@link brandPrefix}; common-word brands
 * only when `brandFirst`, see {@link BRAND_FIRST_RETAILERS}), else unknown. Also returns the name
 * without the brand words.
 */
export function extractBrand(name: string, brandField: string | null, brandFirst: boolean): ExtractedBrand {
  const n = normalizeBrandText(name);
  const field = brandField ? normalizeBrandText(brandField) : '';
  if (field && isPseudoBrand(field)) {
    return { brand: null, key: null, generic: true, rest: stripPrefix(n, [field]), source: 'field' };
  }
  if (field) {
    const brand = lookupBrand(field) ?? null;
    const rest = stripPrefix(n, brand ? [...brand.aliases, field] : [field]);
    return { brand, key: brand?.key ?? field, generic: false, rest, source: 'field' };
  }
  const prefix = brandPrefix(n, brandFirst);
  if (prefix) {
    return { brand: prefix.brand, key: prefix.brand.key, generic: false, rest: n.split(' ').slice(prefix.words).join(' '), source: 'name' };
  }
  const pseudo = PSEUDO_BRANDS.find((p) => n.startsWith(`${p} `));
  if (pseudo) return { brand: null, key: null, generic: true, rest: n.slice(pseudo.length + 1), source: 'name' };
  return { brand: null, key: null, generic: false, rest: n, source: null };
}

/** Options of {@link listingFeatures}. */
export interface FeatureOptions {
  /** Chains whose names begin with the brand (default {@link BRAND_FIRST_RETAILERS}). */
  brandFirstRetailers?: readonly string[];
  /** Treat the name as carrying nothing (a placeholder name). */
  placeholder?: boolean;
}

/**
 * Sold by weight: the weighable flag, a per-kg size ("per kg", "kg"), or a Foodstuffs product id
 * with the kilogram unit of measure ("5045856-KGM-000": PAK'nSAVE prints such items "1kg").
 */
export function soldByWeight(l: Pick<MatchListing, 'weighable' | 'externalId'>, size: ParsedSize | null): boolean {
  return l.weighable || (size?.perKg ?? false) || /^\d+-KGM-\d{3}$/.test(l.externalId);
}

/** The features of one listing (brand, weighted words, parsed size, GTIN, shared id). */
export function listingFeatures(l: MatchListing, opts: FeatureOptions = {}): ListingFeatures {
  const brandFirst = (opts.brandFirstRetailers ?? BRAND_FIRST_RETAILERS).includes(l.retailer);
  const b = extractBrand(l.name, l.brand, brandFirst);
  const tokens = opts.placeholder ? new Map<string, number>() : nameTokens(b.rest);
  let weight = 0;
  for (const v of tokens.values()) weight += v;
  const size = parseSize(l.sizeText);
  const banner = SHARED_ID_BANNERS.find((s) => s.retailers.includes(l.retailer) && s.pattern.test(l.externalId));
  return {
    id: l.id,
    retailer: l.retailer,
    brand: b.brand,
    brandKey: b.key,
    brandLine: b.brand ? brandAncestors(b.brand) : [],
    generic: b.generic,
    tokens,
    weight,
    size,
    total: size ? totalQty(size) : null,
    perKg: soldByWeight(l, size),
    gtin: normalizeGtin(l.gtin),
    sharedId: banner ? `${banner.group}:${l.externalId}` : null,
    nameable: !opts.placeholder && weight > 0,
    price: l.price !== undefined && l.price !== null && l.price > 0 ? l.price : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Pair scoring

/** A factor of a pair score with the reason it has its value. */
export interface Factor {
  /** Multiplier in [0, 1]; 0 rejects the pair. */
  value: number;
  reason: string;
}

/** Retail group of each chain that belongs to one. */
const GROUP_OF: ReadonlyMap<string, string> = new Map(
  Object.entries(GROUP_RETAILERS).flatMap(([g, rs]) => (rs as readonly string[]).map((r) => [r, g] as [string, string])),
);

/**
 * Brand agreement (factor of {@link scorePair}):
 * - 0 (reject) when two known brands differ (neither an ancestor of the other), when a house
 *   brand meets a chain outside its owner group, or when branded meets unbranded produce;
 * - 1 when the brands agree (the same key, or one a sub-brand of the other), or both unbranded produce;
 * - 0.9 when neither side names a brand and both chains are one group (same catalogue naming);
 * - 0.85 when one side's brand is unknown (Foodstuffs names omit it) or unbranded produce meets unknown;
 * - 0.8 when neither side names a brand across groups.
 */
export function brandAgreement(a: ListingFeatures, b: ListingFeatures): Factor {
  if (a.brand && !soldBy(a.brand, b.retailer)) return { value: 0, reason: `${a.brand.key} is a house brand not sold by ${b.retailer}` };
  if (b.brand && !soldBy(b.brand, a.retailer)) return { value: 0, reason: `${b.brand.key} is a house brand not sold by ${a.retailer}` };
  if (a.generic && b.generic) return { value: 1, reason: 'both unbranded produce' };
  if ((a.generic && b.brandKey) || (b.generic && a.brandKey)) return { value: 0, reason: 'branded vs unbranded produce' };
  if (a.brandKey && b.brandKey) {
    if (a.brandKey === b.brandKey) return { value: 1, reason: `same brand ${a.brandKey}` };
    if (a.brandLine.includes(b.brandKey) || b.brandLine.includes(a.brandKey)) return { value: 1, reason: `sub-brand of ${a.brandKey}/${b.brandKey}` };
    return { value: 0, reason: `brands differ: ${a.brandKey} vs ${b.brandKey}` };
  }
  if (a.brandKey || b.brandKey || a.generic || b.generic) return { value: 0.85, reason: 'one brand unknown' };
  const ga = GROUP_OF.get(a.retailer);
  const sameGroup = ga !== undefined && ga === GROUP_OF.get(b.retailer);
  return sameGroup ? { value: 0.9, reason: 'no brand, same group' } : { value: 0.8, reason: 'no brand on either side' };
}

/**
 * Size and pack-count agreement (factor of {@link scorePair}), sizes parsed by
 * src/domain/sizes.ts `parseSize`:
 * - 1 when the unit, total quantity (within 1.5 %) and pack count agree, or both are sold per kg;
 * - 0.85 when the totals agree but the packing differs ("4 x 100g" vs "400g");
 * - 0.7 when a per-kg item meets a 1 kg pack (a bag or loose);
 * - 0.7 when a size is missing on either side, 0.6 when the units cannot be compared (each vs g);
 * - 0 (reject) when the totals differ: a different size is a different item.
 */
export function sizeAgreement(a: ListingFeatures, b: ListingFeatures): Factor {
  const [ka, kb] = [isKilo(a), isKilo(b)];
  if (ka && kb) return BOTH_PER_KG;
  if (!a.size || !b.size) return SIZE_UNKNOWN;
  if (a.size.unit !== b.size.unit) return { value: 0.6, reason: `units differ: ${a.size.unit} vs ${b.size.unit}` };
  const ta = a.total!;
  const tb = b.total!;
  if (Math.abs(ta - tb) > 0.015 * Math.max(ta, tb)) return { value: 0, reason: `sizes differ: ${ta} vs ${tb} ${a.size.unit}` };
  if (ka !== kb) return KG_VS_PACK;
  if (a.size.packCount !== b.size.packCount) return { value: 0.85, reason: `same total, packs ${a.size.packCount} vs ${b.size.packCount}` };
  return SAME_SIZE;
}

const BOTH_PER_KG: Factor = { value: 1, reason: 'both per kg' };
const SIZE_UNKNOWN: Factor = { value: 0.7, reason: 'size unknown' };
const KG_VS_PACK: Factor = { value: 0.7, reason: 'per kg vs a 1 kg pack' };
const SAME_SIZE: Factor = { value: 1, reason: 'same size' };

/** Per-kg item, or sold by weight in a 1 kg unit. */
function isKilo(f: ListingFeatures): boolean {
  return f.perKg && (!f.size || (f.size.unit === 'g' && f.total === 1000));
}

/**
 * Price agreement (factor of {@link scorePair}), only when both reference prices are known and
 * the sizes agree (`size` ≥ 0.85): 1 up to a ratio of 1.5 between the dearer and the cheaper
 * price, falling linearly to 0.3 at a ratio of 3 and beyond. The same item rarely costs twice as
 * much at one chain as at another, while a house brand and a national brand of the same
 * description often do (issue 5's name evidence cannot tell them apart when Foodstuffs names omit
 * the brand). Promotions can halve a price, so this only lowers confidence, never rejects.
 */
export function priceAgreement(a: ListingFeatures, b: ListingFeatures, size: Factor): Factor {
  if (a.price === null || b.price === null || size.value < 0.85) return { value: 1, reason: 'price not compared' };
  const ratio = Math.max(a.price, b.price) / Math.min(a.price, b.price);
  if (ratio <= 1.5) return { value: 1, reason: `price ratio ${ratio.toFixed(2)}` };
  return { value: Math.max(0.3, 1 - ((ratio - 1.5) / 1.5) * 0.7), reason: `price ratio ${ratio.toFixed(2)}` };
}

/** The score of a pair of listings before ambiguity and calibration. */
export interface PairScore {
  /** Product of the parts, in [0, 1]. */
  raw: number;
  /** Weighted Dice similarity of the names without brands ({@link nameSimilarity}). */
  name: number;
  brand: Factor;
  size: Factor;
  price: Factor;
}

const REJECTED: Factor = { value: 0, reason: 'not compared (size differs)' };
const NOT_USED: Factor = { value: 1, reason: 'price not used' };

/** Options of {@link scorePair}. */
export interface ScoreOptions {
  /** Use reference prices as evidence (default true). */
  usePrice?: boolean;
}

/** Scores a pair: name similarity × brand agreement × size agreement × price agreement. */
export function scorePair(a: ListingFeatures, b: ListingFeatures, opts: ScoreOptions = {}): PairScore {
  const size = sizeAgreement(a, b);
  const brand = size.value === 0 ? REJECTED : brandAgreement(a, b);
  const price = opts.usePrice === false || brand.value === 0 || size.value === 0 ? NOT_USED : priceAgreement(a, b, size);
  const name = brand.value === 0 || size.value === 0 ? 0 : nameSimilarity(a.tokens, b.tokens, a.weight, b.weight);
  return { raw: name * brand.value * size.value * price.value, name, brand, size, price };
}

/**
 * Ambiguity factor of a listing's best candidate at one chain: 1 − ½·(second / best)⁴. Two equally
 * good candidates (the Foodstuffs names "Chopped Tomatoes" of two brands) give ½: a coin toss.
 */
export function ambiguityFactor(best: number, second: number): number {
  if (best <= 0) return 0;
  return 1 - 0.5 * Math.min(1, second / best) ** 4;
}

/**
 * Platt scaling of the ambiguity-adjusted score: confidence = 1 / (1 + e^−(A·s + B)). A and B are a
 * logistic fit (test/bench/matching.ts) of the 45 name proposals the matcher makes on the real
 * data that were judged same or different by hand (test/fixtures/matching/pairs.json), so a
 * confidence reads as the share of such links that are right, as far as that small set can tell
 * (leave-one-out Brier score 0.099 against 0.229 for a constant). The bench says when they drift.
 */
export const CALIBRATION = { A: 7.39, B: -3.52 } as const;

/**
 * Confidence threshold of a name link, chosen by the bench (test/bench/matching.ts) on the
 * hand-judged real pairs: the lowest threshold whose precision is at least 0.95 there and at
 * every higher threshold, with every link judged. At 0.87: precision 15/15 (95 % interval
 * 0.80–1), recall 15/33; one judged-different pair (a Wattie's can vs a house-brand can of the
 * same description) sits at 0.862, just below.
 */
export const DEFAULT_THRESHOLD = 0.87;

/** Confidence in [0, 1] of an ambiguity-adjusted score ({@link CALIBRATION}); 0 for a rejected pair. */
export function calibrate(score: number, calibration: { A: number; B: number } = CALIBRATION): number {
  if (score <= 0) return 0;
  return 1 / (1 + Math.exp(-(calibration.A * score + calibration.B)));
}

/** Rounds a confidence to 3 decimals (what is stored; keeps re-runs free of float noise). */
export function roundConfidence(c: number): number {
  return Math.round(c * 1000) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Proposals (edges)

/** A proposed link between two listings. */
export interface LinkEdge {
  /** Listing ids, a < b. */
  a: number;
  b: number;
  method: Exclude<LinkMethod, 'manual' | 'single'>;
  /** In [0, 1], rounded to 3 decimals. */
  confidence: number;
  /** Evidence (recorded in the decision log). */
  detail: Record<string, string | number>;
}

/** Options of {@link proposeLinks}. */
export interface ProposeOptions {
  /** Name proposals below this confidence are dropped (default 0.05). */
  floor?: number;
  /** Calibration of name scores (default {@link CALIBRATION}). */
  calibration?: { A: number; B: number };
  /** Use GTIN and shared ids (default true; the bench turns it off to match by name alone). */
  exact?: boolean;
  /**
   * Most listings one listing is compared with (default 200), met through its rarest words first
   * (and at most 4 × as many index entries scanned): bounds the work to linear in the catalogue. Only very generic names ("Beef Mince" in a size
   * hundreds of listings share) reach it, and those are too ambiguous to link anyway.
   */
  maxCandidates?: number;
  /** Use reference prices ({@link priceAgreement}; default true). */
  usePrice?: boolean;
}

/**
 * Blocking key of a listing's size: `g:1000` for per-kg items and 1 kg packs, `<unit>:<total>`
 * otherwise, `?` when unknown. Name candidates need equal keys or a `?` on either side (pairs of
 * other sizes would be rejected or, for units that cannot be compared, score below any useful
 * threshold: {@link sizeAgreement} gives them 0.6 at most).
 */
export function sizeKey(f: ListingFeatures): string {
  if (isKilo(f)) return 'g:1000';
  if (!f.size) return '?';
  return `${f.size.unit}:${f.total}`;
}

/**
 * Every proposed link: exact ones (same GTIN; same shared id with agreeing names) and name links
 * between mutual best candidates of two chains, with calibrated, ambiguity-adjusted confidence ≥
 * `floor`. Candidates share a word that is among the two rarest of one of them and have
 * compatible sizes ({@link sizeKey}), at most `maxCandidates` per listing, rarest words first;
 * pairs of one chain are never name candidates.
 * Deterministic: ties break on listing id.
 */
export function proposeLinks(features: readonly ListingFeatures[], opts: ProposeOptions = {}): LinkEdge[] {
  const floor = opts.floor ?? 0.05;
  const calibration = opts.calibration ?? CALIBRATION;
  const maxCandidates = opts.maxCandidates ?? 200;
  const edges: LinkEdge[] = [];
  const pairKey = (x: number, y: number) => (x < y ? `${x}:${y}` : `${y}:${x}`);
  const exactPairs = new Set<string>();

  if (opts.exact ?? true) {
    // GTIN groups: every listing linked to the lowest id of its code (a star, enough for grouping).
    const byGtin = new Map<string, ListingFeatures[]>();
    for (const f of features) if (f.gtin) push(byGtin, f.gtin, f);
    for (const [gtin, group] of byGtin) {
      const sorted = [...group].sort((x, y) => x.id - y.id);
      for (const f of sorted.slice(1)) {
        edges.push({ a: sorted[0].id, b: f.id, method: 'gtin', confidence: 1, detail: { gtin } });
        exactPairs.add(pairKey(sorted[0].id, f.id));
      }
    }
    const byShared = new Map<string, ListingFeatures[]>();
    for (const f of features) if (f.sharedId) push(byShared, f.sharedId, f);
    for (const [sharedId, group] of byShared) {
      const sorted = [...group].sort((x, y) => x.id - y.id);
      for (let i = 0; i < sorted.length; i++) {
        for (let k = i + 1; k < sorted.length; k++) {
          const [x, y] = [sorted[i], sorted[k]];
          if (x.retailer === y.retailer || exactPairs.has(pairKey(x.id, y.id))) continue;
          const s = scorePair(x, y, { usePrice: false });
          if (s.brand.value === 0 || s.size.value === 0 || s.name < 0.5) continue;
          edges.push({ a: x.id, b: y.id, method: 'retailer_id', confidence: 0.99, detail: { shared_id: sharedId, name: round3(s.name) } });
          exactPairs.add(pairKey(x.id, y.id));
        }
      }
    }
  }

  // Name candidates. Blocking: each listing is indexed under its two rarest words (by size key);
  // it meets the listings indexed under any of its words in a compatible size bucket (same key,
  // or `?` on either side). Common words are rarely anyone's rarest, so the lists stay short.
  // Only each listing's two best candidates per chain are kept (mutual best and ambiguity need
  // no more), so memory stays linear in the catalogue.
  const nameable = features.filter((f) => f.nameable).sort((x, y) => x.id - y.id); // id order: input order never matters
  const keys = nameable.map(sizeKey);
  const df = new Map<string, number>();
  for (const f of nameable) for (const [t, w] of f.tokens) if (w >= 1) df.set(t, (df.get(t) ?? 0) + 1);
  const probeTokens = nameable.map((f) =>
    [...f.tokens.entries()]
      .filter(([, w]) => w >= 1)
      .map(([t]) => t)
      .sort((x, y) => df.get(x)! - df.get(y)! || x.localeCompare(y)),
  );
  const indexTokens = probeTokens.map((ts) => ts.slice(0, 2));
  const postings = new Map<string, Map<string, number[]>>(); // word → size key → listing indexes
  nameable.forEach((_, i) => {
    for (const t of indexTokens[i]) {
      let bySize = postings.get(t);
      if (!bySize) postings.set(t, (bySize = new Map()));
      push(bySize, keys[i], i);
    }
  });
  const chains = [...new Set(nameable.map((f) => f.retailer))].sort();
  const R = chains.length;
  const chainOf = new Map(chains.map((r, n) => [r, n]));
  const chainIndex = nameable.map((f) => chainOf.get(f.retailer)!);
  // Best two candidates of each (listing, chain), in flat typed arrays (no allocation per pair).
  const bestJ = new Int32Array(nameable.length * R).fill(-1);
  const bestRaw = new Float64Array(nameable.length * R);
  const secondJ = new Int32Array(nameable.length * R).fill(-1);
  const secondRaw = new Float64Array(nameable.length * R);
  const beats = (raw: number, j: number, curRaw: number, curJ: number) => raw > curRaw || (raw === curRaw && nameable[j].id < nameable[curJ].id);
  const offer = (i: number, j: number, raw: number) => {
    const k = i * R + chainIndex[j];
    if (bestJ[k] === j || secondJ[k] === j) return; // met from both sides
    if (bestJ[k] < 0 || beats(raw, j, bestRaw[k], bestJ[k])) {
      secondJ[k] = bestJ[k];
      secondRaw[k] = bestRaw[k];
      bestJ[k] = j;
      bestRaw[k] = raw;
    } else if (secondJ[k] < 0 || beats(raw, j, secondRaw[k], secondJ[k])) {
      secondJ[k] = j;
      secondRaw[k] = raw;
    }
  };
  const seenBy = new Int32Array(nameable.length); // i + 1 once listing i met it
  nameable.forEach((f, i) => {
    // Rarest words first; at most `maxCandidates` listings met (and 4 × as many index entries
    // scanned). A pair may be met from both sides (scored twice, offered once).
    let met = 0;
    let scanned = 0;
    probe: for (const t of probeTokens[i]) {
      const bySize = postings.get(t);
      if (!bySize) continue;
      const buckets = keys[i] === '?' ? [...bySize.keys()].sort().map((k) => bySize.get(k)!) : [bySize.get(keys[i]), bySize.get('?')];
      for (const bucket of buckets) {
        if (!bucket) continue;
        for (const j of bucket) {
          if (met >= maxCandidates || ++scanned > 4 * maxCandidates) break probe;
          if (j === i || seenBy[j] === i + 1 || nameable[j].retailer === f.retailer) continue;
          seenBy[j] = i + 1;
          met++;
          const raw = scorePair(f, nameable[j], opts).raw;
          if (raw <= 0) continue;
          offer(i, j, raw);
          offer(j, i, raw);
        }
      }
    }
  });
  for (let i = 0; i < nameable.length; i++) {
    for (let r = 0; r < R; r++) {
      const j = bestJ[i * R + r];
      if (j < 0 || i > j) continue; // each mutual pair once, from its lower index
      const back = j * R + chainIndex[i];
      if (bestJ[back] !== i) continue; // not mutual best
      const f = nameable[i];
      const g = nameable[j];
      const s = scorePair(f, g, opts);
      const second = Math.max(secondJ[i * R + r] < 0 ? 0 : secondRaw[i * R + r], secondJ[back] < 0 ? 0 : secondRaw[back]);
      const amb = ambiguityFactor(s.raw, second);
      const adjusted = s.raw * amb;
      const confidence = roundConfidence(calibrate(adjusted, calibration));
      if (confidence < floor || exactPairs.has(pairKey(f.id, g.id))) continue;
      const [a, b] = f.id < g.id ? [f.id, g.id] : [g.id, f.id];
      edges.push({
        a, b, method: 'name', confidence,
        detail: {
          score: round3(adjusted), name: round3(s.name), brand: s.brand.value, size: s.size.value, price: round3(s.price.value),
          ambiguity: round3(amb), why: `${s.brand.reason}; ${s.size.reason}; ${s.price.reason}`,
        },
      });
    }
  }
  return edges.sort((x, y) => x.a - y.a || x.b - y.b);
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Groups

/** A curator's pin on a listing: linked to `productId`, or kept unlinked (null). */
export type Locks = ReadonlyMap<number, number | null>;

/** How one listing ends up linked inside its group. */
export interface MemberLink {
  method: LinkMethod;
  confidence: number;
  /** The edge that gives the listing its method and confidence (null for a locked listing). */
  edge: LinkEdge | null;
}

/** A group of listings that are one product. */
export interface MatchGroup {
  /** Listing ids, ascending. */
  listingIds: number[];
  /** The product the curator locked listings of this group to, if any. */
  lockedProductId: number | null;
  /** Method and confidence of each unlocked member (locked members keep theirs). */
  links: Map<number, MemberLink>;
}

/** Options of {@link groupLinks}. */
export interface GroupOptions {
  /** Name links below this confidence are ignored (default {@link DEFAULT_THRESHOLD}). */
  threshold?: number;
  /** Curators' pins (locked listings). */
  locks?: Locks;
}

/**
 * Groups listings by the proposed links, strongest first (confidence, then exact methods, then
 * ids): two groups merge unless they would hold two listings of one chain or two listings whose
 * brands or sizes reject each other (both allowed for GTIN links only), or listings locked to two
 * different products. A listing locked unlinked takes
 * part in nothing; listings locked to one product start in one group. Returns groups of two or
 * more listings and groups holding a locked listing; each unlocked member gets the method and
 * confidence of its strongest edge inside its group.
 */
export function groupLinks(features: readonly ListingFeatures[], edges: readonly LinkEdge[], opts: GroupOptions = {}): MatchGroup[] {
  const threshold = opts.threshold ?? DEFAULT_THRESHOLD;
  const locks: Locks = opts.locks ?? new Map();
  const byId = new Map(features.map((f) => [f.id, f]));
  const members = new Map<number, number[]>(); // root → listing ids
  const parent = new Map<number, number>();
  const retailers = new Map<number, Set<string>>();
  const locked = new Map<number, number | null>();
  const find = (x: number): number => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    let c = x;
    while (c !== r) {
      const n = parent.get(c)!;
      parent.set(c, r);
      c = n;
    }
    return r;
  };
  const union = (x: number, y: number) => {
    const [rx, ry] = [find(x), find(y)];
    if (rx === ry) return;
    const [root, child] = rx < ry ? [rx, ry] : [ry, rx];
    parent.set(child, root);
    for (const r of retailers.get(child)!) retailers.get(root)!.add(r);
    members.get(root)!.push(...members.get(child)!);
    members.delete(child);
    locked.set(root, locked.get(root) ?? locked.get(child) ?? null);
  };
  for (const f of features) {
    if (locks.has(f.id) && locks.get(f.id) === null) continue; // locked unlinked: out of matching
    parent.set(f.id, f.id);
    members.set(f.id, [f.id]);
    retailers.set(f.id, new Set([f.retailer]));
    locked.set(f.id, locks.get(f.id) ?? null);
  }
  // Curators' groups first.
  const byProduct = new Map<number, number[]>();
  for (const [id, p] of locks) if (p !== null && parent.has(id)) byProduct.set(p, [...(byProduct.get(p) ?? []), id]);
  for (const ids of byProduct.values()) for (const id of ids.slice(1)) union(ids[0], id);

  const rank = (m: LinkEdge['method']) => (m === 'gtin' ? 0 : m === 'retailer_id' ? 1 : 2);
  const usable = edges
    .filter((e) => parent.has(e.a) && parent.has(e.b) && (e.method !== 'name' || e.confidence >= threshold))
    .sort((x, y) => y.confidence - x.confidence || rank(x.method) - rank(y.method) || x.a - y.a || x.b - y.b);
  for (const e of usable) {
    const [ra, rb] = [find(e.a), find(e.b)];
    if (ra === rb) continue;
    const [la, lb] = [locked.get(ra) ?? null, locked.get(rb) ?? null];
    if (la !== null && lb !== null && la !== lb) continue;
    if (e.method !== 'gtin') {
      const sa = retailers.get(ra)!;
      if ([...retailers.get(rb)!].some((r) => sa.has(r))) continue;
      // No pair across the two groups may be incompatible (brands or sizes that reject it).
      if (!compatibleGroups(members.get(ra)!, members.get(rb)!, byId)) continue;
    }
    union(ra, rb);
  }

  const groups: MatchGroup[] = [];
  for (const [root, ids] of members) {
    const lockedProductId = locked.get(root) ?? null;
    if (ids.length < 2 && lockedProductId === null) continue;
    ids.sort((x, y) => x - y);
    groups.push({ listingIds: ids, lockedProductId, links: new Map() });
  }
  const groupOf = new Map<number, MatchGroup>();
  for (const g of groups) for (const id of g.listingIds) groupOf.set(id, g);
  for (const e of usable) {
    const g = groupOf.get(e.a);
    if (!g || groupOf.get(e.b) !== g) continue;
    for (const id of [e.a, e.b]) {
      if (locks.has(id)) continue;
      const cur = g.links.get(id);
      if (!cur || e.confidence > cur.confidence || (e.confidence === cur.confidence && rank(e.method) < rank(cur.edge!.method))) {
        g.links.set(id, { method: e.method, confidence: e.confidence, edge: e });
      }
    }
  }
  // A member whose only edges were refused (it joined through a curator's group) cannot occur:
  // every unlocked member joined through an edge inside its group. Guard anyway.
  for (const g of groups) {
    for (const id of g.listingIds) if (!locks.has(id) && !g.links.has(id)) g.links.set(id, { method: 'name', confidence: 0, edge: null });
  }
  return groups.sort((x, y) => x.listingIds[0] - y.listingIds[0]);
}

/**
 * True when no listing of `xs` and listing of `ys` reject each other outright ({@link brandAgreement}
 * or {@link sizeAgreement} of 0): a chain of links never joins, say, two different brands or sizes.
 */
function compatibleGroups(xs: readonly number[], ys: readonly number[], byId: ReadonlyMap<number, ListingFeatures>): boolean {
  for (const x of xs) {
    const fx = byId.get(x);
    if (!fx) continue;
    for (const y of ys) {
      const fy = byId.get(y);
      if (!fy) continue;
      if (sizeAgreement(fx, fy).value === 0 || brandAgreement(fx, fy).value === 0) return false;
    }
  }
  return true;
}

/** Options of {@link matchListings}. */
export interface MatchOptions extends ProposeOptions, GroupOptions {
  /** Give every nameable, unlocked listing left outside the groups a group of its own (default true). */
  singles?: boolean;
}

/**
 * Proposes links ({@link proposeLinks}) and groups them ({@link groupLinks}); then, unless `singles`
 * is false, each nameable listing in no group and not locked by a curator becomes a group of its
 * own (method `single`, confidence 1), after the linked groups.
 */
export function matchListings(features: readonly ListingFeatures[], opts: MatchOptions = {}): { edges: LinkEdge[]; groups: MatchGroup[] } {
  const edges = proposeLinks(features, opts);
  const groups = groupLinks(features, edges, opts);
  if (opts.singles === false) return { edges, groups };
  const grouped = new Set(groups.flatMap((g) => g.listingIds));
  const locks: Locks = opts.locks ?? new Map();
  for (const f of [...features].sort((a, b) => a.id - b.id)) {
    if (!f.nameable || grouped.has(f.id) || locks.has(f.id)) continue;
    groups.push({ listingIds: [f.id], lockedProductId: null, links: new Map([[f.id, { method: 'single', confidence: 1, edge: null }]]) });
  }
  return { edges, groups };
}

// ---------------------------------------------------------------------------------------------
// Products

/**
 * Which product each group becomes: a group with locked listings keeps the curator's product;
 * otherwise the existing product most of its listings are linked to now (ties: lowest product id)
 * when no other group claimed it first (groups with more of a product's listings claim first;
 * ties: the group with the lowest listing id); otherwise a new product (null). A product is
 * never given to two groups, so re-running never duplicates or merges products by accident.
 * @param current listing id → its product now (unlocked listings; null when unlinked).
 * @returns product id (or null: create one) per group, in the order of `groups`.
 */
export function assignProducts(groups: readonly MatchGroup[], current: ReadonlyMap<number, number | null>): (number | null)[] {
  const out: (number | null)[] = groups.map((g) => g.lockedProductId);
  const claimed = new Set<number>(groups.flatMap((g) => (g.lockedProductId === null ? [] : [g.lockedProductId])));
  const claims: { group: number; product: number; count: number; first: number }[] = [];
  groups.forEach((g, gi) => {
    if (g.lockedProductId !== null) return;
    const counts = new Map<number, number>();
    for (const id of g.listingIds) {
      const p = current.get(id);
      if (p !== null && p !== undefined) counts.set(p, (counts.get(p) ?? 0) + 1);
    }
    for (const [product, count] of counts) claims.push({ group: gi, product, count, first: g.listingIds[0] });
  });
  claims.sort((x, y) => y.count - x.count || x.product - y.product || x.first - y.first);
  for (const c of claims) {
    if (out[c.group] !== null || claimed.has(c.product)) continue;
    out[c.group] = c.product;
    claimed.add(c.product);
  }
  return out;
}

/** A listing's fields that product attributes come from. */
export interface ProductSource extends MatchListing {
  image: string | null;
}

/** Attributes of a product, from its listings. */
export interface ProductAttributes {
  /** Display name (src/domain/display-names.ts productDisplayName: brand + name + size). */
  name: string;
  /** Display brand (curated name, or the retailer's brand field), or null. */
  brand: string | null;
  sizeText: string | null;
  /** GTIN as digits without leading zeros (a bigint), or null. */
  gtin: string | null;
  image: string | null;
  /** Retailer slug when the brand is a house brand (api-spec ProductDetail `brand_owner`). */
  brandOwner: string | null;
  /** Parent brand's display name of a sub-brand (ProductDetail `brand_parent`). */
  brandParent: string | null;
}

const SMALL_WORDS = new Set(['in', 'with', 'and', 'of', 'the', 'a', 'an', 'or', 'for', 'on', 'to']);
const UPPER_WORDS = new Set(['nz', 'uk', 'usa', 'bbq', 'uht', 'msg']);

/** "watties chopped tomatoes in juice" → "Chopped Tomatoes in Juice" style casing (first word capitalised). */
export function titleCase(text: string): string {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((w, i) => {
      if (UPPER_WORDS.has(w)) return w.toUpperCase();
      if (i > 0 && SMALL_WORDS.has(w)) return w;
      return w.charAt(0).toUpperCase() + w.slice(1);
    })
    .join(' ');
}

/**
 * Product attributes from its listings (issue 5: "name/brand/size from the best listing; gtin when
 * known"), all but the name, whose one rule is src/domain/display-names.ts productDisplayName
 * (workers/match/store.ts productOf puts the two together). The best listing has a real name, a
 * known brand, a display-cased name (the Foodstuffs names are, the Woolworths ones are lowercase),
 * a size and a GTIN, in that order of importance, then the lowest id. Brand: the curated brand most
 * listings carry (ties: the best listing's), else the best listing's brand field. Size: the best
 * listing's with one. GTIN: the valid code most listings carry (ties: the lowest). Image: the best
 * listing's with one.
 * @throws Error when `listings` is empty.
 */
export function productAttributes(listings: readonly ProductSource[], placeholders: ReadonlySet<number> = new Set()): Omit<ProductAttributes, 'name'> {
  if (listings.length === 0) throw new Error('productAttributes needs at least one listing');
  const rows = listings.map((l) => {
    const f = listingFeatures(l, { placeholder: placeholders.has(l.id) });
    return { l, f, cased: /[A-Z]/.test(l.name) && l.name !== l.name.toUpperCase() };
  });
  const score = (r: (typeof rows)[number]) =>
    (placeholders.has(r.l.id) ? 0 : 16) + (r.f.brandKey ? 8 : 0) + (r.cased ? 4 : 0) + (r.l.sizeText ? 2 : 0) + (r.f.gtin ? 1 : 0);
  rows.sort((x, y) => score(y) - score(x) || x.l.id - y.l.id);

  const brandCounts = new Map<string, { n: number; brand: Brand; order: number }>();
  rows.forEach((r, order) => {
    if (!r.f.brand) return;
    const c = brandCounts.get(r.f.brand.key);
    if (c) c.n++;
    else brandCounts.set(r.f.brand.key, { n: 1, brand: r.f.brand, order });
  });
  const curated = [...brandCounts.values()].sort((x, y) => y.n - x.n || x.order - y.order)[0]?.brand ?? null;
  const field = rows.find((r) => r.l.brand && !r.f.generic)?.l.brand?.trim() ?? null;
  const brand = curated ? curated.name : field;
  const brandOwner = curated ? brandOwnerSlug(curated, rows.map((r) => r.l.retailer)) : null;
  const parentKey = curated?.parent ?? null;
  const brandParent = parentKey ? (lookupBrand(parentKey)?.name ?? parentKey) : null;

  const gtinCounts = new Map<string, number>();
  for (const r of rows) if (r.f.gtin) gtinCounts.set(r.f.gtin, (gtinCounts.get(r.f.gtin) ?? 0) + 1);
  const gtin14 = [...gtinCounts.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]?.[0] ?? null;

  return {
    brand,
    sizeText: rows.find((r) => r.l.sizeText)?.l.sizeText ?? null,
    gtin: gtin14 === null ? null : gtin14.replace(/^0+/, ''),
    image: rows.find((r) => r.l.image)?.l.image ?? null,
    brandOwner,
    brandParent,
  };
}
