/**
 * Matching listings to Food Price Index basket items (src/domain/basket-match.ts), on real names,
 * sizes and departments copied from the Woolworths NZ catalogue of 2026-07-27
 * (shared/data/neon-ninja--woolies/products.columns.tsv: name, volume_size, departments; "per kg"
 * where the row's unit is Kg, as the importer writes it). Kinds come from the real classifier.
 */
import { describe, expect, it } from 'vitest';
import { loadBasket, type BasketItem } from '../../src/domain/basket.js';
import { admit, candidates, CONFIDENCE_WEIGHTS, findExclusion, findKeyword, matchListing, type MatchInput } from '../../src/domain/basket-match.js';
import { classify } from '../../src/domain/kinds.js';

const items = loadBasket().items;
const byName = (name: string): BasketItem => {
  const it = items.find((i) => i.name === name);
  if (!it) throw new Error(`no item ${name}`);
  return it;
};
const MILK_2L = 'Milk - standard homogenised, 2 litres';

/** A listing as the importer describes a catalogue row, with its kind from classify. */
function listing(name: string, sizeText: string | null, department: string, weighable = false): MatchInput {
  const base = { name, brand: null, sizeText, categoryPath: [department], weighable };
  return { ...base, kind: classify(base)?.kind.slug ?? null };
}
const matched = (l: MatchInput) => matchListing(l, items)?.item.name ?? null;

