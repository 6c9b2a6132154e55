/**
 * A SYNTHETIC catalogue: generated listings, not real products. Names combine words taken from the
 * real catalogue's names (brands, descriptors, product words, the chains' category paths and pack
 * sizes) so the search's word lists, stems and trigrams meet a realistic vocabulary at scale. Every
 * external id starts with `SYN-` and every GTIN with `2` (the GS1 restricted-circulation range,
 * never a real trade item). Deterministic: the same count gives the same catalogue.
 *
 * One source for the search bench's catalogue (test/bench/synthetic-catalogue.ts) and the national
 * SYNTHETIC panel (`npm run synth`, ./panel.ts).
 */
import { prng } from './prng.js';

/** Chains the synthetic listings are spread over (all six retailers of the schema). */
export const SYNTHETIC_RETAILERS = ['woolworths', 'paknsave', 'newworld', 'freshchoice', 'supervalue', 'warehouse'] as const;

/** One synthetic listing as ingested. */
export interface SyntheticListing {
  retailer: (typeof SYNTHETIC_RETAILERS)[number];
  /** `SYN-<n>`. */
  externalId: string;
  name: string;
  brand: string | null;
  sizeText: string;
  /** 13 digits starting with 2 (restricted circulation), on about one listing in ten; else null. */
  gtin: string | null;
  categoryPath: string[];
  /** Shelf price, cents. */
  price: number;
}

/** Product words with the (real) category path they sit under. */
const PRODUCTS: readonly [string, string[]][] = [
  ['carrots', ['Fruit & Vegetables', 'Vegetables']],
  ['brown onions', ['Fruit & Vegetables', 'Vegetables']],
  ['red onions', ['Fruit & Vegetables', 'Vegetables']],
  ['spring onions', ['Fruit & Vegetables', 'Vegetables']],
  ['courgette', ['Fruit & Vegetables', 'Vegetables']],
  ['broccoli', ['Fruit & Vegetables', 'Vegetables']],
  ['potatoes', ['Fruit & Vegetables', 'Vegetables']],
  ['beetroot', ['Vegetables', 'Carrots & Root Vegetables']],
  ['parsnips', ['Vegetables', 'Carrots & Root Vegetables']],
  ['garlic', ['Fruit & Vegetables', 'Fresh Salad & Herbs']],
  ['baby spinach', ['Fruit & Vegetables', 'Fresh Salad & Herbs']],
  ['mandarins', ['Fruit & Vegetables', 'Fruit']],
  ['bananas', ['Fruit & Vegetables', 'Fruit']],
  ['apples royal gala', ['Fruit & Vegetables', 'Fruit']],
  ['crushed garlic', ['Pantry', 'Spices, Seasoning & Coatings']],
  ['garlic powder', ['Pantry', 'Spices, Seasoning & Coatings']],
  ['garlic salt', ['Pantry', 'Spices, Seasoning & Coatings']],
  ['onion powder', ['Pantry', 'Spices, Seasoning & Coatings']],
  ['mixed herbs', ['Pantry', 'Spices, Seasoning & Coatings']],
  ['oregano flaked leaves', ['Pantry', 'Spices, Seasoning & Coatings']],
  ['parsley flakes', ['Pantry', 'Spices, Seasoning & Coatings']],
  ['chopped tomatoes', ['Pantry', 'Canned Foods & Packets']],
  ['diced tomatoes', ['Pantry', 'Canned Foods & Packets']],
  ['whole peeled tomatoes', ['Pantry', 'Canned Foods & Packets']],
  ['crushed & sieved tomatoes', ['Pantry', 'Canned Foods & Packets']],
  ['baked beans in tomato sauce', ['Canned Foods & Packets', 'Baked Beans & Spaghetti']],
  ['spaghetti in tomato sauce', ['Canned Foods & Packets', 'Baked Beans & Spaghetti']],
  ['tuna', ['Canned Foods & Packets', 'Canned Tuna']],
  ['spaghetti', ['Pantry', 'Pasta, Rice & Noodles']],
  ['egg spaghetti', ['Pantry', 'Pasta, Rice & Noodles']],
  ['penne', ['Pantry', 'Pasta, Rice & Noodles']],
  ['fettuccine', ['Pantry', 'Pasta, Rice & Noodles']],
  ['large spirals', ['Pantry', 'Pasta, Rice & Noodles']],
  ['pasta sauce', ['Pantry', 'Cooking Sauces, Stocks & Marinades']],
  ['gravy mix', ['Pantry', 'Cooking Sauces, Stocks & Marinades']],
  ['onion soup mix', ['Pantry', 'Canned Foods & Packets']],
  ['potato chips', ['Pantry', 'Chips, Nuts & Snacks']],
  ['onion rings', ['Frozen', 'Frozen Dumplings, Pies & Snacks']],
  ['mixed vegetables', ['Frozen', 'Frozen Vegetables']],
  ['beef mince', ['Meat, Poultry & Seafood', 'Beef']],
  ['beef burgers', ['Beef', 'Beef Patties & Meatballs']],
  ['beef meatballs', ['Beef', 'Beef Patties & Meatballs']],
  ['diced beef', ['Meat, Poultry & Seafood', 'Beef']],
  ['beef sausages', ['Mince, Sausages & Meatballs', 'Pre-Cooked Sausages']],
  ['carrot cake', ['Bakery', 'Cakes, Muffins & Desserts']],
  ['garlic bread', ['Chilled Pasta, Pizza & Garlic Bread', 'Garlic, Naan & Savoury Breads']],
  ['hummus', ['Fridge, Deli & Eggs', 'Dips, Hummus & Antipasti']],
  ['onion dip', ['Fridge, Deli & Eggs', 'Dips, Hummus & Antipasti']],
  ['mince & cheese pie', ['Fridge, Deli & Eggs', 'Chilled Soups & Ready Meals']],
  ['pickled onions', ['Pantry', 'Table Sauces, Dressings & Condiments']],
];

