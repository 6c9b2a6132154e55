/**
 * The curated kind taxonomy: what an item *is* ("beef mince", "canned tomatoes", "milk"), its
 * variant ("5 % fat", "chopped", "trim") and its size make its **generic** ("Beef mince, lean,
 * 500 g"), the unit of comparison for alternatives (api-spec ProductDetail `generic_*`,
 * `compare_unit`, Alternative). Pure; no I/O.
 *
 * Rules are tried in order and the first whose pattern matches (and no exclusion does) wins, so
 * processed forms ("garlic salt", "onion soup mix", "carrot cake") come before the fresh produce
 * their names mention, and kinds named after words that are often flavours (chocolate, biscuits,
 * honey, nuts, fruit) come after the products those flavours are put in (ice cream, yoghurt,
 * bars). Patterns run on {@link kindText}: lower case, accents and punctuation removed, "&" read as
 * "and". Shelves (the top of the category path) guard three ways: fresh-produce kinds refuse
 * pantry, frozen, bakery, chilled, drinks, liquor and meat shelves unless the name says "fresh fruit"
 * or "fresh vegetable" (Woolworths keeps some loose fruit in Fridge & Deli); a kind with `shelf`
 * claims only listings on those shelves (frozen vegetables, canned fruit, wine); and on non-food
 * shelves (household, health and body, pet, baby) only the `otherShelves` staples claim anything.
 *
 * The list was written by reading the real Woolworths NZ online catalogue of 2026-07-27 (17,664
 * products, ../shared/data/neon-ninja--woolies; measured by test/bench/kinds-coverage.ts) and the
 * staples of the Stats NZ Food Price Index basket: 259 kinds, most food and drink plus everyday
 * household, pet and baby staples. Precision comes first: an item no rule claims has no generic
 * (null), never a wrong one.
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
  /** Only for listings whose top shelf ({@link kindText} of `categoryPath[0]`) is known and matches. */
  shelf?: RegExp;
  /** A pet, household or baby staple: the only kinds that claim listings on those non-food shelves. */
  otherShelves?: boolean;
  /** Variants in order; none means the kind has no variants. */
  variants?: KindVariant[];
  /** Label when no variant pattern matches (default `standard`). */
  defaultVariant?: string;
}

const PROCESSED = /\b(pie|cake|soup|sauce|dip|hummus|chips?|crisps|snacks?|rings|relish|pickled|powder|granules|salt|seasoning|gravy|stuffing|mix|ready meal|bread|rolls|naan|juice|puree|paste|jam|flavoured|frozen|dried|canned|tuna|balls|smooth|months)\b/;
const NOT_FRESH_SHELF = /^(pantry|frozen|bakery|fridge|chilled|canned|snacks?|drinks|beverages|baby|beer|wine|liquor|meat|fish|seafood|deli)/;
/** Non-food shelves: only kinds marked `otherShelves` claim their listings (no "butter" for shea-butter lotion). */
const OTHER_SHELF = /^(health|household|pet|baby|back to school|personal care|beauty|toiletries|cleaning|laundry|stationery|home|garden|kitchenware|homeware|clothing|electronics|toys|pharmacy)/;

/** Names that say they are fresh produce whatever shelf the retailer put them on. */
const FRESH_NAME = /\bfresh (fruit|vegetable)\b/;

const v = (label: string, pattern: RegExp): KindVariant => ({ label, pattern });

