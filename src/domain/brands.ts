/**
 * Curated New Zealand grocery brands: the chains' house brands (with the chains that own them) and
 * national brands seen in the catalogue, with sub-brands pointing at their parent. Used by matching
 * (src/domain/matching.ts) to read the brand off a listing name when the retailer gives none, and to
 * fill `brand`, `brand_owner` and `brand_parent` of products (api-spec "ProductDetail"). Pure; no I/O.
 *
 * Sources of the rules: house brands and their owners are the chains' own published ranges
 * (Woolworths NZ: Woolworths, Countdown, Essentials, Macro, The Odd Bunch, and the older Homebrand,
 * Signature Range and Select; Foodstuffs — PAK'nSAVE and New World — Pams, Pams Finest, Value and
 * the older Budget). National brands are the ones that begin names in the imported Woolworths
 * catalogue (../shared/data) plus common NZ household names. Woolworths names start with the brand
 * ("watties chopped tomatoes in juice"); Foodstuffs names carry none ("Chopped Tomatoes in Juice").
 *
 * Aliases are written in normalised form (src/search/synonyms.ts `normalizeSearchText`: lowercase,
 * no accents, apostrophes, dots or hyphens): "Wattie's" is `watties`, "Gregg's" is `greggs`.
 */
import { normalizeSearchText } from '../search/synonyms.js';

/** The chains of each retail group that owns house brands (retailer slugs of the schema). */
export const GROUP_RETAILERS = {
  woolworths: ['woolworths', 'freshchoice', 'supervalue'],
  foodstuffs: ['paknsave', 'newworld'],
} as const satisfies Record<string, readonly string[]>;

/** A retail group owning house brands. */
export type RetailGroup = keyof typeof GROUP_RETAILERS;

/** One curated brand. */
export interface Brand {
  /** Stable key: the brand's canonical normalised name (`watties`, `san remo`). */
  key: string;
  /** Display name as the brand writes it ("Wattie's", "San Remo"). */
  name: string;
  /** Normalised spellings that begin a listing name for this brand (the key included). */
  aliases: readonly string[];
  /** The group whose chains alone sell it, for a house brand; null for a national brand. */
  owner: RetailGroup | null;
  /** Key of the parent brand of a sub-brand (`steam fresh` → `watties`); null for a top brand. */
  parent: string | null;
  /**
   * The name is also an everyday grocery word ("Value", "Diamond", "Kiwi", "Continental"), so it is
   * read off the start of a name only for chains whose names begin with the brand
   * ({@link extractBrand}'s `brandFirst`).
   */
  commonWord: boolean;
}

/** Keys of brands whose names are also common words (see {@link Brand.commonWord}). */
const COMMON_WORDS: ReadonlySet<string> = new Set([
  'select', 'value', 'budget', 'diamond', 'solo', 'panda', 'fountain', 'eta', 'continental', 'kiwi', 'mingle', 'tasti', 'bakels', 'pukka',
]);

type BrandInput = [key: string, name: string, aliases?: readonly string[], owner?: RetailGroup | null, parent?: string | null];

/** House brands: [key, display name, extra aliases, owner group, parent key]. */
const HOUSE: readonly BrandInput[] = [
  ['woolworths', 'Woolworths', ['woolworths nz'], 'woolworths'],
  ['countdown', 'Countdown', [], 'woolworths'],
  ['essentials', 'Essentials', ['woolworths essentials', 'countdown essentials'], 'woolworths', 'woolworths'],
  ['macro', 'Macro', ['macro organic', 'woolworths macro'], 'woolworths', 'woolworths'],
  ['the odd bunch', 'The Odd Bunch', ['odd bunch'], 'woolworths', 'woolworths'],
  ['homebrand', 'Homebrand', ['countdown homebrand'], 'woolworths', 'countdown'],
  ['signature range', 'Signature Range', ['countdown signature range'], 'woolworths', 'countdown'],
  ['select', 'Select', ['countdown select'], 'woolworths', 'countdown'],
  ['pams', 'Pams', [], 'foodstuffs'],
  ['pams finest', 'Pams Finest', [], 'foodstuffs', 'pams'],
  ['value', 'Value', ['pams value'], 'foodstuffs', 'pams'],
  ['budget', 'Budget', [], 'foodstuffs'],
];

