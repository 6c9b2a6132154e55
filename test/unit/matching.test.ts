/**
 * Pure matching code: GTIN normalisation, name normalisation, brand extraction, pair scoring,
 * calibration, proposals, grouping, product assignment and attributes (src/domain/matching.ts,
 * src/domain/brands.ts). Names are real catalogue names (Woolworths lowercase with the brand
 * first, Foodstuffs Title Case without it) unless a test says otherwise.
 */
import { describe, expect, it } from 'vitest';
import {
  ambiguityFactor,
  assignProducts,
  brandAgreement,
  calibrate,
  CALIBRATION,
  DEFAULT_THRESHOLD,
  extractBrand,
  groupLinks,
  isPlaceholderName,
  listingFeatures,
  matchListings,
  nameSimilarity,
  nameTokens,
  normalizeGtin,
  gtinProblem,
  gtinKey,
  priceAgreement,
  productAttributes,
  proposeLinks,
  scorePair,
  singular,
  sizeAgreement,
  sizeKey,
  titleCase,
  type MatchGroup,
  type MatchListing,
  type ProductSource,
} from '../../src/domain/matching.js';
import { brandAncestors, brandOwnerSlug, brandPrefix, isPseudoBrand, lookupBrand, normalizeBrandText, soldBy } from '../../src/domain/brands.js';

let nextId = 1;
function listing(retailer: string, name: string, sizeText: string | null, extra: Partial<MatchListing> = {}): MatchListing {
  const id = extra.id ?? nextId++;
  return { id, retailer, externalId: extra.externalId ?? `X${id}`, name, brand: null, sizeText, gtin: null, weighable: false, price: null, ...extra };
}
const features = (l: MatchListing) => listingFeatures(l);

describe('gtinProblem', () => {
  it('says why a barcode is not a usable GTIN', () => {
    expect(gtinProblem('9414742352296')).toBeNull();
    expect(gtinProblem('9414742352297')).toBe('check-digit');
    expect(gtinProblem('0267175000000')).toBe('restricted'); // in-store code for weighed produce
    expect(gtinProblem('2112345678900')).toBe('restricted');
    expect(gtinProblem('2112345678907')).toBe('check-digit');
    expect(gtinProblem('n/a')).toBe('format');
    expect(gtinProblem('')).toBe('format');
    expect(gtinProblem('123456789012345')).toBe('format');
    expect(gtinProblem(null)).toBe('format');
  });
});

describe('normalizeGtin', () => {
  it('treats GTIN-8/12/13/14 with or without leading zeros as one code', () => {
    const g = '09414742351053';
    expect(normalizeGtin('9414742351053')).toBe(g);
    expect(normalizeGtin('09414742351053')).toBe(g);
    expect(normalizeGtin(9414742351053n)).toBe(g);
    expect(normalizeGtin(9414742351053)).toBe(g);
    // A UPC-A (GTIN-12) stored as a bigint loses its leading zero: still the same code.
    expect(normalizeGtin('096704000453')).toBe(normalizeGtin(96704000453n));
    // GTIN-8 (EAN-8) 96385074 has a valid check digit.
    expect(normalizeGtin('96385074')).toBe('00000096385074');
  });
  it('rejects wrong check digits, non-digits and short codes', () => {
    expect(normalizeGtin('9414742351054')).toBeNull();
    expect(normalizeGtin('94147423510x3')).toBeNull();
    expect(normalizeGtin('123456')).toBeNull();
    expect(normalizeGtin('')).toBeNull();
    expect(normalizeGtin(null)).toBeNull();
  });
  it('rejects GS1 restricted-circulation numbers (in-store codes)', () => {
    // 13-digit prefix 2 (weighed goods), valid check digits.
    expect(normalizeGtin('2000000000008')).toBeNull();
    // UPC number system 2 and 4 (13-digit forms 02..., 04...).
    expect(normalizeGtin('020000000004')).toBeNull();
    expect(normalizeGtin('040000000002')).toBeNull();
  });
});