/** Brand words seen in real names; null for the many unbranded (PAK'nSAVE-style) names. */
const BRANDS: readonly (string | null)[] = [
  null, null, null, null, "wattie's", 'watties', 'san remo', 'mccain', 'delmaine', 'masterfoods', 'macro organic',
  'barilla', 'diamond', 'la molisana', 'mutti', "gregg's", 'gourmet garden', 'silver fern farms', 'the odd bunch',
  'essentials', 'woolworths', 'just foods', 'mrs rogers', 'leaderbrand', "griffin's", 'garofalo', 'naturals eco',
];

/** Descriptors seen in real names (before the product word). */
const BEFORE: readonly string[] = [
  '', '', '', 'organic', 'italian', 'nz', 'premium', 'fresh', 'gluten free', 'wholemeal', 'classic', 'family',
  'mini', 'value', 'roast garlic & onion', 'basil & oregano', 'smoky', 'spicy', 'sweet & spicy', 'caramelised onion',
  'grass fed', 'wagyu', 'angus', 'kettle fried', 'sour cream & chive', 'steam fresh', 'purée', 'crispy', 'honest',
];

/** Qualifiers seen in real names (after the product word). */
const AFTER: readonly string[] = [
  '', '', '', '', 'in juice', 'no added salt', 'loose', 'prepacked', 'bunch', 'jar', 'sachet', 'canister',
  'with basil', 'with garlic & herbs', 'mexican style', 'indian style', 'pouch', 'no. 5', 'halal', '5% fat',
];

const SIZES: readonly string[] = ['400g', '500g', '1kg', '250g', '1.5kg', '750g', '200g', '120g', '340g', '6pk', '4 x 100g', 'per kg', '1ea', '30g', '10g'];


/** `count` synthetic listings, the same ones for the same `count` and `seed`. */
export function* syntheticListings(count: number, seed = 20261121): Generator<SyntheticListing> {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  for (let i = 0; i < count; i++) {
    const [product, categoryPath] = pick(PRODUCTS);
    const brand = pick(BRANDS);
    const name = [brand, pick(BEFORE), product, pick(AFTER)].filter((w) => w).join(' ');
    yield {
      retailer: SYNTHETIC_RETAILERS[i % SYNTHETIC_RETAILERS.length],
      externalId: `SYN-${i + 1}`,
      name,
      brand,
      sizeText: pick(SIZES),
      gtin: rnd() < 0.1 ? `2${String(i + 1).padStart(12, '0')}` : null,
      categoryPath,
      price: 99 + Math.floor(rnd() * 2000),
    };
  }
}