/** National brands: [key, display name, extra aliases, owner (null), parent key]. */
const NATIONAL: readonly BrandInput[] = [
  ['watties', "Wattie's", ['wattie']],
  ['steam fresh', 'Steam Fresh', ['watties steam fresh'], null, 'watties'],
  ['san remo', 'San Remo'],
  ['barilla', 'Barilla'],
  ['sanitarium', 'Sanitarium'],
  ['weetbix', 'Weet-Bix', ['sanitarium weetbix', 'weet bix'], null, 'sanitarium'],
  ['up go', 'Up&Go', ['sanitarium up go', 'up and go'], null, 'sanitarium'],
  ['anchor', 'Anchor'],
  ['mainland', 'Mainland'],
  ['meadow fresh', 'Meadow Fresh'],
  ['lewis road creamery', 'Lewis Road Creamery', ['lewis road']],
  ['tip top', 'Tip Top'],
  ['vogels', "Vogel's"],
  ['molenberg', 'Molenberg'],
  ['edmonds', 'Edmonds'],
  ['chelsea', 'Chelsea'],
  ['cadbury', 'Cadbury'],
  ['whittakers', "Whittaker's"],
  ['griffins', "Griffin's"],
  ['bluebird', 'Bluebird'],
  ['eta', 'ETA'],
  ['heinz', 'Heinz'],
  ['hellers', 'Hellers'],
  ['hansells', 'Hansells'],
  ['continental', 'Continental'],
  ['kelloggs', "Kellogg's"],
  ['uncle tobys', 'Uncle Tobys'],
  ['pics', "Pic's", ['pics peanut butter']],
  ['delmaine', 'Delmaine'],
  ['diamond', 'Diamond'],
  ['la molisana', 'La Molisana'],
  ['garofalo', 'Garofalo'],
  ['vetta', 'Vetta', ['vetta smart'], null, null],
  ['mutti', 'Mutti'],
  ['mccain', 'McCain'],
  ['masterfoods', 'MasterFoods'],
  ['greggs', "Gregg's"],
  ['mrs rogers', 'Mrs Rogers'],
  ['just foods', 'Just Foods'],
  ['just garlic', 'Just Garlic'],
  ['just hummus', 'Just Hummus'],
  ['gourmet garden', 'Gourmet Garden'],
  ['silver fern farms', 'Silver Fern Farms'],
  ['first light', 'First Light'],
  ['beta bite', 'Beta Bite', ['beta bites']],
  ['maggi', 'Maggi'],
  ['gerrys', "Gerry's"],
  ['nong shim', 'Nong Shim', ['nongshim']],
  ['mingle', 'Mingle'],
  ['mother earth', 'Mother Earth'],
  ['naked kitchen', 'Naked Kitchen'],
  ['original foods', 'Original Foods'],
  ['panda', 'Panda'],
  ['solo', 'Solo'],
  ['somerset farms', 'Somerset Farms'],
  ['sun harvest', 'Sun Harvest'],
  ['tasti', 'Tasti'],
  ['westgold', 'Westgold'],
  ['maison therese', 'Maison Therese'],
  ['leaderbrand', 'LeaderBrand'],
  ['bakels', 'Bakels'],
  ['tegel', 'Tegel'],
  ['hellaby', 'Hellaby'],
  ['kiwi', 'Kiwi'],
  ['pukka', 'Pukka'],
  ['dilmah', 'Dilmah'],
  ['bell tea', 'Bell Tea'],
  ['robert harris', 'Robert Harris'],
  ['lisas', "Lisa's"],
  ['kapiti', 'Kapiti'],
  ['puhoi valley', 'Puhoi Valley'],
  ['zespri', 'Zespri'],
  ['leggos', "Leggo's"],
  ['dolmio', 'Dolmio'],
  ['old el paso', 'Old El Paso'],
  ['uncle bens', "Uncle Ben's", ['bens original']],
  ['sunrice', 'SunRice'],
  ['ocean blue', 'Ocean Blue'],
  ['sealord', 'Sealord'],
  ['john west', 'John West'],
  ['greenseas', 'Greenseas'],
  ['fountain', 'Fountain'],
  ['eskimo pie', 'Eskimo Pie'],
  ['tip top ice cream', 'Tip Top Ice Cream', [], null, 'tip top'],
  ['coca cola', 'Coca-Cola', ['coke']],
  ['pepsi', 'Pepsi'],
  ['lion red', 'Lion Red'],
];

/**
 * Words the Woolworths catalogue puts where a brand would be on produce ("fresh fruit bananas",
 * "fresh vegetable carrots", `brand` column "fresh vegetable"): not brands. A listing whose brand is
 * one of these is unbranded produce.
 */
