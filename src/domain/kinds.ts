/**
 * The curated kind taxonomy: what an item *is* ("beef mince", "canned tomatoes", "milk"), its
 * variant ("5 % fat", "chopped", "trim") and its size make its **generic** ("Beef mince, lean,
 * 500 g"), the unit of comparison for alternatives (api-spec ProductDetail `generic_*`,
 * `compare_unit`, Alternative). Pure; no I/O.
 *
 * Rules are tried in order and the first whose pattern matches (and no exclusion does) wins, so
 * processed forms ("garlic salt", "onion soup mix", "carrot cake") come before the fresh produce
 * their names mention. Patterns run on {@link kindText}: lower case, accents and punctuation removed.
 * Fresh-produce kinds also refuse listings shelved in a pantry, frozen, bakery or chilled aisle.
 *
 * The list was written by reading the real catalogue (../shared/data: the seven ingredient searches
 * of the store-level samples) and the staples of the Stats NZ Food Price Index basket; it is small
 * on purpose: an item no rule claims has no generic (null), never a wrong one.
 */
import { parseSize, type ParsedSize } from './sizes.js';

/** Unit a kind is compared in (ProductDetail `compare_unit`). */
export type CompareUnit = 'kg' | 'l' | 'each';

/** A variant of a kind: the first whose pattern matches names it; `standard` otherwise. */
export interface KindVariant {
  label: string;
  pattern: RegExp;
}

/** One kind of the taxonomy. */
export interface Kind {
  /** Stable slug (ProductDetail `generic_kind`). */
  slug: string;
  /** Display label (`generic_kind_label`), sentence case. */
  label: string;
  compareUnit: CompareUnit;
  /** Matches the listing's {@link kindText}. */
  pattern: RegExp;
  /** Any match refuses the kind. */
  exclude?: RegExp;
  /** Fresh produce: refused for pantry, frozen, bakery and chilled shelves. */
  fresh?: boolean;
  /** Variants in order; none means the kind has no variants. */
  variants?: KindVariant[];
  /** Label when no variant pattern matches (default `standard`). */
  defaultVariant?: string;
}

const PROCESSED = /\b(pie|cake|soup|sauce|dip|hummus|chips?|crisps|snacks?|rings|relish|pickled|powder|granules|salt|seasoning|gravy|stuffing|mix|ready meal|bread|rolls|naan|juice|puree|paste|jam|flavoured|frozen|dried|canned|tuna|balls|smooth|months)\b/;
const NOT_FRESH_SHELF = /^(pantry|frozen|bakery|fridge|chilled|canned|snacks?|drinks|beverages|baby)/;

/** Names that say they are fresh produce whatever shelf the retailer put them on. */
const FRESH_NAME = /\bfresh (fruit|vegetable)\b/;

const v = (label: string, pattern: RegExp): KindVariant => ({ label, pattern });

