/**
 * Shopper-facing names (issue 28 item 4): what a listing and a product are called on every card,
 * page and suggestion. Pure; no I/O. The rule of a **product's** name is here and only here
 * ({@link productDisplayName}; workers/match/store.ts writes it to `product.name`).
 *
 * **Listings** keep the shop's own display name exactly as the shop gives it (`listing.name`): the
 * Foodstuffs chains and The Warehouse give cased names ("Crushed & Sieved Tomatoes"), the
 * Woolworths product API gives lower-case ones ("l & p soft drink lemon & paeroa"). The real
 * Woolworths data has **no cased display name**: of the 95 columns of the source `products.csv`
 * (the header and 23 rows of `neon-ninja--woolies/products.sample.csv`) no text column of a product
 * carries capitals (`name`, `brand`, `variety`, `slug`; `image.alt` and `headingText` are empty),
 * and neither does the transcribed catalogue (`products.columns.tsv`: 0 of 17,664 names or brands).
 * No casing is invented for them: title-casing cannot be right for brands ("ecostore", "MCoBeauty",
 * "M&M's", "L&P" — 3,792 of the catalogue's brands are not in the curated list of
 * src/domain/brands.ts). Normalised forms (`search_name`, matching tokens) stay internal.
 *
 * **Products** are named as a shopper recognises them: brand, name, size ("Weet-Bix Cereal 1.2kg",
 * never the bare "Cereal" left when the brand words are taken off "sanitarium weet-bix cereal").
 */
import { brandPrefix, isPseudoBrand, normalizeBrandText, PSEUDO_BRANDS, type Brand } from './brands.js';
import { BRAND_FIRST_RETAILERS, extractBrand, titleCase } from './matching.js';
import { parseSize } from './sizes.js';

/** What the product name is made from: one linked listing. */
export interface NameSource {
  id: number;
  /** Retailer slug. */
  retailer: string;
  /** The shop's own name, as the shop gives it. */
  name: string;
  /** The shop's brand field, when it gives one. */
  brand: string | null;
  sizeText: string | null;
  /** Sold by weight (price per kg). */
  weighable?: boolean;
}

/** A name in the shop's own casing: capitals present, and not all capitals (a shouted name is no casing). */
export function isCased(text: string): boolean {
  return /\p{Lu}/u.test(text) && text !== text.toUpperCase();
}

/**
 * `text` split after its first whole words when they spell one of `prefixes` (normalised as
 * {@link normalizeBrandText}: case, accents, apostrophes, hyphens and `&` do not count), longest
 * first, both parts as written ("l & p soft drink", ["l p"] → "l & p" and "soft drink"); null when
 * none does or nothing would be left.
 */
export function splitLeadingWords(text: string, prefixes: readonly string[]): { lead: string; rest: string } | null {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const wanted = new Set(prefixes.map((p) => normalizeBrandText(p)).filter(Boolean));
  for (let k = words.length - 1; k >= 1; k--) {
    if (wanted.has(normalizeBrandText(words.slice(0, k).join(' ')))) return { lead: words.slice(0, k).join(' '), rest: words.slice(k).join(' ') };
  }
  return null;
}

/** `text` without the leading words {@link splitLeadingWords} finds ("sanitarium weet-bix cereal" → "cereal"), or null. */
export function withoutLeadingWords(text: string, prefixes: readonly string[]): string | null {
  return splitLeadingWords(text, prefixes)?.rest ?? null;
}

/**
 * The size a name ends with: the printed size when it is a pack size a shopper reads on the shelf
 * ("400g", "1.5L", "6pack", "4 x 250mL"); null when it is no size at all (unparsed), a price basis
 * ("per kg", "kg": the item is sold by weight) or one single item ("1ea", "ea", "1pack").
 */
export function nameSize(sizeText: string | null | undefined, weighable = false): string | null {
  const text = sizeText?.trim().replace(/\s+/g, ' ') ?? '';
  const size = parseSize(text);
  if (!size || size.perKg || weighable) return null;
  if (size.unit === 'each' && size.qty * size.packCount === 1) return null;
  return text;
}

/** `name` followed by `size`, unless it already ends with it (compared normalised: "Coke 1.5l" and "1.5L"). */
function withSize(name: string, size: string | null): string {
  if (!size) return name;
  const n = normalizeBrandText(name);
  const s = normalizeBrandText(size);
  return n === s || n.endsWith(` ${s}`) ? name : `${name} ${size}`;
}

/** Whether `name` begins with one of `prefixes` as whole words (normalised). */
function beginsWith(name: string, prefixes: readonly string[]): boolean {
  const n = normalizeBrandText(name);
  return prefixes.some((p) => {
    const q = normalizeBrandText(p);
    return q !== '' && (n === q || n.startsWith(`${q} `));
  });
}