describe('name normalisation', () => {
  it('singularises symmetrically and leaves numbers and -ss/-us words alone', () => {
    expect(['tomatoes', 'onions', 'berries', 'glass', 'hummus', '500'].map(singular)).toEqual(['tomato', 'onion', 'berry', 'glass', 'hummus', '500']);
  });
  it('drops stop words and the Woolworths produce phrases, unifies spellings, merges "no 5"', () => {
    expect([...nameTokens('Honest Beef Burgers With Smokey Caramelised Onion').keys()]).toEqual(['honest', 'beef', 'burger', 'smoky', 'caramelised', 'onion']);
    expect([...nameTokens('honest beef burgers with smoky caramelized onion').keys()]).toEqual(['honest', 'beef', 'burger', 'smoky', 'caramelised', 'onion']);
    expect([...nameTokens('fresh vegetable carrots snacking').keys()]).toEqual(['carrot', 'snacking']);
    expect(nameTokens('pasta spaghetti no. 5').get('no5')).toBe(2);
    expect(nameTokens('Spaghetti No 5 Pasta').get('no5')).toBe(2);
  });
  it('weighs numbers up and packaging and category words down', () => {
    const t = nameTokens('nz beef mince grass fed 5% fat jar');
    expect(t.get('5%')).toBe(2);
    expect(t.get('jar')).toBeLessThan(0.5);
    expect(t.get('nz')).toBeLessThan(0.5);
    expect(t.get('beef')).toBe(1);
  });
  it('compares names regardless of word order', () => {
    expect(nameSimilarity(nameTokens('pasta spaghetti no. 5'), nameTokens('Spaghetti No 5 Pasta'))).toBe(1);
    expect(nameSimilarity(nameTokens('garlic crushed'), nameTokens('Crushed Garlic'))).toBe(1);
    expect(nameSimilarity(nameTokens('carrots'), nameTokens('Brown Onions'))).toBe(0);
    const partial = nameSimilarity(nameTokens('pub style onion rings'), nameTokens('Pub Style Crispy Onion Rings'));
    expect(partial).toBeGreaterThan(0.8);
    expect(partial).toBeLessThan(1);
  });
  it('recognises ingest placeholder names', () => {
    expect(isPlaceholderName('Woolworths item 42246', 'Woolworths', '42246')).toBe(true);
    expect(isPlaceholderName('woolworths nz beef mince', 'Woolworths', '42246')).toBe(false);
  });
});

describe('brands', () => {
  it('looks brands up by any spelling and knows owners and parents', () => {
    expect(lookupBrand("Wattie's")?.key).toBe('watties');
    expect(lookupBrand('WATTIES')?.name).toBe("Wattie's");
    expect(lookupBrand('Pams')?.owner).toBe('foodstuffs');
    expect(lookupBrand('essentials')?.owner).toBe('woolworths');
    expect(lookupBrand('San Remo')?.owner).toBeNull();
    expect(brandAncestors(lookupBrand('steam fresh')!)).toEqual(['steam fresh', 'watties']);
    expect(normalizeBrandText('Up&Go')).toBe('up go');
    expect(isPseudoBrand('Fresh Vegetable')).toBe(true);
    expect(isPseudoBrand('Anchor')).toBe(false);
  });
  it('reads the longest brand off the start of a name, common words only for brand-first chains', () => {
    expect(brandPrefix('macro organic pasta spaghetti')?.brand.key).toBe('macro');
    expect(brandPrefix('macro organic pasta spaghetti')?.words).toBe(2);
    expect(brandPrefix('san remo pasta spaghetti no 5')?.brand.key).toBe('san remo');
    expect(brandPrefix('solomon islands tuna')).toBeNull();
    expect(brandPrefix('value pack beef mince', true)?.brand.key).toBe('value');
    expect(brandPrefix('value pack beef mince', false)).toBeNull();
    expect(brandPrefix('watties')).toBeNull(); // a name is never all brand
  });
  it('says which chains may sell a house brand and which chain owns it', () => {
    const pams = lookupBrand('pams')!;
    expect(soldBy(pams, 'paknsave')).toBe(true);
    expect(soldBy(pams, 'woolworths')).toBe(false);
    expect(soldBy(lookupBrand('watties')!, 'woolworths')).toBe(true);
    expect(brandOwnerSlug(pams, ['woolworths', 'newworld', 'paknsave'])).toBe('newworld');
    expect(brandOwnerSlug(pams, [])).toBe('paknsave');
    expect(brandOwnerSlug(lookupBrand('watties')!, ['woolworths'])).toBeNull();
  });
});