/** The taxonomy, in matching order (see the module comment). */
export const KINDS: readonly Kind[] = [
  // Snacks, mixes, sauces and other processed forms first.
  { slug: 'potato-chips', label: 'Potato chips', compareUnit: 'kg', pattern: /\b(potato chips|chips|crisps)\b/, exclude: /\bhot chips\b/ },
  { slug: 'onion-rings', label: 'Onion rings', compareUnit: 'kg', pattern: /\bonion rings\b/,
    variants: [v('frozen', /\b(frozen|pub style|pickers)\b/), v('snack', /./)] },
  { slug: 'corn-snacks', label: 'Cereal snacks', compareUnit: 'kg', pattern: /\bcereal snacks\b/ },
  { slug: 'gravy-mix', label: 'Gravy mix', compareUnit: 'kg', pattern: /\bgravy\b/ },
  { slug: 'soup-mix', label: 'Soup mix', compareUnit: 'kg', pattern: /\bsoup mix\b/ },
  { slug: 'soup', label: 'Soup', compareUnit: 'kg', pattern: /\bsoup\b/ },
  { slug: 'stuffing-mix', label: 'Stuffing mix', compareUnit: 'kg', pattern: /\bstuffing\b/ },
  { slug: 'dip', label: 'Dips and hummus', compareUnit: 'kg', pattern: /\b(dip|hummus)\b/ },
  { slug: 'pasta-sauce', label: 'Pasta sauce', compareUnit: 'kg', pattern: /\b(pasta sauce|spaghetti sauce|ready sauce|carbonara)\b/ },
  { slug: 'relish', label: 'Relish', compareUnit: 'kg', pattern: /\brelish\b/ },
  { slug: 'seasoning-salt', label: 'Seasoning salt', compareUnit: 'kg', pattern: /\b(salt|seasoning)\b/, exclude: /\b(no added salt|burgers?|sausages?|meatballs|patties)\b/,
    variants: [v('garlic and herb', /\bgarlic\b.*\bherb|\bherb\b.*\bgarlic\b/), v('garlic', /\bgarlic\b/), v('onion', /\bonion\b/), v('all purpose', /./)] },
  { slug: 'garlic-powder', label: 'Garlic powder', compareUnit: 'kg', pattern: /\bgarlic (powder|granules)\b/,
    variants: [v('granules', /\bgranules\b/), v('powder', /./)] },
  { slug: 'onion-powder', label: 'Onion powder', compareUnit: 'kg', pattern: /\bonion powder\b/ },
  { slug: 'dried-herbs', label: 'Dried herbs', compareUnit: 'kg',
    pattern: /\b(mixed herbs|herbs mixed|herb blend|italian herbs|flaked leaves|parsley flakes|parsley rubbed|lightly dried)\b/,
    variants: [v('mixed', /\b(mixed|blend|italian herbs)\b/), v('basil', /\bbasil\b/), v('oregano', /\boregano\b/), v('parsley', /\bparsley\b/),
      v('coriander', /\bcoriander\b/), v('rosemary', /\brosemary\b/), v('thyme', /\bthyme\b/), v('chilli', /\bchilli\b/)], defaultVariant: 'other' },
  { slug: 'garlic-ginger-paste', label: 'Crushed garlic and ginger', compareUnit: 'kg', pattern: /\bgarlic\b.*\bginger\b|\bginger\b.*\bgarlic\b/,
    exclude: /\b(ready meal|soup)\b/ },
  { slug: 'crushed-garlic', label: 'Crushed garlic', compareUnit: 'kg', pattern: /\bgarlic\b.*\b(crushed|minced|paste)\b|\b(crushed|minced)\b.*\bgarlic\b/,
    exclude: /\bsauce\b/ },
  { slug: 'crushed-ginger', label: 'Crushed ginger', compareUnit: 'kg', pattern: /\bginger\b.*\bcrushed\b|\bcrushed\b.*\bginger\b/ },
  { slug: 'pickled-onions', label: 'Pickled onions', compareUnit: 'kg', pattern: /\b(pickled onions?|onions? pickled)\b/,
    variants: [v('cocktail', /\bcocktail\b/)] },
  { slug: 'pickled-vegetables', label: 'Pickled vegetables', compareUnit: 'kg', pattern: /\bpickled\b/ },
  { slug: 'pie', label: 'Pies', compareUnit: 'each', pattern: /\bpie\b/ },
  { slug: 'cake', label: 'Cakes', compareUnit: 'kg', pattern: /\bcake\b/, variants: [v('carrot', /\bcarrot\b/)], defaultVariant: 'other' },
  { slug: 'garlic-bread', label: 'Garlic and savoury breads', compareUnit: 'each', pattern: /\b(naan|garlic bread|buffet rolls)\b/ },
  { slug: 'butter', label: 'Butter', compareUnit: 'kg', pattern: /\bbutter\b/, exclude: /\b(peanut|nut|chicken|beans?|cookies?|biscuits?|popcorn)\b/,
    variants: [v('flavoured', /\b(garlic|parsley|herb|flavoured)\b/), v('unsalted', /\bunsalted\b/), v('spreadable', /\bspreadable\b/), v('salted', /./)] },
  // Canned and packaged meals.
  { slug: 'canned-spaghetti', label: 'Canned spaghetti', compareUnit: 'kg', pattern: /\bspaghetti in tomato sauce\b/ },
  { slug: 'baked-beans', label: 'Baked beans', compareUnit: 'kg', pattern: /\bbaked beans\b/ },
  { slug: 'canned-tuna', label: 'Canned tuna', compareUnit: 'kg', pattern: /\btuna\b/,
    variants: [v('flavoured', /\b(tomato|onion|basil|chilli|lemon|pepper|savoury)\b/), v('in oil', /\boil\b/), v('in springwater', /\b(springwater|brine|water)\b/)] },
  { slug: 'canned-fish', label: 'Canned sardines', compareUnit: 'kg', pattern: /\bsardines\b/ },
  // Meat.
  { slug: 'plant-based-mince', label: 'Plant-based mince', compareUnit: 'kg', pattern: /\bplant based\b.*\bmince\b/ },
  { slug: 'burger-patties', label: 'Burger patties', compareUnit: 'kg', pattern: /\b(burgers?|patties|quarter pounder|sliders)\b/,
    variants: [v('beef', /\bbeef\b/)], defaultVariant: 'other' },
  { slug: 'meatballs', label: 'Meatballs', compareUnit: 'kg', pattern: /\bmeatballs\b/, variants: [v('beef', /\bbeef\b/)], defaultVariant: 'other' },
  { slug: 'sausages', label: 'Sausages', compareUnit: 'kg', pattern: /\bsausages?\b/,
    variants: [v('beef', /\bbeef\b/), v('pork', /\bpork\b/), v('chicken', /\bchicken\b/)], defaultVariant: 'other' },
  { slug: 'mixed-mince', label: 'Pork and beef mince', compareUnit: 'kg', pattern: /\bpork\b.*\bbeef\b.*\bmince\b|\bbeef\b.*\bpork\b.*\bmince\b/ },
  { slug: 'beef-mince', label: 'Beef mince', compareUnit: 'kg', pattern: /\bbeef\b.*\bmince\b|\bmince\b.*\bbeef\b|\bminced beef\b/,
    exclude: /\b(pork|lamb|chicken)\b/,
    variants: [v('wagyu', /\bwagyu\b/), v('extra lean', /\b[1-5] fat\b/), v('lean', /\b([6-9]|10) fat\b/), v('prime', /\b(prime|1[1-5] fat)\b/),
      v('premium', /\bpremium\b/)] },
  { slug: 'beef-diced', label: 'Beef, diced or stir-fry', compareUnit: 'kg', pattern: /\b(diced beef|stir fry beef|beef stir fry|beef diced)\b/ },
  { slug: 'beef-brisket', label: 'Beef brisket', compareUnit: 'kg', pattern: /\bbrisket\b/ },
  // Pasta.
  { slug: 'spaghetti', label: 'Spaghetti', compareUnit: 'kg', pattern: /\bspaghetti\b/,
    variants: [v('gluten free', /\b(gluten free|quinoa|pulse)\b/), v('wholemeal', /\b(wholemeal|wholewheat)\b/), v('egg', /\begg\b/),
      v('high protein', /\bprotein\b/)] },
  { slug: 'pasta', label: 'Pasta, dried', compareUnit: 'kg', pattern: /\b(pasta|penne|fettuccine|spirals|elbow|trivelle|macaroni|fusilli)\b/,
    variants: [v('penne', /\bpenne\b/), v('spirals', /\b(spirals|fusilli|trivelle)\b/), v('fettuccine', /\bfettuccine\b/), v('elbows', /\b(elbow|macaroni)\b/)],
    defaultVariant: 'other' },
  // Canned tomatoes before fresh.
  { slug: 'canned-tomatoes', label: 'Canned tomatoes', compareUnit: 'kg',
    pattern: /\btomato(es)?\b.*\b(chopped|diced|crushed|peeled|sieved|polpa|juice|puree|italian|flavoured|style|savoury|basil|cherry|whole)\b|\b(chopped|diced|crushed|peeled|italian|mexican|indian|savoury|flavoured|cherry|roast garlic onion)\b.*\btomato(es)?\b/,
    exclude: /\b(loose|per kg|truss|sauce|tuna|soy|pasta)\b/,
    variants: [v('flavoured', /\b(basil|oregano|garlic|onion|mexican|indian|italian style|savoury|flavoured)\b/), v('cherry', /\bcherry\b/),
      v('crushed', /\b(crushed|sieved|polpa|passata)\b/), v('whole peeled', /\b(whole|peeled)\b/), v('chopped', /\b(chopped|diced)\b/)] },
  // Frozen vegetables before fresh.
  { slug: 'frozen-vegetables', label: 'Frozen vegetables', compareUnit: 'kg',
    pattern: /\b(frozen|steam fresh|peas corn|mixed vegetables|seasoned sides)\b/,
    variants: [v('mixed', /\b(mixed|peas|corn|broccoli|cauliflower|beans|vege mix|sides)\b/), v('carrots', /\bcarrots?\b/)] },
  // Fresh produce.
  { slug: 'spring-onions', label: 'Spring onions', compareUnit: 'each', pattern: /\bspring onions?\b/, fresh: true },
  { slug: 'onions', label: 'Onions', compareUnit: 'kg', pattern: /\bonions?\b/, fresh: true, exclude: PROCESSED,
    variants: [v('red', /\bred\b/), v('pickling', /\bpickling\b/), v('baby', /\bbaby\b/), v('brown', /./)] },
  { slug: 'shallots', label: 'Shallots', compareUnit: 'kg', pattern: /\bshallots?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'leeks', label: 'Leeks', compareUnit: 'each', pattern: /\bleeks?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'garlic', label: 'Garlic', compareUnit: 'kg', pattern: /\bgarlic\b/, fresh: true, exclude: /\b(shoots|herb)\b|\bpie\b|\bsauce\b|\bbread\b|\bsalt\b/,
    variants: [v('peeled', /\bpeeled\b/), v('bulbs', /./)] },
  { slug: 'ginger', label: 'Ginger', compareUnit: 'kg', pattern: /\bginger\b/, fresh: true, exclude: PROCESSED },
  { slug: 'carrots', label: 'Carrots', compareUnit: 'kg', pattern: /\bcarrots?\b/, fresh: true,
    exclude: /\b(cake|soup|hummus|dip|honey|balls|ready meal|apple|pickled|cheese|sauce|snack balls|beetroot)\b/,
    variants: [v('baby', /\b(baby|petite|snacking|bites?|carrots? bunch|bunch carrots?)\b/), v('prepared', /\b(shredded|batons|grated)\b/)] },
  { slug: 'beetroot', label: 'Beetroot', compareUnit: 'kg', pattern: /\bbeetroot\b/, fresh: true, exclude: PROCESSED,
    variants: [v('prepared', /\b(shredded|grated)\b/)] },
  { slug: 'parsnips', label: 'Parsnips', compareUnit: 'kg', pattern: /\bparsnips?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'swedes', label: 'Swedes', compareUnit: 'kg', pattern: /\bswedes?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'yams', label: 'Yams', compareUnit: 'kg', pattern: /\byams?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'taro', label: 'Taro', compareUnit: 'kg', pattern: /\btaro\b/, fresh: true, exclude: PROCESSED },
  { slug: 'radishes', label: 'Radishes', compareUnit: 'each', pattern: /\bradish(es)?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'potatoes', label: 'Potatoes', compareUnit: 'kg', pattern: /\bpotato(es)?\b/, fresh: true,
    exclude: /\b(sweet potato|chips|crisps|wedges|mash|salad|soup|gems|hash)\b/, variants: [v('baby', /\b(baby|perlas|gourmet)\b/), v('washed', /./)] },
  { slug: 'tomatoes', label: 'Tomatoes', compareUnit: 'kg', pattern: /\btomato(es)?\b/, fresh: true, exclude: PROCESSED,
    variants: [v('cherry', /\bcherry\b/), v('truss', /\btruss\b/), v('loose', /./)] },
  { slug: 'celery', label: 'Celery', compareUnit: 'each', pattern: /\bcelery\b/, fresh: true, exclude: PROCESSED,
    variants: [v('half', /\bhalf\b/), v('whole', /./)] },
  { slug: 'courgettes', label: 'Courgettes', compareUnit: 'kg', pattern: /\bcourgettes?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'cucumbers', label: 'Cucumbers', compareUnit: 'each', pattern: /\bcucumbers?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'broccoli', label: 'Broccoli', compareUnit: 'each', pattern: /\bbroccoli\b/, fresh: true, exclude: PROCESSED },
  { slug: 'lettuce', label: 'Lettuce', compareUnit: 'each', pattern: /\blettuces?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'spinach', label: 'Spinach', compareUnit: 'kg', pattern: /\bspinach\b/, fresh: true, exclude: PROCESSED,
    variants: [v('baby leaf', /\bbaby\b/)] },
  { slug: 'salad-mix', label: 'Salad mix', compareUnit: 'kg', pattern: /\b(mixed salad|salad mix)\b/, fresh: true, exclude: PROCESSED },
  { slug: 'avocados', label: 'Avocados', compareUnit: 'each', pattern: /\bavocados?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'apples', label: 'Apples', compareUnit: 'kg', pattern: /\bapples?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'bananas', label: 'Bananas', compareUnit: 'kg', pattern: /\bbananas?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'mandarins', label: 'Mandarins', compareUnit: 'kg', pattern: /\bmandarins?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'oranges', label: 'Oranges', compareUnit: 'kg', pattern: /\boranges?\b/, fresh: true, exclude: PROCESSED },
  // Staples of the Food Price Index basket.
  { slug: 'milk', label: 'Milk', compareUnit: 'l', pattern: /\bmilk\b/,
    exclude: /\b(chocolate|choc|coconut|almond|oat|soy|rice|powder|condensed|evaporated|biscuits?|bar|shake|formula|flavoured|caramel|strawberry|banana)\b/,
    variants: [v('trim', /\b(trim|skim|fat free)\b/), v('lite', /\b(lite|light|reduced fat)\b/), v('lactose free', /\blactose free\b/), v('standard', /./)] },
  { slug: 'eggs', label: 'Eggs', compareUnit: 'each', pattern: /\beggs\b/, exclude: /\b(chocolate|easter|noodles|pasta)\b/,
    variants: [v('free range', /\bfree range\b/), v('barn', /\bbarn\b/), v('cage', /\bcage\b/)] },
  { slug: 'cheese', label: 'Cheese', compareUnit: 'kg', pattern: /\b(cheddar|colby|edam|mozzarella|tasty|mild|vintage)\b.*\bcheese\b|\bcheese\b.*\b(block|cheddar|colby|edam|tasty)\b/,
    exclude: /\b(pie|sauce|crackers?|biscuits?|snacks?|scone|bread|dip|rolls)\b/,
    variants: [v('tasty', /\btasty\b/), v('colby', /\bcolby\b/), v('edam', /\bedam\b/), v('mozzarella', /\bmozzarella\b/), v('mild', /\bmild\b/),
      v('vintage', /\bvintage\b/)], defaultVariant: 'cheddar' },
];

