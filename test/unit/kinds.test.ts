/**
 * The kind taxonomy (src/domain/kinds.ts): names from the real catalogue (../shared/data store
 * samples and the Woolworths NZ online catalogue, neon-ninja--woolies/products.columns.tsv) and
 * what they must, and must not, be classified as.
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
    expect(c('Pams Peanut Butter Crunchy', '380g')).toBe('Peanut butter, crunchy, 380 g');
    expect(c('oakwood pet care hair remover glove', null, ['Pet'])).toBeNull();
    expect(c('fresh flowers roses', null, ['Fruit & Veg'])).toBeNull();
    expect(c('Woolworths item 19984', null)).toBeNull();
    expect(c('Plant Based Beef Mince', '340g')).toBe('Plant-based mince, 340 g');
  });

  // Real Woolworths NZ catalogue rows, built as the importer builds them.
  const w = (name: string, size: string, dept: string, unit = 'Each') =>
    classify({ name, brand: null, sizeText: unit === 'Kg' ? 'per kg' : size || null, categoryPath: [dept], weighable: unit === 'Kg' })?.label ?? null;

  it('classifies Food Price Index staples of the Woolworths catalogue', () => {
    expect(w('anchor milk standard blue', '2L', 'Fridge & Deli')).toBe('Milk, standard, 2 L');
    expect(w('anchor milk lite 98.5% fat free', '1L', 'Fridge & Deli')).toBe('Milk, lite, 1 L');
    expect(w('woolworths milk trim', '2L', 'Fridge & Deli')).toBe('Milk, trim, 2 L');
    expect(w('tip top super soft toast bread white', '700g', 'Bakery')).toBe('Bread, white, 700 g');
    expect(w('westgold butter unsalted', '400g', 'Fridge & Deli')).toBe('Butter, unsalted, 400 g');
    expect(w('mainland cheese tasty', '500g', 'Fridge & Deli')).toBe('Cheese, tasty, 500 g');
    expect(w('mainland cheese slices tasty', '360g', 'Fridge & Deli')).toBe('Cheese slices, tasty, 360 g');
    expect(w('woodland eggs free range size 7', '6pack', 'Fridge & Deli')).toBe('Eggs, free range, 6 pack');
    expect(w('chobani greek yoghurt strawberry', '160g', 'Fridge & Deli')).toBe('Yoghurt, greek, 160 g');
    expect(w('fresh fruit bananas yellow loose', '', 'Fruit & Veg', 'Kg')).toBe('Bananas, loose, per kg');
    expect(w('fresh fruit apples royal gala', '', 'Fruit & Veg', 'Kg')).toBe('Apples, royal gala, per kg');
    expect(w('fresh fruit kiwifruit gold', '', 'Fruit & Veg', 'Kg')).toBe('Kiwifruit, gold, per kg');
    expect(w('fresh vegetable potatoes white washed', '4kg', 'Fruit & Veg')).toBe('Potatoes, washed, 4 kg');
    expect(w('fresh vegetable lettuce traditional iceberg', '', 'Fruit & Veg')).toBe('Lettuce, iceberg');
    expect(w('fresh vegetable broccoli head', '', 'Fruit & Veg')).toBe('Broccoli, head');
    expect(w('woolworths nz chicken breast skinless boneless', 'min order 1kg', 'Meat & Poultry', 'Kg')).toBe('Chicken, breast, per kg');
    expect(w('woolworths nz lamb shoulder chops grass fed', '', 'Meat & Poultry', 'Kg')).toBe('Lamb cuts, chops, per kg');
    expect(w('woolworths nz beef scotch fillet steak rib eye', '', 'Meat & Poultry', 'Kg')).toBe('Beef steak, scotch fillet, per kg');
    expect(w('woolworths fresh nz fish fillets hoki 1-2 pce tray', '', 'Fish & Seafood', 'Kg')).toBe('Fish fillets, fresh, per kg');
    expect(w('sunrice jasmine rice', '1kg', 'Pantry')).toBe('Rice, jasmine, 1 kg');
    expect(w('woolworths pasta spirals', '500g', 'Pantry')).toBe('Pasta, dried, spirals, 500 g');
    expect(w('edmonds high grade flour', '1.5kg', 'Pantry')).toBe('Flour, high grade, 1.5 kg');
    expect(w('chelsea white sugar', '3kg', 'Pantry')).toBe('Sugar, white, 3 kg');
    expect(w('sanitarium weet-bix cereal', '375g', 'Pantry')).toBe('Breakfast cereal, wheat biscuits, 375 g');
    expect(w('griffins malt biscuits', '250g', 'Pantry')).toBe('Biscuits and cookies, plain, 250 g');
    expect(w('whittakers chocolate block raspberry & nz strawberry', '100g', 'Pantry')).toBe('Chocolate, block, 100 g');
    expect(w('nescafé original instant coffee', '180g', 'Drinks')).toBe('Coffee, instant, 180 g');
    expect(w('dilmah tea english breakfast', '100pack', 'Drinks')).toBe('Tea, black, 100 pack');
    expect(w('coca cola soft drink zero sugar', '8pack', 'Drinks')).toBe('Soft drinks, no sugar, 8 pack');
    expect(w('mccoy fruit juice orange', '1L', 'Drinks')).toBe('Juice, orange, 1 L');
    expect(w('woolworths water still spring', '1.5L', 'Drinks')).toBe('Water, still, 1.5 L');
    expect(w('peroni beer lager nastro azzurro', '330mL', 'Beer & Wine')).toBe('Beer, lager, 330 ml');
    expect(w('nikau point pinot noir', '750mL', 'Beer & Wine')).toBe('Wine, red, 750 ml');
    expect(w('tip top ice cream french vanilla', '2L', 'Frozen')).toBe('Ice cream, tub, 2 L');
    expect(w("wattie's frozen garden peas", '1kg', 'Frozen')).toBe('Frozen vegetables, peas, 1 kg');
    expect(w('john west chunk style tuna in spring water', '95g', 'Pantry')).toBe('Canned tuna, in springwater, 95 g');
    expect(w('watties baked beans', '420g', 'Pantry')).toBe('Baked beans, 420 g');
    expect(w('watties tomato sauce', '565g', 'Pantry')).toBe('Tomato sauce, 565 g');
    expect(w('olivani olive oil pure', '1L', 'Pantry')).toBe('Cooking oil, olive, 1 L');
    expect(w('vegemite yeast spread', '380g', 'Pantry')).toBe('Yeast spread, 380 g');
  });

  it('classifies everyday staples on non-food shelves, and only those there', () => {
    expect(w('essentials toilet paper 40pk 2ply', '40pack', 'Household')).toBe('Toilet paper, 40 pack');
    expect(w('sunlight dishwash liquid lemon', '1L', 'Household')).toBe('Dishwashing liquid, 1 L');
    expect(w('fab laundry powder fresh blossoms', '2kg', 'Household')).toBe('Laundry detergent, powder, 2 kg');
    expect(w('whiskas dry cat food chicken & rabbit', '3kg', 'Pet')).toBe('Cat food, dry, 3 kg');
    expect(w('millie moon nappies infant boys & girls 4-8kg size 2', '48pack', 'Baby & Child')).toBe('Nappies, infant, 48 pack');
    // Food words on non-food shelves claim nothing.
    expect(w('vicks vapodrops lozenges butter menthol', '42pack', 'Health & Body')).toBeNull();
    expect(w('air wick essential oils air freshener refill sweet vanilla & shea butter', '57mL', 'Household')).toBeNull();
    expect(w('purina one true instinct dry dog food salmon & tuna', '3.36kg', 'Pet')).toBe('Dog food, dry, 3.36 kg');
    expect(w('nood wet dog food favourites selection in gravy', '12x100g', 'Pet')).toBe('Dog food, wet, 12 × 100 g');
  });

  it('keeps flavour words and processed forms from misfiring on the big catalogue', () => {
    // Found by npm run validate:index matching listings to the FPI basket through their kinds.
    expect(w('tip top ice cream polar pie', '1L', 'Frozen')?.startsWith('Pies')).not.toBe(true);
    expect(w("whittaker's chocolate block gum drop", '250g', 'Pantry')?.startsWith('Chewing gum')).not.toBe(true);
    expect(w('meadow fresh vegetable mushrooms white sliced - pizza', '200g', 'Fruit & Veg')?.startsWith('Pizza')).not.toBe(true);
    expect(w('woolworths cookies chunky chocolate chips', '24pack', 'Bakery')).toBe('Biscuits and cookies, chocolate, 24 pack');
    expect(w('cadbury baking milk chocolate chips', '200g', 'Pantry')).toBe('Baking chocolate and chips, chips, 200 g');
    expect(w('serious puffs pea snacks sea salt', '5pack', 'Pantry')).toBe('Corn and puffed snacks, 5 pack');
    expect(w('mccain pub style crispy wedges signature seasoning', '750g', 'Frozen')).toBe('Frozen chips and wedges, wedges, 750 g');
    expect(w('dairyworks butter garlic & seasalt', '100g', 'Fridge & Deli')).toBe('Butter, flavoured, 100 g');
    expect(w('fix & fogg almond butter crunchy', '500g', 'Pantry')).toBe('Nut butters, 500 g');
    expect(w('woolworths garlic bread', '200g', 'Bakery')).toBe('Garlic and savoury breads, 200 g');
    expect(w('watties burger sauce classic', '295mL', 'Pantry')).toBe('Cooking sauces, table, 295 ml');
    expect(w('maggi recipe base mediterranean meatballs', '38g', 'Pantry')).toBe('Recipe bases and seasoning mixes, 38 g');
    expect(w("barker's recipe base curried sausages sauce", '500g', 'Pantry')).toBe('Recipe bases and seasoning mixes, 500 g');
    expect(w('woolworths tuna & crackers thousand island flavoured', '112g', 'Pantry')).toBeNull();
    expect(w('lee kum kee ready sauce chow mein', '120g', 'Pantry')).toBe('Cooking sauces, other, 120 g');
    expect(w('continental pasta & sauce carbonara', '145g', 'Pantry')).toBe('Pasta and rice sides, savoury, 145 g');
    expect(w('woolworths sausages lamb, manuka honey & rosemary', '6pack', 'Meat & Poultry')).toBe('Sausages, lamb, 6 pack');
    expect(w('pringles chips meatlovers pizza', '134g', 'Pantry')).toBe('Potato chips, 134 g');
    expect(w('healtheries kidscare potato snack stix salt vinegar 160g', '8pack', 'Pantry')).toBeNull();
    expect(w('cassels craft beer milk stout ale', '440mL', 'Beer & Wine')).toBe('Beer, craft, 440 ml');
    expect(w('chateul soorok soju peach', '360mL', 'Beer & Wine')).toBe('Premixed drinks, 360 ml');
    expect(w('raw c coconut water white chocolate and pistachio', '1L', 'Drinks')).toBe('Coconut water, 1 L');
    expect(w('mother earth protein bars apple crumble', '190g', 'Pantry')).toBe('Muesli and snack bars, protein, 190 g');
    expect(w('woolworths fresh pasta chilled tortellini pumpkin & feta', '300g', 'Fridge & Deli')).toBe('Fresh pasta and gnocchi, filled, 300 g');
    expect(w("culley's seasoning eggs sprinkle", '35g', 'Pantry')).toBeNull();
    expect(w('rabbit ranch pinot noir', '750mL', 'Beer & Wine')).toBe('Wine, red, 750 ml');
    expect(w('robert mondavi private selection cabernet sauvignon bourbon barrel aged', '750mL', 'Beer & Wine')).toBe('Wine, red, 750 ml');
    expect(w('instore deli fresh salad beetroot & feta', '', 'Fridge & Deli', 'Kg')).toBe('Prepared salads and slaws, per kg');
    expect(w('birds eye steam fresh mixed vegetables carrot, broccoli and corn', '5 x 150g packs', 'Frozen')).toBe('Frozen vegetables, mixed, 5 × 150 g');
  });

  it('accepts fresh fruit that Woolworths shelves in Fridge & Deli, and no fruit-flavoured drink', () => {
    expect(w('fresh fruit mandarins afourer loose', '', 'Fridge & Deli', 'Kg')).toBe('Mandarins, per kg');
    expect(w('fresh fruit kiwifruit green', '680g', 'Fridge & Deli')).toBe('Kiwifruit, green, 680 g');
    expect(w('fresh n fruity greek yoghurt berries', '125g', 'Fridge & Deli')).toBe('Yoghurt, greek, 125 g');
    expect(w('chateul soorok soju mandarin orange', '360mL', 'Beer & Wine')).toBe('Premixed drinks, 360 ml');
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
