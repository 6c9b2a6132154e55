/**
 * The Food Price Index basket (issue 15): the Stats NZ FPI representative items, their groups and
 * weights, the basis they are compared on and the words that match shelf listings to them. The data
 * live in `basket-items.json` next to this file (reviewed by hand, replaceable without code changes);
 * this module only types, loads and validates them. Pure apart from reading that one file.
 *
 * Method (DESIGN.md "The basket and the index"): five FPI groups with Stats NZ's published group
 * weights (Food price index review: 2020; see `weights_source` in the file), items equal within a
 * group until official item weights are available. Weights are **shares of the whole basket**: the
 * group weights sum to 1 (not 100 or 1000), item weights sum to their group's weight. The API
 * reports percentages (× 100). Restaurant meals and ready-to-eat food keep their official weight but
 * are not observable on supermarket shelves; the index renormalises the weights over the observable
 * groups (ILO/IMF *Consumer Price Index Manual* 2020, ch. 8, on weights of unobserved aggregates:
 * implicit imputation of their movement from the rest of the index).
 */
import fs from 'node:fs';
import { z } from 'zod';
import { KINDS } from './kinds.js';
import { ExpectedError } from '../errors.js';

/** The five FPI groups (subgroups in Stats NZ's terms), by our stable code. */
export const GROUP_CODES = ['fruit_veg', 'meat_poultry_fish', 'grocery_food', 'beverages', 'restaurant'] as const;
export type GroupCode = (typeof GROUP_CODES)[number];

/** Dimension of an item's specification and of its comparison basis (ProductDetail `compare_unit`). */
export type BasketUnit = 'kg' | 'l' | 'each';

/** Number of items in the basket: Stats NZ's FPI items with published average prices. */
export const BASKET_SIZE = 155;

/** Tolerance for weight sums (floating point). */
const EPS = 1e-9;

const groupSchema = z.strictObject({
  code: z.enum(GROUP_CODES),
  name: z.string().min(1),
  /** Share of the whole basket, 0 to 1; the five sum to 1. */
  weight: z.number().positive().max(1),
  observable: z.boolean(),
  /** Stats NZ FPI group series (index level), order not checked against a Stats NZ file. */
  series_ref: z.string().min(1),
  /** Number of items in the group, checked against the items. */
  items: z.number().int().positive(),
});

const itemSchema = z.strictObject({
  id: z.number().int().positive(),
  code: z.string().regex(/^(CPIM\.SAP\d{4}|NZGP\.[a-z0-9]+(?:-[a-z0-9]+)*)$/),
  official_code: z.boolean(),
  name: z.string().min(1),
  group: z.enum(GROUP_CODES),
  observable: z.boolean(),
  weight: z.number().positive().max(1),
  spec: z.string().min(1).nullable(),
  per_unit: z.boolean(),
  unit: z.enum(['kg', 'l', 'each']),
  qty: z.number().positive().nullable(),
  qty_min: z.number().positive().nullable(),
  qty_max: z.number().positive().nullable(),
  admit_each: z.boolean(),
  kind: z.string().min(1).nullable(),
  keywords: z.array(z.string().min(1)),
  exclusions: z.array(z.string().min(1)),
  last_official_price_cents: z.number().int().positive(),
  last_official_month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/),
  note: z.string().min(1).optional(),
});

const fileSchema = z.strictObject({
  about: z.array(z.string()),
  weights_source: z.strictObject({
    publisher: z.string(),
    title: z.string(),
    urls: z.array(z.url()).min(1),
    year: z.number().int(),
    basis: z.string(),
    quoted: z.string(),
    caveats: z.array(z.string()),
    licence: z.string(),
  }),
  groups: z.array(groupSchema).length(GROUP_CODES.length),
  groups_note: z.string(),
  items: z.array(itemSchema),
});

/** One FPI group with its official weight. */
export interface BasketGroup {
  code: GroupCode;
  name: string;
  /** Share of the whole basket (0 to 1); the five groups sum to 1. */
  weight: number;
  /** Whether the group's items are sold on supermarket shelves (false for restaurant meals and ready-to-eat food). */
  observable: boolean;
  /** Stats NZ series reference of the group index (CPIM.SE9011…SE9015; order not verified). */
  series_ref: string;
  /** Number of items in the group. */
  items: number;
}