/** Lower case, accents and punctuation removed, single spaces ("Wattie's Chopped Tomatoes in Purée" → "watties chopped tomatoes in puree"). */
export function kindText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9%]+/g, ' ')
    .replace(/%/g, '')
    .trim();
}

/** What the classifier reads of a listing. */
export interface KindInput {
  name: string;
  brand: string | null;
  sizeText: string | null;
  /** The retailer's breadcrumb, root first. */
  categoryPath: readonly string[];
  /** Sold loose by weight (price per kilogram). */
  weighable?: boolean;
}

/** A listing's generic: its kind, variant and size. */
export interface Classification {
  kind: Kind;
  /** Variant label, or null for a kind without variants. */
  variant: string | null;
  /** Parsed size, or null when unknown. */
  size: ParsedSize | null;
  /** Size as the generic labels it ({@link sizeLabel}), or null when unknown. */
  sizeLabel: string | null;
  /** Stable key of the generic: `<kind>|<variant>|<size key>`. */
  key: string;
  /** Generic label, e.g. "Beef mince, lean, 500 g". */
  label: string;
}

/** The kind rule that claims `input`, or null. */
export function findKind(input: KindInput): Kind | null {
  const text = kindText(input.name);
  const shelf = kindText(input.categoryPath[0] ?? '');
  for (const k of KINDS) {
    if (!k.pattern.test(text)) continue;
    if (k.exclude?.test(text)) continue;
    if (k.fresh && NOT_FRESH_SHELF.test(shelf) && !FRESH_NAME.test(text)) continue;
    return k;
  }
  return null;
}