/**
 * The name of a product, from its linked listings (placeholders, "Woolworths item 123", left out
 * when another listing has a name), as a shopper recognises it: **brand + product words + size**,
 * with no casing invented for a brand.
 *
 * 1. Brand: the curated brand (src/domain/brands.ts, in its own display casing: "Wattie's",
 *    "Weet-Bix", "McCain") most of the listings carry — read off the brand field, off a curated
 *    brand that begins the brand field ("sanitarium weet-bix bites" → Weet-Bix; the further word
 *    "bites" stays with the product words), or off the start of a brand-first chain's name; ties
 *    go to the lowest listing id. Else a brand field with capitals (a shop's own casing: "L&P").
 *    Else the brand as the shop writes it, in lower case for Woolworths ("l & p", "ecostore"):
 *    its casing is unknown and is not guessed (title case is wrong for "ecostore", "MCoBeauty",
 *    "M&M's"). None for unbranded produce ("fresh fruit", "fresh vegetable" are labels, not brands).
 * 2. Product words: a listing name in the shop's own casing (Foodstuffs, The Warehouse; the one
 *    with the lowest id, preferring one that begins with the brand) as written — kept whole when
 *    it begins with the brand ("Pams Finest Chocolate Biscuits"), else put after the brand
 *    ("Silver Fern Farms" + "Honest Beef Burgers …"); failing one, the rest of a lower-case name
 *    after its brand (or produce label) words, title-cased as product words (the rule product
 *    names had, src/domain/matching.ts titleCase: "sanitarium weet-bix cereal" → "Weet-Bix
 *    Cereal", "l & p soft drink lemon & paeroa" → "l & p Soft Drink Lemon & Paeroa", "fresh fruit
 *    bananas yellow loose" → "Bananas Yellow Loose"). With no brand known and no cased name, the
 *    shop's own name as written (its first words may be a brand).
 * 3. Size: the product's size (`opts.sizeText`; by default the first listing's, lowest id, that
 *    has one) when {@link nameSize} calls it a pack size, no listing is sold by weight, and the
 *    name does not already end with it ("… 1.5L"; nothing for "per kg" or "1ea").
 *
 * @throws Error when `listings` is empty.
 */
export function productDisplayName(
  listings: readonly NameSource[],
  placeholders: ReadonlySet<number> = new Set(),
  opts: { sizeText?: string | null } = {},
): string {
  if (listings.length === 0) throw new Error('productDisplayName needs at least one listing');
  const named = listings.filter((l) => !placeholders.has(l.id));
  const rows = (named.length > 0 ? named : listings).slice().sort((a, b) => a.id - b.id);
  const info = rows.map((l) => {
    const ex = extractBrand(l.name, l.brand, BRAND_FIRST_RETAILERS.includes(l.retailer));
    // A curated brand beginning an uncurated brand field: "sanitarium weet-bix bites" → Weet-Bix.
    const brand = ex.brand ?? (!ex.generic && l.brand ? (brandPrefix(normalizeBrandText(l.brand), true)?.brand ?? null) : null);
    return { l, ex, brand };
  });
  const sizeText = opts.sizeText !== undefined ? opts.sizeText : info.find((r) => r.l.sizeText)?.l.sizeText;
  const size = nameSize(sizeText, info.some((r) => r.l.weighable));

  // 1. The brand: its display text when its casing is known, and the spellings that begin names.
  const counts = new Map<string, { n: number; brand: Brand }>();
  for (const r of info) {
    if (!r.brand) continue;
    const c = counts.get(r.brand.key);
    if (c) c.n += 1;
    else counts.set(r.brand.key, { n: 1, brand: r.brand });
  }
  const curated = [...counts.values()].sort((a, b) => b.n - a.n)[0]?.brand ?? null;
  const fields = info.filter((r) => r.l.brand && !r.ex.generic && !isPseudoBrand(r.l.brand)).map((r) => r.l.brand!.trim());
  // A brand field with capitals is a shop's casing (all capitals too: "L&P", "ETA").
  const casedField = fields.find((f) => /\p{Lu}/u.test(f)) ?? null;
  const shown = curated?.name ?? casedField;
  // The spellings that begin names: the curated brand's own (the further words of a longer brand
  // field stay with the product words), else the brand fields.
  const spellings = curated ? curated.aliases : fields;

  // 2. The product words, and the brand before them.
  const cased = info.filter((r) => isCased(r.l.name));
  if (cased.length > 0) {
    const pick = cased.find((r) => beginsWith(r.l.name, spellings)) ?? cased[0];
    const name = pick.l.name.trim();
    const brand = shown ?? fields[0] ?? null;
    return withSize(brand === null || beginsWith(name, spellings) ? name : `${brand} ${name}`, size);
  }
  for (const r of info) {
    const split = splitLeadingWords(r.l.name, spellings);
    if (split) return withSize(`${shown ?? split.lead} ${titleCase(split.rest)}`, size);
  }
  if (shown ?? fields[0]) return withSize(`${shown ?? fields[0]} ${titleCase(info[0].l.name.trim())}`, size);
  for (const r of info) {
    if (!r.ex.generic) continue;
    const rest = withoutLeadingWords(r.l.name, [...PSEUDO_BRANDS, ...(r.l.brand ? [r.l.brand] : [])]);
    if (rest !== null) return withSize(titleCase(rest), size);
  }
  return withSize(info[0].l.name.trim(), size);
}