/** One basket item: an FPI representative item. */
export interface BasketItem {
  /** Stable integer id (the item's row in fpi_items.csv, 1-based). */
  id: number;
  /** Stats NZ series reference (CPIM.SAP…) when `official_code`, else our own stable `NZGP.<slug>`. */
  code: string;
  /** True when `code` is a Stats NZ series reference. */
  official_code: boolean;
  /** Official Stats NZ item name, e.g. "Milk - standard homogenised, 2 litres". */
  name: string;
  group: GroupCode;
  /** Same as the group's: whether shelves sell it. */
  observable: boolean;
  /** Share of the whole basket (0 to 1): group weight / items in the group. */
  weight: number;
  /** The official size text priced ("1kg", "2 litres", "dozen", "box of 100"), or null when the name gives none. */
  spec: string | null;
  /** True: compared per kg or litre (per item for `each`); false: per pack. */
  per_unit: boolean;
  /** Dimension of the specification: kg, l or each. */
  unit: BasketUnit;
  /** The specification's quantity in grams (unit kg), millilitres (unit l) or items (unit each); the pack total for multipacks; null when the spec gives none or a range. */
  qty: number | null;
  /** Smallest admitted listing size in `unit` (kg, l or items), or null for no bound. */
  qty_min: number | null;
  /** Largest admitted listing size in `unit` (kg, l or items), or null for no bound. */
  qty_max: number | null;
  /** Produce also sold by the piece without a weight (a broccoli head): such listings are admitted. */
  admit_each: boolean;
  /** Slug of a curated kind (src/domain/kinds.ts) whose listings are the candidates, or null. */
  kind: string | null;
  /** Phrases, any of which matches a listing when all its words are in the listing's kindText name. */
  keywords: string[];
  /** Phrases any of which, present in the name, refuses the listing. */
  exclusions: string[];
  /** Stats NZ average price of the specified item in `last_official_month`, in cents (for sanity checks). */
  last_official_price_cents: number;
  /** Month of that price, YYYY-MM. */
  last_official_month: string;
  /** Reviewer's note (an assumption to check), when any. */
  note?: string;
}

/** The validated basket. */
export interface Basket {
  groups: BasketGroup[];
  items: BasketItem[];
  /** Where the group weights come from (publisher, year, urls, caveats), as the file states it. */
  weightsSource: z.infer<typeof fileSchema>['weights_source'];
}

/** What a specification text says about size: a fixed quantity, a range, or nothing. */
export interface SpecSize {
  unit: BasketUnit;
  /** Grams, millilitres or items; null for a range. */
  qty: number | null;
  /** Range bounds in `unit` (kg, l or items) when the spec is a range. */
  range: [number, number] | null;
}

const AMOUNT = /(\d+(?:\.\d+)?)\s*(kg|g|ml|litres?)\b/g;
const toBase = (n: number, u: string): { unit: BasketUnit; qty: number } =>
  u === 'kg' ? { unit: 'kg', qty: n * 1000 } : u === 'g' ? { unit: 'kg', qty: n } : u === 'ml' ? { unit: 'l', qty: n } : { unit: 'l', qty: n * 1000 };
const round = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * Parses an official specification ("1kg", "2 litres", "250ml, 6 pack", "150g pottle, pk of 6",
 * "dozen", "box of 100", "multipack,5", "1 to 1.5 litre", "6 or 8 pack", "No. 15", "each").
 * Returns null when the text holds no size. Quantities in grams, millilitres or items.
 */
export function parseSpec(spec: string | null): SpecSize | null {
  if (!spec) return null;
  const t = spec.toLowerCase();
  // Ranges: "1 to 1.5 litre", "100g to 250g", "10g to 15g", "multipack of 3 to 5", "6 or 8 pack".
  let m = t.match(/(\d+(?:\.\d+)?)\s*(kg|g|ml|litres?)?\s*(?:to|or)\s*(\d+(?:\.\d+)?)\s*(kg|g|ml|litres?|pack)?/);
  if (m) {
    const u = m[4] ?? m[2];
    if (!u || u === 'pack') return { unit: 'each', qty: null, range: [Number(m[1]), Number(m[3])] };
    const a = toBase(Number(m[1]), m[2] ?? u);
    const b = toBase(Number(m[3]), u);
    const f = 1000;
    return { unit: a.unit, qty: null, range: [round(a.qty / f), round(b.qty / f)] };
  }
  // Chicken size number: "No. 15" is a nominal 1.5 kg bird.
  m = t.match(/^no\. (\d+)$/);
  if (m) return { unit: 'kg', qty: Number(m[1]) * 100, range: null };
  const count = t.match(/(?:(\d+) (?:pack|pieces)|pk of (\d+)|box of (\d+)|multipack,(\d+))/);
  const n = count ? Number(count[1] ?? count[2] ?? count[3] ?? count[4]) : null;
  const amounts = [...t.matchAll(AMOUNT)];
  if (amounts.length === 1) {
    const a = toBase(Number(amounts[0][1]), amounts[0][2]);
    return { unit: a.unit, qty: round(a.qty * (n ?? 1)), range: null };
  }
  if (n !== null) return { unit: 'each', qty: n, range: null };
  if (t === 'dozen') return { unit: 'each', qty: 12, range: null };
  if (/\beach\b|^one /.test(t)) return { unit: 'each', qty: 1, range: null };
  return null;
}

