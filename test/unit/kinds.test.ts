/**
 * The kind taxonomy (src/domain/kinds.ts): names from the real catalogue (../shared/data store
 * samples) and what they must, and must not, be classified as.
 */
import { describe, expect, it } from 'vitest';
import { attributesOf, classify, kindText, KINDS, sizeLabel } from '../../src/domain/kinds.js';

const c = (name: string, sizeText: string | null, categoryPath: string[] = [], weighable = false) =>
  classify({ name, brand: null, sizeText, categoryPath, weighable })?.label ?? null;

describe('kinds', () => {
  it('normalises text: accents, apostrophes and punctuation', () => {
    expect(kindText("Wattie's Chopped Tomatoes in Purée")).toBe('watties chopped tomatoes in puree');
    expect(kindText('NZ Beef Mince Grass Fed 18% Fat')).toBe('nz beef mince grass fed 18 fat');
  });

  it('gives kind, variant and size, the same generic across chains', () => {
    expect(c('Beef Mince', '1kg', ['Meat, Poultry & Seafood', 'Beef'])).toBe('Beef mince, standard, 1 kg');
    expect(c('woolworths nz beef mince grass fed 5% fat', '500g', ['Meat & Poultry'])).toBe('Beef mince, extra lean, 500 g');
    expect(c('woolworths nz beef mince prime grass fed 13% fat', '750g')).toBe('Beef mince, prime, 750 g');
    expect(c('Chopped Tomatoes in Juice', '400g', ['Pantry'])).toBe(c('watties chopped tomatoes in purée', '400g', ['Pantry']));
    expect(c('Classic Beef Burgers', '4 x 100g')).toBe('Burger patties, beef, 4 × 100 g');
    expect(c('Spaghetti Pasta', '500g')).toBe('Spaghetti, standard, 500 g');
    expect(c('la molisana pasta wholewheat spaghetti', '500g')).toBe('Spaghetti, wholemeal, 500 g');
  });

  it('puts processed forms before the produce their names mention', () => {
    expect(c('Garlic Salt Blend', '70g', ['Pantry'])).toBe('Seasoning salt, garlic, 70 g');
    expect(c('Onion Soup Mix Sachet', '32g')).toBe('Soup mix, 32 g');
    expect(c('Carrot Cake', '1.4kg', ['Bakery'])).toBe('Cakes, carrot, 1.4 kg');
    expect(c('Crushed Garlic', '185g', ['Pantry'])).toBe('Crushed garlic, 185 g');
    expect(c('Sour Cream & Onion Potato Chips', '53g')).toBe('Potato chips, 53 g');
    expect(c('Spaghetti In Tomato Sauce', '420g')).toBe('Canned spaghetti, 420 g');
    expect(c('Honest Beef & Lamb Burgers With A Hint Of Manuka Smoked Salt', '500g')).toBe('Burger patties, beef, 500 g');
  });

  it('keeps fresh produce off pantry and frozen shelves, unless the name says fresh', () => {
    expect(c('Brown Onions', '1.5kg', ['Fruit & Vegetables', 'Vegetables'])).toBe('Onions, brown, 1.5 kg');
    expect(c('sun harvest onions sliced', '500g', ['Pantry'])).toBeNull();
    expect(c('fresh fruit oranges navel', null, ['Fridge & Deli'])).toBe('Oranges');
    expect(c('Carrots', 'kg', [], true)).toBe('Carrots, standard, per kg');
    expect(c('Cherry Tomatoes', '400g', ['Pantry', 'Canned Foods & Packets'])).toBe('Canned tomatoes, cherry, 400 g');
    expect(c('fresh tomatoes loose', 'per kg', ['Fruit & Veg'])).toBe('Tomatoes, loose, per kg');
  });

  it('leaves what no rule claims without a generic', () => {
    expect(c('Pams Peanut Butter Crunchy', '380g')).toBeNull();
    expect(c('Woolworths item 19984', null)).toBeNull();
    expect(c('Plant Based Beef Mince', '340g')).toBe('Plant-based mince, 340 g');
  });

  it('has unique slugs and a compare unit per kind', () => {
    expect(new Set(KINDS.map((k) => k.slug)).size).toBe(KINDS.length);
    for (const k of KINDS) expect(['kg', 'l', 'each']).toContain(k.compareUnit);
  });

  it('labels sizes in kg, L, packs and per kg', () => {
    expect(sizeLabel({ qty: 1500, unit: 'g', packCount: 1, perKg: false })).toBe('1.5 kg');
    expect(sizeLabel({ qty: 2000, unit: 'ml', packCount: 1, perKg: false })).toBe('2 L');
    expect(sizeLabel({ qty: 330, unit: 'ml', packCount: 6, perKg: false })).toBe('6 × 330 ml');
    expect(sizeLabel({ qty: 1, unit: 'each', packCount: 12, perKg: false })).toBe('12 pack');
    expect(sizeLabel({ qty: 1000, unit: 'g', packCount: 1, perKg: true })).toBe('per kg');
  });

  it('reads attributes from name and size', () => {
    expect(attributesOf({ name: 'woolworths nz beef mince grass fed 5% fat', sizeText: '1kg' })).toEqual([
      { key: 'fat', label: 'Fat', value: '5 %' },
      { key: 'grass_fed', label: 'Grass fed', value: 'yes' },
      { key: 'origin', label: 'Origin stated', value: 'New Zealand' },
      { key: 'size', label: 'Size', value: '1 kg' },
    ]);
    expect(attributesOf({ name: 'NZ Beef Mince', sizeText: null })).toEqual([{ key: 'origin', label: 'Origin stated', value: 'New Zealand' }]);
    expect(attributesOf({ name: 'Organic Gluten Free Quinoa Spaghetti', sizeText: '250g' }).map((a) => a.key)).toEqual(['gluten_free', 'organic', 'size']);
  });
});