/** The taxonomy, in matching order (see the module comment). */
export const KINDS: readonly Kind[] = [
  // Pet, household and baby staples: the only kinds that claim listings on non-food shelves.
  { slug: 'cat-food', label: 'Cat food', compareUnit: 'kg', pattern: /\b(cat|kitten) (food|biscuits|treats?|milk)\b|\bcat treats\b/, otherShelves: true,
    variants: [v('treats', /\btreats?\b/), v('dry', /\bdry\b|\bbiscuits\b/), v('wet', /./)] },
  { slug: 'dog-food', label: 'Dog food', compareUnit: 'kg', pattern: /\b(dog|puppy) (food|rolls?|biscuits|treats?|chews?)\b/, otherShelves: true,
    variants: [v('treats', /\b(treats?|chews?)\b/), v('dry', /\bdry\b|\bbiscuits\b/), v('roll', /\brolls?\b/), v('wet', /./)] },
  { slug: 'cat-litter', label: 'Cat litter', compareUnit: 'kg', pattern: /\b(cat|kitty) litter\b/, otherShelves: true },
  { slug: 'toilet-paper', label: 'Toilet paper', compareUnit: 'each', pattern: /\btoilet (paper|tissue|rolls?)\b/, exclude: /\b(cleaner|wipes|brush|block|flush)\b/, otherShelves: true },
  { slug: 'paper-towels', label: 'Paper towels', compareUnit: 'each', pattern: /\b(paper|kitchen) towels?\b/, otherShelves: true },
  { slug: 'facial-tissues', label: 'Facial tissues', compareUnit: 'each', pattern: /\b(facial tissues?|tissues)\b/, exclude: /\btoilet\b/, otherShelves: true },
  { slug: 'dishwashing-liquid', label: 'Dishwashing liquid', compareUnit: 'l', pattern: /\b(dishwash|dishwashing|dish) liquid\b/, otherShelves: true },
  { slug: 'dishwasher-detergent', label: 'Dishwasher detergent', compareUnit: 'each', pattern: /\bdishwasher (tablets|powder|capsules|pods|gel|liquid|detergent)\b/, otherShelves: true,
    variants: [v('powder', /\bpowder\b/), v('liquid', /\b(gel|liquid)\b/), v('tablets', /./)] },
  { slug: 'laundry-detergent', label: 'Laundry detergent', compareUnit: 'kg', pattern: /\b(laundry|washing) (powder|liquid|capsules|pods|detergent|sheets)\b|\bliquid washing detergent\b/,
    exclude: /\b(softener|stain|saniti[sz]er|soaker|booster|machine cleaner)\b/, otherShelves: true,
    variants: [v('powder', /\bpowder\b/), v('capsules', /\b(capsules|pods|sheets)\b/), v('liquid', /./)] },
  { slug: 'fabric-softener', label: 'Fabric softener', compareUnit: 'l', pattern: /\bfabric (softener|conditioner)\b/, otherShelves: true },
  { slug: 'nappies', label: 'Nappies', compareUnit: 'each', pattern: /\bnapp(ies|y pants)\b/, exclude: /\b(rash|balm|cream|bags|liners|wipes)\b/, otherShelves: true,
    variants: [v('pants', /\bpants\b/), v('newborn', /\b(newborn|new born)\b/), v('infant', /\binfant\b/), v('crawler', /\bcrawler\b/), v('toddler', /\btoddler\b/),
      v('walker', /\bwalker\b/), v('junior', /\bjunior\b/)], defaultVariant: 'other' },
  { slug: 'baby-wipes', label: 'Baby wipes', compareUnit: 'each', pattern: /\bbaby\b.*\bwipes\b/, exclude: /\beye\b/, otherShelves: true },
  { slug: 'infant-formula', label: 'Infant formula', compareUnit: 'kg', pattern: /\b(infant|baby|toddler|follow on) (formula|milk drink)\b|\bformula\b.*\bmonths\b|\bstage [1-4]\b.*\bformula\b/, otherShelves: true,
    variants: [v('from birth', /\b(stage 1|from birth|infant formula|gold 1|profutura 1)\b/), v('follow on', /\b(stage 2|6 to 12|follow on)\b/), v('toddler', /./)] },
  { slug: 'baby-food', label: 'Baby food', compareUnit: 'kg', pattern: /\bbaby (food|snacks|cereal|rice)\b|\b(4|6|7|8|9|10|12)\+? months\b.*\b(food|puree|pouch|porridge|custard|cereal)\b|\btoddler snacks\b/,
    exclude: /\bformula\b/, otherShelves: true, variants: [v('snacks', /\bsnacks?\b/)], defaultVariant: 'meals' },
  // Ready meals and savoury bakes, whatever food their names mention.
  { slug: 'pizza-bases', label: 'Pizza bases', compareUnit: 'kg', pattern: /\bpizza bases?\b/ },
  { slug: 'pizza', label: 'Pizza', compareUnit: 'kg', pattern: /\bpizzas?\b/, exclude: /\b(fresh vegetable|mushrooms?|sauce|blend|cheese grated|grated|seasoning|topping|mix|shapes|pizza pieces|pullapart|pinwheel|rolls|kit|chips|crackers|snacks?)\b/ },
  { slug: 'ready-meals', label: 'Ready meals', compareUnit: 'kg',
    pattern: /\b(ready meal|chilled meal|frozen meal|prepared meal|meal kit|heat and eat|pasta meals?|bowl meal|lasagne|lasagna|cannelloni|moussaka|shepherds pie|cottage pie|mac and cheese|macaroni cheese|burrito|burritos|enchiladas?|casserole|biryani|briyani|risotto)\b/,
    exclude: /\b(sheets|mix|sauce|recipe base|rice risotto|soup|kit pastry)\b/ },
  { slug: 'dumplings', label: 'Dumplings and spring rolls', compareUnit: 'kg', pattern: /\b(dumplings?|gyoza|wontons?|siu mai|bao|buns bao|spring rolls?|samosas?|hash browns?)\b/,
    exclude: /\bwrappers?\b|\bpastry\b/, variants: [v('spring rolls', /\bspring rolls?\b/), v('samosas', /\bsamosas?\b/), v('hash browns', /\bhash browns?\b/), v('dumplings', /./)] },
  { slug: 'sushi', label: 'Sushi', compareUnit: 'kg', pattern: /\bsushi\b/, exclude: /\b(rice|ginger|nori|seaweed|seasoning|vinegar|mat|kit)\b/ },
  { slug: 'sausage-rolls', label: 'Sausage rolls and savouries', compareUnit: 'kg', pattern: /\b(sausage rolls?|savouries|pasty|pasties|quiches?|filos?|frittata)\b/,
    exclude: /\b(pastry|biscuits)\b/ },
  { slug: 'pie', label: 'Pies', compareUnit: 'each', pattern: /\bpies?\b/, exclude: /\b(polar pie|ice cream|frozen dessert|mince pies?|fruit pies?|apple|pie filling|pie apple|apricot|berry|pastry|lemon meringue|pecan|cherry|dessert|custard)\b/,
  },
  // Soups, stocks, sauces and condiments.
  { slug: 'soup-mix', label: 'Soup mix', compareUnit: 'kg', pattern: /\bsoup mix\b/ },
  { slug: 'soup', label: 'Soup', compareUnit: 'kg', pattern: /\b(soups?|laksa|broth|ramen bowl)\b/, exclude: /\b(mug|bowl|stock|noodles)\b|\bbone broth\b.*\bdog\b/,
    variants: [v('instant', /\b(instant|cup a soup|for a cup|sachets?)\b/), v('canned', /\b(canned|condensed|can)\b/), v('pouch', /\bpouch\b/)], defaultVariant: 'chilled' },
  { slug: 'instant-noodles', label: 'Instant noodles', compareUnit: 'kg', pattern: /\b(instant|2 minute|2minute) noodles\b|\bnoodles\b.*\b(cup|bowl)\b|\bramen\b|\bmi goreng\b/,
    exclude: /\b(chilled meal|dried|wheat noodles|udon|soba)\b/, variants: [v('cup', /\b(cup|bowl)\b/), v('packet', /./)] },
  { slug: 'noodles', label: 'Noodles', compareUnit: 'kg', pattern: /\bnoodles?\b|\bvermicelli\b|\budon\b|\bsoba\b/, exclude: /\b(chilled meal|soup|pot|snack|salad|meal|with|flavour|laksa|singapore|chef|stir fry)\b/, shelf: /^(pantry|fridge|chilled|food cupboard|international)/,
    variants: [v('rice', /\b(rice|vermicelli|pho)\b/), v('egg', /\begg\b/), v('udon', /\budon\b/), v('hokkien', /\bhokkien\b/)], defaultVariant: 'wheat' },
  { slug: 'stock', label: 'Stock', compareUnit: 'kg', pattern: /\b(stock|bouillon)\b/, exclude: /\b(cubes? storage|stockings?)\b/,
    variants: [v('chicken', /\bchicken\b/), v('beef', /\bbeef\b/), v('vegetable', /\b(vegetable|vege|veggie)\b/), v('fish', /\bfish\b/)], defaultVariant: 'other' },
  { slug: 'gravy-mix', label: 'Gravy mix', compareUnit: 'kg', pattern: /\bgravy\b/, exclude: /\bin gravy\b|\bgravy beef\b/ },
  { slug: 'stuffing-mix', label: 'Stuffing mix', compareUnit: 'kg', pattern: /\bstuffing\b/ },
  { slug: 'recipe-base', label: 'Recipe bases and seasoning mixes', compareUnit: 'kg',
    pattern: /\b(recipe base|meal base|seasoning mix|taco seasoning|spice mix|meal kit|dinner kit|taco kit|fajita kit|burrito kit|recipe mix|simmer sauce|meal maker mix|wedges mix|marinade mix)\b/ },
  { slug: 'curry-paste', label: 'Curry paste', compareUnit: 'kg', pattern: /\b(curry|laksa|tandoori|korma|tikka|vindaloo|rendang|massaman) paste\b/ },
  { slug: 'pasta-sauce', label: 'Pasta sauce', compareUnit: 'kg', pattern: /\b(pasta sauce|spaghetti sauce|carbonara sauce|alfredo sauce|bolognese sauce|pasta bake|passata|pomodoro|napoletana|arrabbiata)\b|\bfresh pasta sauce\b/,
    exclude: /\bpasta and sauce\b/ },
  { slug: 'pasta-meal', label: 'Pasta and rice sides', compareUnit: 'kg', pattern: /\bpasta and sauce\b|\brice and sauce\b|\brice sides?\b|\bpasta sides?\b|\brisotto\b|\bcreamed rice\b|\brice pudding\b/,
    variants: [v('creamed rice', /\b(creamed rice|rice pudding)\b/)], defaultVariant: 'savoury' },
  { slug: 'cooking-sauce', label: 'Cooking sauces', compareUnit: 'kg',
    pattern: /\b(cooking|simmer|stir fry|curry|butter chicken|tikka masala|korma|satay|peanut|teriyaki|hoisin|oyster|fish|black bean|plum|char siu|honey soy|sweet and sour|ready|enchilada|taco|worcestershire|mint|steak|burger|gravy|pepper|cheese|white|hollandaise|bearnaise|tartare|seafood|cranberry|apple|horseradish|garlic|pizza|pad thai|marinade|chimichurri|jerk|kecap|katsu|tonkatsu|bulgogi|gochujang) sauces?\b|\bmarinade\b|\bkecap manis\b|\bsauce (for|base)\b/,
    exclude: /\b(tomato sauce|bbq sauce|barbecue sauce|soy sauce|sweet chilli sauce|hot sauce|chilli sauce|chili|in .* sauce|dipping|pasta)\b/,
    variants: [v('asian', /\b(stir fry|satay|peanut|teriyaki|hoisin|oyster|fish|black bean|plum|char siu|honey soy|sweet and sour|kecap|katsu|tonkatsu|bulgogi|gochujang|pad thai)\b/),
      v('curry', /\b(curry|butter chicken|tikka|korma)\b/), v('table', /\b(worcestershire|mint|steak|burger|tartare|seafood|cranberry|apple|horseradish|garlic|pepper|hollandaise|bearnaise)\b/)],
    defaultVariant: 'other' },
  { slug: 'tomato-sauce', label: 'Tomato sauce', compareUnit: 'kg', pattern: /\btomato sauce\b|\bketchup\b/, exclude: /\b(with|in) (rich )?tomato sauce\b|\bsticks\b|\bbaked beans\b|\bspaghetti\b|\bmeatballs\b|\bsardines\b|\bmackerel\b/ },
  { slug: 'bbq-sauce', label: 'Barbecue sauce', compareUnit: 'kg', pattern: /\b(bbq|barbecue) sauce\b/, exclude: /\b(in|with) bbq sauce\b|\bribs\b|\bpork\b|\bchicken\b|\bbeef\b/ },
  { slug: 'soy-sauce', label: 'Soy sauce', compareUnit: 'l', pattern: /\bsoy sauce\b|\btamari\b/, exclude: /\b(honey and soy|marinade|almonds|nuts)\b/ },
  { slug: 'chilli-sauce', label: 'Chilli sauce', compareUnit: 'kg', pattern: /\b(sweet chilli|hot|chilli|chili|chili pepper|sriracha|peri peri|jalapeno|habanero|chipotle|buffalo|tabasco) sauce\b|\bsriracha\b|\btabasco\b/,
    exclude: /\b(noodles|chips|crackers|chicken|in|with|mayo|mayonnaise)\b/, variants: [v('sweet chilli', /\bsweet chilli\b/), v('hot', /./)] },
  { slug: 'mayonnaise', label: 'Mayonnaise and aioli', compareUnit: 'kg', pattern: /\b(mayonnaise|mayo|aioli)\b/, exclude: /\b(chips|dip|sandwich|wrap)\b/,
    variants: [v('aioli', /\baioli\b/), v('egg free', /\b(vegan|egg free|plant based)\b/), v('lite', /\b(lite|light|reduced fat|low fat)\b/)] },
  { slug: 'salad-dressing', label: 'Salad dressing', compareUnit: 'l', pattern: /\b(dressing|vinaigrette)\b/, exclude: /\b(salad kit|coleslaw and|slaw|salad crispy|with dressing)\b|\bfresh salad\b/ },
  { slug: 'mustard', label: 'Mustard', compareUnit: 'kg', pattern: /\bmustard\b/, exclude: /\b(dressing|chicken|pork|sausages?|mayo|mayonnaise|powder|seeds|pickles|honey mustard)\b/ },
  { slug: 'vinegar', label: 'Vinegar', compareUnit: 'l', pattern: /\bvinegar\b/, exclude: /\b(salt and vinegar|salt vinegar|snacks?|stix|delites|chips|crisps|crackers|cleaner|cleaning|wipes|glaze)\b/,
    variants: [v('balsamic', /\bbalsamic\b/), v('apple cider', /\bcider\b/), v('white', /\bwhite\b/), v('malt', /\bmalt\b/), v('rice', /\brice\b/)], defaultVariant: 'other' },
  { slug: 'pesto', label: 'Pesto', compareUnit: 'kg', pattern: /\bpesto\b/, exclude: /\b(dip|chips|crackers|ravioli|tortellini|feta|pasta|chicken)\b/ },
  { slug: 'salsa', label: 'Salsa', compareUnit: 'kg', pattern: /\bsalsa\b/, exclude: /\b(chips|dip|seasoning|crackers)\b/ },
  { slug: 'dip', label: 'Dips and hummus', compareUnit: 'kg', pattern: /\b(dips?|hummus|tzatziki|guacamole|baba ganoush|avocado spread)\b/, exclude: /\b(dipping sauce|dipping|chips and dip|chocolate)\b/,
    variants: [v('hummus', /\bhummus\b/)], defaultVariant: 'dip' },
  { slug: 'relish', label: 'Relish and chutney', compareUnit: 'kg', pattern: /\b(relish|chutney|pickle|piccalilli)\b/, exclude: /\b(dip|chips|sauce|burger)\b/ },
  { slug: 'jam', label: 'Jam and marmalade', compareUnit: 'kg', pattern: /\b(jam|jams|conserve|marmalade|fruit spread|jelly spread)\b/, exclude: /\b(donuts?|doughnuts?|filled|biscuits?|cookies?|roll|swiss roll|lamingtons?|slices?|drops|dip|chilli jam|jammy|jam filled)\b/,
    variants: [v('marmalade', /\bmarmalade\b/), v('reduced sugar', /\b(reduced|no added|less|lite|light) sugar\b|\bsugar free\b|\bfruit spread\b/)], defaultVariant: 'jam' },
  { slug: 'honey', label: 'Honey', compareUnit: 'kg', pattern: /\b(manuka honey|honey (umf|mgo|creamed|liquid|runny|raw|squeeze|pot|blend|multiflora|manuka)|(clover|creamed|liquid|raw|runny|bush|pohutukawa|rewarewa|kamahi|multiflora|wildflower|beechwood|thyme|blue borage|comb|squeezy|organic|pure|table) honey|honeycomb piece)\b|\bhoney\b.*\bumf\b|\bumf\b|\bmgo\b/,
    exclude: /\b(yoghurt|tea|lozenges?|drops|chocolate|bars?|muesli|cereal|granola|ham|bacon|chips|biscuits?|snack|sauce|dressing|mustard|soy|roasted|cashews|almonds|peanuts|macadamia|nuts|glazed|cured|lip|cream|spray|throat|soap|wash|oil|infused|sausages?|lamb|pork|chicken)\b/,
    variants: [v('manuka', /\bmanuka\b/), v('creamed', /\bcreamed\b/), v('liquid', /\b(liquid|runny|squeeze|squeezy)\b/)], defaultVariant: 'other' },
  { slug: 'peanut-butter', label: 'Peanut butter', compareUnit: 'kg', pattern: /\bpeanut butter\b/, exclude: /\b(cookies?|biscuits?|bars?|chocolate|cups|protein|snack|pretzels?|dog|crackers?|balls|bites|filled)\b/,
    variants: [v('crunchy', /\b(crunchy|chunky|crunch)\b/), v('smooth', /./)] },
  { slug: 'nut-butter', label: 'Nut butters', compareUnit: 'kg', pattern: /\b(almond|cashew|nut|hazelnut|macadamia|peanut and almond|seed) butter\b|\bnut butter spread\b|\btahini\b/, exclude: /\b(cookies?|biscuits?|bars?|chocolate|dog|snack|balls|bites|muesli|cereal|granola)\b/ },
  { slug: 'chocolate-spread', label: 'Chocolate and sweet spreads', compareUnit: 'kg', pattern: /\b(hazelnut spread|chocolate spread|spread choc|choc hazelnut spread|nutella|biscoff spread|cookie butter|caramel spread)\b/,
    exclude: /\b(biscuits?|wafers?|cookies?|croissants?|breadsticks|and go)\b/ },
  { slug: 'yeast-spread', label: 'Yeast spread', compareUnit: 'kg', pattern: /\b(marmite|vegemite|yeast spread|promite)\b/, exclude: /\b(crackers|chips|cheese|scrolls|pinwheel|snacks?)\b/ },
  { slug: 'margarine', label: 'Margarine and spreads', compareUnit: 'kg', pattern: /\b(margarine|soft spread|table spread|dairy blend|spread buttery|buttery spread|butter spread|spread with .*butter|spread original|spread lite|spread avocado|spread cholesterol|olive spread|flora|olivani spread|country soft|meadowlea|spread supersoft|spreadable butter|vutter spread|sunrise spread|spread margarine|lurpak spreadable)\b/,
    exclude: /\b(garlic|sandwich|cheese)\b/, variants: [v('lite', /\b(lite|light|reduced fat)\b/), v('olive oil', /\b(olive|olivani)\b/), v('dairy blend', /\b(dairy blend|butter|buttery)\b/)], defaultVariant: 'margarine' },
  { slug: 'ghee', label: 'Ghee and cooking fats', compareUnit: 'kg', pattern: /\b(ghee|lard|dripping|duck fat|copha|kremelta)\b/ },
  // Baking mixes before the cakes, biscuits and breads they make.
  { slug: 'baking-mix', label: 'Baking mixes', compareUnit: 'kg',
    pattern: /\b(cake|cookie|muffin|pancake|brownie|blondie|scone|pikelet|bread|pizza dough|pizza base|slice|cheesecake|dessert|waffle|crepe|cupcake|sponge|donut|baking|cookies|biscuit|batter|crumble|gingerbread|pavlova|meringue|shake and make) mix(es)?\b|\bshake and make\b|\bpancake shake\b|\bcake mixes\b/,
    exclude: /\b(falafel|soup|gravy|stuffing)\b/,
    variants: [v('pancake', /\b(pancake|pikelet|waffle|crepe|batter)\b/), v('bread', /\b(bread|pizza)\b/), v('cake', /\b(cake|cupcake|sponge|brownie|blondie|muffin|cheesecake)\b/)], defaultVariant: 'other' },
  // Frozen and chilled desserts, then confectionery and snacks.
  { slug: 'ice-cream', label: 'Ice cream', compareUnit: 'l',
    pattern: /\b(ice creams?|icecream|frozen dessert|gelato|sorbet|frozen yogh?urt|ice confection|ice blocks?|icy poles?|popsicles?|paddle pop|trumpet|magnum|kapiti ice|ice lolly|ice lollies|frozen treats?|frozen custard|sundaes?|bubble tea frozen)\b|\bfrozen dessert\b/,
    exclude: /\b(cones? only|wafers?|topping|sauce|ice cream cones|cone waffle|mix|sprinkles|scoop|maker|soda|lollies ice cream|flavoured milk)\b/,
    variants: [v('ice blocks', /\b(ice blocks?|icy poles?|popsicles?|ice lolly|ice lollies|sorbet)\b/), v('single serve', /\b(on stick|on cone|sticks?|cones?|bars?|sandwich|paddle pop|trumpet|magnum|minis?|multipack|cups?|sundaes?)\b/),
      v('tub', /./)] },
  { slug: 'ice-cream-cones', label: 'Ice cream cones', compareUnit: 'each', pattern: /\bice cream cones?\b|\bwaffle cones?\b|\bcones waffle\b/ },
  { slug: 'desserts', label: 'Desserts and custard', compareUnit: 'kg',
    pattern: /\b(custard|mousse|dairy food|puddings?|creme brulee|creme caramel|tiramisu|panna cotta|trifle|cheesecakes?|pavlova|eclairs?|profiteroles|sticky date|jelly cups|jelly crystals|jelly|crumble|fruit pie|apple pie|strudel|creme dessert|dessert pots?|desserts?|meringues?|brulee|rice cream)\b/,
    exclude: /\b(powder|tarts?|slices?|bun|danish|donuts?|squares|lollies|sweets|beans|jelly beans|jelly babies|jelly tots|jellies|jelly rounds|custard creams|biscuits?|cookies?|yogh?urt|wine|cake mix|baking|topping|cream|sauce|pie filling|spoons?|bowls?|bars?|milk|drinkable|drink|balls|protein)\b/,
    variants: [v('custard', /\bcustard\b/), v('cheesecake', /\bcheesecakes?\b/), v('jelly', /\bjelly\b/), v('pudding', /\bpuddings?\b/), v('mousse', /\bmousse\b/)], defaultVariant: 'other' },
  { slug: 'baking-chocolate', label: 'Baking chocolate and chips', compareUnit: 'kg',
    pattern: /\b(baking|cooking) (chocolate|chips|milk|dark|white|melts|bits)\b|\b(chocolate|choc|caramel|butterscotch|white choc|dark|milk) (chips|bits|melts|drops)\b|\bbaking\b.*\bchocolate\b|\bcocoa (powder|baking)?\b|\bdutch cocoa\b|\bcacao powder\b|\bcacao nibs\b/,
    exclude: /\b(cookies?|biscuits?|muffins?|ice cream|frozen dessert|mix|bread|tear and share|brioche|waffles|cereal|bars?|yoghurt|protein|drink|drinking|instant|hot chocolate)\b/,
    variants: [v('cocoa', /\b(cocoa|cacao)\b/), v('chips', /\b(chips|bits|drops|melts)\b/), v('block', /./)] },
  { slug: 'potato-chips', label: 'Potato chips', compareUnit: 'kg', pattern: /\b(potato chips|chips|crisps)\b/,
    exclude: /\b(hot chips|chocolate chips?|choc chips?|baking chips|corn chips|tortilla chips|kumara chips|banana chips|apple chips|coconut chips|pita chips|bagel chips|wholegrain chips|rice chips|lentil chips|vegetable chips|veggie chips|cassava|pea chips|fish and chips|oven chips|chip cookies?|frozen|fries|crinkle cut chips|straight cut chips|steak cut|shoestring|superfries|beer battered chips|potato chips frozen|chunky chips|french fries|kale chips|seaweed chips|chocolate|dog|cat|chips? cookie)\b/ },
  { slug: 'corn-chips', label: 'Corn chips', compareUnit: 'kg', pattern: /\b(corn chips|tortilla chips|nacho chips|corn chip)\b|\bdoritos\b/ },
  { slug: 'vegetable-chips', label: 'Vegetable and grain chips', compareUnit: 'kg',
    pattern: /\b(kumara|vegetable|veggie|lentil|pita|bagel|wholegrain|rice|pea|cassava|kale|seaweed) (chips|crisps)\b|\bgrain waves\b|\bbrown rice chips\b/, exclude: /\b(frozen|fries)\b/ },
  { slug: 'onion-rings', label: 'Onion rings', compareUnit: 'kg', pattern: /\bonion rings\b/,
    variants: [v('frozen', /\b(frozen|pub style|pickers)\b/), v('snack', /./)] },
  { slug: 'corn-snacks', label: 'Corn and puffed snacks', compareUnit: 'kg',
    pattern: /\b(cereal snacks|corn snacks|rice snacks|pea snacks|puffs|twisties|cheezels|burger rings|pretzels?|veggie straws|vege straws|delites|curls|puffed|poppadoms?|pappadums?|prawn crackers|rice wheels|bhuja|bombay mix|chickpea snacks|bean snacks|lentil snacks)\b/,
    exclude: /\b(chocolate|cereal bar|baby|toddler|sweets|lollies|jelly|nut|nuts|cashews|peanuts|almonds|dog|cat|coated|yogh?urt)\b/ },
  { slug: 'popcorn', label: 'Popcorn', compareUnit: 'kg', pattern: /\bpop ?corn\b/, exclude: /\b(chocolate block|chocolate bar|jelly beans|dog)\b/,
    variants: [v('microwave', /\bmicrowave\b/), v('kernels', /\b(kernels|popping corn)\b/), v('popped', /./)] },
  { slug: 'crackers', label: 'Crackers', compareUnit: 'kg',
    pattern: /\b(crackers?|crispbreads?|rice cakes?|corn thins|rice thins|wafer crackers|water crackers|crispbakes|vita wheat|vitawheat|salada|cruskits|ryvita|grissini|breadsticks|wafers natural|rice wafers|wafer thins|crackerbread|crispbread|oat cakes|oatcakes|lavosh|cracker sticks|crackers? bites|snax|shapes|jatz|huntley palmers|sakata|arnotts savoy)\b/,
    exclude: /\b(cheese and crackers|crackers and|and crackers|stackers|dog|cat|christmas crackers|bon bons|prawn crackers|tuna|chocolate|soup|cheese snack|cereal)\b/,
    variants: [v('rice crackers', /\brice (crackers?|snacks?|wafers)\b|\bsakata\b/), v('rice cakes', /\b(rice cakes?|corn thins|rice thins|corn cakes)\b/), v('crispbread', /\b(crispbreads?|cruskits|ryvita|crispbakes|vita ?wheat)\b/)],
    defaultVariant: 'crackers' },
  { slug: 'cheese-snacks', label: 'Cheese and cracker snacks', compareUnit: 'kg', pattern: /\bcheese (snacks?|sticks?|and crackers|strings?|stackers)\b|\bstackers\b|\bbabybel\b|\bcheese snack\b|\bcracker cheese sticks\b/,
    exclude: /\b(dog|cat|pops|balls|crackers (cheese|cheddar)|puffs)\b/ },
  { slug: 'muesli-bars', label: 'Muesli and snack bars', compareUnit: 'kg',
    pattern: /\b(muesli|protein|nut|nuts|oat|oaty|breakfast|granola|fruit|snack|cereal|health|seed|seeds|energy|wholefood|crunchy|chewy|yoghurt|yogurt|keto|date|primal) (bars?|slices?|bites|balls)\b|\bmuesli bars?\b|\bbars? (muesli|protein)\b|\bbumper bars?\b|\bmuesli slice\b|\bprotein (bar|bars)\b|\bcereal bars\b|\bbliss balls\b|\bbounce balls?\b|\bbarebells\b|\bquest bar\b|\bnice and natural\b|\bone square meal\b|\bmoro protein\b|\bcarman s\b|\bcarmans\b/,
    exclude: /\b(dog|cat|baby|toddler|soap|ice cream|frozen dessert|bath|loaf slices?|lolly cake|slice lolly|caramel slice|slice bar|shampoo|rocky road)\b/,
    variants: [v('protein', /\b(protein|keto)\b/), v('nut', /\b(nut|nuts|peanut|almond|seed|seeds)\b/), v('muesli', /./)] },
  { slug: 'biscuits', label: 'Biscuits and cookies', compareUnit: 'kg',
    pattern: /\b(biscuits?|cookies?|gingernuts?|shortbread|shortcake|tim tam|oreos?|digestives?|macaroons?|macarons?|anzacs?|afghans?|melting moments|kisses|brandy snaps|toffee pops|krispie|malt biscuit|wafers?|wafer|girl guide|snap(s)?|butternut snap|scotch fingers|chocolate fingers|biscotti|amaretti|florentines?|wagon wheels?|mallowpuffs?|chit chat|squiggles|tiny teddy|farmbake|river biscuits|cookie bear|cookie time|arrowroot|shrewsbury|chocolate thins|pasties|hundreds and thousands|100s and 1000s minis)\b/,
    exclude: /\b(dog|cat|puppy|kitten|ice cream|frozen dessert|cheesecake|cookie dough|cookies and cream|cookies n cream|cookie crumb|yogh?urt|baking mix|mix|milkshake|flavoured milk|drinking chocolate|cereal|spread|crumbs|base|pie|cones?|crumble|ginger snaps sauce|chocolate block|chocolate bar|chocolate sharepack|chocolate box|biscuit cream|latte|iced coffee|smoothie|protein bars?|butter cookies bar|muesli|bar)\b/,
    variants: [v('chocolate', /\b(chocolate|choc|tim tam|mallowpuffs?|toffee pops|wagon wheels?)\b/), v('cookies', /\bcookies?\b/), v('crackers', /\bcrackers?\b/)], defaultVariant: 'plain' },
  { slug: 'chocolate', label: 'Chocolate', compareUnit: 'kg',
    pattern: /\bchocolates?\b|\bchoc\b|\b(dairy milk|whittakers|lindt|ferrero|kit ?kat|m and ms|maltesers|snickers|mars bar|moro|crunchie|pinky|toblerone|twix|bounty|caramilk|freddo|cherry ripe|picnic|perky nana|chocolate fish|roses|favourites|milk tray|scorched almonds|pineapple chunks chocolate|easter egg|creme egg|mint patties|peppermint patties|energy chocolate|rocky road|truffles?|pralines?|bonbons?)\b/,
    exclude: /\b(milk drink|flavoured milk|milkshake|iced chocolate|drinking|hot chocolate|chocolate drink|drink|shake|protein shake|liquid breakfast|up and go|yogh?urt|ice cream|frozen dessert|mousse|custard|pudding|cake|cakes|muffins?|brownies?|donuts?|croissants?|danish|cereal|granola|muesli|oats|porridge|spread|sauce|topping|syrup|biscuits?|cookies?|wafers?|bars? muesli|muesli bars?|protein bars?|nut bars?|oat bars?|snack bars?|rice cakes?|crackers|coated (nuts|almonds|peanuts|cashews|raisins|sultanas)|milk powder|cocoa|baking|mix|cream|waffles|crepes|pancakes|slices?|lamingtons?|eclairs?|roll|log|cheesecake|tart|pie|coffee|tea|soy milk|oat milk|almond milk|rice milk|kombucha|protein powder|dog|cat|lip|lollies|balls|sweets|popcorn|pretzels|chips|nuts|peanuts|almonds|raisins|scroll|brioche|bread|buns|bagels|gum|mints|syrup|water|flowers)\b/,
    variants: [v('block', /\bblocks?\b|\bwhittakers\b.*\b(g|block)\b/), v('bar', /\bbars?\b/), v('box', /\b(box|boxed|tray|roses|favourites|gift|pralines|truffles|assorted|collection|milk tray)\b/),
      v('bag', /\b(sharepack|share pack|bag|bites|minis|fun size|funsize|multipack|treat size|pouch|pieces)\b/)], defaultVariant: 'other' },
  { slug: 'chocolate-coated', label: 'Chocolate-coated nuts and fruit', compareUnit: 'kg',
    pattern: /\b(chocolate|choc|yogh?urt|carob) (coated|covered)\b|\b(chocolate|choc) (peanuts|almonds|cashews|raisins|sultanas|brazil|macadamias?|ginger|nuts|berries|cranberries|apricots)\b|\bscorched (almonds|peanuts)\b/,
    exclude: /\b(bar|bars|biscuits?|cookies?|block|muesli|ice cream|butter)\b/ },
  { slug: 'lollies', label: 'Lollies', compareUnit: 'kg',
    pattern: /\b(lollies|lolly|sweets|gummies|gummy|jelly beans|jellybeans|licorice|liquorice|marshmallows?|mints|pebbles|jet planes|pineapple lumps|toffees?|fudge|candy|jellies|jelly babies|jelly tots|chews|snakes|sour straps|raspberries lollies|fruit bursts|mentos|tic tac|skittles|starburst|allens|pascall|rainbow|eclipse|gobstoppers|boiled|barley sugar|humbugs|bullseyes|rocks|lollipops?|pops|mallows|gum drops|wine gums|nougat|turkish delight|hokey pokey|honeycomb|sherbet|bonbons|soft centres)\b/,
    exclude: /\b(ice cream|frozen dessert|dog|cat|cake|lolly cake|chocolate block|chocolate bar|chocolate sharepack|chocolate box|bar|vitamins?|throat|lozenges?|cough|breath|gum|popcorn|protein|biscuits?|cookies?|slice|sauce|spread|topping|dessert|fudge sauce|rocky road|yogh?urt|mints? tea|herbal|baking|cereal|muesli|bars?|drink|decorations|icing)\b/,
    variants: [v('mints', /\b(mints|tic tac|eclipse|humbugs)\b/), v('marshmallows', /\bmarshmallows?\b/), v('licorice', /\b(licorice|liquorice)\b/)], defaultVariant: 'lollies' },
  { slug: 'chewing-gum', label: 'Chewing gum', compareUnit: 'each', pattern: /\b(chewing gum|gum)\b/, exclude: /\b(gum drops?|gummies|gumboots|gum trees|gumnut|bubble gum flavour|ice cream|frozen dessert|toothpaste)\b/ },
  { slug: 'trail-mix', label: 'Trail mix and snack mixes', compareUnit: 'kg', pattern: /\b(trail mix|scroggin|nut mix|fruit and nut|nuts and raisins|student mix|nut and fruit|fruit nut mix|nut bar mix|snack pack nuts|nuts and seeds|seed mix|mixed seeds|snack mix)\b/,
    exclude: /\b(chocolate block|chocolate bar|muesli|bars?|cereal|biscuits?|yogh?urt)\b/ },
  { slug: 'nuts', label: 'Nuts', compareUnit: 'kg',
    pattern: /\b(almonds?|cashews?|peanuts?|walnuts?|pistachios?|macadamias?|macadamia nuts|pecans?|hazelnuts?|brazil nuts|pine nuts|mixed nuts|nuts|peanuts in shell)\b/,
    exclude: /\b(butter|milk|chocolate block|chocolate bar|chocolate sharepack|bars?|biscuits?|cookies?|ice cream|frozen dessert|muesli|granola|cereal|yogh?urt|spread|oil|flour|meal|dog|cat|crackers|cake|slice|brownie|sauce|satay|coffee|tea|milk chocolate|dark chocolate|chocolate|choc|protein|balls|bliss|pesto|dip|hummus|noodles|chicken|curry|mix lollies|drink|kombucha|latte|cheese)\b/,
    variants: [v('peanuts', /\bpeanuts?\b/), v('cashews', /\bcashews?\b/), v('almonds', /\balmonds?\b/), v('walnuts', /\bwalnuts?\b/), v('pistachios', /\bpistachios?\b/),
      v('macadamias', /\bmacadamias?\b/), v('pecans', /\bpecans?\b/), v('hazelnuts', /\bhazelnuts?\b/), v('brazil nuts', /\bbrazil\b/), v('pine nuts', /\bpine nuts\b/)], defaultVariant: 'mixed' },
  { slug: 'seeds', label: 'Seeds', compareUnit: 'kg', pattern: /\b(chia|pumpkin|sunflower|sesame|flax|linseed|hemp|poppy) seeds?\b|\b(pepitas|linseed|psyllium husk|lsa)\b/,
    exclude: /\b(bread|loaf|bagels?|buns|rolls|crackers?|bars?|oil|butter|cereal|muesli|granola|wraps|oats|chips|bites|sprouted|toast|salmon|tuna|muffins|chicken)\b/ },
  { slug: 'fruit-snacks', label: 'Fruit snacks', compareUnit: 'kg', pattern: /\bfruit (snacks?|sticks|bars?|straps?|leather|rolls?|bites|strings|twists|pieces)\b|\b(fruit burst|fruit bursts|roll ups|fruit winders)\b/,
    exclude: /\b(in juice|in jelly|fruit salad|fruit cups?|dog|cat|baby|toddler|months|muesli|snack pot|dragon)\b/ },
  { slug: 'dried-fruit', label: 'Dried fruit', compareUnit: 'kg',
    pattern: /\b(raisins|sultanas|currants|dates|prunes|dried|apricots dried|dried apricots|figs|mixed fruit|mixed peel|cranberries|goji berries|dried mango|dried apple|craisins|glace cherries|banana chips|apple chips|apple rings|coconut chips|freeze dried)\b/,
    exclude: /\b(bread|buns?|biscuits?|cookies?|muesli|granola|cereal|bars?|chocolate|yogh?urt|juice|cake|scones?|loaf|herbs?|pasta|noodles|beans|chickpeas|lentils|peas|chilli|chillies|mushrooms|tomatoes|onions?|garlic|parsley|oregano|basil|thyme|coriander|rosemary|mint|shrimps?|fish|squid|anchovies|seaweed|kelp|mince|dog|cat|milk|coconut dried|desiccated|fruit snacks|sauce|jelly|drink|in juice|in syrup)\b/,
    variants: [v('raisins and sultanas', /\b(raisins|sultanas|currants)\b/), v('dates', /\bdates\b/), v('prunes', /\bprunes\b/), v('apricots', /\bapricots\b/), v('cranberries', /\b(cranberries|craisins)\b/),
      v('mango', /\bmango\b/), v('mixed', /\b(mixed fruit|mixed peel|fruit mix|mixed)\b/)], defaultVariant: 'other' },
  { slug: 'coconut', label: 'Desiccated and shredded coconut', compareUnit: 'kg', pattern: /\b(desiccated|shredded|threaded|flaked|shaved) coconut\b|\bcoconut (desiccated|shredded|threaded|flakes|flaked|chips shredded)\b/ },
  { slug: 'seaweed-snacks', label: 'Seaweed snacks and nori', compareUnit: 'kg', pattern: /\b(seaweed|nori)\b/, exclude: /\b(rice crackers|chips|crackers|salt|soup|noodles)\b/ },
  { slug: 'jerky', label: 'Jerky and biltong', compareUnit: 'kg', pattern: /\b(jerky|biltong)\b/, exclude: /\b(dog|cat|treats?|puppy|fruit)\b/ },
  // Canned and packaged meals, fish and vegetables.
  { slug: 'canned-spaghetti', label: 'Canned spaghetti', compareUnit: 'kg', pattern: /\bspaghetti in tomato sauce\b|\bspaghetti (canned|rings|and meatballs)\b|\b(watties|heinz|oak) spaghetti\b/ },
  { slug: 'baked-beans', label: 'Baked beans', compareUnit: 'kg', pattern: /\bbaked beans?\b|\bbeanz\b/ },
  { slug: 'canned-tuna', label: 'Canned tuna', compareUnit: 'kg', pattern: /\btuna\b/,
    exclude: /\b(dog|cat|crackers and|and crackers|sushi|steaks?|frozen|fillets? frozen|pasta bake|kit|fresh tuna|sashimi|bake)\b/,
    variants: [v('flavoured', /\b(tomato|onion|basil|chilli|lemon|pepper|savoury|flavoured|curry|mayo|thai|lime|sweet|smoked|garlic|herb|sundried|mexican|salsa|teriyaki|italian|pesto|coconut|satay|bowl|mix|sauce|sensations|tempters|bean)\b/), v('in oil', /\boil\b/),
      v('in springwater', /\b(springwater|spring water|brine|water)\b/)] },
  { slug: 'canned-salmon', label: 'Canned salmon', compareUnit: 'kg', pattern: /\bsalmon\b/, shelf: /^(pantry|canned|food cupboard)/,
    exclude: /\b(fillets?|fresh|frozen|dog|cat|dip|pate|spread|crackers|chips)\b/, variants: [v('red', /\b(red|sockeye)\b/), v('pink', /./)] },
  { slug: 'canned-fish', label: 'Canned sardines and other fish', compareUnit: 'kg', pattern: /\b(sardines|mackerel|anchovies|kippers|herring|pilchards|smoked oysters|mussels smoked|smoked mussels|clams|baby clams)\b/,
    exclude: /\b(dog|cat|fresh|pate)\b/, variants: [v('mackerel', /\bmackerel\b/), v('sardines', /\bsardines\b/), v('mussels', /\bmussels\b/)], defaultVariant: 'other' },
  { slug: 'canned-chicken', label: 'Canned chicken', compareUnit: 'kg', pattern: /\bcanned chicken\b|\bchicken\b.*\bcanned\b|\bchop chop\b.*\bchicken\b/ },
  { slug: 'corned-beef-canned', label: 'Canned corned beef and meat', compareUnit: 'kg', pattern: /\b(corned beef|luncheon meat|spam|camp pie|canned dinners)\b/, shelf: /^(pantry|canned|food cupboard)/ },
  { slug: 'canned-tomatoes', label: 'Canned tomatoes', compareUnit: 'kg',
    pattern: /\btomato(es)?\b.*\b(chopped|diced|crushed|peeled|sieved|polpa|juice|puree|italian|flavoured|style|savoury|basil|cherry|whole|canned)\b|\b(chopped|diced|crushed|peeled|italian|mexican|indian|savoury|flavoured|cherry|roast garlic onion)\b.*\btomato(es)?\b|\btomato (puree|passata)\b|\bpassata\b/,
    exclude: /\b(loose|per kg|truss|sauce|tuna|soy|pasta|paste|soup|chips|dip|relish|chutney|sundried|sun dried|semi dried|crackers|fresh|vine|punnet|prepacked|pack|heirloom|mini mix|gourmet|pizza|salsa|jelly bean|campari|romano|strawberry|cocktail|cocktail)\b/,
    variants: [v('flavoured', /\b(basil|oregano|garlic|onion|mexican|indian|italian style|savoury|flavoured|herbs?|chilli)\b/), v('cherry', /\bcherry\b/),
      v('crushed', /\b(crushed|sieved|polpa|passata)\b/), v('whole peeled', /\b(whole|peeled)\b/), v('chopped', /\b(chopped|diced)\b/)], defaultVariant: 'other' },
  { slug: 'tomato-paste', label: 'Tomato paste', compareUnit: 'kg', pattern: /\btomato paste\b|\btomato concentrate\b/ },
  { slug: 'sundried-tomatoes', label: 'Sundried tomatoes', compareUnit: 'kg', pattern: /\b(sundried|sun dried|semi dried|semidried) tomato(es)?\b/, exclude: /\b(dip|pesto|crackers|chips|feta|bread|sauce|chicken|salami|pasta)\b/ },
  { slug: 'olives', label: 'Olives', compareUnit: 'kg', pattern: /\bolives\b/, exclude: /\b(oil|bread|crackers|dip|tapenade|pizza|pasta|chips)\b/,
    variants: [v('kalamata', /\bkalamata\b/), v('green', /\bgreen\b/), v('black', /\bblack\b/)], defaultVariant: 'mixed' },
  { slug: 'antipasto', label: 'Antipasto and marinated vegetables', compareUnit: 'kg',
    pattern: /\b(antipasto|artichokes?|roasted capsicums?|capsicums? roasted|marinated vegetables|char grilled|chargrilled|jalapenos|gherkins|capers|pickled|sauerkraut|kimchi|pepperdews|peppadews|stuffed peppers|dolmades|beetroot (sliced|baby|whole|canned))\b/,
    exclude: /\b(dip|pesto|chips|crackers|pizza|salami|chicken|hummus|sauce|relish|onions?|noodles|dressing|soup|bowl)\b/,
    variants: [v('gherkins', /\bgherkins\b/), v('beetroot', /\bbeetroot\b/), v('jalapenos', /\bjalapenos\b/), v('sauerkraut and kimchi', /\b(sauerkraut|kimchi)\b/)], defaultVariant: 'other' },
  { slug: 'canned-beans', label: 'Canned beans and pulses', compareUnit: 'kg',
    pattern: /\b(chickpeas|chick peas|kidney beans|black beans|butter beans|cannellini|borlotti|four bean|three bean|3 bean|4 bean|mixed beans|beans 3 mixed|lentils|refried beans|edamame beans|pinto beans|beans black|beans chilli|navy beans|split peas|bean mix|haricot|fava beans|broad beans)\b/,
    exclude: /\b(chips|crackers|snacks?|dip|hummus|pasta|flour|noodles|soup|frozen|curry|dahl|falafel|salad|burger|patties|rice)\b/,
    variants: [v('dried', /\b(dried|dry|split peas)\b/), v('chickpeas', /\b(chickpeas|chick peas)\b/), v('lentils', /\blentils\b/), v('kidney beans', /\bkidney\b/), v('black beans', /\bblack\b/),
      v('refried', /\brefried\b/), v('mixed', /\b(four|three|3|4|mixed|mix)\b/)], defaultVariant: 'other' },
  { slug: 'canned-corn', label: 'Canned corn', compareUnit: 'kg', pattern: /\b(creamed corn|corn kernels|whole kernel corn|sweet corn kernels|corn creamed|baby corn|sweetcorn kernels|corn cobs canned)\b/,
    exclude: /\bfrozen\b/, shelf: /^(pantry|canned|food cupboard)/, variants: [v('creamed', /\bcreamed\b/), v('kernels', /./)] },
  { slug: 'canned-vegetables', label: 'Canned vegetables', compareUnit: 'kg', pattern: /\b(beetroot|peas|green beans|carrots|mushrooms|asparagus|potatoes|bamboo shoots|water chestnuts?|spinach|bean sprouts|mixed vegetables|baby corn)\b/,
    exclude: /\b(chips|crackers|soup|snacks?|dip|frozen|noodles|sauce|relish|pickled|baby food|months|dried|dehydrated|wasabi|flavoured|side dish)\b/, shelf: /^(pantry|canned|food cupboard)/ },
  { slug: 'canned-fruit', label: 'Canned fruit', compareUnit: 'kg',
    pattern: /\b(peaches|pears|apricots|pineapple|fruit salad|mandarins|fruit cocktail|plums|cherries|mango|apple|apples|two fruits|mixed fruit|lychees|guava|feijoas|berries|boysenberries|orange)\b.*\b(in (natural |clear )?(juice|syrup|jelly|nectar)|slices|sliced|halves|pieces|diced|chunks|crushed|canned|snack pots?|fruit cups?|pouch|pie fruit|pulp|rings|spiced|in water|lite)\b|\bfruit (cups?|pots?)\b|\bfruit salad\b|\bpie apple\b|\bapple pie filling\b|\bpie fruit\b|\bspc\b/,
    exclude: /\b(dried|juice drink|fruit drink|soft drink|yogh?urt|jam|muesli|bars?|chips|snacks? sticks|jelly crystals|cereal|baby|months|dog|cat|puree|smoothie|vinegar|sauce|chutney|cake)\b/, shelf: /^(pantry|canned|food cupboard|fridge)/,
    variants: [v('peaches', /\bpeach(es)?\b/), v('pears', /\bpears?\b/), v('pineapple', /\bpineapple\b/), v('apricots', /\bapricots?\b/), v('fruit salad', /\b(fruit salad|fruit cocktail|two fruits|mixed)\b/),
      v('apple', /\bapples?\b/)], defaultVariant: 'other' },
  { slug: 'coconut-cream', label: 'Coconut cream and milk', compareUnit: 'l', pattern: /\bcoconut (cream|milk)\b/,
    exclude: /\b(barista|almond|drink|uht|yogh?urt|ice|chocolate|unsweetened|long life|original|shampoo|conditioner|body|soap|lip|frozen dessert|powder|biscuits?|cookies?|rice|chicken|curry)\b/,
    variants: [v('milk', /\bmilk\b/), v('cream', /./)] },
  // Dairy drinks and milks.
  { slug: 'liquid-breakfast', label: 'Liquid breakfast', compareUnit: 'l', pattern: /\b(liquid breakfast|up and go|breakfast drink|breakfast shake|vita brits drink)\b/ },
  { slug: 'iced-coffee', label: 'Iced coffee', compareUnit: 'l', pattern: /\biced (coffee|latte|mocha)\b|\bcoffee (milk|shake)\b|\bcold brew\b|\bcoffee drink\b/, exclude: /\b(ice cream|frozen dessert|syrup|powder|mix|sachets?|beans|ground|capsules|pods)\b/ },
  { slug: 'flavoured-milk', label: 'Flavoured milk', compareUnit: 'l',
    pattern: /\b(flavoured milk|milk shake|milkshake|protein shake|chocolate milk|choc milk|iced chocolate|strawberry milk|banana milk|milk drink|milk chocolate shake|calci yum flavoured|protein milk|nesquik ready|oak milk|dairy milk drink|shake)\b/,
    exclude: /\b(powder|syrup|mix|chocolate block|chocolate bar|biscuits?|ice cream|frozen dessert|sachets?|instant|dog|cat|formula|drops|cereal|shaker|shake and make|nuts?)\b/ },
  { slug: 'plant-milk', label: 'Plant-based milk', compareUnit: 'l', pattern: /\b(almond|oat|soy|soya|rice|coconut|cashew|macadamia|pea|hazelnut|plant based|plant) milk\b|\b(almond|oat|soy) (drink|beverage)\b|\bmilk (almond|oat|soy)\b|\bso good\b/,
    exclude: /\b(chocolate block|chocolate bar|biscuits?|ice cream|frozen dessert|yogh?urt|powder|formula|cereal|chocolate|choc|brownie|iced latte|caramel|vanilla bliss|custard|dessert|cheese|coffee|lotion|body|soap|wash|cream|chai)\b/,
    variants: [v('almond', /\balmond\b/), v('oat', /\boat\b/), v('soy', /\bsoya?\b/), v('rice', /\brice\b/), v('coconut', /\bcoconut\b/)], defaultVariant: 'other' },
  { slug: 'milk-powder', label: 'Milk powder', compareUnit: 'kg', pattern: /\bmilk powder\b|\bpowdered milk\b|\bmilk instant powder\b/, exclude: /\b(formula|coconut|goat|protein)\b/,
    variants: [v('skim', /\b(skim|trim|non fat)\b/), v('whole', /./)] },
  { slug: 'condensed-milk', label: 'Condensed and evaporated milk', compareUnit: 'kg', pattern: /\b(sweetened condensed|condensed milk|evaporated milk|lite evaporated|carnation)\b/, exclude: /\b(caramel|cookies?|biscuits?)\b/,
    variants: [v('condensed', /\bcondensed\b/), v('evaporated', /./)] },
  { slug: 'milk', label: 'Milk', compareUnit: 'l', pattern: /\bmilk\b/,
    exclude: /\b(chocolate|choc|coconut|almond|oat|soy|soya|rice|powder|condensed|evaporated|biscuits?|bar|bars|shake|formula|flavoured|caramel|strawberry|banana|dairy milk|milk tray|milk bottles|cheese|cream|thistle|bath|lotion|body|soap|wash|goat|goats|buns|bread|tea|coffee|latte|chai|kefir|yogh?urt|lollies|sweets|mints|arrowroot|cookies?|cow and gate|toddler|infant|baby|months|dog|cat|kitten|puppy|pets?|drink|drinks|protein shake|probiotic drink|hot chocolate|milo|stout|ale|beer|cheesecake)\b/,
    variants: [v('lactose free', /\b(lactose free|zero lacto|a2|lacto)\b/), v('long life', /\b(uht|long life)\b/), v('lite', /\b(lite|light|reduced fat|98 5)\b/), v('trim', /\b(trim|skim|fat free|99 7)\b/), v('standard', /./)] },
  // Cheese, cream, yoghurt and chilled dairy.
  { slug: 'cream-cheese', label: 'Cream cheese', compareUnit: 'kg', pattern: /\bcream cheese\b/, exclude: /\b(bagels?|dip|cheesecake|frosting|icing|crackers|chips|wontons|jalapeno poppers|filled)\b/ },
  { slug: 'cottage-cheese', label: 'Cottage cheese and ricotta', compareUnit: 'kg', pattern: /\b(cottage cheese|ricotta|quark|paneer|labneh)\b/, exclude: /\b(ravioli|tortellini|cannelloni|lasagne|pasta|spinach and ricotta|ricotta and spinach|pie|rolls?)\b/,
    variants: [v('cottage', /\bcottage\b/), v('ricotta', /\bricotta\b/)], defaultVariant: 'other' },
  { slug: 'sour-cream', label: 'Sour cream', compareUnit: 'kg', pattern: /\bsour cream\b/, exclude: /\b(chips|crisps|dip|crackers|chives|onion|snacks?|delites|curls|puffs|pasta|rice|fries)\b/,
    variants: [v('lite', /\b(lite|light)\b/), v('dairy free', /\b(dairy free|alternative|vegan)\b/), v('standard', /./)] },
  { slug: 'cream', label: 'Cream', compareUnit: 'l',
    pattern: /\bcream (fresh|thickened|cooking|whipped|whipping|pure|light|lite|double|single|runny|organic|lactose free|squirty|spray|uht|culinary)\b|\b(fresh|thickened|cooking|whipping|whipped|pure|double|lite|light|runny|pouring|culinary|soya) cream\b|\bcreme fraiche\b|\bmascarpone\b|\bdairy whip\b|\bcream\b.*\bhalf and half\b|\banchor cream\b|\blewis road creamery cream\b/,
    exclude: /\b(ice cream|sour cream|cream cheese|biscuits?|buns|lotion|body|hand|face|shaving|soup|sauce|liqueur|tarts?|donuts?|cakes?|mock cream|mint|eclairs?|puffs|horns|sponge|creme filled|chips|dip|cheese|camembert|brie)\b/,
    variants: [v('whipped', /\b(whipped|whip|spray|squirty|aerosol)\b/), v('cooking', /\b(cooking|culinary)\b/), v('sour', /\bcreme fraiche\b/), v('mascarpone', /\bmascarpone\b/), v('lite', /\b(lite|light)\b/),
      v('thickened', /\bthickened\b/), v('fresh', /./)] },
  { slug: 'butter', label: 'Butter', compareUnit: 'kg', pattern: /\bbutter\b/,
    exclude: /\b(peanut|nut|almond|cashew|chicken|beans?|cookies?|biscuits?|popcorn|shea|cocoa|menthol|lozenges?|vapodrops|body|lotion|lip|balm|bath|soap|candles?|air freshener|croissants?|chicken|sauce|garlic bread|rolls|spread|buttermilk|chips|crackers|cake|shortbread|toffee|fudge|caramel|pastry|puff|icing|muffins|scotch|butterscotch|menthol|fish|dog|cat|blend|buttery|sweets|lollies|mushrooms|squash|lettuce|buttercrunch|corn|pasta|beer|wraps|waffles|everything|fix and fogg)\b/,
    variants: [v('flavoured', /\b(garlic|parsley|herb|flavoured)\b/), v('unsalted', /\bunsalted\b/), v('spreadable', /\bspreadable\b/), v('salted', /./)] },
  { slug: 'cheese-slices', label: 'Cheese slices', compareUnit: 'kg', pattern: /\bcheese slices\b|\bsliced cheese\b|\bcheese\b.*\bsliced\b|\bslices cheese\b/,
    exclude: /\b(crackers|bread|rolls|ham|salami|toastie|burger)\b/,
    variants: [v('dairy free', /\b(dairy free|vegan|plant)\b/), v('tasty', /\btasty\b/), v('colby', /\bcolby\b/), v('edam', /\bedam\b/), v('swiss', /\b(swiss|emmental)\b/), v('mozzarella', /\bmozzarella\b/),
      v('gouda', /\bgouda\b/), v('cheddar', /\b(cheddar|mild|smoked|chives|protein|light)\b|^\w+ cheese slices$/)], defaultVariant: 'other' },
  { slug: 'grated-cheese', label: 'Grated cheese', compareUnit: 'kg', pattern: /\bcheese\b.*\b(grated|shredded)\b|\b(grated|shredded)\b.*\bcheese\b|\bgrated (parmesan|mozzarella|tasty|cheddar)\b/,
    exclude: /\b(pizza base|bread|rolls|scones?)\b/,
    variants: [v('dairy free', /\b(dairy free|vegan|plant based)\b/), v('parmesan', /\b(parmesan|parmigiano|grana)\b/), v('mozzarella', /\bmozzarella\b/), v('pizza blend', /\b(pizza|melty|blend|italian|mexican|trio|three)\b/),
      v('tasty', /\btasty\b/), v('colby', /\bcolby\b/), v('edam', /\bedam\b/), v('cheddar', /\b(cheddar|mild)\b/)], defaultVariant: 'other' },
  { slug: 'cheese', label: 'Cheese', compareUnit: 'kg',
    pattern: /\b(cheddar|colby|edam|tasty|mild|vintage|smoked|aged|extra mature|mature|noble|epicure|gouda)\b.*\bcheese\b|\bcheese\b.*\b(block|cheddar|colby|edam|tasty|mild|vintage|lactose free|smoked|aged|noble|epicure)\b|\bcheese (tasty|mild|colby|edam)\b|\bcheddar (cheese|block|tasty|mild|vintage)\b/,
    exclude: /\b(pie|sauce|crackers?|biscuits?|snacks?|scone|bread|dip|rolls|sticks?|slices|sliced|grated|shredded|cream cheese|cottage|puffs|pops|balls|chips|twists|corn|pasta|macaroni|mac|pizza|toastie|bites|burger|sausages?|kransky|frankfurters|salami|savouries|pinwheel|scrolls|straws|twists|dog|cat|bagels|muffins?|stackers|swirl|croissants?|pasties|wraps|spread|platter|sheep|goats?|red leicester)\b/,
    variants: [v('mozzarella', /\bmozzarella\b/), v('gouda', /\bgouda\b/), v('tasty', /\btasty\b/), v('colby', /\bcolby\b/), v('edam', /\bedam\b/), v('mild', /\bmild\b/), v('vintage', /\b(vintage|aged|extra mature|mature|epicure|noble)\b/), v('smoked', /\bsmoked\b/)],
    defaultVariant: 'cheddar' },
  { slug: 'mozzarella', label: 'Mozzarella and fresh cheese', compareUnit: 'kg', pattern: /\b(mozzarella|bocconcini|burrata|fiordilatte|fior di latte|stracciatella)\b/,
    exclude: /\b(sticks|pizza|pasta|ravioli|gnocchi|chicken|crumbed|arancini|bread|garlic|pops|bites|tortellini|mezzelune|balls crumbed)\b/ },
  { slug: 'feta', label: 'Feta and halloumi', compareUnit: 'kg', pattern: /\b(feta|halloumi|haloumi)\b/, exclude: /\b(dip|pastry|spinach and feta|feta and spinach|pie|rolls?|filo|sausages?|chicken|salad|crackers|beetroot and feta|sundried|tortellini|ravioli|fresh pasta)\b/,
    variants: [v('halloumi', /\b(halloumi|haloumi)\b/), v('feta', /./)] },
  { slug: 'parmesan', label: 'Parmesan and hard cheese', compareUnit: 'kg', pattern: /\b(parmesan|parmigiano|grana padano|pecorino|romano cheese)\b/,
    exclude: /\b(crackers|chips|bagels?|bread|sauce|dressing|pasta|tortellini|chicken|crumbed|oat|puffs|garlic|wafers?|bites)\b/, variants: [v('powder', /\bpowder\b/)], defaultVariant: 'block' },
  { slug: 'soft-cheese', label: 'Brie and camembert', compareUnit: 'kg', pattern: /\b(brie|camembert)\b/, exclude: /\b(crackers|chicken|cranberry and brie|pie|bites|pastry)\b/,
    variants: [v('brie', /\bbrie\b/), v('camembert', /./)] },
  { slug: 'blue-cheese', label: 'Blue cheese', compareUnit: 'kg', pattern: /\bblue cheese\b|\b(gorgonzola|danablu|stilton|roquefort|blue vein)\b/, exclude: /\b(dressing|sauce|dip|chips|crackers)\b/ },
  { slug: 'goat-cheese', label: 'Goat and sheep cheese', compareUnit: 'kg', pattern: /\b(goats?|sheep|sheeps) cheese\b|\bchevre\b|\bcheese\b.*\b(goat|sheep)\b/, exclude: /\b(milk|soap|crackers)\b/ },
  { slug: 'deli-cheese', label: 'Specialty cheese', compareUnit: 'kg',
    pattern: /\b(havarti|gruyere|emmental|swiss cheese|jarlsberg|manchego|raclette|provolone|red leicester|wensleydale|double gloucester|leerdammer|maasdam|tilsit|port salut|comte|deli cheese|cheese wheel|cheese platter|platter selection|st paulin|canterbury red|airedale|barrys bay|whitestone|cheese truckle|smoked cheese|cheese wedge)\b/,
    exclude: /\b(crackers|chips|bread|sauce|dip|slices|sliced|grated|shredded|pie|rolls|scones?|pasta)\b/,
    variants: [v('havarti', /\bhavarti\b/), v('gouda', /\bgouda\b/), v('gruyere and swiss', /\b(gruyere|emmental|swiss|jarlsberg|leerdammer|maasdam|comte|raclette)\b/), v('platter', /\b(platter|trio|selection)\b/)],
    defaultVariant: 'other' },
  { slug: 'dairy-free-cheese', label: 'Dairy-free cheese', compareUnit: 'kg', pattern: /\b(dairy free|vegan|plant based)\b.*\bcheese\b|\bcheese\b.*\b(dairy free|vegan|alternative)\b|\bvioife\b|\bnotzarella\b/,
    exclude: /\b(crackers|chips|pizza|sauce|pasta|lasagne|dip|cream cheese|slices)\b/ },
  { slug: 'yoghurt', label: 'Yoghurt', compareUnit: 'kg', pattern: /\b(yogh?urts?|yoghurt|yogurt|kefir|skyr|dairy dessert yoghurt)\b/,
    exclude: /\b(coated|covered|bars?|bites|raisins|topped|drops|buttons|chips|muesli|granola|cereal|biscuits?|cookies?|snacks? balls|melts|dog|cat|baby food|months|frozen|ice cream|frozen dessert|dip|dressing|base|maker|culture|starter|sauce|tzatziki|powder|chicken|marinade|lollies|clusters|freeze dried|berries yoghurt bites|easiyo)\b/,
    variants: [v('dairy free', /\b(coconut|dairy free|soy|oat|almond|plant based|vegan)\b/), v('drinking', /\b(drinking|drink|pourable|kefir|smoothie|bottle)\b/), v('kids', /\b(kids|squeezie|suckies|pouch|pouches|petit|frubes|calci yum|uno)\b/), v('protein', /\bprotein\b/), v('greek', /\b(greek|skyr)\b/),
      v('natural', /\b(natural|plain|unsweetened)\b/), v('flavoured', /./)] },
  { slug: 'yoghurt-base', label: 'Yoghurt bases', compareUnit: 'kg', pattern: /\byogh?urt (base|mix|maker)\b|\beasiyo\b/, exclude: /\b(maker machine)\b/ },
  { slug: 'eggs', label: 'Eggs', compareUnit: 'each', pattern: /\beggs\b/, exclude: /\b(chocolate|easter|noodles|pasta|cadbury|creme|mini eggs|egg free|substitute|replacer|poached|boiled|scrambled|sandwich|pie|custard|dog|cat|seasoning|sprinkle)\b/,
    variants: [v('free range', /\b(free range|organic|pasture)\b/), v('barn', /\bbarn\b/), v('cage', /\bcage\b/)] },
  { slug: 'tofu', label: 'Tofu and tempeh', compareUnit: 'kg', pattern: /\b(tofu|tempeh|bean curd|seitan)\b/, exclude: /\b(sausages?|burgers?|patties|dumplings|noodles|ready meal|rice bowl|soup)\b/,
    variants: [v('tempeh', /\btempeh\b/), v('flavoured', /\b(teriyaki|sweet and sour|bbq|satay|marinated|flavoured|smoked|chilli|puffs|fried|honey soy|soy)\b/), v('plain', /./)] },
  { slug: 'fresh-pasta', label: 'Fresh pasta and gnocchi', compareUnit: 'kg', pattern: /\b(ravioli|tortellini|tortelloni|gnocchi|mezzelune|agnolotti|fresh pasta|cappelletti)\b/, exclude: /\b(sauce|meal|meals|ready meal|dog|cat)\b/,
    variants: [v('gnocchi', /\bgnocchi\b/), v('filled', /\b(ravioli|tortellini|tortelloni|mezzelune|agnolotti|cappelletti)\b/)], defaultVariant: 'plain' },
  { slug: 'pastry', label: 'Pastry', compareUnit: 'kg', pattern: /\bpastry\b|\bfilo\b|\bwonton wrappers\b|\bspring roll wrappers\b|\bdumpling wrappers\b/, exclude: /\b(pie|pies|tarts?|danish|cream|brush|mix|cutter|rolling|selection)\b/,
    variants: [v('puff', /\bpuff\b/), v('short', /\b(short|savoury|sweet)\b/), v('filo', /\bfilo\b/), v('wrappers', /\b(wrappers|spring roll|dumpling|wonton)\b/)], defaultVariant: 'other' },
  // Meat, poultry and fish: processed forms, then cuts.
  { slug: 'plant-based-mince', label: 'Plant-based mince', compareUnit: 'kg', pattern: /\b(plant based|meat alternative|vegan|vegetarian|meat free)\b.*\bmince\b|\bmince alternative\b/ },
  { slug: 'plant-based-meat', label: 'Plant-based meat', compareUnit: 'kg', pattern: /\b(plant based|meat alternative|plan t|vegan|vegetarian|meat free|meatless|vegie delights)\b.*\b(mince|chicken|chick n|sausages?|burgers?|patties|nuggets|schnitzels?|bacon|hot dogs?|chorizo|meatballs|strips|pieces|roast|mince beef)\b|\b(chick n|not chicken|no chicken|mince alternative)\b|\bfry s\b|\bplan t\b/,
    exclude: /\b(lasagne|ready meal|rice bowl|butter chicken|pie)\b/, variants: [v('sausages', /\b(sausages?|hot dogs?|chorizo)\b/), v('burgers', /\b(burgers?|patties)\b/)], defaultVariant: 'other' },
  { slug: 'chicken-crumbed', label: 'Crumbed and coated chicken', compareUnit: 'kg',
    pattern: /\bchicken\b.*\b(nuggets|tenders|strips|schnitzels?|pops|bites|popcorn|kievs?|cordon bleu|crumbed|battered|crispy|southern|hot and spicy|fillets crispy|chippies|dippers|fries|goujons|karaage|wings crumbed|poppers)\b|\b(nuggets|chicken pops)\b/,
    exclude: /\b(dog|cat|treats?|plant based|vegan|vegetarian|meat free|noodles|chips|crackers|soup|stock|salt|seasoning|recipe base|sauce|ready meal|frozen meal|pie|wrap|burrito|rice|pasta|pizza|salad|sandwich)\b/ },
  { slug: 'chicken-cooked', label: 'Cooked chicken', compareUnit: 'kg',
    pattern: /\bchicken\b.*\b(shredded|shaved|sliced|cooked|roast chicken|smoked|rotisserie|pulled|luncheon|meal maker|precooked)\b|\b(roast|smoked|shredded|shaved|cooked|sliced)\b.*\bchicken\b/,
    exclude: /\b(dog|cat|treats?|sausages?|noodles|chips|crackers|soup|stock|salt|seasoning|recipe base|sauce|ready meal|frozen meal|pie|wrap|burrito|rice|pasta|pizza|salad|sandwich|flavour|flavoured|canned|oven ready|whole)\b/ },
  { slug: 'burger-patties', label: 'Burger patties', compareUnit: 'kg', pattern: /\b(burgers?|patties|quarter pounder|sliders|rissoles)\b/,
    exclude: /\b(sauce|buns?|rolls|seasoning|relish|rings|cheese slices|pickles|dog|cat|sliders? buns|brioche|kit|mayo|mayonnaise|ketchup|mix)\b/,
    variants: [v('beef', /\bbeef\b/), v('chicken', /\bchicken\b/)], defaultVariant: 'other' },
  { slug: 'meatballs', label: 'Meatballs', compareUnit: 'kg', pattern: /\bmeatballs\b/, exclude: /\b(recipe base|sauce|seasoning|spaghetti|pasta|mix)\b/, variants: [v('beef', /\bbeef\b/)], defaultVariant: 'other' },
  { slug: 'frankfurters', label: 'Frankfurters and saveloys', compareUnit: 'kg', pattern: /\b(frankfurters?|saveloys?|cheerios sausages|cheerios|hot dogs?|kransky|kranskies|cocktail sausages|rookworst|bratwurst|wieners|franks)\b/,
    exclude: /\b(cereal|rolls|buns|dog food|dog treats|oats|wholegrain|honey nut)\b/ },
  { slug: 'sausages', label: 'Sausages', compareUnit: 'kg', pattern: /\bsausages?\b|\bsausage meat\b|\bboerewors\b|\bbangers\b/,
    exclude: /\b(rolls?|sauce|casings|seasoning|mix|recipe base|dog|cat|pie|pizza)\b/,
    variants: [v('precooked', /\b(precooked|pre cooked|cooked)\b/), v('beef', /\bbeef\b/), v('pork', /\bpork\b/), v('chicken', /\bchicken\b/), v('lamb', /\blamb\b/)], defaultVariant: 'other' },
  { slug: 'bacon', label: 'Bacon', compareUnit: 'kg', pattern: /\bbacon\b/,
    exclude: /\b(chips|crackers|flavour|flavoured|bits|pie|quiche|pizza|sauce|seasoning|dip|rolls|pasta|meal|potato|sausages?|egg pie|chicken bacon|cheese and bacon|bacon and cheese|hocks?|dog|cat|treats?|plant based|vegan|soup|mac|savouries|pinwheel|beggin|grillsticks|beef)\b/,
    variants: [v('streaky', /\bstreaky\b/), v('middle', /\b(middle|rashers|eye|rindless|short cut|shortcut)\b/), v('shoulder', /\bshoulder\b/), v('diced', /\b(diced|pieces|bits|lardons)\b/)], defaultVariant: 'other' },
  { slug: 'ham', label: 'Ham', compareUnit: 'kg', pattern: /\bham\b|\bbacon hocks?\b|\bham hocks?\b/,
    exclude: /\b(pizza|pineapple|cheese and ham|ham and cheese|croissants?|swirl|sandwich|pie|quiche|soup|pea and ham|rolls|pasta|dog|cat|hamburger|gingham|graham|chatham|durham|cheltenham|ham and chicken|chicken and ham|luncheon)\b/,
    variants: [v('hocks', /\bhocks?\b/), v('shaved', /\b(shaved|sliced|slices|thin)\b/), v('whole or half', /\b(whole|half|boneless|bone in|leg ham|champagne ham|christmas)\b/)], defaultVariant: 'other' },
  { slug: 'salami', label: 'Salami and cured meats', compareUnit: 'kg',
    pattern: /\b(salami|pepperoni|chorizo|prosciutto|pastrami|mortadella|cabanossi|coppa|bresaola|jamon|serrano|speck|pancetta|biltong sticks|kabana|csabai|bierstick)\b/,
    exclude: /\b(pizza|cheese and crackers|stackers|pasta|sausages?|sauce|seasoning|chips|crackers|plant based|meat alternative|flavour|soup|scrolls|rolls|mince)\b/,
    variants: [v('salami', /\b(salami|pepperoni|kabana|csabai|cabanossi|bierstick)\b/), v('chorizo', /\bchorizo\b/), v('prosciutto', /\b(prosciutto|jamon|serrano|speck|coppa|bresaola|pancetta)\b/)], defaultVariant: 'other' },
  { slug: 'luncheon', label: 'Luncheon and sliced meats', compareUnit: 'kg', pattern: /\b(luncheon|corned silverside|hot pork|pressed beef|roast beef sliced|beef sliced|silverside sliced|chicken roll|continental roll|ham sausage|sliced beef|pate|pâte|terrine|meatloaf|cold meats|deli meats|shaved beef|beef shaved|shaved turkey|turkey shaved|sliced turkey|turkey breast sliced)\b/,
    exclude: /\b(pizza|sandwich|dog|cat|pasta|brisket)\b/, variants: [v('pate', /\b(pate|terrine)\b/)], defaultVariant: 'sliced' },
  { slug: 'mixed-mince', label: 'Pork and beef mince', compareUnit: 'kg', pattern: /\bpork\b.*\bbeef\b.*\bmince\b|\bbeef\b.*\bpork\b.*\bmince\b/ },
  { slug: 'beef-mince', label: 'Beef mince', compareUnit: 'kg', pattern: /\bbeef\b.*\bmince\b|\bmince\b.*\bbeef\b|\bminced beef\b/,
    exclude: /\b(pork|lamb|chicken|pie|pies|savouries|plant based|impossible|meat alternative|cheese|recipe|seasoning|dog|cat)\b/,
    variants: [v('wagyu', /\bwagyu\b/), v('extra lean', /\b[1-5] fat\b/), v('lean', /\b([6-9]|10) fat\b/), v('prime', /\b(prime|1[1-5] fat)\b/),
      v('premium', /\bpremium\b/)] },
  { slug: 'other-mince', label: 'Mince, other meats', compareUnit: 'kg', pattern: /\b(lamb|pork|chicken|venison|turkey)\b.*\bmince\b|\bmince\b.*\b(lamb|pork|chicken|venison|turkey)\b/,
    exclude: /\b(pie|pies|savouries|plant based|seasoning|dog|cat|dumplings|wontons|sausages?)\b/,
    variants: [v('lamb', /\blamb\b/), v('pork', /\bpork\b/), v('chicken', /\bchicken\b/), v('venison', /\bvenison\b/)], defaultVariant: 'other' },
  { slug: 'beef-diced', label: 'Beef, diced or stir-fry', compareUnit: 'kg', pattern: /\b(diced beef|stir fry beef|beef stir fry|beef diced|beef stir|diced chuck|casserole beef|gravy beef|beef strips)\b/, exclude: /\b(sauce|seasoning|recipe|meal|noodles|dog|cat|pie)\b/ },
  { slug: 'beef-brisket', label: 'Beef brisket', compareUnit: 'kg', pattern: /\bbrisket\b/, exclude: /\b(burgers?|patties|pie|mash|meal|sauce|pulled brisket|sliders)\b/ },
  { slug: 'beef-steak', label: 'Beef steak', compareUnit: 'kg',
    pattern: /\bbeef\b.*\b(steaks?|scotch fillet|eye fillet|sirloin|rump|porterhouse|t bone|rib eye|ribeye|fillet|medallions|schnitzel|blade|chuck|flat iron|skirt|tenderloin|sizzle|osso bucco|shin)\b|\b(scotch fillet|eye fillet|sirloin|porterhouse|t bone|rib eye|ribeye|rump steak|blade steak|chuck steak|beef schnitzel)\b/,
    exclude: /\b(pie|pies|sauce|seasoning|jerky|dog|cat|noodles|chips|stock|soup|burgers?|patties|sausages?|lamb|pork|venison|chicken|meal|gravy)\b/,
    variants: [v('scotch fillet', /\b(scotch|rib eye|ribeye)\b/), v('eye fillet', /\b(eye fillet|tenderloin)\b/), v('sirloin', /\b(sirloin|porterhouse|t bone)\b/), v('rump', /\brump\b/),
      v('schnitzel', /\b(schnitzel|tenderised)\b/), v('casserole', /\b(blade|chuck|shin|osso bucco|gravy)\b/)], defaultVariant: 'other' },
  { slug: 'beef-roast', label: 'Beef roasts and ribs', compareUnit: 'kg', pattern: /\bbeef\b.*\b(roast|bolar|silverside|topside|ribs|short ribs|corned)\b|\bcorned beef\b|\bcorned silverside\b/,
    exclude: /\b(canned|can|tin|sliced|thin sliced|sauce|seasoning|chips|stock|soup|pie|sandwich|dog|cat|hash)\b/, variants: [v('corned', /\b(corned|silverside)\b/), v('ribs', /\bribs\b/)], defaultVariant: 'roast' },
  { slug: 'lamb', label: 'Lamb cuts', compareUnit: 'kg', pattern: /\blamb\b/,
    exclude: /\b(mince|sausages?|burgers?|patties|pie|pies|sauce|gravy|seasoning|stock|dog|cat|kitten|puppy|treats?|chips|soup|meal|casserole|curry|korma|rogan|kebab meat|doner|grill sticks|lettuce|lambs lettuce|baby food|months|beef and lamb)\b/,
    variants: [v('chops', /\b(chops|cutlets|loin chops|forequarter)\b/), v('leg', /\bleg\b/), v('shoulder', /\bshoulder\b/), v('rack', /\brack\b/), v('shanks', /\bshanks?\b/),
      v('steaks and fillets', /\b(steaks?|fillets?|medallions|rumps?|backstrap|loin)\b/), v('diced', /\b(diced|stir fry|strips)\b/), v('ribs', /\b(ribs|riblets|spare ribs)\b/)], defaultVariant: 'other' },
  { slug: 'pork', label: 'Pork cuts', compareUnit: 'kg', pattern: /\bpork\b/,
    exclude: /\b(mince|sausages?|sausage|burgers?|patties|pie|pies|sauce|gravy|seasoning|stock|dog|cat|treats?|chips|crackling snack|soup|meal|dumplings|buns|bao|wontons|pate|luncheon|meatballs|noodles|ramen|rolls|spring rolls|sweet and sour pork|salami|chorizo|pulled pork sauce|beef and pork|pork and beef|hot pork|rinds|crackle|scratchings|char siu sauce|heat and eat|casserole|canned|dinners|chili|crispy|porky|siu mai|shaved)\b/,
    variants: [v('belly', /\bbelly\b/), v('chops', /\bchops\b/), v('steaks', /\b(steaks?|schnitzel|medallions|loin steaks)\b/), v('ribs', /\bribs\b/), v('roast', /\b(roast|leg|shoulder|loin|fillet|rack|hock)\b/),
      v('diced', /\b(diced|stir fry|strips|slices)\b/), v('pulled', /\bpulled\b/)], defaultVariant: 'other' },
  { slug: 'chicken', label: 'Chicken', compareUnit: 'kg', pattern: /\bchicken\b|\bdrumsticks\b|\bpoussin\b/,
    exclude: /\b(dog|cat|kitten|puppy|treats?|noodles|chips|crackers|soup|stock|salt|seasoning|recipe base|sauce|gravy|ready meal|chilled meal|frozen meal|meal|pie|pies|wrap|burrito|rice|pasta|pizza|salad|sandwich|flavour|flavoured|canned|sausages?|nuggets|tenders|mince|burgers?|patties|schnitzels? crumbed|kiev|samosas?|dumplings|spring rolls|luncheon|pate|stuffing|curry|butter chicken|tikka|korma|satay|laksa|bites|pops|popcorn|broth|feed|cordon|fried rice|quiche|sushi|bone broth|plant based|chick n|biscuits|in gravy|livers|frames|necks|frozen chicken meal|bacon|bowl|poppers|sliced|shredded|shaved|buns|take outs)\b/,
    variants: [v('whole', /\b(whole|butterfly|butterflied|oven ready|size \d+|poussin)\b/), v('breast', /\bbreasts?\b/), v('thigh', /\bthighs?\b/), v('drumsticks', /\bdrumsticks?\b/), v('wings', /\b(wings|nibbles)\b/),
      v('tenderloins', /\btenderloins?\b/), v('legs', /\blegs?\b/), v('diced', /\b(diced|stir fry|strips|pieces|kebabs?)\b/)], defaultVariant: 'other' },
  { slug: 'game-meat', label: 'Venison, duck and other meats', compareUnit: 'kg', pattern: /\b(venison|duck|turkey|goat|rabbit|veal|hare|quail|kangaroo|offal|livers?|kidneys|tripe)\b/,
    exclude: /\b(dog|cat|treats?|sauce|pate|sausages?|mince|burgers?|patties|chips|fat|rendered|flavour|duck sauce|shaved|sliced|luncheon|bacon|crispy duck pancakes|cranberry sauce|ham|kids|soup|cod)\b/, shelf: /^(meat|fridge|frozen|chilled|deli|butcher|poultry|fish)/,
    variants: [v('venison', /\bvenison\b/), v('duck', /\bduck\b/), v('turkey', /\bturkey\b/)], defaultVariant: 'other' },
  { slug: 'smoked-salmon', label: 'Smoked salmon', compareUnit: 'kg', pattern: /\bsmoked salmon\b|\bsalmon\b.*\bsmoked\b/, exclude: /\b(dip|pate|spread|cream cheese|bagels?|sushi|pasta|cat|dog)\b/,
    variants: [v('hot smoked', /\bhot\b/), v('cold smoked', /./)] },
  { slug: 'fish-crumbed', label: 'Crumbed and battered fish', compareUnit: 'kg', pattern: /\bfish (fingers|bites|cakes|burgers|nuggets)\b|\b(crumbed|battered|beer battered|panko|crispy|southern fried)\b.*\b(fish|hoki|basa|snapper|cod|tarakihi|gurnard|fillets|tenders|calamari|squid|prawns|scallops)\b|\bfish\b.*\b(crumbed|battered)\b|\bfillet tenders\b/,
    exclude: /\b(dog|cat|chicken|sauce|seasoning|chips|fish and chips)\b/ },
  { slug: 'salmon', label: 'Salmon', compareUnit: 'kg', pattern: /\bsalmon\b/, exclude: /\b(dog|cat|kitten|treats?|dip|pate|spread|cream cheese|bagels?|sushi|pasta|canned|pink|red|sockeye|in springwater|rice crackers|chips|flavour|oil capsules|omega|fish oil|skewers)\b/, shelf: /^(meat|fridge|frozen|chilled|deli|fish|seafood)/,
    variants: [v('fillets', /\b(fillets?|portions|steaks?|diced|sashimi|pieces)\b/), v('whole', /\b(whole|side)\b/), v('heads and frames', /\b(heads|frames)\b/)], defaultVariant: 'other' },
  { slug: 'fish-fillets', label: 'Fish fillets', compareUnit: 'kg', pattern: /\b(fish fillets?|fillets? fish|fish pieces|fish portions|fish steaks?|hoki|basa|snapper|tarakihi|gurnard|terakihi|trevally|moki|blue cod|deep sea cod|john dory|kahawai|tilapia|barramundi|lemon fish|warehou|monkfish|orange roughy|white fish|whitefish)\b/,
    exclude: /\b(dog|cat|kitten|treats?|sauce|seasoning|chips|oil|pie|cakes|fingers|crumbed|battered|stock|skewers|sushi|smoked)\b/, variants: [v('frozen', /\bfrozen\b/), v('fresh', /./)] },
  { slug: 'prawns', label: 'Prawns and shellfish', compareUnit: 'kg', pattern: /\b(prawns?|shrimps?|mussels|oysters?|scallops|squid|calamari|crab|crayfish|lobster|clams|tuatua|pipi|octopus|seafood mix|marinara mix|surimi|seafood sticks|crab sticks)\b/,
    exclude: /\b(dog|cat|sauce|oyster sauce|chips|crackers|crackers prawn|prawn crackers|noodles|soup|seasoning|dumplings|wontons|stock|dip|smoked|canned|crumbed|battered|salt and pepper|sushi|laksa|cocktail sauce|fried rice|pasta)\b/,
    variants: [v('prawns', /\b(prawns?|shrimps?)\b/), v('mussels', /\bmussels\b/), v('oysters', /\boysters?\b/), v('squid', /\b(squid|calamari|octopus)\b/)], defaultVariant: 'other' },
  // Pasta, rice, grains, flour and baking.
  { slug: 'spaghetti', label: 'Spaghetti', compareUnit: 'kg', pattern: /\bspaghetti\b/,
    exclude: /\b(sauce|bolognese|meatballs|canned|squash|ready meal|meal|hoops|rings|tomato|cheese)\b/,
    variants: [v('gluten free', /\b(gluten free|quinoa|pulse|rice|corn)\b/), v('wholemeal', /\b(wholemeal|wholewheat)\b/), v('egg', /\begg\b/),
      v('high protein', /\bprotein\b/)] },
  { slug: 'pasta', label: 'Pasta, dried', compareUnit: 'kg',
    pattern: /\b(pasta|penne|fettuccine|fettucine|spirals|elbows?|trivelle|macaroni|fusilli|rigatoni|linguine|tagliatelle|pappardelle|farfalle|orzo|risoni|conchiglie|shells|angel hair|spaghettini|bucatini|lasagne sheets|lasagna sheets|cannelloni tubes|vermicelli pasta|casarecce|orecchiette|tortiglioni|rotini|bows|ziti|gemelli|paccheri|gigli|risoni|lumache|instant lasagne)\b/,
    exclude: /\b(sauce|bake|meal|ready meal|chilled|fresh|salad|dog|cat|pasta and|soup|sides|kit|spoon|bowl|maker|scoop|quick|cup|snack|chicken|beef|cheese|bolognese|carbonara|primavera|ravioli|tortellini|gnocchi|mac)\b/,
    variants: [v('gluten free', /\b(gluten free|rice|corn|pulse|lentil|chickpea|quinoa|legume)\b/), v('penne', /\bpenne\b/), v('spirals', /\b(spirals|fusilli|trivelle|rotini)\b/), v('fettuccine', /\b(fettuccine|fettucine|tagliatelle|pappardelle|linguine)\b/), v('elbows', /\b(elbows?|macaroni)\b/),
      v('shells', /\b(shells|conchiglie)\b/), v('lasagne', /\blasagne|lasagna\b/), v('risoni', /\b(risoni|orzo)\b/), v('rigatoni', /\b(rigatoni|tortiglioni)\b/), v('bows', /\b(farfalle|bows)\b/)], defaultVariant: 'other' },
  { slug: 'microwave-rice', label: 'Microwave rice', compareUnit: 'kg', pattern: /\b(microwave rice|rice microwave|rice pouch|rice cups?|express rice|quick cook rice|rice 2 go|rice pot|steamed rice)\b|\bmicrowave\b.*\brice\b/, exclude: /\b(pudding|creamed|cereal)\b/ },
  { slug: 'rice', label: 'Rice', compareUnit: 'kg', pattern: /\brice\b/,
    exclude: /\b(crackers?|cakes?|milk|noodles|bran|vinegar|paper|pudding|creamed|snacks?|chips|crisps|bubbles|puffs|puffed|flour|wine|cereal|risotto|sauce|fried rice|meal|bowl|rice and|and rice|chilled|frozen|dog|cat|baby|months|wafers|thins|wheels|crispies|rice crispies|malt|syrup|straws|sushi|dessert|seasoning|mix|kit|ready|pot|cooker|rice bran oil|oil|sides?|salad|vermicelli|paper rolls|pops|dumplings|spring rolls|curry|stick|porridge)\b/,
    variants: [v('jasmine', /\bjasmine\b/), v('basmati', /\bbasmati\b/), v('brown', /\bbrown\b/), v('arborio', /\b(arborio|risotto|carnaroli)\b/), v('sushi', /\b(sushi|calrose|medium grain)\b/), v('long grain', /\blong grain\b/), v('wild', /\bwild\b/)],
    defaultVariant: 'white' },
  { slug: 'grains', label: 'Grains and pulses, dried', compareUnit: 'kg', pattern: /\b(quinoa|couscous|bulgur|burghul|pearl barley|barley|polenta|freekeh|millet|buckwheat|semolina|tapioca|sago|amaranth|cornmeal)\b/,
    exclude: /\b(flour|crackers|chips|bread|salad|bars?|cereal|pasta|spaghetti|biscuits?|puffs|muesli|granola|malt|sugar|barley sugar|tea|water|drink|mix|snacks?|syrup|rice)\b/ },
  { slug: 'flour', label: 'Flour', compareUnit: 'kg', pattern: /\bflour\b|\bcornflour\b|\bcorn flour\b|\barrowroot\b|\bgluten free baking mix\b/,
    exclude: /\b(tortillas?|wraps|bread|biscuits?|arrowroot biscuits|mix|cookies?|cake|pasta|noodles|crackers)\b/,
    variants: [v('self raising', /\bself raising\b/), v('high grade', /\b(high grade|bread flour|strong)\b/), v('wholemeal', /\bwholemeal\b/), v('cornflour', /\b(cornflour|corn flour|cornmeal)\b/),
      v('gluten free', /\b(gluten free|rice|almond|coconut|buckwheat|chickpea|tapioca|arrowroot)\b/), v('plain', /\b(plain|standard|all purpose|standard grade)\b/)], defaultVariant: 'other' },
  { slug: 'sugar-substitute', label: 'Sweeteners', compareUnit: 'kg', pattern: /\b(sugar substitute|sweetener|stevia|sugar replacement|erythritol|monk fruit|xylitol|equal|splenda|natvia|canderel|sucralose)\b/,
    exclude: /\b(chewing gum|gum|drink|soft drink|chocolate|lollies|yogh?urt|protein)\b/ },
  { slug: 'sugar', label: 'Sugar', compareUnit: 'kg', pattern: /\bsugar\b/,
    exclude: /\b(sugar free|no sugar|no added sugar|reduced sugar|less sugar|low sugar|less added sugar|zero sugar|sugar snap|barley sugar|sugar coated|sugars|sugar cookies?|sugar substitute|sweetener|drink|soft drink|chewing gum|gum|lollies|sweets|jelly|cereal|syrup|scrub|wax|lip|soap|tea|coffee|donuts?|cinnamon sugar doughnut|sugar bowl|sugar plum|snap peas|sugar snaps|brown sugar bubble|bubble tea|candy|sprinkles|sugar cane juice|dairy|chocolate|bars?|ice|biscuits?|cookies?|yogh?urt|jam|sauce|oats|cake)\b/,
    variants: [v('white', /\b(white|granulated)\b/), v('raw', /\braw\b/), v('brown', /\bbrown\b/), v('caster', /\bcaster\b/), v('icing', /\bicing\b/), v('coconut', /\bcoconut\b/), v('cubes', /\bcubes\b/), v('demerara', /\bdemerara\b/)],
    defaultVariant: 'other' },
  { slug: 'syrup', label: 'Syrups and toppings', compareUnit: 'kg', pattern: /\b(golden syrup|maple syrup|maple flavoured syrup|pancake syrup|treacle|agave|rice malt syrup|date syrup|topping|ice cream sauce|dessert sauce|caramel sauce|chocolate sauce|fudge sauce|coffee syrup|flavoured syrup)\b/,
    exclude: /\b(cough|salad topper|salad toppers|pizza topping|soda|cordial|fruit syrup|in syrup|lozenges?|bars?|biscuits?)\b/,
    variants: [v('maple', /\bmaple\b/), v('golden', /\b(golden|treacle)\b/), v('coffee', /\bcoffee syrup\b/), v('topping', /\b(topping|sauce)\b/)], defaultVariant: 'other' },
  { slug: 'baking-ingredients', label: 'Baking ingredients', compareUnit: 'kg',
    pattern: /\b(baking powder|baking soda|bicarbonate of soda|bicarb soda|cream of tartar|yeast|gelatine|gelatin|agar|vanilla (essence|extract|paste|bean)|essence|food colou?ring|sprinkles|hundreds and thousands|icing|frosting|glace cherries|custard powder|cornflour|breadcrumbs|bread crumbs|panko|baking cups|citric acid|edmonds|pectin|jamsetta|marzipan|fondant|meringue mix|cake decorations?|almond meal|ground almonds|hazelnut meal)\b/,
    exclude: /\b(yeast spread|vegemite|marmite|nutritional yeast flakes|savoury flakes|coffee|cake(s)?$|iced|donuts?|biscuits?|cupcakes?|buns|bun|cereal|flour|mix|muffins?|sprinkles seeds|salad)\b/,
    variants: [v('baking powder and soda', /\b(baking powder|baking soda|bicarbonate|bicarb|cream of tartar)\b/), v('yeast', /\byeast\b/), v('decorations', /\b(sprinkles|hundreds|colou?ring|decorations?|fondant|icing|frosting|marzipan)\b/),
      v('essence and extract', /\b(essence|extract|vanilla)\b/), v('breadcrumbs', /\b(breadcrumbs|bread crumbs|panko)\b/)], defaultVariant: 'other' },
  { slug: 'breakfast-cereal', label: 'Breakfast cereal', compareUnit: 'kg',
    pattern: /\b(cereal|cornflakes|corn flakes|weet ?bix|weetbix|nutri ?grain|rice bubbles|cheerios cereal|bran flakes|all bran|sultana bran|special k|coco pops|froot loops|fruit loops|just right|light and right|crunchy nut|mini wheats|puffs cereal|vita brits|ricies|cocoa puffs|rice crispies)\b/,
    exclude: /\b(bars?|bites|snack|snacks|baby|months|liquid|drink|up and go|dog|cat|bowl|milk|pot)\b|\bcereal bars?\b/,
    variants: [v('wheat biscuits', /\b(weet ?bix|weetbix|vita brits)\b/), v('cornflakes', /\b(cornflakes|corn flakes)\b/), v('bran', /\bbran\b/), v('kids', /\b(coco|froot|fruit loops|rice bubbles|nutri ?grain|cocoa|chocolate|choc|milo)\b/)], defaultVariant: 'other' },
  { slug: 'muesli', label: 'Muesli and granola', compareUnit: 'kg', pattern: /\b(muesli|granola|clusters|toasted muesli|bircher)\b/,
    exclude: /\b(bars?|bites|slices?|balls|dog|cat|yogh?urt|cookies?|biscuits?|cereal bars?|protein bar|pots?)\b/, variants: [v('granola', /\b(granola|clusters)\b/), v('toasted', /\btoasted\b/), v('natural', /./)] },
  { slug: 'oats', label: 'Oats and porridge', compareUnit: 'kg', pattern: /\b(oats|porridge|oatmeal|rolled oats|quick oats|oat bran|wholegrain oats)\b/,
    exclude: /\b(milk|biscuits?|cookies?|bars?|slices?|crackers|bread|muesli|granola|cereal|bites|balls|dog|cat|baby|months|drink|yogh?urt|soap|bath|shampoo|lotion|body)\b/,
    variants: [v('sachets', /\b(sachets?|quick sachets|instant|cups?|pots?|flavoured)\b/), v('quick', /\bquick\b/), v('rolled', /./)] },
  { slug: 'dried-herbs', label: 'Dried herbs', compareUnit: 'kg',
    pattern: /\b(mixed herbs|herbs mixed|herb blend|italian herbs|flaked leaves|parsley flakes|parsley rubbed|lightly dried)\b/,
    variants: [v('mixed', /\b(mixed|blend|italian herbs)\b/), v('basil', /\bbasil\b/), v('oregano', /\boregano\b/), v('parsley', /\bparsley\b/),
      v('coriander', /\bcoriander\b/), v('rosemary', /\brosemary\b/), v('thyme', /\bthyme\b/), v('chilli', /\bchilli\b/)], defaultVariant: 'other' },
  { slug: 'spices', label: 'Herbs and spices, dried', compareUnit: 'kg',
    pattern: /\b(ground|whole)\b.*\b(cumin|coriander|cinnamon|ginger|turmeric|paprika|nutmeg|cloves|cardamom|pepper|allspice|fennel|mustard|chilli|cayenne|black pepper|white pepper|mixed spice)\b|\b(cumin|coriander|turmeric|paprika|nutmeg|cloves|cardamom|allspice|cayenne|fenugreek|star anise|garam masala|mixed spice|curry powder|chilli powder|chilli flakes|chili powder|chilli crushed dried|peppercorns|black pepper|white pepper|bay leaves|sumac|saffron|cinnamon sticks|cinnamon ground|vanilla pods|five spice|5 spice|chinese five spice|ras el hanout|dukkah|za atar|zaatar|pepper grinder|pepper black|onion flakes|fennel seeds|cumin seeds|mustard seeds|caraway|celery salt|smoked paprika|lemon pepper|italian herbs|mixed herbs|herbs mixed|herb blend|flaked leaves|parsley flakes|parsley rubbed|lightly dried|dried (basil|oregano|parsley|thyme|rosemary|mint|coriander|dill|tarragon|sage|chives|chilli))\b/,
    exclude: /\b(ground beef|ground coffee|coffee|tea|biscuits?|cookies?|chips|crackers|sauce|paste|fresh herb|fresh vegetable|living plant|cake|latte|chai|chocolate|bread|nuts|gum|drink|soft drink|ginger beer|ginger ale|sausages?|salami|bacon|chicken|beef|pork|lamb|fish|tuna|mussels|crushed|juice|squeezed)\b/,
    variants: [v('mixed herbs', /\b(mixed herbs|herbs mixed|herb blend|italian herbs)\b/), v('pepper', /\b(pepper|peppercorns)\b/), v('cinnamon', /\bcinnamon\b/), v('cumin', /\bcumin\b/), v('paprika', /\bpaprika\b/),
      v('turmeric', /\bturmeric\b/), v('curry powder', /\b(curry powder|garam masala)\b/), v('chilli', /\b(chilli|chili|cayenne)\b/), v('oregano', /\boregano\b/), v('parsley', /\bparsley\b/), v('basil', /\bbasil\b/)], defaultVariant: 'other' },
  { slug: 'salt', label: 'Salt', compareUnit: 'kg', pattern: /\b(iodised|iodized|sea|table|rock|himalayan|pink|flaky|cooking|kosher|celtic|fine|coarse|pure) salt\b|\bsalt (iodised|flakes|grinder|refill|cooking|table|fine|coarse|pink)\b|^(\w+ )?salt$|\bmaldon\b/,
    exclude: /\b(chips|crisps|crackers|snacks?|chocolate|caramel|salted|butter|nuts|peanuts|almonds|cashews|popcorn|pretzels|bath|scrub|spray|lozenges|cod|dishwasher|pork|beef|lamb|chicken|fish|seaweed|edamame|rice|corn|vinegar|pepper salt|pepper and salt|salt and pepper)\b/,
    variants: [v('sea salt', /\b(sea|flaky|flakes|maldon|celtic)\b/), v('himalayan', /\b(himalayan|pink)\b/), v('iodised', /\b(iodised|iodized|table)\b/)], defaultVariant: 'other' },
  { slug: 'seasoning-salt', label: 'Seasoning salt', compareUnit: 'kg', pattern: /\b(garlic|onion|celery|chicken|herb|seasoned|vegetable|chilli|lemon|steak|bbq|smoked|truffle|chip|chips|fries|rosemary) salt\b|\bsalt (blend|seasoning)\b|\bseasoning\b|\bseasoned salt\b|\ball purpose seasoning\b|\bspice rub\b|\brub\b/,
    exclude: /\b(no added salt|burgers?|sausages?|meatballs|patties|chips|crisps|crackers|snacks?|chicken breast|steak|wedges|fries|noodles|popcorn|wraps|nuts|peanuts|almonds|dishwasher|sauce|tofu|beef|pork|lamb|tuna|seaweed|rice|potato|peas|sprinkle)\b/,
    variants: [v('garlic and herb', /\bgarlic\b.*\bherb|\bherb\b.*\bgarlic\b/), v('garlic', /\bgarlic\b/), v('onion', /\bonion\b/), v('all purpose', /./)] },
  { slug: 'garlic-powder', label: 'Garlic powder', compareUnit: 'kg', pattern: /\bgarlic (powder|granules)\b/,
    variants: [v('granules', /\bgranules\b/), v('powder', /./)] },
  { slug: 'onion-powder', label: 'Onion powder', compareUnit: 'kg', pattern: /\bonion (powder|flakes)\b/ },
  { slug: 'garlic-ginger-paste', label: 'Crushed garlic and ginger', compareUnit: 'kg', pattern: /\bgarlic\b.*\bginger\b|\bginger\b.*\bgarlic\b/,
    exclude: /\b(ready meal|soup|sauce|chicken|beef|pork|noodles|dressing|marinade|dumplings|prawns|tea|chips|crackers)\b/ },
  { slug: 'crushed-garlic', label: 'Crushed garlic', compareUnit: 'kg', pattern: /\bgarlic\b.*\b(crushed|minced|paste)\b|\b(crushed|minced)\b.*\bgarlic\b/,
    exclude: /\b(sauce|chilli|chicken|beef|prawns|bread|butter|mayo|aioli|dip)\b/ },
  { slug: 'crushed-ginger', label: 'Crushed ginger', compareUnit: 'kg', pattern: /\bginger\b.*\b(crushed|minced|paste)\b|\b(crushed|minced)\b.*\bginger\b/ },
  { slug: 'crushed-chilli', label: 'Crushed chilli and herb pastes', compareUnit: 'kg', pattern: /\b(chilli|chili|lemongrass|coriander|basil|herb)\b.*\b(crushed|paste|minced)\b|\b(crushed|minced)\b.*\b(chilli|coriander|lemongrass)\b|\bsambal\b|\bharissa\b|\bgochujang\b/,
    exclude: /\b(sauce|chips|crackers|chicken|beef|curry paste|dip|tuna|flakes|dried|ground)\b/ },
  { slug: 'pickled-onions', label: 'Pickled onions', compareUnit: 'kg', pattern: /\b(pickled onions?|onions? pickled)\b/,
    variants: [v('cocktail', /\bcocktail\b/)] },
  { slug: 'oil', label: 'Cooking oil', compareUnit: 'l', pattern: /\boils?\b|\bcooking spray\b|\boil spray\b/,
    exclude: /\bin (extra virgin |olive |vege |vegetable |sunflower |canola )?oil\b|\b(essential|body|baby|hair|massage|bath|fish oil|cod liver|krill|omega|capsules|lamp|engine|beard|face|facial|argan|tea tree|clove oil|eucalyptus|evening primrose|diffuser|air freshener|candle|dressing|mayo|mayonnaise|spread|pizza bases?|tuna|sardines|salmon|mussels|anchovies|chips|crackers|crisps|wafers|bread|focaccia|olives|dried tomatoes|sundried|artichokes|capsicums|chilli oil crisp|soil|oil blend tuna|lip|nail|cuticle|skin|sunscreen|tanning|shave|shaving|oilatum|wood|furniture|gun|sewing|machine|dog|cat|pet)\b/,
    variants: [v('extra virgin olive', /\bextra virgin\b/), v('olive', /\bolive\b/), v('canola', /\bcanola\b/), v('sunflower', /\bsunflower\b/), v('rice bran', /\brice bran\b/), v('vegetable', /\b(vegetable|vege)\b/),
      v('avocado', /\bavocado\b/), v('coconut', /\bcoconut\b/), v('sesame', /\bsesame\b/), v('peanut', /\bpeanut\b/), v('grapeseed', /\bgrapeseed\b/)], defaultVariant: 'other' },
  // Breads and baked goods.
  { slug: 'garlic-bread', label: 'Garlic and savoury breads', compareUnit: 'each', pattern: /\b(naan|garlic bread|buffet rolls|pullapart|pull apart|roti|paratha|focaccia|foccacia|cheese and bacon rolls|pinwheels?|scrolls savoury|savoury scrolls)\b/,
    exclude: /\b(chips|crackers|crisps|mix|seasoning|curry)\b/ },
  { slug: 'wraps', label: 'Wraps and flatbreads', compareUnit: 'each', pattern: /\b(wraps|wrap|tortillas?|pita|pitta|flatbreads?|flat bread|mountain bread|lavash|taco shells|tostadas|turkish bread|turkish loaf|pita pockets|lebanese bread)\b/,
    exclude: /\b(chips|crisps|crackers|seasoning|kit|cling|plastic|foil|baking|paper|gift|beeswax|prepared meal|greek wrap|indian wrap|ready meal|sandwich|sushi|dinner kit|chicken|beef|falafel)\b/,
    variants: [v('taco shells', /\b(taco shells|tostadas)\b/), v('pita', /\b(pita|pitta|pita pockets|lebanese)\b/), v('turkish', /\bturkish\b/), v('low carb', /\b(low carb|keto|carb)\b/), v('wraps and tortillas', /./)] },
  { slug: 'bagels', label: 'Bagels', compareUnit: 'each', pattern: /\bbagels?\b/, exclude: /\b(chips|crisps|cream cheese|seasoning)\b/ },
  { slug: 'english-muffins', label: 'English muffins and crumpets', compareUnit: 'each', pattern: /\b(english muffins?|muffin splits|crumpets?|pikelets)\b/, exclude: /\bmix\b/,
    variants: [v('crumpets', /\bcrumpets?\b/), v('pikelets', /\bpikelets\b/), v('english muffins', /./)] },
  { slug: 'croissants', label: 'Croissants and pastries', compareUnit: 'each', pattern: /\b(croissants?|danish|danishs|pain au|pan au|scrolls?|cinnamon scroll|swirls?|turnover|chelsea bun|brioche swirls|strudel|eclairs?|cronut)\b/,
    exclude: /\b(pizza|ham and cheese pinwheel|savoury|ice cream|frozen dessert|biscuits?|cookies?|yogh?urt|cereal|chocolate block|swirls? vanilla creme$)\b/ },
  { slug: 'bread-rolls', label: 'Bread rolls and buns', compareUnit: 'each', pattern: /\b(bread rolls?|rolls|buns|bun|baps|sliders|ciabatta pocket|ciabatta rolls|dinner rolls|hot cross buns|hotdog rolls|hot dog rolls|sub rolls|brioche rolls|bread roll|mini sub|milk buns|finger buns)\b/,
    exclude: /\b(sausage rolls?|spring rolls?|cake roll|swiss roll|sushi|rice paper|paper rolls|toilet|towel|mini rolls chocolate|rolls chocolate|fruit rolls?|lolly|cabbage|egg rolls|dog rolls|cinnamon|chelsea|bao|steamed|kitchen|lamb|pork|beef|ham|chicken|custard|coconut bun|cream buns|iced|cabbage rolls|roll ups)\b/,
    variants: [v('burger buns', /\b(burger|sliders)\b/), v('hot dog rolls', /\b(hot ?dog|sub|long)\b/), v('hot cross buns', /\bhot cross\b/), v('dinner rolls', /./)] },
  { slug: 'fruit-bread', label: 'Fruit bread and banana bread', compareUnit: 'each', pattern: /\b(fruit bread|banana bread|raisin bread|fruit loaf|spicy fruit|date loaf|fruit toast|raisin toast|bread loaf spicy fruit|teacake)\b/, exclude: /\bmix\b/ },
  { slug: 'bread', label: 'Bread', compareUnit: 'kg',
    pattern: /\b(bread|loaf|toast bread|sandwich bread|sourdough|baguette|vienna|ciabatta|rye|multigrain|wholemeal loaf|super thick|sliced loaf|burgen|vogels|molenberg|freyas|ploughmans|tip top|nature s fresh|natures fresh|pane di casa|bakers selection|wheatmeal)\b/,
    exclude: /\b(garlic bread|bread crumbs|breadcrumbs|bread mix|mix|naan|pita|flatbread|turkish|roti|crackers|chips|crisps|croutons|bread and butter|ice cream|pudding|cereal|bars?|rolls|buns|bun|bagels|muffins|crumpets|pizza|pullapart|pinwheel|bread sticks|breadsticks|shortbread|gingerbread|corn bread|fruit bread|banana bread|fruit loaf|loaf cake|slices?|loaf slice|cake|flour|bread maker|bin|knife|board|dog|cat|wraps|tortillas?|english|croissants?|danish|focaccia|foccacia|rye crackers|crispbread|toast topper|melba|french toast|yeast|rusks)\b/,
    variants: [v('gluten free', /\b(gluten free|gluten freedom|free from gluten)\b/), v('low carb', /\b(low carb|keto|lower carb|carb)\b/), v('sourdough', /\bsourdough\b/),
      v('wholemeal', /\b(wholemeal|wheatmeal|wholegrain|whole grain)\b/), v('grain', /\b(grain|grains|seed|seeds|seeded|linseed|multigrain|rye|oat|oatilicious|barley|soy)\b/), v('white', /\b(white|sandwich|toast|super soft|super thick)\b/)], defaultVariant: 'other' },
  { slug: 'muffins', label: 'Muffins', compareUnit: 'each', pattern: /\bmuffins?\b|\bmuffin bars?\b/, exclude: /\b(english|splits|mix|tray|pan|cases|liners)\b/ },
  { slug: 'donuts', label: 'Donuts', compareUnit: 'each', pattern: /\b(donuts?|doughnuts?)\b/, exclude: /\b(mix|biscuits?|cereal|ice cream)\b/ },
  { slug: 'cake', label: 'Cakes', compareUnit: 'kg',
    pattern: /\b(cakes?|cupcakes?|brownies?|brownie|lamingtons?|slices?|sponge|sponges|tarts?|mud cake|cake log|cake roll|mini rolls|swiss roll|friands?|scones?|waffles|pancakes|crepes|macarons|loaf slice|slice bar|rocky road|goofy bar|cake bars|kisses|battenbergs?|cheesecake)\b/,
    exclude: /\b(rice cakes?|corn cakes?|fish cakes?|potato cakes?|crab cakes?|cake mix|mix|pancake mix|oat cakes|oatcakes|cake decorations?|pan|tin|stand|frozen dessert|ice cream|yogh?urt|cheese slices|slices cheese|ham|salami|pork|beef|chicken|pineapple|peaches|pears|apple slices|cucumber|bread|mushrooms|tomato|tomatoes|potatoes|smoked salmon|luncheon|onion|lemon slices|sliced|fruit slices|jelly|baby|dog|cat|pizza|shortbread|biscuits?|cookies?|chocolate block|chocolate bar|muesli|protein|oaty slices|nut|energy|nutrition bar|clif)\b/,
    variants: [v('carrot', /\bcarrot\b/), v('cupcakes', /\bcupcakes?\b/), v('brownies', /\bbrownies?\b/), v('slices', /\b(slices?|slice bar|rocky road|lamingtons?|goofy bar|cake bars)\b/), v('pancakes and waffles', /\b(waffles|pancakes|crepes)\b/), v('scones', /\bscones?\b/),
      v('tarts', /\btarts?\b/)], defaultVariant: 'other' },
  // Drinks.
  { slug: 'kombucha', label: 'Kombucha', compareUnit: 'l', pattern: /\bkombucha\b/ },
  { slug: 'iced-tea', label: 'Iced tea', compareUnit: 'l', pattern: /\b(ice tea|iced tea)\b/, exclude: /\b(syrup|sodastream|powder|bags)\b/ },
  { slug: 'energy-drink', label: 'Energy drinks', compareUnit: 'l', pattern: /\benergy (drinks?|shots?)\b|\bred bull\b|\bv energy\b|\bmonster energy\b|\bmother energy\b|\bphoenix energy\b|\benergy\b.*\bdrink\b/,
    exclude: /\b(powder|bars?|balls|chocolate|gel|tablets)\b/, variants: [v('sugar free', /\b(sugar free|zero|no sugar|ultra|diet)\b/), v('regular', /./)] },
  { slug: 'sports-drink', label: 'Sports drinks', compareUnit: 'l', pattern: /\b(sports? drinks?|powerade|gatorade|electrolyte drink|hydration drink|isotonic)\b/, exclude: /\b(powder|tablets)\b/ },
  { slug: 'cordial', label: 'Cordial and fruit syrups', compareUnit: 'l', pattern: /\b(cordial|fruit syrup|drink concentrate|concentrate|sodastream syrup|soda syrup|syrup concentrate|drink mix|drink sachets|raro|vital zing|water drops|water enhancer)\b/,
    exclude: /\b(juice|sauce|tomato|coffee|dog|cat|laundry|fabric|softener|cleaner|washing|dishwash|concentrated|stock|tea)\b/ },
  { slug: 'soft-drink', label: 'Soft drinks', compareUnit: 'l',
    pattern: /\b(soft drinks?|cola|coke|pepsi|lemonade|ginger beer|ginger ale|tonic|tonic water|soda water|mixers?|drink mixers|sodaly|creaming soda|root beer|l and p|sprite|fanta|7 ?up|mountain dew|schweppes|sparkling soda|sodas?|lemon lime and bitters|lemon lime bitters|kiwi soda|cream soda|dr pepper|sarsaparilla|sparkling drink|fizzy)\b/,
    exclude: /\b(lemonade (apples?|fruit)|apples? lemonade|yummy lemonade|cola lollies|cola bottles|sweets|lollies|syrup|sodastream syrup|ice blocks?|ice cream|frozen dessert|chips|cake|gin|vodka|rum|whisky|whiskey|bourbon|beer|vodka|cider|wine|brandy|tequila|alcohol|baking soda|soda crystals|soda bread|bicarbonate|caustic|washing soda|jelly)\b/,
    variants: [v('no sugar', /\b(zero|diet|no sugar|sugar free|max|light|lite|low sugar|zero sugar)\b/), v('regular', /./)] },
  { slug: 'coconut-water', label: 'Coconut water', compareUnit: 'l', pattern: /\bcoconut water\b/ },
  { slug: 'water', label: 'Water', compareUnit: 'l', pattern: /\bwater\b/,
    exclude: /\b(crackers?|in spring water|in water|springwater|rose water|orange blossom|tonic water|soda water|coconut water|water chestnuts?|watermelon|micellar|toilet|wipes|bottle empty|bottles? only|filter|jug|cleaner|fabric|softener|dog|cat|bowl|cups?|water crackers|fish|tuna|sardines|salmon|chicken|beans|chickpeas|in brine|pumpkin|spinach|baby wipes|shampoo|conditioner|perfume|eau|cologne|face|facial|hot water|drops|enhancer|vital zing|pistols?|balloon|colours|paint|proof|resistant|vapour|wet|cress|watercress|chestnut|pump|dispenser)\b/,
    variants: [v('flavoured', /\b(flavoured|lemon|lime|berry|peach|apple|grapefruit|feijoa|pineapple|passionfruit|cucumber|mint|strawberry|raspberry|orange|mango|citrus|watermelon|ginger|tangelo|kiwi|yuzu|elderflower|twist|infused|herbal)\b/), v('sparkling', /\b(sparkling|soda|carbonated|mineral)\b/), v('still', /./)] },
  { slug: 'juice', label: 'Juice', compareUnit: 'l', pattern: /\bjuices?\b|\bnectar\b|\bsmoothies?\b|\bfruit drinks?\b|\bjuice drink\b/,
    exclude: /\b(in (natural |clear )?juice|lemon juice|lime juice|squeezed lemon|juice squeezed|meat juice|tomato juice|vegetable juice|v8|juice bubbles soft drink|soft drink|energy drink|jelly|ice blocks?|ice cream|lollies|sweets|frozen dessert|puree|concentrate cordial|yogh?urt|baby|months|dog|cat|cider|beer|wine|vodka|gin|sauce|bars?|chews)\b/,
    variants: [v('smoothie', /\bsmoothies?\b/), v('fruit drink', /\b(fruit drinks?|juice drink)\b/), v('orange', /\borange\b/), v('apple', /\bapple\b/)], defaultVariant: 'other' },
  { slug: 'cooking-juice', label: 'Lemon and lime juice', compareUnit: 'l', pattern: /\b(lemon|lime) juice\b|\bjuice (lemon|lime)\b/, exclude: /\b(soft drink|lemonade|fruit drink|cordial|smoothie|ginger)\b/ },
  { slug: 'coffee', label: 'Coffee', compareUnit: 'kg',
    pattern: /\bcoffee\b|\bespresso\b|\bnespresso\b|\bplunger\b|\bcappuccino\b|\bflat white\b|\blatte sachets\b|\bcoffee mix\b|\bnescafe\b|\bmoccona\b|\bdecaf\b/,
    exclude: /\b(iced|syrup|ice cream|frozen dessert|chocolate|choc|biscuits?|cookies?|liqueur|kahlua|mug|cups?|filters?|machine|grinder|coffee table|scrub|milk|shake|yogh?urt|flavoured milk|cake|substitute|caramel sauce|protein|bars?)\b/,
    variants: [v('capsules', /\b(capsules|pods|nespresso|compatible|dolce gusto)\b/), v('instant', /\b(instant|freeze dried|granules|powder|powdered)\b/), v('sachets', /\b(sachets?|coffee mix|3 in 1|latte|cappuccino|mocha|mochaccino|flat white)\b/),
      v('beans', /\bbeans?\b/), v('ground', /\b(ground|plunger|filter|espresso grind|grind|drip)\b/)], defaultVariant: 'other' },
  { slug: 'drinking-chocolate', label: 'Drinking chocolate and malt drinks', compareUnit: 'kg', pattern: /\b(drinking chocolate|hot chocolate|milo|malted drink|chocolate drink|instant drink|nesquik|ovaltine|chocolate powder drink|cocoa drink|drink powder|flavouring powder)\b/,
    exclude: /\b(cake|ice cream|frozen dessert|bars?|biscuits?|cereal|ready to drink|milk drink|shake|liquid)\b/ },
  { slug: 'tea', label: 'Tea', compareUnit: 'each', pattern: /\btea\b|\bteas\b|\bchai\b|\brooibos\b|\bmatcha\b|\bearl grey\b|\binfusions?\b/,
    exclude: /\b(iced tea|ice tea|tea towels?|tea lights?|tea tree|teapot|tea cup|cups?|biscuits?|cake|teacake|kombucha|bubble tea|frozen dessert|ice cream|latte|chocolate|spiced chai latte|chai latte|syrup|sodastream|strainer|infuser)\b/,
    variants: [v('green', /\b(green|matcha)\b/), v('herbal', /\b(herbal|camomile|chamomile|peppermint|rooibos|infusions?|fruit tea|lemon and ginger|sleep|detox|immunity|digestion)\b/), v('chai', /\bchai\b/), v('black', /./)] },
  // Beer, wine and spirits.
  { slug: 'cider', label: 'Cider', compareUnit: 'l', pattern: /\bciders?\b/, exclude: /\b(vinegar|apple cider vinegar|cider vinegar)\b/, shelf: /(beer|wine|liquor|alcohol|cider|drinks)/ },
  { slug: 'beer', label: 'Beer', compareUnit: 'l', pattern: /\b(beers?|lager|ale|ales|ipa|pilsner|pils|stout|porter|pale|draught|brew|radler|hazy|sour ale|amber|bitter|apa|neipa|xpa|steinlager|heineken|corona|speights|lion red|tui|export gold|double brown|waikato draught|monteiths|emersons|garage project|panhead|parrotdog|macs|epic|behemoth|peroni|asahi|stella artois|carlsberg|kingfisher|tiger|lion brown)\b/,
    exclude: /\b(ginger beer|root beer|beer battered|craft beer glazed|beer bread|mix|kit|malt extract|shampoo|vinegar|non alcoholic gin|soft drink)\b/, shelf: /(beer|wine|liquor|alcohol)/,
    variants: [v('zero alcohol', /\b(zero|0 0|alcohol free|non alcoholic|0 5|ultra low|lite)\b/), v('craft', /\b(ipa|hazy|pale ale|apa|xpa|neipa|stout|porter|sour|amber|garage project|panhead|parrotdog|emersons|behemoth|epic|monteiths|craft)\b/), v('lager', /./)] },
  { slug: 'wine', label: 'Wine', compareUnit: 'l',
    pattern: /\b(wines?|sauvignon blanc|sauvignon|pinot noir|pinot gris|pinot grigio|chardonnay|merlot|shiraz|syrah|cabernet|rose|riesling|prosecco|champagne|sparkling|malbec|tempranillo|gewurztraminer|moscato|muscat|sangiovese|grenache|zinfandel|brut|bubbles|methode|cuvee|blanc|rouge|port|sherry|gruner|albarino|viognier|montepulciano|chianti|rioja|bordeaux|red blend|white blend|lambrusco|semillon|marlborough|hawkes bay|central otago)\b/,
    exclude: /\b(vinegar|glass|glasses|gums|wine gums|vanilla wine|biscuits?|cooking wine|shaoxing|mirin|beer|cider|seltzer|rtd|premix|zero alcohol wine)\b/, shelf: /(beer|wine|liquor|alcohol)/,
    variants: [v('sparkling', /\b(sparkling|prosecco|champagne|brut|bubbles|methode|cuvee|moscato|lambrusco|spumante|cava)\b/), v('rose', /\brose\b/), v('fortified', /\b(port|sherry|muscat)\b/),
      v('red', /\b(pinot noir|merlot|shiraz|syrah|cabernet|malbec|tempranillo|sangiovese|grenache|zinfandel|red|rouge|montepulciano|chianti|rioja|bordeaux)\b/),
      v('white', /\b(sauvignon|pinot gris|pinot grigio|chardonnay|riesling|gewurztraminer|white|blanc|gruner|albarino|viognier|semillon)\b/)], defaultVariant: 'other' },
  { slug: 'spirits-rtd', label: 'Premixed drinks', compareUnit: 'l', pattern: /\b(rtd|premix|seltzer|vodka|gin|rum|bourbon|whisky|whiskey|cruiser|woodstock|long white|codys|billy mav|nitro|scotch|tequila|brandy|liqueur|smirnoff|jim beam|jack daniels|canadian club|cody s|pals|haagen|ready to drink|alcoholic|soju|hard)\b/,
    exclude: /\b(tonic water|mixers?|sauce|glaze|cake|chocolate|non alcoholic|alcohol free|mocktail|0 0)\b/, shelf: /(beer|wine|liquor|alcohol)/ },
  // Frozen vegetables, chips and fruit before fresh.
  { slug: 'frozen-chips', label: 'Frozen chips and wedges', compareUnit: 'kg', pattern: /\b(fries|chips|wedges|hash browns?|potato gems|gems|potato (bites|cakes|rosti)|rosti|hash bites|crispy potatoes|roast potatoes|kumara (fries|chips|wedges))\b/,
    shelf: /^frozen/, exclude: /\b(chocolate|ice cream|cookies?)\b/, variants: [v('wedges', /\bwedges\b/), v('hash browns', /\b(hash|rosti|gems|bites|cakes)\b/), v('kumara', /\bkumara\b/), v('chips', /./)] },
  { slug: 'frozen-fruit', label: 'Frozen fruit', compareUnit: 'kg',
    pattern: /\b(berries|berry|blueberries|raspberries|strawberries|boysenberries|blackberries|cherries|mango|mangoes|pineapple|banana|bananas|acai|fruit|smoothie mix|peaches|avocado|feijoas?|passionfruit)\b/,
    shelf: /^frozen/, exclude: /\b(ice cream|frozen dessert|ice blocks?|sorbet|yogh?urt|pie|pies|cake|cheesecake|crumble|tart|pastry|drink|juice|smoothie frozen dessert|gelato|popsicle|ice confection|chocolate)\b/,
    variants: [v('berries', /\b(berries|berry|blueberries|raspberries|strawberries|boysenberries|blackberries|cherries)\b/), v('tropical', /\b(mango|mangoes|pineapple|banana|bananas|tropical|passionfruit)\b/)], defaultVariant: 'other' },
  { slug: 'frozen-vegetables', label: 'Frozen vegetables', compareUnit: 'kg',
    pattern: /\b(frozen|steam fresh|peas corn|mixed vegetables|seasoned sides|peas|corn|beans|broccoli|cauliflower|spinach|carrots|vegetables?|vege|veges|veggies|stir fry|edamame|brussels|sprouts|kumara|pumpkin|capsicum|onions?|cob|cobs|stir fry mix|coleslaw mix|rice cauliflower|cauli rice|asparagus|silverbeet|kale|mushrooms|courgette|zucchini|baby corn|sweetcorn)\b/,
    shelf: /^frozen/,
    exclude: /\b(ice cream|frozen dessert|pie|pies|pizza|chips|fries|wedges|meal|ready meal|dumplings|spring rolls|samosas|pastry|nuggets|fish|chicken|beef|pork|lamb|prawns|berries|fruit|cheesecake|cake|bread|garlic bread|sausage|burger|patties|hash|rosti|gems|lasagne|bake|soup|noodles|rice|fried rice|risotto|curry|quiche|pasta|popcorn|corn dogs|corn chips|falafel|bites)\b/,
    variants: [v('mixed', /\b(mixed|medley|stir fry|vege mix|sides|vegetables|veges|veggies|and|peas corn)\b/), v('peas', /\bpeas\b/), v('corn', /\b(corn|cob|cobs|sweetcorn)\b/),
      v('carrots', /\bcarrots?\b/), v('spinach', /\bspinach\b/), v('broccoli', /\bbroccoli\b/), v('beans', /\bbeans\b/)], defaultVariant: 'other' },
  // Prepared salads, then fresh produce (refused on pantry, frozen, bakery and chilled shelves unless the name says fresh).
  { slug: 'salad-kit', label: 'Prepared salads and slaws', compareUnit: 'kg', pattern: /\b(salad kit|slaw|coleslaw|ranchslaw|salad caesar|caesar salad|chopped salad|salad crispy|potato salad|pasta salad|salad mexican|saladjar|salad mediterranean|fresh salad loaded|rice salad|salad california|salad moroccan|tabouli|tabbouleh|deli fresh salad)\b|\bsalad\b.*\bkit\b/,
    exclude: /\b(dressing$|mix frozen|dressing bottle)\b/ },
  { slug: 'salad-mix', label: 'Salad leaves', compareUnit: 'kg', pattern: /\b(mixed salad|salad mix|mesclun|rocket|baby leaf|salad leaves|salad greens|mixed leaves|salad medley|mixed medley|salad blend|shredded lettuce|salad bowl)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('baby spinach', /\bspinach\b/), v('rocket', /\brocket\b/), v('mesclun', /\bmesclun\b/)], defaultVariant: 'mixed' },
  { slug: 'fresh-herbs', label: 'Fresh herbs', compareUnit: 'each', pattern: /\bfresh herbs?\b|\bsuperb herb\b|\blime leaves\b|\bliving plant\b|\b(basil|coriander|mint|parsley|rosemary|thyme|sage|dill|chives|lemongrass) (bunch|fresh|bag|living)\b|\bgarlic chives\b/, fresh: true,
    exclude: /\b(crushed|paste|dried|flakes|ground|sauce|pesto|tea|dip)\b/ },
  { slug: 'sprouts', label: 'Sprouts and microgreens', compareUnit: 'kg', pattern: /\b(sprouts|microgreens|pea shoots|alfalfa|bean sprouts|snow pea sprouts|sprout)\b/, fresh: true, exclude: /\b(brussels?|brussel)\b/ },
  { slug: 'spring-onions', label: 'Spring onions', compareUnit: 'each', pattern: /\bspring onions?\b/, fresh: true },
  { slug: 'onions', label: 'Onions', compareUnit: 'kg', pattern: /\bonions?\b/, fresh: true, exclude: PROCESSED,
    variants: [v('red', /\bred\b/), v('pickling', /\bpickling\b/), v('baby', /\bbaby\b/), v('sweet', /\b(sweet|tearless)\b/), v('brown', /./)] },
  { slug: 'shallots', label: 'Shallots', compareUnit: 'kg', pattern: /\bshallots?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'leeks', label: 'Leeks', compareUnit: 'each', pattern: /\bleeks?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'garlic', label: 'Garlic', compareUnit: 'kg', pattern: /\bgarlic\b/, fresh: true, exclude: /\b(shoots|herb|chives)\b|\bpie\b|\bsauce\b|\bbread\b|\bsalt\b|\bcroutons\b|\bmushrooms\b|\bcrushed\b/,
    variants: [v('peeled', /\bpeeled\b/), v('bulbs', /./)] },
  { slug: 'ginger', label: 'Ginger', compareUnit: 'kg', pattern: /\bginger\b/, fresh: true, exclude: /\b(crushed|pickled|sushi|spiced|juice)\b/ },
  { slug: 'carrots', label: 'Carrots', compareUnit: 'kg', pattern: /\bcarrots?\b/, fresh: true,
    exclude: /\b(cake|soup|hummus|dip|honey|balls|ready meal|apple|pickled|cheese|sauce|snack balls|beetroot|snack pot)\b/,
    variants: [v('baby', /\b(baby|petite|snacking|bites?|carrots? bunch|bunch carrots?)\b/), v('prepared', /\b(shredded|batons|grated|sticks)\b/)] },
  { slug: 'beetroot', label: 'Beetroot', compareUnit: 'kg', pattern: /\bbeetroot\b/, fresh: true, exclude: PROCESSED,
    variants: [v('prepared', /\b(shredded|grated|pure n ezy|cooked)\b/)] },
  { slug: 'parsnips', label: 'Parsnips', compareUnit: 'kg', pattern: /\bparsnips?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'swedes', label: 'Swedes', compareUnit: 'kg', pattern: /\bswedes?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'yams', label: 'Yams', compareUnit: 'kg', pattern: /\byams?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'taro', label: 'Taro', compareUnit: 'kg', pattern: /\btaro\b/, fresh: true, exclude: PROCESSED },
  { slug: 'radishes', label: 'Radishes', compareUnit: 'each', pattern: /\b(radish(es)?|daikon)\b/, fresh: true, exclude: PROCESSED },
  { slug: 'kumara', label: 'Kumara', compareUnit: 'kg', pattern: /\b(kumara|sweet potato(es)?)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('red', /\bred\b/), v('gold', /\bgold\b/), v('orange', /\borange\b/), v('purple', /\bpurple\b/)], defaultVariant: 'mixed' },
  { slug: 'potatoes', label: 'Potatoes', compareUnit: 'kg', pattern: /\bpotato(es)?\b/, fresh: true,
    exclude: /\b(sweet potato|chips|crisps|wedges|mash|salad|soup|gems|hash)\b/, variants: [v('baby', /\b(baby|perlas|gourmet|piccolos?|medley)\b/), v('washed', /./)] },
  { slug: 'tomatoes', label: 'Tomatoes', compareUnit: 'kg', pattern: /\btomato(es)?\b/, fresh: true, exclude: PROCESSED,
    variants: [v('cherry', /\b(cherry|jelly bean|mini mix|strawberry|baby|cocktail|campari)\b/), v('truss', /\b(truss|vine)\b/), v('roma', /\bromano?\b|\broma\b/), v('loose', /./)] },
  { slug: 'celery', label: 'Celery', compareUnit: 'each', pattern: /\bcelery\b/, fresh: true, exclude: PROCESSED,
    variants: [v('half', /\bhalf\b/), v('sticks', /\bsticks\b/), v('whole', /./)] },
  { slug: 'courgettes', label: 'Courgettes', compareUnit: 'kg', pattern: /\b(courgettes?|zucchini)\b/, fresh: true, exclude: PROCESSED },
  { slug: 'cucumbers', label: 'Cucumbers', compareUnit: 'each', pattern: /\bcucumbers?\b/, fresh: true, exclude: PROCESSED,
    variants: [v('lebanese', /\b(lebanese|snack)\b/), v('telegraph', /./)] },
  { slug: 'broccoli', label: 'Broccoli', compareUnit: 'each', pattern: /\b(broccoli|broccolini)\b/, fresh: true, exclude: PROCESSED, variants: [v('broccolini', /\bbroccolini\b/), v('head', /./)] },
  { slug: 'cauliflower', label: 'Cauliflower', compareUnit: 'each', pattern: /\bcauliflower\b/, fresh: true, exclude: PROCESSED, variants: [v('half', /\bhalf\b/), v('whole', /./)] },
  { slug: 'cabbage', label: 'Cabbage', compareUnit: 'each', pattern: /\b(cabbage|wong bok|bok choy|pak choy|pak choi|bok choi)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('asian greens', /\b(wong bok|bok choy|pak choy|pak choi|bok choi)\b/), v('half', /\bhalf\b/), v('whole', /./)] },
  { slug: 'lettuce', label: 'Lettuce', compareUnit: 'each', pattern: /\blettuces?\b/, fresh: true, exclude: PROCESSED,
    variants: [v('iceberg', /\biceberg\b/), v('cos', /\bcos\b/), v('mixed', /\b(trio|twin|mixed)\b/)], defaultVariant: 'other' },
  { slug: 'spinach', label: 'Spinach and leafy greens', compareUnit: 'kg', pattern: /\b(spinach|silverbeet|kale|watercress|chard)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('baby spinach', /\bbaby\b.*\bspinach\b/), v('spinach', /\bspinach\b/), v('silverbeet', /\bsilverbeet\b/), v('kale', /\bkale\b/)], defaultVariant: 'other' },
  { slug: 'capsicums', label: 'Capsicums', compareUnit: 'each', pattern: /\b(capsicums?|peppers sweet|sweet mini peppers|bell peppers?)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('mini', /\b(mini|snack|pointed)\b/), v('red', /\bred\b/), v('green', /\bgreen\b/), v('yellow', /\byellow\b/), v('orange', /\borange\b/)], defaultVariant: 'mixed' },
  { slug: 'chillies', label: 'Chillies', compareUnit: 'each', pattern: /\b(chillies|chilli|chili|jalapeno)\b/, fresh: true, exclude: /\b(crushed|paste|sauce|flakes|powder|dried|pickled)\b/ },
  { slug: 'mushrooms', label: 'Mushrooms', compareUnit: 'kg', pattern: /\bmushrooms?\b/, fresh: true, exclude: /\b(soup|sauce|pie|risotto|dried|canned|pickled)\b/,
    variants: [v('portobello', /\b(portobello|portabello|flats?)\b/), v('swiss brown', /\bswiss brown\b/), v('sliced', /\bsliced\b/), v('specialty', /\b(enoki|shiitake|oyster|king|shimeji)\b/), v('button', /./)] },
  { slug: 'pumpkin', label: 'Pumpkin and squash', compareUnit: 'kg', pattern: /\b(pumpkin|squash|butternut)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('butternut', /\bbutternut\b/), v('prepared', /\b(pieces|diced|cut|quarter|half)\b/), v('whole', /./)] },
  { slug: 'sweetcorn', label: 'Sweetcorn', compareUnit: 'each', pattern: /\b(sweetcorn|sweet corn|corn cobs?|corn on the cob)\b/, fresh: true, exclude: PROCESSED },
  { slug: 'beans-fresh', label: 'Green beans and peas', compareUnit: 'kg', pattern: /\b(beans green|green beans|runner beans|snow peas|sugar snap|butter beans fresh|edamame|peas fresh|asparagus)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('asparagus', /\basparagus\b/), v('peas', /\b(snow peas|sugar snap|peas)\b/), v('beans', /./)] },
  { slug: 'other-vegetables', label: 'Other vegetables', compareUnit: 'each', pattern: /\b(eggplants?|aubergines?|fennel|brussels? sprouts|rhubarb|artichokes?|okra|bitter melon|kohlrabi|celeriac|turnips?|yams?|jerusalem|horseradish|vege mix|stir fry vege|vegetable mix)\b/, fresh: true, exclude: PROCESSED },
  { slug: 'avocados', label: 'Avocados', compareUnit: 'each', pattern: /\bavocados?\b/, fresh: true, exclude: /\b(spread|dip|oil|guacamole|smashed|sushi|toast)\b/ },
  { slug: 'apples', label: 'Apples', compareUnit: 'kg', pattern: /\bapples?\b/, fresh: true, exclude: /\b(juice|sauce|pie|cake|chips|dried|snack pot|sticks|puree|cider|carrot)\b/,
    variants: [v('royal gala', /\b(royal gala|gala)\b/), v('braeburn', /\bbraeburn\b/), v('granny smith', /\bgranny smith\b/), v('jazz', /\bjazz\b/), v('envy', /\benvy\b/), v('fuji', /\bfuji\b/),
      v('pink lady', /\b(pink lady|rose)\b/), v('snack size', /\b(kids|snackers|snack)\b/)], defaultVariant: 'other' },
  { slug: 'bananas', label: 'Bananas', compareUnit: 'kg', pattern: /\bbananas?\b/, fresh: true, exclude: PROCESSED,
    variants: [v('organic', /\b(organic|fair trade)\b/), v('snack', /\bsnack\b/), v('cooking', /\b(green|cooking)\b/), v('loose', /./)] },
  { slug: 'mandarins', label: 'Mandarins', compareUnit: 'kg', pattern: /\b(mandarins?|tangelos?|clementines?)\b/, fresh: true, exclude: PROCESSED },
  { slug: 'oranges', label: 'Oranges', compareUnit: 'kg', pattern: /\boranges?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'lemons', label: 'Lemons and limes', compareUnit: 'kg', pattern: /\b(lemons?|limes?|grapefruit)\b/, fresh: true, exclude: /\b(juice|squeezed|lemonade|curd|pepper|leaves|cordial|soda|spread)\b/,
    variants: [v('limes', /\blimes?\b/), v('grapefruit', /\bgrapefruit\b/), v('lemons', /./)] },
  { slug: 'kiwifruit', label: 'Kiwifruit', compareUnit: 'kg', pattern: /\bkiwifruit\b/, fresh: true, exclude: PROCESSED,
    variants: [v('gold', /\bgold\b/), v('red', /\bred\b/), v('green', /./)] },
  { slug: 'pears', label: 'Pears', compareUnit: 'kg', pattern: /\bpears?\b/, fresh: true, exclude: PROCESSED },
  { slug: 'grapes', label: 'Grapes', compareUnit: 'kg', pattern: /\bgrapes?\b/, fresh: true, exclude: /\b(juice|seed|dried)\b/ },
  { slug: 'berries', label: 'Berries', compareUnit: 'kg', pattern: /\b(blueberries|strawberries|raspberries|blackberries|boysenberries|berry strawberry|cherries)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('blueberries', /\bblueberries\b/), v('strawberries', /\bstrawberr/), v('raspberries', /\braspberries\b/), v('cherries', /\bcherries\b/)], defaultVariant: 'other' },
  { slug: 'stonefruit', label: 'Stonefruit', compareUnit: 'kg', pattern: /\b(nectarines?|peach(es)?|plums?|apricots?)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('nectarines', /\bnectarines?\b/), v('peaches', /\bpeach(es)?\b/), v('plums', /\bplums?\b/), v('apricots', /\bapricots?\b/)] },
  { slug: 'melons', label: 'Melons', compareUnit: 'each', pattern: /\b(watermelon|rockmelon|honeydew|melon)\b/, fresh: true, exclude: PROCESSED,
    variants: [v('prepared', /\b(cut|fingers|pieces|mix)\b/), v('watermelon', /\bwatermelon\b/), v('rockmelon', /\brockmelon\b/), v('honeydew', /\bhoneydew\b/)], defaultVariant: 'other' },
  { slug: 'tropical-fruit', label: 'Pineapples and tropical fruit', compareUnit: 'each', pattern: /\b(pineapples?|mangoes|mango|paw paw|papaya|dragon fruit|passionfruit|coconut|lychees|persimmons?|tamarillos?|feijoas?|figs|pomegranates?)\b/, fresh: true,
    exclude: /\b(juice|dried|canned|in juice|snack pot|water|milk|cream|oil|sugar|flour|yogh?urt|desiccated|threaded|flakes)\b/,
    variants: [v('prepared', /\b(cut|pieces|fingers)\b/), v('pineapple', /\bpineapples?\b/), v('mango', /\bmangoe?s?\b/)], defaultVariant: 'other' },
  { slug: 'cut-fruit', label: 'Cut fruit and snack pots', compareUnit: 'kg', pattern: /\bfresh fruit cut\b|\bsnack pots?\b|\bcut seasonal\b|\bfruit salad fresh\b/, fresh: true },
];

/**
 * Lower case, accents and punctuation removed, "&" read as "and", single spaces ("Wattie's Chopped
 * Tomatoes in Purée" → "watties chopped tomatoes in puree"; "pasta & sauce" → "pasta and sauce").
 */
export function kindText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/&/g, ' and ')
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
    if (k.shelf && !k.shelf.test(shelf)) continue;
    if (!k.otherShelves && OTHER_SHELF.test(shelf)) continue;
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