/**
 * Size text of a generic: "500 g", "1.5 kg", "2 L", "4 × 100 g", "per kg", "each", "7 pack".
 * Grams from 1000 become kilograms and millilitres from 1000 litres.
 */
export function sizeLabel(size: ParsedSize): string {
  if (size.perKg) return 'per kg';
  const one = (q: number, unit: ParsedSize['unit']): string => {
    const n = (x: number) => String(Math.round(x * 1000) / 1000);
    if (unit === 'g') return q >= 1000 ? `${n(q / 1000)} kg` : `${n(q)} g`;
    if (unit === 'ml') return q >= 1000 ? `${n(q / 1000)} L` : `${n(q)} ml`;
    if (unit === 'm') return `${n(q)} m`;
    return q === 1 ? 'each' : `${n(q)} pack`;
  };
  if (size.unit === 'each') return one(size.qty * size.packCount, 'each');
  return size.packCount > 1 ? `${size.packCount} × ${one(size.qty, size.unit)}` : one(size.qty, size.unit);
}

/**
 * The generic of a listing (its kind, variant and size), or null when no kind rule claims it.
 * The size comes from `sizeText` (src/domain/sizes.ts); a weighable listing is "per kg".
 */
export function classify(input: KindInput): Classification | null {
  const kind = findKind(input);
  if (!kind) return null;
  const text = kindText(input.name);
  const variant = kind.variants ? (kind.variants.find((x) => x.pattern.test(text))?.label ?? kind.defaultVariant ?? 'standard') : null;
  let size = parseSize(input.sizeText);
  if (input.weighable && (!size || !size.perKg)) size = { qty: 1000, unit: 'g', packCount: 1, perKg: true };
  const sizeText = size ? sizeLabel(size) : null;
  const label = [kind.label, variant, sizeText].filter((x): x is string => x !== null).join(', ');
  return { kind, variant, size, sizeLabel: sizeText, key: `${kind.slug}|${variant ?? ''}|${sizeText ?? ''}`, label };
}