/** Thrown when the basket file breaks a rule; lists every problem found. */
export class BasketError extends ExpectedError {
  constructor(readonly problems: string[]) {
    super(`invalid basket (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n- ${problems.join('\n- ')}`);
    this.name = 'BasketError';
  }
}

/** Base units per comparison unit: grams per kg, millilitres per litre, items per item. */
const PER_UNIT: Record<BasketUnit, number> = { kg: 1000, l: 1000, each: 1 };

/**
 * Validates parsed basket data; throws {@link BasketError} listing every problem. With
 * `officialNames` (the `item` column of fpi_items.csv), also checks the names are exactly those.
 */
export function validateBasket(data: unknown, officialNames?: readonly string[]): Basket {
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    throw new BasketError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const { groups, items, weights_source } = parsed.data;
  const problems: string[] = [];
  const kinds = new Set(KINDS.map((k) => k.slug));

  // Groups: each code once, weights summing to 1, item counts.
  const byCode = new Map(groups.map((g) => [g.code, g]));
  if (byCode.size !== GROUP_CODES.length) problems.push('groups: each of the five group codes must appear once');
  const gsum = groups.reduce((s, g) => s + g.weight, 0);
  if (Math.abs(gsum - 1) > EPS) problems.push(`groups: weights sum to ${gsum}, not 1`);

  // Items: count, unique ids, codes, names.
  if (items.length !== BASKET_SIZE) problems.push(`items: ${items.length} items, expected ${BASKET_SIZE}`);
  for (const key of ['id', 'code', 'name'] as const) {
    const seen = new Set<unknown>();
    for (const it of items) {
      if (seen.has(it[key])) problems.push(`items: duplicate ${key} ${JSON.stringify(it[key])}`);
      seen.add(it[key]);
    }
  }
  if (officialNames) {
    const mine = new Set(items.map((i) => i.name));
    const theirs = new Set(officialNames);
    for (const n of theirs) if (!mine.has(n)) problems.push(`items: official item missing: ${n}`);
    for (const n of mine) if (!theirs.has(n)) problems.push(`items: not an official item name: ${n}`);
  }

  for (const g of groups) {
    const its = items.filter((i) => i.group === g.code);
    if (its.length !== g.items) problems.push(`group ${g.code}: declares ${g.items} items, has ${its.length}`);
    const isum = its.reduce((s, i) => s + i.weight, 0);
    if (Math.abs(isum - g.weight) > EPS) problems.push(`group ${g.code}: item weights sum to ${isum}, not ${g.weight}`);
  }

  for (const it of items) {
    const at = `item ${it.id} "${it.name}"`;
    const g = byCode.get(it.group);
    if (g && it.observable !== g.observable) problems.push(`${at}: observable ${it.observable} differs from its group's`);
    if (it.official_code !== it.code.startsWith('CPIM.')) problems.push(`${at}: official_code does not match code ${it.code}`);
    if (it.spec !== null && !it.name.includes(it.spec)) problems.push(`${at}: spec "${it.spec}" is not part of the name`);
    if (it.kind !== null && !kinds.has(it.kind)) problems.push(`${at}: unknown kind "${it.kind}"`);
    if (it.observable && it.keywords.length === 0) problems.push(`${at}: an observable item needs keywords`);
    for (const w of [...it.keywords, ...it.exclusions]) {
      if (w !== w.toLowerCase().trim()) problems.push(`${at}: phrase "${w}" must be lower case and trimmed`);
    }
    // Spec, unit and quantity agree.
    const size = parseSpec(it.spec);
    if (size) {
      if (size.unit !== it.unit) problems.push(`${at}: unit ${it.unit}, but the spec "${it.spec}" is in ${size.unit}`);
      if (size.qty !== it.qty) problems.push(`${at}: qty ${it.qty}, but the spec "${it.spec}" says ${size.qty}`);
      if (size.range && (it.qty_min === null || it.qty_max === null || it.qty_min > size.range[0] || it.qty_max < size.range[1])) {
        problems.push(`${at}: bounds ${it.qty_min}–${it.qty_max} do not contain the spec range ${size.range.join('–')}`);
      }
    } else if (it.qty !== null) {
      problems.push(`${at}: qty ${it.qty} but the spec gives no size`);
    }
    // Bounds: both or neither for per-pack items with a size, ordered, containing the spec quantity.
    if ((it.qty_min === null) !== (it.qty_max === null)) problems.push(`${at}: give both qty_min and qty_max, or neither`);
    if (it.qty_min !== null && it.qty_max !== null) {
      if (it.qty_min > it.qty_max) problems.push(`${at}: qty_min ${it.qty_min} > qty_max ${it.qty_max}`);
      if (it.qty !== null) {
        const q = it.qty / PER_UNIT[it.unit];
        if (q < it.qty_min - EPS || q > it.qty_max + EPS) problems.push(`${at}: spec quantity ${q} ${it.unit} outside bounds ${it.qty_min}–${it.qty_max}`);
      }
    }
    // per_unit only makes sense for weight or volume.
    if (it.per_unit && it.unit === 'each') problems.push(`${at}: per_unit needs a kg or l unit`);
    if (it.admit_each && !it.per_unit) problems.push(`${at}: admit_each applies to per-unit (loose) items only`);
  }

  if (problems.length) throw new BasketError(problems);
  return {
    groups: GROUP_CODES.map((c) => byCode.get(c)!),
    items: [...items].sort((a, b) => GROUP_CODES.indexOf(a.group) - GROUP_CODES.indexOf(b.group) || a.name.localeCompare(b.name)),
    weightsSource: weights_source,
  };
}

