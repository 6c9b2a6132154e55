/**
 * The shelf directory (issue 17; api-spec ShelfSummary, ShelfPage, list_shelves, browse_shelf):
 * departments (depth 1), aisles (2) and curated sub-shelves (3), each with a slug, a label, the
 * aliases shoppers type, a parent and the unit the per-unit sort compares on. Every kind of the
 * taxonomy (src/domain/kinds.ts) sits on exactly one leaf shelf, so **a listing's or product's
 * shelf is its generic's kind's shelf** ({@link shelfOfKind}).
 *
 * The data are one reviewed file, `shelves.json` next to this module (why JSON: it is data only,
 * reviewed and edited without touching code, in the same form as `basket-items.json`, and readable
 * by any tool that later seeds a `shelf` table; its rows already have the ShelfSummary shape).
 * This module types it and validates it once, at import: a broken file throws {@link ShelfError}
 * listing every problem, so nothing runs on a bad directory. Pure apart from that import; no I/O.
 *
 * Invariants (checked at import; test/unit/shelves.test.ts pins them):
 * - slugs are unique kebab-case; a department has no parent, any other shelf's parent exists and
 *   its depth is the parent's depth + 1 (depth 1 to 3);
 * - a leaf (a shelf with no sub-shelves) is at depth 2 or 3, names its kinds (at least one) and its
 *   compare unit; a department or aisle with sub-shelves names neither (its unit is derived: the
 *   sub-shelves' when they all agree, else null); so no shelf is empty;
 * - every kind slug of the taxonomy is placed exactly once, and nothing else is placed;
 * - labels and aliases, after {@link normaliseShelfWord} (case, accents, punctuation, "&" as "and",
 *   singular and plural), are unique across the whole directory, so a word names one shelf.
 */
import { z } from 'zod';
import { KINDS, kindText } from './kinds.js';
import { ExpectedError } from '../errors.js';
import { SHELF_COMPARE_UNITS, type ShelfCompareUnit } from './unit-price.js';
import raw from './shelves.json' with { type: 'json' };

/** Depth of a shelf: 1 department, 2 aisle, 3 curated sub-shelf (api-spec ShelfSummary `depth`). */
export type ShelfDepth = 1 | 2 | 3;

/** One shelf of the directory, validated. Slugs are stable: they are URLs (`/api/v1/shelves/{slug}`). */
export interface Shelf {
  /** Stable kebab-case slug, unique across the directory. */
  slug: string;
  /** Display label, sentence case ("Capsicums & chillies"). */
  label: string;
  depth: ShelfDepth;
  /** Parent shelf slug; null at a department. */
  parent: string | null;
  /**
   * Unit the per-unit sort compares on (src/domain/unit-price.ts): a leaf's own; a department's or
   * aisle's is its sub-shelves' when they all agree, else null.
   */
  compareUnit: ShelfCompareUnit | null;
  /** Other words for the shelf, as written in the file (matched normalised; see {@link resolveShelfWord}). */
  aliases: readonly string[];
  /** Kind slugs placed on this shelf (a leaf only; [] for a department or aisle with sub-shelves). */
  kinds: readonly string[];
  /** Sub-shelf slugs in file order ([] for a leaf). */
  children: readonly string[];
}