/** An attribute of a product (api-spec Attribute). */
export interface Attribute {
  key: string;
  label: string;
  value: string;
}

const FLAGS: readonly { key: string; label: string; pattern: RegExp; value: string }[] = [
  { key: 'organic', label: 'Organic', pattern: /\borganic\b/, value: 'yes' },
  { key: 'gluten_free', label: 'Gluten free', pattern: /\bgluten free\b/, value: 'yes' },
  { key: 'free_range', label: 'Free range', pattern: /\bfree range\b/, value: 'yes' },
  { key: 'grass_fed', label: 'Grass fed', pattern: /\bgrass fed\b/, value: 'yes' },
  { key: 'halal', label: 'Halal', pattern: /\bhalal\b/, value: 'yes' },
  { key: 'no_added_salt', label: 'No added salt', pattern: /\bno added salt\b/, value: 'yes' },
  { key: 'origin', label: 'Origin stated', pattern: /^(nz|new zealand)\b|\bnz (beef|lamb|pork|chicken|garlic|celery)\b/, value: 'New Zealand' },
];

/**
 * Attributes read from an item's name and size (api-spec Attribute): `size` (e.g. "500 g"), `fat`
 * (a stated fat percentage, "5 %"), and yes-flags for organic, gluten free, free range, grass fed,
 * halal, no added salt, plus `origin` "New Zealand" when the name says "NZ". Sorted by key.
 */
export function attributesOf(input: Pick<KindInput, 'name' | 'sizeText'>): Attribute[] {
  const text = kindText(input.name);
  const out: Attribute[] = [];
  for (const f of FLAGS) if (f.pattern.test(text)) out.push({ key: f.key, label: f.label, value: f.value });
  const fat = /(\d{1,2}(?:\.\d)?)\s*% fat/i.exec(input.name);
  if (fat) out.push({ key: 'fat', label: 'Fat', value: `${fat[1]} %` });
  const size = parseSize(input.sizeText);
  if (size) out.push({ key: 'size', label: 'Size', value: sizeLabel(size) });
  return out.sort((a, b) => a.key.localeCompare(b.key));
}
