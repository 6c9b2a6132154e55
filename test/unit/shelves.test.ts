/**
 * The shelf directory (src/domain/shelves.ts, shelves.json): its invariants, the derived compare
 * units, the tree walks and the resolution of shoppers' words (api-spec list_shelves `q`).
 */
import { describe, expect, it } from 'vitest';
import { classify, KINDS } from '../../src/domain/kinds.js';
import raw from '../../src/domain/shelves.json' with { type: 'json' };
import {
  children,
  crumbs,
  departments,
  descendants,
  DIRECTORY,
  getShelf,
  kindsUnder,
  normaliseShelfWord,
  resolveShelfWord,
  ShelfError,
  SHELVES,
  shelfOfKind,
  shelfSet,
  validateShelves,
} from '../../src/domain/shelves.js';
import { SHELF_COMPARE_UNITS } from '../../src/domain/unit-price.js';

const KIND_SLUGS = KINDS.map((k) => k.slug);
/** A deep copy of the real file to break. */
const copy = () => structuredClone(raw) as { about: string[]; shelves: Record<string, unknown>[] };
const problemsOf = (data: unknown, kinds = KIND_SLUGS): string[] => {
  try {
    validateShelves(data, kinds);
  } catch (e) {
    if (e instanceof ShelfError) return [...e.problems];
    throw e;
  }
  return [];
};

