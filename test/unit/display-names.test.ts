/**
 * The shopper-facing name rule (src/domain/display-names.ts): a product is called brand + name +
 * size with the brand's own casing, and no casing is invented where the data has none.
 */
import { describe, expect, it } from 'vitest';
import { isCased, nameSize, productDisplayName, splitLeadingWords, withoutLeadingWords, type NameSource } from '../../src/domain/display-names.js';

let next = 1;
const l = (retailer: string, name: string, brand: string | null, sizeText: string | null, extra: Partial<NameSource> = {}): NameSource => ({
  id: next++, retailer, name, brand, sizeText, ...extra,
});

describe('productDisplayName', () => {
  it('names a Weet-Bix cereal by its brand, never the bare "Cereal"', () => {
    expect(productDisplayName([l('woolworths', 'sanitarium weet-bix cereal', 'sanitarium weet-bix', '1.2kg')])).toBe('Weet-Bix Cereal 1.2kg');
    // A longer brand field that begins with a curated brand: its further words stay in the name.
    expect(productDisplayName([l('woolworths', 'sanitarium weet-bix bites cereal wildberry', 'sanitarium weet-bix bites', '500g')])).toBe(
      'Weet-Bix Bites Cereal Wildberry 500g',
    );
    expect(productDisplayName([l('woolworths', 'sanitarium up & go protein breakfast drink vanilla', 'sanitarium up & go protein', '12pack')])).toBe(
      'Up&Go Protein Breakfast Drink Vanilla 12pack',
    );
  });

  it('keeps the punctuation of the shop name after the brand words ("&", commas)', () => {
    expect(productDisplayName([l('woolworths', 'watties crushed & sieved tomatoes', 'watties', '400g')])).toBe("Wattie's Crushed & Sieved Tomatoes 400g");
    expect(productDisplayName([l('woolworths', 'macro lsa mix linseed, sunflower & almond', 'macro', '250g')])).toBe('Macro Lsa Mix Linseed, Sunflower & Almond 250g');
  });

  it('keeps a brand known only in lower case as the shop writes it, and title-cases only the product words', () => {
    expect(productDisplayName([l('woolworths', 'l & p soft drink lemon & paeroa', 'l & p', '1.5L')])).toBe('l & p Soft Drink Lemon & Paeroa 1.5L');
    expect(productDisplayName([l('woolworths', 'ecostore dishwash liquid lemon', 'ecostore', '500mL')])).toBe('ecostore Dishwash Liquid Lemon 500mL');
    // Beside another chain's cased name that leaves the brand out: that name, after the brand.
    expect(productDisplayName([l('woolworths', 'impossible plant based mince beef', 'impossible', '340g'), l('paknsave', 'Plant Based Beef Mince', null, '340g')])).toBe(
      'impossible Plant Based Beef Mince 340g',
    );
  });

  it('keeps a cased shop name as written and puts the cased brand in front when it is missing', () => {
    const ww = l('woolworths', 'silver fern farms honest beef burgers with smoky caramelized onion', 'silver fern farms honest', '500g');
    const pns = l('paknsave', 'Honest Beef Burgers With Smokey Caramelised Onion', null, '500g');
    expect(productDisplayName([ww, pns])).toBe('Silver Fern Farms Honest Beef Burgers With Smokey Caramelised Onion 500g');
    // Already beginning with the brand: not repeated.
    expect(productDisplayName([l('newworld', 'Pams Finest Chocolate Biscuits', null, '200g'), l('paknsave', 'Chocolate Biscuits', null, '200g')])).toBe(
      'Pams Finest Chocolate Biscuits 200g',
    );
    // A brand field in a shop's own casing (a Foodstuffs collector's) counts as known casing.
    expect(productDisplayName([l('newworld', 'Soft Drink Lemon & Paeroa', 'L&P', '1.5L'), l('woolworths', 'l & p soft drink lemon & paeroa', 'l & p', '1.5L')])).toBe(
      'L&P Soft Drink Lemon & Paeroa 1.5L',
    );
    // No brand at all: the cased name alone.
    expect(productDisplayName([l('paknsave', 'Leeks', null, 'ea')])).toBe('Leeks');
  });

  it('names unbranded produce by what it is, without the produce label or a per-kg size', () => {
    expect(productDisplayName([l('woolworths', 'fresh fruit bananas yellow loose', 'fresh fruit', 'per kg', { weighable: true })])).toBe('Bananas Yellow Loose');
    expect(productDisplayName([l('woolworths', 'fresh fruit bananas snack pack', 'fresh fruit', '6pack')])).toBe('Bananas Snack Pack 6pack');
    expect(productDisplayName([l('woolworths', 'fresh vegetable parsnip', 'fresh vegetable', 'per kg', { weighable: true }), l('paknsave', 'Parsnips', null, 'kg')])).toBe('Parsnips');
  });

  it('reads the brand off a brand-first name without a brand field, and takes the product size when given', () => {
    expect(productDisplayName([l('woolworths', 'woolworths nz beef mince grass fed 5% fat', null, '500g')])).toBe('Woolworths Beef Mince Grass Fed 5% Fat 500g');
    expect(productDisplayName([l('woolworths', 'watties baked beans', 'watties', '420g')], new Set(), { sizeText: '4 x 420g' })).toBe(
      "Wattie's Baked Beans 4 x 420g",
    );
    expect(productDisplayName([l('woolworths', 'watties baked beans', 'watties', '420g')], new Set(), { sizeText: null })).toBe("Wattie's Baked Beans");
  });

  it('leaves placeholders out while a listing has a name, and keeps the shop name when nothing is known', () => {
    const placeholder = l('woolworths', 'Woolworths item 123', null, null);
    const named = l('woolworths', 'anchor butter salted', 'anchor', '500g');
    expect(productDisplayName([placeholder, named], new Set([placeholder.id]))).toBe('Anchor Butter Salted 500g');
    expect(productDisplayName([placeholder], new Set([placeholder.id]))).toBe('Woolworths item 123');
    expect(productDisplayName([l('woolworths', 'mystery thing', null, null)])).toBe('mystery thing');
    expect(() => productDisplayName([])).toThrow();
  });

  it('does not repeat a size the name already ends with', () => {
    expect(productDisplayName([l('paknsave', 'Coke Zero 1.5l', null, '1.5L')])).toBe('Coke Zero 1.5l');
  });
});