describe('matching real listings to basket items', () => {
  it('standard milk 2 L → the 2 L standard milk item', () => {
    const m = matchListing(listing('anchor milk standard blue', '2L', 'Fridge & Deli'), items);
    expect(m?.item.name).toBe(MILK_2L);
    expect(m?.keyword).toBe('standard');
    expect(m?.sizeBasis).toBe('pack');
    expect(m?.size).toBe(2);
    expect(matched(listing('woolworths milk standard', '2L', 'Fridge & Deli'))).toBe(MILK_2L);
    expect(matched(listing('meadow fresh milk standard original', '2L', 'Fridge & Deli'))).toBe(MILK_2L);
  });

  it('a 1 L or 3 L milk does not match the 2 L item (nor any other)', () => {
    expect(admit(byName(MILK_2L), listing('anchor milk standard blue', '1L', 'Fridge & Deli'))).toBeNull();
    expect(matched(listing('anchor milk standard blue', '1L', 'Fridge & Deli'))).toBeNull();
    expect(matched(listing('woolworths milk standard', '3L', 'Fridge & Deli'))).toBeNull();
  });

  it('calcium-enriched milk goes to its own item, not the standard one', () => {
    expect(matched(listing('anchor calci+ milk trim', '2L', 'Fridge & Deli'))).toBe('Milk, calcium enriched, 2 litres');
    expect(admit(byName(MILK_2L), listing('anchor calci+ milk trim', '2L', 'Fridge & Deli'))).toBeNull();
  });

  it('refuses flavoured, UHT, lite and A2 milk', () => {
    expect(matched(listing('meadow fresh calci strong flavoured milk chocolate', '2L', 'Fridge & Deli'))).toBeNull();
    expect(matched(listing('primo flavoured milk banana', '1.5L', 'Fridge & Deli'))).toBeNull();
    expect(matched(listing('woolworths milk standard uht', '1L', 'Fridge & Deli'))).toBeNull();
    expect(matched(listing('woolworths milk lite', '2L', 'Fridge & Deli'))).toBeNull();
    expect(matched(listing('fresha valley milk standard a2', '2L', 'Fridge & Deli'))).toBeNull();
  });

  it('eggs: a 12 pack is a dozen; free-range 6 packs go to their item; other counts are refused', () => {
    const m = matchListing(listing('woolworths eggs barn size 7', '12pack', 'Fridge & Deli'), items);
    expect(m?.item.name).toBe('Eggs, dozen');
    expect(m?.size).toBe(12);
    expect(matched(listing('henergy eggs cage free size 6', '12pack', 'Fridge & Deli'))).toBe('Eggs, dozen');
    expect(matched(listing('otaika valley eggs free range size 7', '6pack', 'Pantry'))).toBe('Eggs, free range, 6 pack');
    // free range is excluded from the dozen item, and 12 is outside the 6-pack item's bounds
    expect(matched(listing('otaika valley eggs free range size 7', '12pack', 'Fridge & Deli'))).toBeNull();
    expect(matched(listing('woolworths eggs barn mixed grade', '20pack', 'Fridge & Deli'))).toBeNull();
  });

  it('loose bananas sold per kg match the per-kg bananas item', () => {
    const m = matchListing(listing('fresh fruit bananas yellow loose', 'per kg', 'Fruit & Veg', true), items);
    expect(m?.item.name).toBe('Bananas, 1kg');
    expect(m?.sizeBasis).toBe('weighable');
    expect(m?.scores.size).toBe(1);
    // a bag within the bounds (0.2–5 kg) also counts, priced per kg by the index
    expect(matched(listing('fresh fruit bananas organic fair trade', '850g', 'Fruit & Veg'))).toBe('Bananas, 1kg');
  });

  it('refuses banana bread, banana chips and banana-flavoured products', () => {
    expect(matched(listing('woolworths banana bread loaf', null, 'Bakery'))).toBeNull();
    expect(matched(listing('vitality banana bread gluten free', '610g', 'Bakery'))).toBeNull();
    expect(matched(listing('woolworths banana chips', '250g', 'Pantry'))).toBeNull();
    expect(matched(listing('paddle pop ice blocks banana', '544mL', 'Frozen'))?.includes('Banana')).toBeFalsy();
    // the 6-banana snack pack is a count, not a weight, and bananas are not admitted by the piece
    expect(matched(listing('fresh fruit bananas snack pack', '6pack', 'Fruit & Veg'))).toBeNull();
  });

  it('admit_each produce sold by the piece (no weight) is admitted; a weighable listing of a per-pack item is not', () => {
    const m = matchListing(listing('fresh vegetable broccoli head', null, 'Fruit & Veg'), items);
    expect(m?.item.name).toBe('Broccoli, 1kg');
    expect(m?.sizeBasis).toBe('each');
    expect(matched(listing('fresh vegetable cauliflower whole', null, 'Fruit & Veg'))).toBe('Cauliflower, 1kg');
    // carrots are not admit_each: a count is refused
    expect(admit(byName('Carrots, 1kg'), listing('fresh vegetable carrots', '1ea', 'Fruit & Veg'))).toBeNull();
    expect(admit(byName('Butter - salted, 500g'), listing('woolworths butter salted', 'per kg', 'Fridge & Deli', true))).toBeNull();
  });

  it('pack totals count: 6 × 250 ml is the 1.5 l breakfast-drink pack', () => {
    const m = matchListing(listing('sanitarium up & go liquid breakfast vanilla protein', '6 x 250mL', 'Pantry'), items);
    expect(m?.item.name).toBe('Breakfast drink, 250ml, 6 pack');
    expect(m?.size).toBe(1.5);
    expect(matched(listing('sanitarium up & go liquid breakfast banana', '250mL', 'Pantry'))).toBeNull();
  });

  it('kind agreement: an item naming a kind refuses a listing of another kind or of none', () => {
    const milk = byName(MILK_2L);
    expect(admit(milk, { ...listing('anchor milk standard blue', '2L', 'Fridge & Deli'), kind: null })).toBeNull();
    expect(admit(milk, { ...listing('anchor milk standard blue', '2L', 'Fridge & Deli'), kind: 'cream' })).toBeNull();
  });

  it('never two items: overlapping items resolve to the closer specification', () => {
    const l = listing("whittaker's chocolate block banana caramel", '250g', 'Pantry');
    const all = candidates(l, items).map((c) => c.item.name);
    expect(all).toEqual(['Chocolate - block (supermarket only), 250g', 'Chocolate blocks, convenience stores, 100g to 250g']);
    expect(matchListing(l, items)?.item.name).toBe(all[0]);
    expect(matched(listing('cadbury chocolate block biscoff', '170g', 'Pantry'))).toBe('Chocolate blocks, convenience stores, 100g to 250g');
  });

  it('confidence = 0.4 kind + 0.3 keyword + 0.3 size, in [0, 1]', () => {
    // kind 1, one-word keyword 0.6, exact size 1 → 0.4 + 0.18 + 0.3 = 0.88
    const m = matchListing(listing('anchor milk standard blue', '2L', 'Fridge & Deli'), items)!;
    expect(m.scores).toEqual({ kind: 1, keyword: 0.6, size: 1 });
    expect(m.confidence).toBeCloseTo(0.88, 6);
    // three-word keyword ("liquid breakfast" is 2; "up and go" is 3) with exact size → 1
    expect(matchListing(listing('sanitarium up & go liquid breakfast vanilla protein', '6 x 250mL', 'Pantry'), items)!.confidence).toBe(1);
    // between spec and bound: 1.2 kg weet-bix vs 1 kg spec, bound 2 kg → 1 − 0.5 ln 1.2 / ln 2
    const wb = matchListing(listing('sanitarium weet-bix cereal', '1.2kg', 'Pantry'), items)!;
    expect(wb.item.name).toBe('Breakfast biscuits, 1kg');
    expect(wb.scores.size).toBeCloseTo(1 - (0.5 * Math.log(1.2)) / Math.log(2), 6);
    // an item without a kind scores 0.5 on kind
    const pasta = matchListing(listing('essentials pasta spaghetti', '500g', 'Pantry'), items)!;
    expect(pasta.item.name).toBe('Dried pasta, spaghetti or other type, 500g');
    expect(pasta.scores.kind).toBe(0.5);
    expect(CONFIDENCE_WEIGHTS.kind + CONFIDENCE_WEIGHTS.keyword + CONFIDENCE_WEIGHTS.size).toBeCloseTo(1, 12);
    for (const c of [m, wb, pasta]) {
      expect(c.confidence).toBeGreaterThanOrEqual(0.53);
      expect(c.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('an item without a kind refuses non-food shelves', () => {
    const pasta = byName('Dried pasta, spaghetti or other type, 500g');
    expect(admit(pasta, listing('essentials pasta spaghetti', '500g', 'Pantry'))).not.toBeNull();
    expect(admit(pasta, listing('essentials pasta spaghetti', '500g', 'Pet'))).toBeNull();
  });

  it('restaurant items (not observable) never match', () => {
    for (const it of items.filter((i) => !i.observable)) {
      expect(admit(it, listing('woolworths hot chips', '1kg', 'Frozen'))).toBeNull();
    }
  });
});

describe('phrases', () => {
  it('a keyword matches when all its words are in the name, in any order', () => {
    expect(findKeyword(['woolworths', 'eggs', 'free', 'range'], [['free', 'range', 'eggs']])).toEqual(['free', 'range', 'eggs']);
    expect(findKeyword(['woolworths', 'eggs', 'barn'], [['free', 'range', 'eggs']])).toBeNull();
    // the longest phrase wins
    expect(findKeyword(['milk', 'calci', 'trim'], [['calci'], ['calci', 'trim']])).toEqual(['calci', 'trim']);
  });
  it('an exclusion phrase refuses as consecutive words, word or plural', () => {
    expect(findExclusion(['banana', 'cakes'], [['cake']])).toEqual(['cake']);
    expect(findExclusion(['eggs', 'free', 'range'], [['free', 'range']])).toEqual(['free', 'range']);
    expect(findExclusion(['range', 'free', 'eggs'], [['free', 'range']])).toBeNull();
    expect(findExclusion(['cakes'], [['cakes', 'mix']])).toBeNull();
  });
});