export const PSEUDO_BRANDS: readonly string[] = ['fresh', 'fresh fruit', 'fresh vegetable', 'fresh vegetables', 'fresh salad', 'fresh produce', 'fresh meat', 'fresh herbs'];

function build(): { byKey: Map<string, Brand>; byAlias: Map<string, Brand>; maxWords: number } {
  const byKey = new Map<string, Brand>();
  const byAlias = new Map<string, Brand>();
  for (const [key, name, aliases = [], owner = null, parent = null] of [...HOUSE, ...NATIONAL]) {
    if (byKey.has(key)) continue; // a repeated entry keeps its first definition
    const brand: Brand = { key, name, aliases: [key, ...aliases], owner, parent, commonWord: COMMON_WORDS.has(key) };
    byKey.set(key, brand);
  }
  for (const brand of byKey.values()) {
    for (const alias of brand.aliases) if (!byAlias.has(alias)) byAlias.set(alias, brand);
  }
  const maxWords = Math.max(...[...byAlias.keys()].map((a) => a.split(' ').length));
  return { byKey, byAlias, maxWords };
}

const TABLE = build();

/** Every curated brand, house brands first. */
export const BRANDS: readonly Brand[] = [...TABLE.byKey.values()];

/**
 * Normalised form of a brand or name for look-ups: {@link normalizeSearchText}, then `&` / `+` /
 * punctuation as spaces ("Up&Go" → "up go"), whitespace collapsed.
 */
export function normalizeBrandText(text: string): string {
  return normalizeSearchText(text).replace(/[^a-z0-9% ]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The curated brand with this key, or undefined. */
export function brandByKey(key: string): Brand | undefined {
  return TABLE.byKey.get(key);
}

/** The curated brand spelled `text` (any alias, any case or punctuation), or undefined. */
export function lookupBrand(text: string): Brand | undefined {
  return TABLE.byAlias.get(normalizeBrandText(text));
}

/** True when `text` is one of the {@link PSEUDO_BRANDS} (produce words standing where a brand would). */
export function isPseudoBrand(text: string): boolean {
  return PSEUDO_BRANDS.includes(normalizeBrandText(text));
}

/** A brand found at the start of a name. */
export interface BrandPrefix {
  brand: Brand;
  /** Number of leading words of the normalised name that spell it. */
  words: number;
}

/**
 * The curated brand that begins `normalizedName` (already {@link normalizeBrandText}-normalised),
 * longest alias first ("macro organic pasta" → Macro, 2 words; "san remo pasta" → San Remo), or
 * null when none does. Only a whole-word prefix counts ("solomon" is not "solo"), and a name is
 * never all brand. Brands that are also common words ({@link Brand.commonWord}) count only when
 * `commonWords` is true (names of a chain that begins every name with the brand).
 */
export function brandPrefix(normalizedName: string, commonWords = true): BrandPrefix | null {
  const words = normalizedName.split(' ');
  for (let n = Math.min(TABLE.maxWords, words.length - 1); n >= 1; n--) {
    const brand = TABLE.byAlias.get(words.slice(0, n).join(' '));
    if (brand && (commonWords || !brand.commonWord)) return { brand, words: n };
  }
  return null;
}

/**
 * Whether a chain may sell a brand: always for a national brand, only within the owner group for a
 * house brand (Pams is never on a Woolworths shelf, Essentials never at PAK'nSAVE).
 */
export function soldBy(brand: Brand, retailer: string): boolean {
  return brand.owner === null || (GROUP_RETAILERS[brand.owner] as readonly string[]).includes(retailer);
}

/**
 * The top-level brand of a brand (following `parent` links): Steam Fresh → Wattie's, Pams Finest →
 * Pams. Two listings whose brands share a root and one is the other's ancestor are the same brand
 * line for matching purposes.
 */
export function brandAncestors(brand: Brand): string[] {
  const out = [brand.key];
  let b: Brand | undefined = brand;
  while (b?.parent && !out.includes(b.parent)) {
    out.push(b.parent);
    b = TABLE.byKey.get(b.parent);
  }
  return out;
}

/**
 * `brand_owner` of a product (api-spec ProductDetail: retailer slug when the brand is a house
 * brand): the product's own chain among the owner group when it is sold there — `retailers` are the
 * slugs of its listings, best listing first — else the group's first chain. Null for a national brand.
 */
export function brandOwnerSlug(brand: Brand, retailers: readonly string[]): string | null {
  if (!brand.owner) return null;
  const group = GROUP_RETAILERS[brand.owner] as readonly string[];
  return retailers.find((r) => group.includes(r)) ?? group[0];
}