/** The shelf directory failed validation; `problems` names every one. */
export class ShelfError extends ExpectedError {
  constructor(readonly problems: readonly string[]) {
    super(`shelf directory is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n- ${problems.join('\n- ')}`);
    this.name = 'ShelfError';
  }
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const shelfSchema = z.strictObject({
  slug: z.string().regex(SLUG),
  label: z.string().trim().min(1),
  depth: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  parent: z.string().nullable(),
  compare_unit: z.enum(SHELF_COMPARE_UNITS).optional(),
  aliases: z.array(z.string().trim().min(1)),
  kinds: z.array(z.string().min(1)).min(1).optional(),
});

const fileSchema = z.strictObject({
  about: z.array(z.string()),
  shelves: z.array(shelfSchema).min(1),
});

/**
 * Words whose plural is not the singular plus -s or -es. A Map, not an object: the words looked up
 * are a shopper's (list_shelves `q`), and an object would answer "constructor" or "__proto__" from
 * Object.prototype (issue 29).
 */
const IRREGULAR: ReadonlyMap<string, string> = new Map([['leaves', 'leaf'], ['loaves', 'loaf'], ['halves', 'half'], ['knives', 'knife'], ['children', 'child']]);

/** One word's matching key: singular ("berries" → "berry"), with a final -ie/-i read as -y so "cookie"/"cookies" and "chilli"/"chillies" meet. */
function wordKey(w: string): string {
  let s = IRREGULAR.get(w) ?? w;
  if (s === w && s.length > 3) {
    if (s.endsWith('ies')) s = `${s.slice(0, -3)}y`;
    else if (/(ch|sh|x|ss|zz)es$/.test(s) || /[^aeiou]oes$/.test(s)) s = s.slice(0, -2);
    else if (s.endsWith('s') && !/(ss|us)$/.test(s)) s = s.slice(0, -1);
  }
  return s.replace(/ie$|i$/, 'y').replace(/che$/, 'ch');
}

/**
 * The matching key of a shelf word (a label, an alias or a list_shelves `q`): lower case, accents
 * and punctuation removed, "&" read as "and" (kinds.ts `kindText`), then every word singular with
 * a final -ie/-i read as -y. "Capsicums" and "capsicum", "Lollies" and "lolly", "Jalapeños" and
 * "jalapeno", "Fruit & Veg" and "fruit and veg" each share a key. Returns "" for a text with no
 * letters or digits.
 */
export function normaliseShelfWord(text: string): string {
  return kindText(text)
    .split(' ')
    .filter(Boolean)
    .map(wordKey)
    .join(' ');
}

/** A validated directory: shelves in file order, and the lookups built from them. */
export interface ShelfDirectory {
  /** Every shelf, in file order (departments in display order, each followed by its subtree). */
  shelves: readonly Shelf[];
  bySlug: ReadonlyMap<string, Shelf>;
  /** Kind slug → the leaf shelf it sits on. */
  byKind: ReadonlyMap<string, Shelf>;
  /** Normalised label or alias ({@link normaliseShelfWord}) → its shelf. */
  byWord: ReadonlyMap<string, Shelf>;
}

/**
 * Validates a parsed `shelves.json` against the invariants of the module comment and the given
 * kind slugs, and builds the directory. Pure (the module calls it once at import with the
 * taxonomy's kinds; tests call it with broken copies).
 * @throws ShelfError listing every problem found.
 */
export function validateShelves(data: unknown, kindSlugs: readonly string[]): ShelfDirectory {
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) throw new ShelfError(parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`));
  const rows = parsed.data.shelves;
  const problems: string[] = [];

  const rowBySlug = new Map<string, (typeof rows)[number]>();
  for (const r of rows) {
    if (rowBySlug.has(r.slug)) problems.push(`${r.slug}: slug used twice`);
    else rowBySlug.set(r.slug, r);
  }
  const childrenOf = new Map<string, string[]>(rows.map((r) => [r.slug, []]));
  for (const r of rows) {
    if (r.depth === 1) {
      if (r.parent !== null) problems.push(`${r.slug}: a department (depth 1) has no parent, not ${r.parent}`);
      continue;
    }
    if (r.parent === null) {
      problems.push(`${r.slug}: depth ${r.depth} needs a parent`);
      continue;
    }
    const p = rowBySlug.get(r.parent);
    if (!p) problems.push(`${r.slug}: parent ${r.parent} does not exist`);
    else {
      if (r.depth !== p.depth + 1) problems.push(`${r.slug}: depth ${r.depth} must be its parent ${p.slug}'s depth ${p.depth} + 1`);
      childrenOf.get(p.slug)!.push(r.slug);
    }
  }

  const known = new Set(kindSlugs);
  const placed = new Map<string, string>();
  for (const r of rows) {
    const leaf = childrenOf.get(r.slug)!.length === 0;
    if (leaf) {
      if (r.depth === 1) problems.push(`${r.slug}: a department needs aisles`);
      if (!r.kinds) problems.push(`${r.slug}: a shelf without sub-shelves must hold kinds`);
      if (!r.compare_unit) problems.push(`${r.slug}: a shelf without sub-shelves needs a compare_unit`);
    } else {
      if (r.kinds) problems.push(`${r.slug}: kinds go on the most specific shelf, not on one with sub-shelves (${childrenOf.get(r.slug)!.join(', ')})`);
      if (r.compare_unit) problems.push(`${r.slug}: compare_unit is derived for a shelf with sub-shelves; remove it`);
    }
    for (const k of r.kinds ?? []) {
      if (!known.has(k)) problems.push(`${r.slug}: unknown kind ${k}`);
      else if (placed.has(k)) problems.push(`${r.slug}: kind ${k} is already on ${placed.get(k)}`);
      else placed.set(k, r.slug);
    }
  }
  const missing = kindSlugs.filter((k) => !placed.has(k));
  if (missing.length) problems.push(`kinds on no shelf: ${missing.join(', ')}`);

  const wordOwner = new Map<string, string>();
  for (const r of rows) {
    for (const w of [r.label, ...r.aliases]) {
      const key = normaliseShelfWord(w);
      if (!key) {
        problems.push(`${r.slug}: "${w}" has no letters or digits`);
        continue;
      }
      const owner = wordOwner.get(key);
      if (owner === undefined) wordOwner.set(key, r.slug);
      else if (owner === r.slug) problems.push(`${r.slug}: "${w}" repeats another of its words ("${key}" after normalisation)`);
      else problems.push(`${r.slug}: "${w}" already names ${owner} ("${key}" after normalisation)`);
    }
  }
  if (problems.length) throw new ShelfError(problems);

  // Compare units: a leaf's own; above, the sub-shelves' when they agree (deepest first).
  const unit = new Map<string, ShelfCompareUnit | null>();
  for (const r of [...rows].sort((a, b) => b.depth - a.depth)) {
    const kids = childrenOf.get(r.slug)!;
    if (!kids.length) unit.set(r.slug, r.compare_unit!);
    else {
      const units = new Set(kids.map((c) => unit.get(c) ?? null));
      unit.set(r.slug, units.size === 1 ? [...units][0] : null);
    }
  }

  const shelves: Shelf[] = rows.map((r) =>
    Object.freeze({
      slug: r.slug,
      label: r.label,
      depth: r.depth,
      parent: r.parent,
      compareUnit: unit.get(r.slug)!,
      aliases: Object.freeze([...r.aliases]),
      kinds: Object.freeze([...(r.kinds ?? [])]),
      children: Object.freeze([...childrenOf.get(r.slug)!]),
    }),
  );
  const bySlug = new Map(shelves.map((s) => [s.slug, s]));
  const byKind = new Map([...placed].map(([k, s]) => [k, bySlug.get(s)!]));
  const byWord = new Map([...wordOwner].map(([w, s]) => [w, bySlug.get(s)!]));
  return { shelves: Object.freeze(shelves), bySlug, byKind, byWord };
}