describe('extractBrand', () => {
  it('reads Woolworths brand-first names', () => {
    expect(extractBrand('watties chopped tomatoes in juice', null, true)).toMatchObject({ key: 'watties', rest: 'watties chopped tomatoes in juice'.slice(8), source: 'name' });
    expect(extractBrand("wattie's steam fresh frozen mixed vegetables", null, true).brand?.key).toBe('steam fresh');
    expect(extractBrand('woolworths essentials beef mince value', null, true).brand?.key).toBe('essentials');
  });
  it('uses the brand field, and treats produce words there as unbranded produce', () => {
    expect(extractBrand('fresh fruit bananas yellow loose', 'fresh fruit', true)).toMatchObject({ brand: null, key: null, generic: true, rest: 'bananas yellow loose' });
    expect(extractBrand('woolworths fresh salad baby spinach', 'woolworths', true)).toMatchObject({ key: 'woolworths', rest: 'fresh salad baby spinach' });
    expect(extractBrand('Some Crackers', 'Unheard Of Co', false)).toMatchObject({ brand: null, key: 'unheard of co', source: 'field' });
  });
  it('finds distinctive brands in Foodstuffs names and leaves the rest unknown', () => {
    expect(extractBrand('Beta Bites Snacking Carrots', null, false).brand?.key).toBe('beta bite');
    expect(extractBrand('Chopped Tomatoes in Juice', null, false)).toMatchObject({ brand: null, key: null, generic: false });
  });
});

describe('pair scoring', () => {
  const ww = (name: string, size: string | null, extra: Partial<MatchListing> = {}) => features(listing('woolworths', name, size, extra));
  const pns = (name: string, size: string | null, extra: Partial<MatchListing> = {}) => features(listing('paknsave', name, size, extra));
  const nw = (name: string, size: string | null, extra: Partial<MatchListing> = {}) => features(listing('newworld', name, size, extra));

  it('rejects house brands outside their group and differing brands; accepts sub-brands', () => {
    expect(brandAgreement(ww('essentials pasta spaghetti', '500g'), pns('Spaghetti Pasta', '500g')).value).toBe(0);
    expect(brandAgreement(nw('Pams Spaghetti', '500g'), ww('spaghetti', '500g')).value).toBe(0);
    expect(brandAgreement(ww('barilla pasta spaghetti no. 5', '500g'), ww('san remo pasta spaghetti no. 5', '500g')).value).toBe(0);
    expect(brandAgreement(ww("wattie's steam fresh corn", '320g'), pns('Steam Fresh Corn', '320g')).value).toBe(1);
    expect(brandAgreement(ww('watties peas', '500g'), pns('Steam Fresh Peas', '500g')).value).toBe(1);
    expect(brandAgreement(ww('watties crushed & sieved tomatoes', '400g'), pns('Crushed & Sieved Tomatoes', '400g')).value).toBe(0.85);
    expect(brandAgreement(pns('Beef Mince', '340g'), nw('Beef Mince', '340g')).value).toBe(0.9);
    expect(brandAgreement(ww('fresh fruit bananas', null, { brand: 'fresh fruit' }), ww('fresh fruit bananas', null, { brand: 'fresh fruit' })).value).toBe(1);
  });
  it('compares sizes and pack counts (parsed by parseSize)', () => {
    expect(sizeAgreement(pns('A', '400g'), nw('A', '0.4kg')).value).toBe(1);
    expect(sizeAgreement(pns('A', '4 x 100g'), nw('A', '400g')).value).toBe(0.85);
    expect(sizeAgreement(pns('A', '400g'), nw('A', '500g')).value).toBe(0);
    expect(sizeAgreement(pns('A', '1kg', { externalId: '5039965-KGM-000' }), nw('A', 'kg')).value).toBe(1);
    expect(sizeAgreement(ww('a', '1kg'), nw('A', 'kg')).value).toBe(0.7);
    expect(sizeAgreement(ww('a', null), nw('A', '400g')).value).toBe(0.7);
    expect(sizeAgreement(ww('a', '2 pack'), nw('A', '320g')).value).toBe(0.6);
    expect(sizeKey(pns('A', '1kg', { externalId: '5039965-KGM-000' }))).toBe('g:1000');
    expect(sizeKey(pns('A', '6 x 330ml'))).toBe('ml:1980');
    expect(sizeKey(pns('A', null))).toBe('?');
  });
  it('lowers confidence for prices far apart, only when sizes agree', () => {
    const same = { value: 1, reason: '' };
    expect(priceAgreement(ww('a', '400g', { price: 159 }), pns('A', '400g', { price: 189 }), same).value).toBe(1);
    expect(priceAgreement(ww('a', '400g', { price: 100 }), pns('A', '400g', { price: 225 }), same).value).toBeCloseTo(0.65, 5);
    expect(priceAgreement(ww('a', '400g', { price: 100 }), pns('A', '400g', { price: 900 }), same).value).toBe(0.3);
    expect(priceAgreement(ww('a', '400g', { price: 100 }), pns('A', '400g', { price: 900 }), { value: 0.7, reason: '' }).value).toBe(1);
    expect(priceAgreement(ww('a', '400g', { price: null }), pns('A', '400g', { price: 900 }), same).value).toBe(1);
  });
  it('scores a real cross-chain pair high and a different item low', () => {
    const a = ww('silver fern farms honest beef burgers with smoky caramelized onion', '500g', { price: 1190 });
    const b = pns('Honest Beef Burgers With Smokey Caramelised Onion', '500g', { price: 1449 });
    const c = pns('Honest Beef Burgers With A Touch Of Horopito Pepper', '500g', { price: 1449 });
    expect(scorePair(a, b).raw).toBeCloseTo(0.85, 5);
    expect(scorePair(a, c).raw).toBeLessThan(0.5);
    expect(scorePair(a, pns('Honest Beef Burgers With Smokey Caramelised Onion', '1kg')).raw).toBe(0);
  });
  it('calibrates into [0, 1], monotonically, with ties at a coin toss', () => {
    expect(calibrate(0)).toBe(0);
    const xs = [0.1, 0.3, 0.5, 0.7, 0.9, 1].map((x) => calibrate(x));
    for (let i = 1; i < xs.length; i++) expect(xs[i]).toBeGreaterThan(xs[i - 1]);
    for (const x of xs) expect(x > 0 && x < 1).toBe(true);
    expect(calibrate(1, { A: 1, B: 0 })).toBeCloseTo(1 / (1 + Math.exp(-1)), 10);
    expect(ambiguityFactor(0.8, 0)).toBe(1);
    expect(ambiguityFactor(0.8, 0.8)).toBe(0.5);
    expect(ambiguityFactor(0, 0)).toBe(0);
    expect(DEFAULT_THRESHOLD).toBeGreaterThan(0);
    expect(DEFAULT_THRESHOLD).toBeLessThan(1);
    expect(CALIBRATION.A).toBeGreaterThan(0);
  });
});