let cached: Basket | null = null;

/** Reads `basket-items.json`, validates it and returns the basket (cached). Throws {@link BasketError}. */
export function loadBasket(): Basket {
  if (!cached) {
    const text = fs.readFileSync(new URL('./basket-items.json', import.meta.url), 'utf8');
    cached = validateBasket(JSON.parse(text));
  }
  return cached;
}

/**
 * Group weights renormalised over the observable groups (sum 1): the weights the index uses, since
 * restaurant meals and ready-to-eat food are not priced on shelves.
 */
export function observableGroupWeights(basket: Basket): Map<GroupCode, number> {
  const obs = basket.groups.filter((g) => g.observable);
  const total = obs.reduce((s, g) => s + g.weight, 0);
  return new Map(obs.map((g) => [g.code, g.weight / total]));
}

/** All food's series reference (Stats NZ FPI, all groups) and its group id in the index (0). */
export const ALL_FOOD = { id: 0, code: 'all', name: 'All food', series_ref: 'CPIM.SE901' } as const;

/** The stable integer id of a group (1 to 5, in {@link GROUP_CODES} order; 0 is all food). */
export function groupId(code: GroupCode): number {
  return GROUP_CODES.indexOf(code) + 1;
}

/** The api-spec unit enumeration value of a basket unit: kg → g, l → ml, each → each. */
export type ApiUnit = 'g' | 'ml' | 'each';

/**
 * An item's dimension and size bounds as the API states them (api-spec BasketItem `unit`,
 * `qty_min`, `qty_max`; unit enum g, ml, each, m): the basket file keeps bounds in kg, l or items
 * ({@link BasketItem.qty_min}); the API gives them in g, ml or items, the units listings' `qty` use.
 */
export function apiSize(item: Pick<BasketItem, 'unit' | 'qty_min' | 'qty_max'>): { unit: ApiUnit; qty_min: number | null; qty_max: number | null } {
  const unit: ApiUnit = item.unit === 'kg' ? 'g' : item.unit === 'l' ? 'ml' : 'each';
  const f = PER_UNIT[item.unit];
  const scale = (v: number | null) => (v == null ? null : round(v * f));
  return { unit, qty_min: scale(item.qty_min), qty_max: scale(item.qty_max) };
}