describe('the directory', () => {
  it('holds the departments of an NZ supermarket, in its order', () => {
    expect(departments().map((d) => d.label)).toEqual([
      'Fruit & Veg', 'Meat & Poultry', 'Fish & Seafood', 'Fridge & Deli', 'Bakery', 'Frozen', 'Pantry', 'Drinks', 'Beer & Wine', 'Household',
      'Baby & Child', 'Pet',
    ]);
  });

  it('has unique slugs, existing parents and depth = parent depth + 1', () => {
    const slugs = SHELVES.map((s) => s.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const s of SHELVES) {
      expect(s.slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      if (s.depth === 1) expect(s.parent).toBeNull();
      else expect(getShelf(s.parent!)?.depth).toBe(s.depth - 1);
    }
  });

  it('places every kind of the taxonomy on exactly one leaf, and nothing else', () => {
    const placed = SHELVES.flatMap((s) => s.kinds);
    expect([...placed].sort()).toEqual([...KIND_SLUGS].sort());
    for (const k of KIND_SLUGS) {
      const s = shelfOfKind(k)!;
      expect(s.children).toEqual([]);
      expect(s.kinds).toContain(k);
      expect(s.depth).toBeGreaterThanOrEqual(2);
    }
  });

  it('has no empty shelf: leaves hold kinds and a compare unit, others have sub-shelves', () => {
    for (const s of SHELVES) {
      if (s.children.length) expect(s.kinds).toEqual([]);
      else {
        expect(s.kinds.length).toBeGreaterThan(0);
        expect(SHELF_COMPARE_UNITS).toContain(s.compareUnit);
      }
    }
  });

  it('derives a parent compare unit from its sub-shelves when they agree, else null', () => {
    expect(getShelf('beer-wine')!.compareUnit).toBe('l'); // beer, cider, wine, premixes: all per litre
    expect(getShelf('meat-poultry')!.compareUnit).toBe('kg');
    expect(getShelf('milk')!.compareUnit).toBe('l');
    expect(getShelf('pantry')!.compareUnit).toBeNull();
    expect(getShelf('fruit')!.compareUnit).toBe('kg');
    expect(getShelf('vegetables')!.compareUnit).toBeNull(); // per kg, but lettuce and broccoli per item
  });

  it('keeps aliases unique across shelves after normalisation', () => {
    const seen = new Map<string, string>();
    for (const s of SHELVES) {
      for (const w of [s.label, ...s.aliases]) {
        const key = normaliseShelfWord(w);
        expect(seen.get(key) ?? s.slug, `"${w}" of ${s.slug}`).toBe(s.slug);
        seen.set(key, s.slug);
      }
    }
    expect(DIRECTORY.byWord.size).toBe(seen.size);
  });
});

describe('validateShelves refuses a broken file, naming each problem', () => {
  it('accepts the real file', () => {
    expect(problemsOf(raw)).toEqual([]);
  });

  it('a repeated slug, a missing parent, a wrong depth', () => {
    const d = copy();
    d.shelves.push({ ...d.shelves[0] });
    d.shelves[1].parent = 'nowhere';
    d.shelves[2].depth = 2;
    const p = problemsOf(d).join('\n');
    expect(p).toContain('fruit-veg: slug used twice');
    expect(p).toContain('fruit: parent nowhere does not exist');
    expect(p).toMatch(/apples-pears: depth 2 must be its parent fruit's depth 2 \+ 1/);
  });

  it('a kind placed twice, an unknown kind, a kind on no shelf', () => {
    const d = copy();
    const bananas = d.shelves.find((s) => s.slug === 'bananas')!;
    bananas.kinds = ['bananas', 'apples', 'durian'];
    const p = problemsOf(d, [...KIND_SLUGS, 'feijoa-jam']).join('\n');
    expect(p).toContain('kind apples is already on apples-pears');
    expect(p).toContain('bananas: unknown kind durian');
    expect(p).toContain('kinds on no shelf: feijoa-jam');
  });

  it('kinds or a compare unit on a shelf with sub-shelves; a leaf without them', () => {
    const d = copy();
    d.shelves.find((s) => s.slug === 'fruit')!.kinds = ['bananas'];
    d.shelves.find((s) => s.slug === 'vegetables')!.compare_unit = 'kg';
    const grapes = d.shelves.find((s) => s.slug === 'grapes')!;
    delete grapes.compare_unit;
    const p = problemsOf(d).join('\n');
    expect(p).toContain('fruit: kinds go on the most specific shelf');
    expect(p).toContain('vegetables: compare_unit is derived');
    expect(p).toContain('grapes: a shelf without sub-shelves needs a compare_unit');
  });

  it('an alias that names another shelf once normalised', () => {
    const d = copy();
    d.shelves.find((s) => s.slug === 'lollies')!.aliases = ['Capsicum'];
    expect(problemsOf(d)).toEqual(['lollies: "Capsicum" already names capsicums-chillies ("capsicum" after normalisation)']);
  });

  it('an unknown compare unit or field', () => {
    const d = copy();
    d.shelves[2].compare_unit = 'lb';
    d.shelves[3].colour = 'green';
    expect(problemsOf(d).length).toBeGreaterThanOrEqual(2);
  });
});

describe('walking the tree', () => {
  it('crumbs: root first, the shelf last', () => {
    expect(crumbs('beef-mince').map((s) => s.slug)).toEqual(['meat-poultry', 'mince-patties', 'beef-mince']);
    expect(crumbs('pantry').map((s) => s.slug)).toEqual(['pantry']);
    expect(crumbs('nowhere')).toEqual([]);
  });

  it('children and descendants, in file order', () => {
    expect(children('mince-patties').map((s) => s.slug)).toEqual(['beef-mince', 'other-mince', 'burger-patties']);
    expect(children('beef-mince')).toEqual([]);
    const meat = descendants('meat-poultry').map((s) => s.slug);
    expect(meat).toContain('beef-mince');
    expect(meat).not.toContain('meat-poultry');
    expect(shelfSet('mince-patties')).toEqual(['mince-patties', 'beef-mince', 'other-mince', 'burger-patties']);
    expect(shelfSet('nowhere')).toEqual([]);
  });

  it("a shelf's set includes its sub-shelves' kinds", () => {
    expect(kindsUnder('mince-patties')).toEqual(['beef-mince', 'mixed-mince', 'other-mince', 'burger-patties', 'meatballs']);
    expect(kindsUnder('beef-mince')).toEqual(['beef-mince', 'mixed-mince']);
    const all = departments().flatMap((d) => kindsUnder(d.slug));
    expect(all.length).toBe(KINDS.length);
  });

  it("a listing's shelf follows from its kind", () => {
    const c = classify({ name: 'Woolworths Beef Mince Prime 500g', brand: 'woolworths', sizeText: '500g', categoryPath: ['Meat & Poultry'] })!;
    expect(shelfOfKind(c.kind.slug)?.slug).toBe('beef-mince');
    const peppers = classify({ name: 'fresh vegetable capsicum red', brand: null, sizeText: null, categoryPath: ['Fruit & Veg'] })!;
    expect(shelfOfKind(peppers.kind.slug)?.label).toBe('Capsicums & chillies');
    expect(shelfOfKind('not-a-kind')).toBeNull();
  });
});

describe('resolveShelfWord (list_shelves q)', () => {
  it.each([
    ['capsicum', 'capsicums-chillies'],
    ['Capsicums', 'capsicums-chillies'],
    ['peppers', 'capsicums-chillies'],
    ['pepper', 'capsicums-chillies'],
    ['Bell Pepper', 'capsicums-chillies'],
    ['chillies', 'capsicums-chillies'],
    ['chilli', 'capsicums-chillies'],
    ['courgette', 'pumpkin-courgettes'],
    ['Courgettes', 'pumpkin-courgettes'],
    ['zucchini', 'pumpkin-courgettes'],
    ['zucchinis', 'pumpkin-courgettes'],
    ['mince', 'beef-mince'],
    ['ground beef', 'beef-mince'],
    ['lollies', 'lollies'],
    ['lolly', 'lollies'],
    ['sweets', 'lollies'],
    ['biscuit', 'biscuits'],
    ['cookies', 'biscuits'],
    ['cookie', 'biscuits'],
    ['tomato', 'tomatoes'],
    ['potato', 'potatoes-kumara'],
    ['kūmara', 'potatoes-kumara'],
    ['JALAPEÑOS', 'capsicums-chillies'],
    ['fruit and veg', 'fruit-veg'],
    ['Fruit & Veg', 'fruit-veg'],
    ['  fruit   &   veg  ', 'fruit-veg'],
    ['pie', 'pies-savouries'],
    ['pies', 'pies-savouries'],
    ['loaf', 'bread'],
    ['loaves', 'bread'],
    ['nappy', 'nappies'],
    ['fizzy drinks', 'soft-drinks'],
    ['toilet paper', 'toilet-paper'],
    ['kitty litter', 'cat-litter'],
  ])('%s → %s', (q, slug) => {
    expect(resolveShelfWord(q)?.slug).toBe(slug);
  });

  it('matches whole words only: no partial or fuzzy match', () => {
    expect(resolveShelfWord('capsi')).toBeNull();
    expect(resolveShelfWord('red capsicum')).toBeNull();
    expect(resolveShelfWord('chilly bin')).toBeNull();
    expect(resolveShelfWord('')).toBeNull();
    expect(resolveShelfWord('  !! ')).toBeNull();
  });

  it('normalises singular and plural to one key', () => {
    expect(normaliseShelfWord('Berries & Cherries')).toBe(normaliseShelfWord('berry and cherry'));
    expect(normaliseShelfWord('peaches')).toBe('peach');
    expect(normaliseShelfWord('radishes')).toBe('radish');
    expect(normaliseShelfWord('quiches')).toBe(normaliseShelfWord('quiche'));
    expect(normaliseShelfWord('hummus')).toBe('hummus');
    expect(normaliseShelfWord('asparagus')).toBe('asparagus');
    expect(normaliseShelfWord('glass')).toBe('glass');
    expect(normaliseShelfWord('leaves')).toBe('leaf');
    expect(normaliseShelfWord('olives')).toBe('olive');
  });
});