describe('proposeLinks', () => {
  it('links one GTIN across chains and within a chain, at confidence 1', () => {
    const a = listing('woolworths', 'fresh vegetable carrots', '1kg', { gtin: 9414742351053n });
    const b = listing('newworld', 'Carrots Bag', '1kg', { gtin: '09414742351053' });
    const c = listing('woolworths', 'carrots prepacked', '1kg', { gtin: '9414742351053' });
    const bad = listing('paknsave', 'Carrots', '1kg', { gtin: '9414742351054' }); // wrong check digit
    const edges = proposeLinks([a, b, c, bad].map(features)).filter((e) => e.method === 'gtin');
    expect(edges.map((e) => [e.a, e.b, e.confidence])).toEqual([[a.id, b.id, 1], [a.id, c.id, 1]]);
  });
  it('links a shared Foodstuffs product id only when the names agree, never a name slug', () => {
    const p = listing('paknsave', 'Beef Mince & Cheese Pie', '200g', { externalId: '5349244-EA-000' });
    const n = listing('newworld', 'Beef Mince & Cheese Pie', '200g', { externalId: '5349244-EA-000' });
    const odd = listing('newworld', 'Dishwasher Tablets', '200g', { externalId: '5349245-EA-000' });
    const oddP = listing('paknsave', 'Carrot Cake', '200g', { externalId: '5349245-EA-000' });
    const slugP = listing('paknsave', 'Carrots', 'kg', { externalId: 'carrots-kg' });
    const slugN = listing('newworld', 'Carrots', 'kg', { externalId: 'carrots-kg' });
    const edges = proposeLinks([p, n, odd, oddP, slugP, slugN].map(features)).filter((e) => e.method === 'retailer_id');
    expect(edges).toHaveLength(1);
    expect(edges[0]).toMatchObject({ a: p.id, b: n.id, confidence: 0.99, detail: { shared_id: 'foodstuffs:5349244-EA-000' } });
  });
  it('proposes name links between mutual best candidates of different chains only', () => {
    const w = listing('woolworths', 'masterfoods garlic & herb salt blend', '62g', { price: 389 });
    const p = listing('paknsave', 'Garlic & Herb Salt Blend', '62g', { price: 349 });
    const p2 = listing('paknsave', 'Garlic & Herb Salt Blend', '200g', { price: 799 });
    const w2 = listing('woolworths', 'masterfoods garlic & herb salt blend', '62g', { price: 389 });
    const edges = proposeLinks([w, p, p2, w2].map(features));
    expect(edges.every((e) => e.method === 'name')).toBe(true);
    expect(edges).toHaveLength(1); // w and w2 tie for p: one mutual pair, ambiguity halves it
    expect(edges[0]).toMatchObject({ a: w.id, b: p.id });
    expect(Number(edges[0].detail.ambiguity)).toBe(0.5);
    const alone = proposeLinks([w, p, p2].map(features));
    expect(alone[0].confidence).toBeGreaterThan(edges[0].confidence);
    expect(alone[0].confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
  });
  it('is deterministic whatever the input order', () => {
    const ls = [
      listing('woolworths', 'watties crushed & sieved tomatoes', '400g', { price: 159 }),
      listing('paknsave', 'Crushed & Sieved Tomatoes', '400g', { price: 189 }),
      listing('newworld', 'Crushed & Sieved Tomatoes', '400g', { price: 199 }),
      listing('paknsave', 'Chopped Tomatoes', '400g', { price: 159 }),
      listing('paknsave', 'Chopped Tomatoes', '400g', { price: 267 }),
      listing('woolworths', 'mutti chopped tomatoes finely', '400g', { price: 200 }),
    ];
    const fs = ls.map(features);
    expect(proposeLinks([...fs].reverse())).toEqual(proposeLinks(fs));
  });
});

describe('groupLinks', () => {
  const edge = (a: number, b: number, confidence: number, method: 'name' | 'gtin' = 'name') => ({ a, b, method, confidence, detail: {} });
  const l1 = listing('woolworths', 'watties baked beans', '420g');
  const l2 = listing('paknsave', 'Baked Beans', '420g');
  const l3 = listing('newworld', 'Baked Beans', '420g');
  const l4 = listing('woolworths', 'heinz baked beans', '420g');
  const l5 = listing('paknsave', 'Baked Beans', '420g');
  const fs = [l1, l2, l3, l4, l5].map(features);

  it('respects the threshold and gives each member its strongest edge', () => {
    const groups = groupLinks(fs, [edge(l1.id, l2.id, 0.95), edge(l2.id, l3.id, 0.9), edge(l4.id, l5.id, 0.5)], { threshold: 0.8 });
    expect(groups.map((g) => g.listingIds)).toEqual([[l1.id, l2.id, l3.id]]);
    expect(groups[0].links.get(l2.id)?.confidence).toBe(0.95);
    expect(groups[0].links.get(l3.id)?.confidence).toBe(0.9);
  });
  it('never puts two listings of one chain in a group by name, nor two brands', () => {
    const groups = groupLinks(fs, [edge(l1.id, l2.id, 0.95), edge(l2.id, l4.id, 0.94), edge(l3.id, l4.id, 0.93)], { threshold: 0.8 });
    // l4 cannot join l1's group (same chain); l3 + l4 would bring Heinz next to Wattie's at l3's group? l3 is alone: allowed.
    expect(groups.map((g) => g.listingIds)).toEqual([[l1.id, l2.id], [l3.id, l4.id]]);
    const viaGtin = groupLinks(fs, [edge(l1.id, l4.id, 1, 'gtin')], { threshold: 0.8 });
    expect(viaGtin.map((g) => g.listingIds)).toEqual([[l1.id, l4.id]]);
  });
  it('keeps curators\' locks: unlinked stays out, one product stays one group, two products never merge', () => {
    const edges = [edge(l1.id, l2.id, 0.95), edge(l2.id, l3.id, 0.9)];
    const unlinked = groupLinks(fs, edges, { threshold: 0.8, locks: new Map([[l2.id, null]]) });
    expect(unlinked).toEqual([]);
    const pinned = groupLinks(fs, edges, { threshold: 0.8, locks: new Map([[l5.id, 77], [l4.id, 77]]) });
    expect(pinned.find((g) => g.lockedProductId === 77)?.listingIds).toEqual([l4.id, l5.id]);
    const apart = groupLinks(fs, edges, { threshold: 0.8, locks: new Map([[l1.id, 1], [l3.id, 2]]) });
    const g1 = apart.find((g) => g.lockedProductId === 1)!;
    const g2 = apart.find((g) => g.lockedProductId === 2)!;
    expect(g1.listingIds).toContain(l2.id);
    expect(g2.listingIds).toEqual([l3.id]);
    expect(g1.links.has(l1.id)).toBe(false); // locked members keep their own link
  });
  it('matchListings runs both steps with the default threshold', () => {
    const w = listing('woolworths', 'somerset farms carrot shredded', '300g', { price: 380 });
    const p = listing('paknsave', 'Shredded Carrots', '300g', { price: 379 });
    const { edges, groups } = matchListings([w, p].map(features));
    expect(edges).toHaveLength(1);
    expect(groups.map((g) => g.listingIds)).toEqual([[w.id, p.id]]);
  });
});

describe('assignProducts', () => {
  const group = (ids: number[], locked: number | null = null): MatchGroup => ({ listingIds: ids, lockedProductId: locked, links: new Map() });
  it('reuses the product most listings already have, never for two groups, and keeps locked ones', () => {
    const groups = [group([1, 2, 3]), group([4, 5]), group([6, 7]), group([8], 9)];
    const current = new Map<number, number | null>([[1, 10], [2, 10], [3, 11], [4, 10], [5, null], [6, 9], [7, null]]);
    expect(assignProducts(groups, current)).toEqual([10, null, null, 9]);
  });
  it('gives a product to the group holding more of its listings', () => {
    const groups = [group([1, 2]), group([3, 4, 5])];
    const current = new Map<number, number | null>([[1, 10], [3, 10], [4, 10], [5, 11]]);
    expect(assignProducts(groups, current)).toEqual([null, 10]);
  });
});

describe('productAttributes', () => {
  const src = (l: MatchListing, image: string | null = null): ProductSource => ({ ...l, image });
  // The name is not among them: its one rule is productDisplayName (test/integration/display-names.test.ts).
  it('takes the curated brand, the size, the valid GTIN and an image', () => {
    const a = productAttributes([
      src(listing('woolworths', 'watties crushed & sieved tomatoes', '400g', { gtin: '9414742351053' })),
      src(listing('paknsave', 'Crushed & Sieved Tomatoes', '400g'), 'img/1.webp'),
    ]);
    expect(a).toEqual({ brand: "Wattie's", sizeText: '400g', gtin: '9414742351053', image: 'img/1.webp', brandOwner: null, brandParent: null });
  });
  it('fills owner and parent of house sub-brands', () => {
    const a = productAttributes([src(listing('woolworths', 'woolworths essentials beef mince value', '1kg'))]);
    expect(a).toMatchObject({ brand: 'Essentials', brandOwner: 'woolworths', brandParent: 'Woolworths' });
    const pams = productAttributes([src(listing('newworld', 'Pams Finest Chocolate Biscuits', '200g')), src(listing('paknsave', 'Chocolate Biscuits', '200g'))]);
    expect(pams).toMatchObject({ brand: 'Pams Finest', brandOwner: 'newworld', brandParent: 'Pams' });
    expect(titleCase('nz beef mince in juice')).toBe('NZ Beef Mince in Juice');
    expect(() => productAttributes([])).toThrow();
  });
});

describe('gtinKey', () => {
  it('is the stored form: digits as a number, the forms of one code equal', () => {
    expect(gtinKey('9414742352296')).toBe(9414742352296);
    expect(gtinKey('09414742352296')).toBe(9414742352296);
    expect(gtinKey(' 9414-742 352296 ')).toBe(9414742352296);
    expect(gtinKey('')).toBeNull();
    expect(gtinKey('000')).toBeNull();
    expect(gtinKey('123456789012345')).toBeNull();
  });
});