/** The directory of `shelves.json`, validated at import against the taxonomy's kinds. */
export const DIRECTORY: ShelfDirectory = validateShelves(raw, KINDS.map((k) => k.slug));

/** Every shelf, in file order: each department followed by its aisles and their sub-shelves. */
export const SHELVES: readonly Shelf[] = DIRECTORY.shelves;

/** The shelf with this slug, or null when there is none (browse_shelf: 404). */
export function getShelf(slug: string): Shelf | null {
  return DIRECTORY.bySlug.get(slug) ?? null;
}

/** The departments (depth 1), in display order. */
export function departments(): Shelf[] {
  return SHELVES.filter((s) => s.depth === 1);
}

/**
 * The most specific shelf of a kind (ProductDetail `shelf_slug`, `shelf_label`), always a leaf, or
 * null for a slug that is not a kind of the taxonomy. A listing's or product's shelf is
 * `shelfOfKind(generic.kind.slug)`; without a generic it has none.
 */
export function shelfOfKind(kindSlug: string): Shelf | null {
  return DIRECTORY.byKind.get(kindSlug) ?? null;
}

/** Breadcrumbs of a shelf (ShelfPage `crumbs`): root first, the shelf itself last; [] for an unknown slug. */
export function crumbs(slug: string): Shelf[] {
  const out: Shelf[] = [];
  for (let s = getShelf(slug); s; s = s.parent ? getShelf(s.parent) : null) out.unshift(s);
  return out;
}

/** Direct sub-shelves of a shelf (ShelfPage `children`), in file order; [] for a leaf or an unknown slug. */
export function children(slug: string): Shelf[] {
  return (getShelf(slug)?.children ?? []).map((c) => DIRECTORY.bySlug.get(c)!);
}

/** Every shelf below a shelf (sub-shelves and theirs), depth-first in file order, without the shelf itself; [] for a leaf or an unknown slug. */
export function descendants(slug: string): Shelf[] {
  const out: Shelf[] = [];
  const walk = (s: string) => {
    for (const c of children(s)) {
      out.push(c);
      walk(c.slug);
    }
  };
  walk(slug);
  return out;
}

/**
 * The slugs of a shelf's set (browse_shelf): the shelf itself and every shelf below it; [] for
 * an unknown slug. A product is in the set when its kind's shelf ({@link shelfOfKind}) is one of them.
 */
export function shelfSet(slug: string): string[] {
  return getShelf(slug) ? [slug, ...descendants(slug).map((s) => s.slug)] : [];
}

/** The kind slugs of a shelf's set (its own kinds and its sub-shelves'), in file order; [] for an unknown slug. */
export function kindsUnder(slug: string): string[] {
  return shelfSet(slug).flatMap((s) => DIRECTORY.bySlug.get(s)!.kinds);
}

/**
 * The shelf a shopper's word names (list_shelves `q`): exact match of a label or alias after
 * {@link normaliseShelfWord}, so case, accents, punctuation, "&"/"and" and singular/plural do not
 * matter ("Capsicum", "peppers" → Capsicums & chillies; "zucchini", "Courgettes" → Pumpkin &
 * courgettes). No partial or fuzzy match: null when nothing matches or `q` has no letters or digits.
 */
export function resolveShelfWord(q: string): Shelf | null {
  const key = normaliseShelfWord(q);
  return key ? (DIRECTORY.byWord.get(key) ?? null) : null;
}