describe('nameSize', () => {
  it('keeps pack sizes as printed and drops price bases and single items', () => {
    expect(nameSize('500g')).toBe('500g');
    expect(nameSize('4 x  250mL')).toBe('4 x 250mL');
    expect(nameSize('6pack')).toBe('6pack');
    for (const s of ['per kg', 'kg', '1ea', 'ea', '1pack', 'min order 600g', '', null, undefined]) expect(nameSize(s), String(s)).toBeNull();
    expect(nameSize('1kg', true)).toBeNull();
  });
});

describe('splitLeadingWords, withoutLeadingWords and isCased', () => {
  it('takes whole leading words off by their normalised spelling', () => {
    expect(splitLeadingWords('l & p soft drink', ['l p'])).toEqual({ lead: 'l & p', rest: 'soft drink' });
    expect(withoutLeadingWords('sanitarium weet-bix cereal', ['sanitarium weetbix', 'weetbix'])).toBe('cereal');
    expect(withoutLeadingWords('l & p soft drink', ['l p'])).toBe('soft drink');
    expect(withoutLeadingWords("wattie's baked beans", ['watties'])).toBe('baked beans');
    expect(withoutLeadingWords('watties', ['watties'])).toBeNull();
    expect(withoutLeadingWords('solomon beans', ['solo'])).toBeNull();
  });
  it('calls a name cased when it has capitals and is not all capitals', () => {
    expect(isCased('Crushed & Sieved Tomatoes')).toBe(true);
    expect(isCased('crushed & sieved tomatoes')).toBe(false);
    expect(isCased('PAMS PEAS')).toBe(false);
  });
});
